#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# As root, hpmon mounts tracefs when an event needs it and none is
# mounted, as perf does: a tracepoint and a uprobe work then. Checked in
# private mount namespaces where tracefs was unmounted, so the machine's
# own mount is never touched. Never with a sysfs root pointed elsewhere.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root: only root may mount tracefs"
command -v unshare >/dev/null || fail "unshare (util-linux) is needed"
mountpoint -q /sys/kernel/tracing || skip "tracefs is not mounted here: cannot tell whether this kernel has it"
unshare -m --propagation private true 2>/dev/null || skip "cannot make a mount namespace here"

# in_ns SCRIPT: run SCRIPT with bash in a private mount namespace without
# tracefs (nor debugfs, through which it could be reached); its stdout in
# $E2E_TMP/out, its stderr in $E2E_TMP/err, its status in HPM_STATUS.
in_ns() {
	HPM_STATUS=0
	HPMON=$HPMON WORKLOADS=$WORKLOADS timeout -k 5 "$E2E_TIMEOUT" \
		unshare -m --propagation private bash -c '
		set -e
		umount /sys/kernel/tracing
		! mountpoint -q /sys/kernel/debug || umount -l /sys/kernel/debug
		! mountpoint -q /sys/kernel/tracing || { echo "still mounted" >&2; exit 99; }
		'"$1" >"$E2E_TMP/out" 2>"$E2E_TMP/err" </dev/null || HPM_STATUS=$?
	[ "$HPM_STATUS" -ne 124 ] || fail "timed out after ${E2E_TIMEOUT}s: $1"
}

# A tracepoint: resolved and opened once tracefs is mounted, and the
# mount is there afterwards (in that namespace only).
in_ns '"$HPMON" stat -x, -e sched:sched_process_exit -- true
       mountpoint -q /sys/kernel/tracing && echo mounted'
[ "$HPM_STATUS" -eq 0 ] || fail "a tracepoint without tracefs mounted: exit $HPM_STATUS:
$(cat "$E2E_TMP/err")"
expect_grep "hpmon mounted tracefs" '^mounted$' "$E2E_TMP/out"
expect_grep "the tracepoint is counted" '^[0-9]+,,sched:sched_process_exit,' "$E2E_TMP/err"

# A uprobe: exact count.
in_ns '"$HPMON" stat -x, -e exec:hpm_work:uprobe -- "$WORKLOADS/calls" 7
       mountpoint -q /sys/kernel/tracing && echo mounted'
[ "$HPM_STATUS" -eq 0 ] || fail "a uprobe without tracefs mounted: exit $HPM_STATUS:
$(cat "$E2E_TMP/err")"
expect_grep "hpmon mounted tracefs for a uprobe" '^mounted$' "$E2E_TMP/out"
expect_eq "uprobe count" 7 "$(csv "$E2E_TMP/err" , "num(ev('exec:hpm_work:uprobe')[0][0])")"

# Events that need no tracefs do not mount it.
in_ns '"$HPMON" stat -x, -e task-clock -- true
       mountpoint -q /sys/kernel/tracing && echo mounted || echo not mounted'
[ "$HPM_STATUS" -eq 0 ] || fail "task-clock: exit $HPM_STATUS: $(cat "$E2E_TMP/err")"
expect_grep "no mount for task-clock" '^not mounted$' "$E2E_TMP/out"

# A sysfs root pointed elsewhere: no mount, and the tracepoint is unknown
# there (it is not this machine's sysfs).
in_ns 'HPMON_SYSFS_ROOT=/sys/. "$HPMON" stat -e sched:sched_process_exit -- true || echo "exit $?"
       mountpoint -q /sys/kernel/tracing && echo mounted || echo not mounted'
expect_grep "no mount with HPMON_SYSFS_ROOT" '^not mounted$' "$E2E_TMP/out"
expect_grep "refused with HPMON_SYSFS_ROOT" '^exit [1-9]' "$E2E_TMP/out"

# The machine's own tracefs is untouched.
mountpoint -q /sys/kernel/tracing || fail "the machine's tracefs is no longer mounted"
echo "PASS: $E2E_NAME"
