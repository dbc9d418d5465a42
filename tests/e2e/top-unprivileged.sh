#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Without the privilege system-wide counting needs (an ordinary user at
# perf_event_paranoid 2): `top -a` and `stat -a --per-process` refuse and
# say what is needed; `top` shows the user's own processes instead
# (--user), says so, and a spinning process of the user's is a row; no
# other user's process is.
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

dir=$E2E_TMP/nobody
mkdir -m 755 "$dir"
chmod 755 "$E2E_TMP"
cp "$HPMON" "$dir/hpmon"
cp "$WORKLOADS/sleeper" "$dir/"
chmod 755 "$dir"/*
as_nobody() {
	HPM_STATUS=0
	(cd "$dir" && timeout -k 5 "$E2E_TIMEOUT" setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@") \
		>"$E2E_TMP/out" 2>"$E2E_TMP/err" </dev/null || HPM_STATUS=$?
}
nobody=$(id -u nobody)

as_nobody "$dir/hpmon" top -a -b -n 1 -d 0.2
expect_eq "top -a as nobody" 1 "$HPM_STATUS"
expect_grep "top -a says what is needed" 'perf_event_paranoid <= 0 \(it is 2\).*CAP_PERFMON' "$E2E_TMP/err"
expect_grep "top -a points to --user" "hpmon top --user" "$E2E_TMP/err"

as_nobody "$dir/hpmon" stat -a --per-process -e task-clock -- true
expect_eq "stat -a --per-process as nobody" 1 "$HPM_STATUS"
expect_grep "stat -a --per-process says what is needed" 'perf_event_paranoid <= 0' "$E2E_TMP/err"

# top falls back to the user's own processes: a spinner of nobody's is a
# row with its CPU time, root's sleep is none.
setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$dir/sleeper" -s 8000 </dev/null &
spin=$!
E2E_BG_PIDS="${E2E_BG_PIDS:-} $spin"
bg sleep 8
is_nobodys() { [ "$(stat -c %U "/proc/$1" 2>/dev/null)" = nobody ]; }
wait_for "nobody's spinner" 5 is_nobodys "$spin"
as_nobody "$dir/hpmon" top -b -n 2 -d 0.3 --json -e task-clock,context-switches
expect_eq "top as nobody" 0 "$HPM_STATUS"
expect_grep "top says it shows your own processes" 'showing your own processes only \(--user\)' "$E2E_TMP/err"
expect_eq "--user: no unsampled switches to tell (null)" True \
	"$(json "$E2E_TMP/out" "all(f['unsampled_switches'] is None for f in js)")"
expect_eq "every row is nobody's" True "$(json "$E2E_TMP/out" "all(r['uid'] == $nobody for f in js for r in f['rows'])")"
# (at least some of it: on a busy machine a spinner gets what is left)
expect_in "the spinner's CPU time in the last frame (ms of 300)" 0.1 400 "$(json "$E2E_TMP/out" \
	"[event(r, 'task-clock')['count'] / 1e6 for r in j['rows'] if r['pid'] == $spin][0]")"
expect_eq "root's sleep is no row" 0 "$(json "$E2E_TMP/out" "sum(1 for f in js for r in f['rows'] if r['pid'] == $BG_PID)")"
as_nobody "$dir/hpmon" top --user --cgroup -b -n 1
expect_eq "--user --cgroup" 129 "$HPM_STATUS"
