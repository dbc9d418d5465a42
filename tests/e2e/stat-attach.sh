#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Attaching to what runs already: -p PID counts every thread of a process
# until it exits, --per-thread splits it per thread, -t TID counts only
# that thread.
. "$(dirname "$0")/lib.sh"

sleeper=$WORKLOADS/sleeper

# tid_of PID COMM: the thread of PID named COMM.
tid_of() {
	local t
	for t in /proc/"$1"/task/*; do
		if [ "$(cat "$t/comm" 2>/dev/null)" = "$2" ]; then
			basename "$t"
			return 0
		fi
	done
	return 1
}

# -p: the process touches 300 pages 400 ms after it starts, well after
# hpmon has attached, and exits at 800 ms; hpmon stops with it.
bg "$sleeper" -s -d 400 -p 300 800
pid=$BG_PID
hpm_ok stat -x, -e task-clock,page-faults -p "$pid"
wait "$pid" || fail "the sleeper failed"
pf=$(csv "$E2E_TMP/err" , "num(ev('page-faults')[0][0])")
expect_in "page-faults of -p PID" 300 $((300 + 64)) "$pf"
expect_in "task-clock (msec) of -p PID" 50 1000 \
	"$(csv "$E2E_TMP/err" , "num(ev('task-clock')[0][0])")"

# -p with --per-thread: the spinning thread has the time, the main thread
# (which only waits for it) next to none.
bg "$sleeper" -s -t 700
pid=$BG_PID
wait_for "the spinner thread" 5 tid_of "$pid" spinner >/dev/null
spin=$(tid_of "$pid" spinner)
hpm_ok stat --per-thread -x, -e task-clock -p "$pid"
cp "$E2E_TMP/err" "$E2E_TMP/pt.csv"
# Rows are labelled COMM-TID, as perf does.
row() { csv "$E2E_TMP/pt.csv" , "[r for r in ev('task-clock') if r[0].endswith('-$1')][0][$2]"; }
expect_in "task-clock (msec) of the spinner" 50 1000 "$(row "$spin" 1)"
expect_in "task-clock (msec) of the main thread" 0 50 "$(row "$pid" 1)"
expect_eq "label of the spinner" "spinner-$spin" "$(row "$spin" 0)"
expect_eq "label of the main thread" "sleeper-$pid" "$(row "$pid" 0)"
expect_eq "per-thread lines" 2 "$(grep -c ',task-clock,' "$E2E_TMP/pt.csv")"
wait "$pid"

# The same in JSON: a threads array with pid, tid and comm.
bg "$sleeper" -s -t 500
pid=$BG_PID
wait_for "the spinner thread" 5 tid_of "$pid" spinner >/dev/null
spin=$(tid_of "$pid" spinner)
hpm_ok stat --per-thread --json -o "$E2E_TMP/pt.json" -e task-clock -p "$pid"
wait "$pid"
expect_eq "JSON threads (tid, pid, comm)" "[($pid, $pid, 'sleeper'), ($spin, $pid, 'spinner')]" \
	"$(json "$E2E_TMP/pt.json" "sorted((t['tid'], t['pid'], t['comm']) for t in j['threads'])")"
expect_in "JSON task-clock raw count (ns) of the spinner" 50000000 1000000000 \
	"$(json "$E2E_TMP/pt.json" "[event(t, 'task-clock')['raw_count'] for t in j['threads'] if t['tid'] == $spin][0]")"

# --per-thread CSV layout is perf's.
if have_perf; then
	bg "$sleeper" -s -t 300
	wait_for "the spinner thread" 5 tid_of "$BG_PID" spinner >/dev/null
	perf stat --per-thread -x, -e task-clock -p "$BG_PID" 2>"$E2E_TMP/p-pt.csv"
	same_layout "--per-thread -x," "$E2E_TMP/pt.csv" "$E2E_TMP/p-pt.csv" , task-clock
fi

# -t TID: only that thread.
bg "$sleeper" -s -t 700
pid=$BG_PID
wait_for "the spinner thread" 5 tid_of "$pid" spinner >/dev/null
spin=$(tid_of "$pid" spinner)
hpm_ok stat -x, -e task-clock -t "$spin"
expect_in "task-clock (msec) of -t spinner" 50 1000 \
	"$(csv "$E2E_TMP/err" , "num(ev('task-clock')[0][0])")"
wait "$pid"
bg "$sleeper" -s -t 500
pid=$BG_PID
wait_for "the spinner thread" 5 tid_of "$pid" spinner >/dev/null
hpm_ok stat -x, -e task-clock -t "$pid"
expect_in "task-clock (msec) of -t main thread" 0 50 \
	"$(csv "$E2E_TMP/err" , "num(ev('task-clock')[0][0])")"
wait "$pid"

# A process that does not exist: an error that names it.
hpm stat -e task-clock -p 999999999
[ "$HPM_STATUS" -ne 0 ] || fail "-p of a missing process succeeded"
expect_grep "message for a missing process" '999999999' "$E2E_TMP/err"
echo "PASS: $E2E_NAME"
