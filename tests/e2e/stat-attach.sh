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

# The sleepers below wait (-w) until hpmon has attached before they start
# their plan, and spin in CPU time (-c): on a machine busy with other
# tests, starting hpmon can take longer than a sleeper's whole life, and a
# thread that spins for wall-clock time may get a fraction of a CPU.

# go_sleeper ARGS...: start `sleeper -w ARGS` in the background ($BG_PID),
# its stdout in $E2E_TMP/sleeper-PID
go_sleeper() {
	bg "$sleeper" -w "$@" >"$E2E_TMP/sleeper.out"
	mv "$E2E_TMP/sleeper.out" "$E2E_TMP/sleeper-$BG_PID"
}

# ready PID: the sleeper PID has blocked SIGUSR1 and waits for it
ready() {
	grep -qx ready "$E2E_TMP/sleeper-$1"
}

# attached TOP NAME: the NAME (hpmon, perf) under `timeout` TOP has opened
# its counters and waits in its loop
attached() {
	local h
	h=$(descendant "$1" "$2") || return 1
	find "/proc/$h/fd" -lname 'anon_inode:*perf_event*' 2>/dev/null | grep -q . &&
		[ "$(awk '{ print $3 }' "/proc/$h/stat" 2>/dev/null)" = S ]
}

# attach_go PID ERR CMD...: CMD (hpmon or perf, attaching to the waiting
# sleeper PID) in the background, its stderr in ERR and its stdout in
# $E2E_TMP/out; once it has attached, the sleeper starts; then wait for
# CMD, which ends with the sleeper, and for the sleeper.
attach_go() {
	local pid=$1 err=$2 top rc=0
	shift 2
	wait_for "sleeper $pid waiting" 10 ready "$pid"
	# (a background command reads /dev/null already)
	bg timeout -k 5 "$E2E_TIMEOUT" "$@" >"$E2E_TMP/out" 2>"$err"
	top=$BG_PID
	wait_for "$1 attached to $pid" 10 attached "$top" "$(basename "$1")"
	kill -USR1 "$pid"
	wait "$top" || rc=$?
	[ "$rc" -eq 0 ] || fail "$* exited $rc, stderr:
$(cat "$err")"
	wait "$pid" || fail "the sleeper failed"
}

# -p: the process touches 300 pages after 400 ms of CPU time and exits
# after 800 ms of it; hpmon stops with it.
go_sleeper -c -d 400 -p 300 800
pid=$BG_PID
attach_go "$pid" "$E2E_TMP/err" "$HPMON" stat -x, -e task-clock,page-faults -p "$pid"
pf=$(csv "$E2E_TMP/err" , "num(ev('page-faults')[0][0])")
expect_in "page-faults of -p PID" 300 $((300 + 64)) "$pf"
expect_in "task-clock (msec) of -p PID" 720 1000 \
	"$(csv "$E2E_TMP/err" , "num(ev('task-clock')[0][0])")"

# -p with --per-thread: the spinning thread has the time, the main thread
# (which only waits for it) next to none. (Lower bounds: the CPU time the
# spinner spins, less 10 % for task-clock being the scheduler's time of
# the event's context, not the thread's CPU clock itself.)
go_sleeper -c -t 300
pid=$BG_PID
wait_for "the spinner thread" 5 tid_of "$pid" spinner >/dev/null
spin=$(tid_of "$pid" spinner)
attach_go "$pid" "$E2E_TMP/err" "$HPMON" stat --per-thread -x, -e task-clock -p "$pid"
cp "$E2E_TMP/err" "$E2E_TMP/pt.csv"
# Rows are labelled COMM-TID, as perf does.
row() { csv "$E2E_TMP/pt.csv" , "[r for r in ev('task-clock') if r[0].endswith('-$1')][0][$2]"; }
expect_in "task-clock (msec) of the spinner" 270 1000 "$(row "$spin" 1)"
expect_in "task-clock (msec) of the main thread" 0 50 "$(row "$pid" 1)"
expect_eq "label of the spinner" "spinner-$spin" "$(row "$spin" 0)"
expect_eq "label of the main thread" "sleeper-$pid" "$(row "$pid" 0)"
expect_eq "per-thread lines" 2 "$(grep -c ',task-clock,' "$E2E_TMP/pt.csv")"

