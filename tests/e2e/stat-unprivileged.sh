#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# As an ordinary user at perf_event_paranoid 2 (Debian's and the kernel's
# default): counting one's own command works, system-wide counting is
# refused with advice that names perf_event_paranoid.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root to become nobody and set perf_event_paranoid"
command -v setpriv >/dev/null || fail "setpriv (util-linux) is needed"

paranoid=/proc/sys/kernel/perf_event_paranoid
old=$(cat "$paranoid")
restore() {
	echo "$old" >"$paranoid" || true
	e2e_cleanup
}
trap restore EXIT
echo 2 >"$paranoid" || fail "cannot set $paranoid"

# nobody must reach the binaries: copy them where it can.
dir=$E2E_TMP/nobody
mkdir -m 755 "$dir"
chmod 755 "$E2E_TMP"
cp "$HPMON" "$dir/hpmon"
cp "$WORKLOADS/pages" "$WORKLOADS/exitcode" "$dir/"
chmod 755 "$dir"/*
as_nobody() {
	HPM_STATUS=0
	(cd "$dir" && timeout -k 5 "$E2E_TIMEOUT" setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@") \
		>"$E2E_TMP/out" 2>"$E2E_TMP/err" </dev/null || HPM_STATUS=$?
}
as_nobody id -u
expect_eq "uid" "$(id -u nobody)" "$(cat "$E2E_TMP/out")"

# Its own command: counted (perf counts user space only at paranoid 2 and
# names the events task-clock:u; either is fine).
as_nobody "$dir/hpmon" stat -x, -e task-clock,page-faults -- "$dir/pages" 100
expect_eq "exit status of hpmon stat as nobody" 0 "$HPM_STATUS"
expect_in "task-clock (msec) as nobody" 0.001 1000 \
	"$(csv "$E2E_TMP/err" , "num(ev('task-clock', 'task-clock:u')[0][0])")"
expect_in "page-faults as nobody" 100 100000 \
	"$(csv "$E2E_TMP/err" , "num(ev('page-faults', 'page-faults:u')[0][0])")"
as_nobody "$dir/hpmon" stat -e task-clock -- "$dir/exitcode" 7
expect_eq "exit status passes through as nobody" 7 "$HPM_STATUS"

# System-wide: refused, with advice.
as_nobody "$dir/hpmon" stat -a -e cpu-clock -- true
[ "$HPM_STATUS" -ne 0 ] || fail "-a as nobody at paranoid 2 succeeded"
expect_grep "advice for -a" 'perf_event_paranoid' "$E2E_TMP/err"
as_nobody "$dir/hpmon" stat -a -C 0 -A -x, -e cpu-clock -- true
[ "$HPM_STATUS" -ne 0 ] || fail "-a -C 0 as nobody at paranoid 2 succeeded"
expect_grep "advice for -a -C 0" 'perf_event_paranoid' "$E2E_TMP/err"

# Another user's process: refused too (not ptrace-able).
bg sleep 5
as_nobody "$dir/hpmon" stat -e task-clock -p "$BG_PID"
[ "$HPM_STATUS" -ne 0 ] || fail "-p of root's process as nobody succeeded"
expect_grep "advice for -p of root's process" "permission denied: you may count only processes you could ptrace" "$E2E_TMP/err"
echo "PASS: $E2E_NAME"
