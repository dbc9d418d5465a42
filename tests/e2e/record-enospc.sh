# SPDX-License-Identifier: MIT
# record on a disk that fills while the command runs (a 64 KiB tmpfs):
# the profile keeps what was written and reads as incomplete; the command
# is never left behind: by default it runs to its end (its output and exit
# status pass through; exit 1 if it succeeded, since the profile did not),
# with --on-error=stop it and the processes it started get SIGTERM; either
# way hpmon waits, and no process of the command is left.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root to mount a small tmpfs"
small=$E2E_TMP/small
mkdir "$small"
mount -t tmpfs -o size=64k,mode=0700 hpmon-e2e "$small" 2>/dev/null ||
	skip "cannot mount a tmpfs here"
trap 'umount "$small" 2>/dev/null || umount -l "$small"; e2e_cleanup' EXIT

# the workload under a name of this run's own, to find any process left
work=$E2E_TMP/enospc-work-$$
cp "$WORKLOADS/ratio" "$work"
left() {
	sleep 0.2
	# (a zombie has no command line: -f does not match it)
	pgrep -a -f -- "$work" || true
}
# stack copies make the profile grow fast: the 64 KiB fill in a moment
rec=(record -e cpu-clock -c 100000 --call-graph dwarf,16384 -o "$small/p.prof")

# --- the default: the command runs on, unrecorded ---
hpm "${rec[@]}" -- sh -c "'$work' 200000000; echo done-out; exit 3"
expect_eq "the command's exit status passes through" 3 "$HPM_STATUS"
expect_grep "the command's output passes through" '^done-out$' "$E2E_TMP/out"
expect_grep "the failure is named" "recording stopped: No space left on device" "$E2E_TMP/err"
expect_grep "what happens to the command is said" "runs on to its end" "$E2E_TMP/err"
expect_grep "where the profile is is said" "holds what was written before the failure" "$E2E_TMP/err"
[ -z "$(left)" ] || fail "processes of the command left: $(left)"
hpm_ok report -i "$small/p.prof"
expect_grep "the profile reads, incomplete" "warning: the profile is incomplete" "$E2E_TMP/out"
expect_grep "with samples of the command" "work6" "$E2E_TMP/out"

# a command that succeeds: hpmon's failure is the exit status
rm -f "$small"/*
hpm "${rec[@]}" -- "$work" 200000000
expect_eq "exit 1 when the command succeeded but the profile did not" 1 "$HPM_STATUS"

# --- --on-error=stop: the command and its children end at once ---
rm -f "$small"/*
hpm "${rec[@]}" --on-error=stop -- sh -c "'$work' 100000000000; echo done-out"
[ "$HPM_STATUS" -ne 0 ] || fail "--on-error=stop exited 0"
expect_grep "stopping is said" "on-error=stop" "$E2E_TMP/err"
expect_no_grep "the command did not run on" 'done-out' "$E2E_TMP/out"
[ -z "$(left)" ] || fail "processes of the command left after --on-error=stop: $(left)"
hpm_ok report -i "$small/p.prof"
expect_grep "the profile reads, incomplete" "warning: the profile is incomplete" "$E2E_TMP/out"

hpm record --on-error=maybe -- true
expect_eq "a bad --on-error is a usage error" 129 "$HPM_STATUS"