# The same in JSON: a threads array with pid, tid and comm.
go_sleeper -c -t 200
pid=$BG_PID
wait_for "the spinner thread" 5 tid_of "$pid" spinner >/dev/null
spin=$(tid_of "$pid" spinner)
attach_go "$pid" "$E2E_TMP/err" "$HPMON" stat --per-thread --json -o "$E2E_TMP/pt.json" -e task-clock -p "$pid"
expect_eq "JSON threads (tid, pid, comm)" "[($pid, $pid, 'sleeper'), ($spin, $pid, 'spinner')]" \
	"$(json "$E2E_TMP/pt.json" "sorted((t['tid'], t['pid'], t['comm']) for t in j['threads'])")"
expect_in "JSON task-clock raw count (ns) of the spinner" 180000000 1000000000 \
	"$(json "$E2E_TMP/pt.json" "[event(t, 'task-clock')['raw_count'] for t in j['threads'] if t['tid'] == $spin][0]")"

# --per-thread CSV layout is perf's.
if have_perf; then
	go_sleeper -c -t 100
	wait_for "the spinner thread" 5 tid_of "$BG_PID" spinner >/dev/null
	attach_go "$BG_PID" "$E2E_TMP/p-pt.csv" perf stat --per-thread -x, -e task-clock -p "$BG_PID"
	same_layout "--per-thread -x," "$E2E_TMP/pt.csv" "$E2E_TMP/p-pt.csv" , task-clock
fi

# -t TID: only that thread.
go_sleeper -c -t 300
pid=$BG_PID
wait_for "the spinner thread" 5 tid_of "$pid" spinner >/dev/null
spin=$(tid_of "$pid" spinner)
attach_go "$pid" "$E2E_TMP/err" "$HPMON" stat -x, -e task-clock -t "$spin"
expect_in "task-clock (msec) of -t spinner" 270 1000 \
	"$(csv "$E2E_TMP/err" , "num(ev('task-clock')[0][0])")"
go_sleeper -c -t 200
pid=$BG_PID
wait_for "the spinner thread" 5 tid_of "$pid" spinner >/dev/null
attach_go "$pid" "$E2E_TMP/err" "$HPMON" stat -x, -e task-clock -t "$pid"
expect_in "task-clock (msec) of -t main thread" 0 50 \
	"$(csv "$E2E_TMP/err" , "num(ev('task-clock')[0][0])")"

# The header says what was counted, as perf 6.1 does: the process (or
# thread, or CPUs) of -p, -t, -a, -C, never a command after them, which
# only sets how long (`perf stat -p PID -- sleep 1`: "process id 'PID'").
# The command's own user and system time are not shown: it was not
# counted. JSON names the target beside the command. Before, the header
# was 'sleep 0.1'.
bg sleep 30
other=$BG_PID
hpm_ok stat -e task-clock -p "$other" -- sleep 0.1
expect_grep "-p PID -- CMD: the header" "^ Performance counter stats for process id '$other':\$" "$E2E_TMP/err"
expect_no_grep "-p PID -- CMD: no command's times" 'seconds (user|sys)$' "$E2E_TMP/err"
hpm_ok stat -e task-clock -p "$other,$$" -- sleep 0.1
expect_grep "-p A,B -- CMD: the header" "^ Performance counter stats for process id '$other,$$':\$" "$E2E_TMP/err"
hpm_ok stat -e task-clock -t "$other" -- sleep 0.1
expect_grep "-t TID -- CMD: the header" "^ Performance counter stats for thread id '$other':\$" "$E2E_TMP/err"
if [ "$(id -u)" -eq 0 ]; then # (counting CPUs needs root, or perf_event_paranoid <= 0)
	hpm_ok stat -e task-clock -a -- sleep 0.1
	expect_grep "-a -- CMD: the header" "^ Performance counter stats for 'system wide':\$" "$E2E_TMP/err"
	hpm_ok stat -e task-clock -C 0 -- sleep 0.1
	expect_grep "-C 0 -- CMD: the header" "^ Performance counter stats for 'CPU\(s\) 0':\$" "$E2E_TMP/err"
fi
hpm_ok stat --json -e task-clock -p "$other" -- sleep 0.1
expect_eq "-p PID -- CMD: JSON's target" "process id $other" "$(json "$E2E_TMP/err" 'j["target"]')"
hpm_ok stat -e task-clock -- sleep 0.1
expect_grep "a command counted: its header" "^ Performance counter stats for 'sleep 0.1':\$" "$E2E_TMP/err"
expect_grep "a command counted: its times" 'seconds user$' "$E2E_TMP/err"

# A process that does not exist: an error that names it.
hpm stat -e task-clock -p 999999999
[ "$HPM_STATUS" -ne 0 ] || fail "-p of a missing process succeeded"
expect_grep "message for a missing process" '999999999' "$E2E_TMP/err"
echo "PASS: $E2E_NAME"
