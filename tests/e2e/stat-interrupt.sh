#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Ctrl-C prints what was counted so far: the terminal's SIGINT reaches
# hpmon and the command (one process group); the command dies of it and
# hpmon prints the counts and exits 130 like the command. SIGTERM sent to
# hpmon alone is passed on to the command. Without a command (-a, -p),
# Ctrl-C ends counting and hpmon exits 0 after printing.
. "$(dirname "$0")/lib.sh"

# run_and_signal SIG WHO HPMON-ARGS...: start hpmon in a process group of
# its own, wait until the spinner has run 0.3 s on a CPU, send SIG to the
# group (WHO=group) or to hpmon alone (WHO=hpmon); status in $HPM_STATUS.
run_and_signal() {
	local sig=$1 who=$2 pid i child='' ns
	shift 2
	setsid "$HPMON" "$@" >"$E2E_TMP/out" 2>"$E2E_TMP/err" </dev/null &
	pid=$!
	# wait until counting runs: the spinner is a child of hpmon, or for
	# -a some time has passed
	for ((i = 0; i < 250; i++)); do
		child=$(pgrep -P "$pid" 2>/dev/null | head -n1) && [ -n "$child" ] && break
		sleep 0.02
	done
	if [ -n "$child" ]; then
		# its CPU time, not the wall clock's: next to other tests the
		# spinner may run a fraction of the time (schedstat: ns on a CPU)
		for ((i = 0; i < 1000; i++)); do
			ns=$(cut -d' ' -f1 "/proc/$child/schedstat" 2>/dev/null) || ns=0
			[ "${ns:-0}" -lt 300000000 ] || break
			sleep 0.02
		done
	else
		sleep 0.3
	fi
	if [ "$who" = group ]; then
		kill "-$sig" -- "-$pid"
	else
		kill "-$sig" "$pid"
	fi
	HPM_STATUS=0
	wait "$pid" || HPM_STATUS=$?
}

run_and_signal INT group stat -e task-clock,page-faults -- "$WORKLOADS/sleeper" -s 20000
expect_eq "exit status after Ctrl-C" 130 "$HPM_STATUS"
expect_grep "counts printed after Ctrl-C" 'task-clock' "$E2E_TMP/err"
expect_grep "elapsed printed after Ctrl-C" 'seconds time elapsed' "$E2E_TMP/err"
ms=$(awk '/task-clock/ { gsub(",", "", $1); print $1 }' "$E2E_TMP/err")
expect_in "task-clock of a 0.3 s spin, ms" 270 5000 "$ms"

run_and_signal TERM hpmon stat -x, -e task-clock -- "$WORKLOADS/sleeper" -s 20000
expect_eq "exit status when hpmon gets SIGTERM (passed to the command)" 143 "$HPM_STATUS"
expect_grep "CSV counts printed after SIGTERM" '^[0-9.]+,msec,task-clock,' "$E2E_TMP/err"

run_and_signal INT group stat -a -e cpu-clock
expect_eq "exit status after Ctrl-C of -a" 0 "$HPM_STATUS"
expect_grep "system-wide counts after Ctrl-C" 'cpu-clock' "$E2E_TMP/err"

echo "PASS: $E2E_NAME"
