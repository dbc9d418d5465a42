#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# SIGINT or SIGTERM sent to hpmon alone (kill PID, not the process group,
# so the command does not get it) ends the measurement as perf does: hpmon
# passes the signal on to the command, waits for it (no orphan is left
# running), prints the counts or writes the profile, and exits 128 + the
# signal (130, 143), even when the command caught it and exited 0. For
# stat and for record. (Ctrl-C to the whole group: stat-interrupt.sh.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record-lib.sh"

# signal_alone SIG HPMON-ARGS...: start hpmon in a session of its own, wait
# until its command has run 0.1 s of CPU time, send SIG to hpmon alone;
# the command's pid in $CMD_PID, hpmon's status in $HPM_STATUS.
signal_alone() {
	local sig=$1 pid i ns
	shift
	CMD_PID=''
	setsid "$HPMON" "$@" >"$E2E_TMP/out" 2>"$E2E_TMP/err" </dev/null &
	pid=$!
	E2E_BG_PIDS="${E2E_BG_PIDS:-} $pid"
	for ((i = 0; i < 500; i++)); do
		CMD_PID=$(pgrep -P "$pid" 2>/dev/null | head -n1) && [ -n "$CMD_PID" ] && break
		sleep 0.02
	done
	[ -n "$CMD_PID" ] || fail "hpmon $* started no command"
	# CPU time, not the wall clock's, as the machine may be busy
	for ((i = 0; i < 1500; i++)); do
		ns=$(cut -d' ' -f1 "/proc/$CMD_PID/schedstat" 2>/dev/null) || ns=0
		[ "${ns:-0}" -lt 100000000 ] || break
		sleep 0.02
	done
	kill "-$sig" "$pid"
	HPM_STATUS=0
	# bounded: a hpmon that ignored the signal would wait 60 s for its command
	for ((i = 0; i < 1000; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.02
	done
	kill -0 "$pid" 2>/dev/null && fail "hpmon still runs 20 s after SIG$sig: $(cat "$E2E_TMP/err")"
	wait "$pid" || HPM_STATUS=$?
}

# no_orphan WHAT: the command hpmon ran is gone, not left to init
no_orphan() {
	if kill -0 "$CMD_PID" 2>/dev/null; then
		kill -KILL "$CMD_PID"
		fail "$1: the command (pid $CMD_PID) still runs after hpmon ended"
	fi
}

# ---- stat ----
signal_alone INT stat -e task-clock -- "$WORKLOADS/sleeper" -s 60000
expect_eq "stat: exit status after SIGINT to hpmon alone" 130 "$HPM_STATUS"
expect_grep "stat: counts printed after SIGINT" 'task-clock' "$E2E_TMP/err"
expect_grep "stat: elapsed printed after SIGINT" 'seconds time elapsed' "$E2E_TMP/err"
ms=$(awk '/task-clock/ { gsub(",", "", $1); print $1; exit }' "$E2E_TMP/err")
expect_in "stat: task-clock of at least 0.1 s of CPU, ms" 90 60000 "$ms"
no_orphan "stat, SIGINT"

signal_alone TERM stat --json -e task-clock -- "$WORKLOADS/sleeper" -s 60000
expect_eq "stat: exit status after SIGTERM to hpmon alone" 143 "$HPM_STATUS"
grep '^{' "$E2E_TMP/err" >"$E2E_TMP/term.json" || fail "no JSON after SIGTERM: $(cat "$E2E_TMP/err")"
expect_eq "stat: JSON says interrupted" True "$(json "$E2E_TMP/term.json" 'j["interrupted"]')"
expect_eq "stat: the command died of the SIGTERM passed on" 143 \
	"$(json "$E2E_TMP/term.json" 'j["exit_status"]')"
no_orphan "stat, SIGTERM"

# a command that catches SIGINT and exits 0: hpmon still says it was
# interrupted, as perf does
signal_alone INT stat -e task-clock -- sh -c 'trap "exit 0" INT; while :; do :; done'
expect_eq "stat: exit status when the command caught SIGINT" 130 "$HPM_STATUS"
expect_grep "stat: counts printed when the command caught SIGINT" 'task-clock' "$E2E_TMP/err"
no_orphan "stat, SIGINT caught"

# ---- record ----
for sig in INT TERM; do
	signal_alone "$sig" record -q -e cpu-clock -o "$E2E_TMP/$sig.prof" -- \
		"$WORKLOADS/sleeper" -s 60000
	want=$([ "$sig" = INT ] && echo 130 || echo 143)
	expect_eq "record: exit status after SIG$sig to hpmon alone" "$want" "$HPM_STATUS"
	no_orphan "record, SIG$sig"
	hpm_ok report -i "$E2E_TMP/$sig.prof" --json
	cp "$E2E_TMP/out" "$E2E_TMP/rep.json"
	expect_eq "record: the profile is complete after SIG$sig" True "$(json "$E2E_TMP/rep.json" "j['complete']")"
	expect_in "record: samples of at least 0.1 s of CPU after SIG$sig" 20 1000000 \
		"$(json "$E2E_TMP/rep.json" "j['events'][0]['samples']")"
done

echo "PASS: $E2E_NAME"
