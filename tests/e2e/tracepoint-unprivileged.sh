#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# An ordinary user and tracefs: a tracepoint it cannot look up is refused
# with the real reason and its fix, not as an "unknown event": tracefs
# open to root only (its default mode, 0700), or not mounted (only root
# may mount it). The same for a uprobe without tracefs. Not permitted is
# exit status 1, as for any event the user may not count, not 129 (a
# usage error: the specification may well be right). Before, such a
# tracepoint exited 129, and its message read "'sched:sched_switch' is no
# other event, and whether it is a tracepoint cannot be told".
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root to become nobody and to unmount tracefs in a namespace"
command -v setpriv >/dev/null || fail "setpriv (util-linux) is needed"
command -v unshare >/dev/null || fail "unshare (util-linux) is needed"
mountpoint -q /sys/kernel/tracing || skip "tracefs is not mounted here"

# nobody must reach the binaries: copy them where it can.
dir=$E2E_TMP/nobody
mkdir -m 755 "$dir"
chmod 755 "$E2E_TMP"
cp "$HPMON" "$WORKLOADS/calls" "$dir/"
chmod 755 "$dir"/*
nobody=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)

# as_nobody [--no-tracefs] ARGS...: hpmon ARGS as nobody; --no-tracefs in
# a private mount namespace where tracefs is not mounted.
as_nobody() {
	local pre=()
	if [ "$1" = --no-tracefs ]; then
		shift
		pre=(unshare -m --propagation private sh -c
			'umount /sys/kernel/tracing && exec "$@"' sh)
	fi
	HPM_STATUS=0
	(cd "$dir" && timeout -k 5 "$E2E_TIMEOUT" "${pre[@]}" "${nobody[@]}" "$dir/hpmon" "$@") \
		>"$E2E_TMP/out" 2>"$E2E_TMP/err" </dev/null || HPM_STATUS=$?
	[ "$HPM_STATUS" -ne 124 ] || fail "timed out: hpmon $*"
}

# tracefs closed to nobody
mode=$(stat -c %a /sys/kernel/tracing)
if [ "$mode" = 700 ]; then
	as_nobody stat -e sched:sched_switch -- true
	expect_eq "not permitted: the exit status" 1 "$HPM_STATUS"
	expect_grep "says tracefs is root-only" \
		"^hpmon stat: cannot tell whether 'sched:sched_switch' is a tracepoint: tracefs \(/sys/kernel/tracing\) is open to root only \(mode 0700\)\$" "$E2E_TMP/err"
	expect_no_grep "not a usage error" "hpmon stat --help" "$E2E_TMP/err"
	expect_grep "gives the fix" "run hpmon as root, or let a group use tracepoints: as root, 'mount -o remount,gid=GROUP,mode=750 /sys/kernel/tracing'" "$E2E_TMP/err"
	expect_no_grep "not an unknown event" "unknown event" "$E2E_TMP/err"
	# with modifiers too
	as_nobody stat -e sched:sched_switch:u -- true
	expect_eq "with a modifier: the exit status" 1 "$HPM_STATUS"
	expect_grep "with a modifier" "is open to root only" "$E2E_TMP/err"
else
	note "tracefs is mode $mode here, not root-only: its refusal is not checked"
fi

# tracefs not mounted
as_nobody --no-tracefs stat -e sched:sched_switch -- true
expect_eq "tracefs not mounted: the exit status" 1 "$HPM_STATUS"
expect_grep "says tracefs is not mounted" \
	"^hpmon stat: cannot tell whether 'sched:sched_switch' is a tracepoint: tracefs is not mounted, and only root may mount it\$" "$E2E_TMP/err"
expect_grep "gives the fix" "run hpmon as root, which mounts tracefs when it needs it, or as root: 'mount -t tracefs nodev /sys/kernel/tracing'" "$E2E_TMP/err"
expect_no_grep "not an unknown event" "unknown event" "$E2E_TMP/err"

as_nobody --no-tracefs stat -e exec:hpm_work:uprobe -- "$dir/calls" 3
[ "$HPM_STATUS" -ne 0 ] || fail "a uprobe as nobody without tracefs succeeded"
expect_grep "a uprobe without tracefs" "tracefs is not mounted, and only root may mount it \(hpmon run as root mounts it itself\): mount -t tracefs nodev /sys/kernel/tracing" "$E2E_TMP/err"

# A name of no event and not of a tracepoint's shape stays unknown.
as_nobody stat -e no_such_event -- true
expect_eq "an unknown event: a usage error" 129 "$HPM_STATUS"
expect_grep "an unknown event is still one" "unknown event 'no_such_event'" "$E2E_TMP/err"
echo "PASS: $E2E_NAME"
