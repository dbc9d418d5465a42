#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# An event this machine cannot count does not stop the measurement, as in
# perf: the command runs, its output and exit status pass through, and the
# event's line says <not supported> (with the reason in the table and in
# JSON). That holds when no requested event can be counted at all, for
# presets and for -M groups whose events are missing.
. "$(dirname "$0")/lib.sh"

ec=$WORKLOADS/exitcode
# A software event the kernel does not have: unsupported on every machine.
bad=software/config=0x99/

# expect_passed WHAT STATUS ARGS: the command (exitcode ARGS) ran, its
# stdout and stderr came through, and hpmon exited with its status.
expect_passed() {
	expect_eq "$1: exit status" "$2" "$HPM_STATUS"
	expect_eq "$1: the command's stdout" "exitcode: ${3%% *}" "$(cat "$E2E_TMP/out")"
	expect_grep "$1: the command's stderr" '^exitcode: stderr$' "$E2E_TMP/err"
}

# stat_lines: hpmon's own lines of stderr (the command's removed).
stat_lines() {
	grep -v '^exitcode: stderr$' "$E2E_TMP/err" || true
}

# The only event cannot be counted: perf's -x line, exactly.
hpm stat -x, -e "$bad" -- "$ec" 3
expect_passed "-x, -e $bad" 3 3
expect_eq "-x, -e $bad: the lines" "<not supported>,,$bad,0,100.00,," "$(stat_lines)"

# A signal that ends the command ends hpmon with 128+N, the line printed.
hpm stat -x, -e "$bad" -- "$ec" 0 15
expect_passed "-e $bad, SIGTERM" 143 "0 15"
expect_eq "-e $bad, SIGTERM: the lines" "<not supported>,,$bad,0,100.00,," "$(stat_lines)"

# Beside a counted event, and with -r (perf's variance column).
hpm stat -x, -e "$bad,task-clock" -- "$ec" 4
expect_passed "-x, -e $bad,task-clock" 4 4
expect_eq "-x, -e $bad,task-clock: first line" "<not supported>,,$bad,0,100.00,," \
	"$(stat_lines | head -1)"
expect_grep "-x, -e $bad,task-clock: task-clock counted" '^[0-9.]+,msec,task-clock,[0-9]+,100\.00,' \
	"$E2E_TMP/err"
hpm stat -r 2 -x, -e "$bad" -- "$ec" 5
expect_eq "-r 2: exit status" 5 "$HPM_STATUS"
expect_eq "-r 2: the lines" "<not supported>,,$bad,0.00%,0,100.00,," "$(stat_lines)"

# A group of events none of which counts: the command runs and each has
# its line (perf 6.1 stops there with 'The ... event is not supported').
hpm stat -x, -e "{$bad,software/config=0x98/}" -- "$ec" 8
expect_passed "-x, -e {...} unsupported" 8 8
expect_eq "-x, -e {...} unsupported: the lines" "<not supported>,,$bad,0,100.00,,
<not supported>,,software/config=0x98/,0,100.00,," "$(stat_lines)"

# The table names the reason; JSON says supported false, a null count and
# the reason.
hpm stat -e "$bad" -- "$ec" 6
expect_passed "-e $bad" 6 6
expect_grep "table line with a reason" "^ +<not supported> +$bad +# .+" "$E2E_TMP/err"
hpm stat --json -e "$bad" -- "$ec" 7
expect_eq "--json: exit status" 7 "$HPM_STATUS"
grep -v '^exitcode: stderr$' "$E2E_TMP/err" >"$E2E_TMP/json"
expect_eq "--json: exit_status" 7 "$(json "$E2E_TMP/json" 'j["exit_status"]')"
expect_eq "--json: the event" "False None True" \
	"$(json "$E2E_TMP/json" 'event(j, "'"$bad"'")["supported"], event(j, "'"$bad"'")["count"], bool(event(j, "'"$bad"'")["reason"])' |
		tr -d '(),')"

# perf prints the same line for the same event, and passes the status too.
# perf 6.1 now and then exits 0 here (a fault of perf's, seen twice in
# one day's runs): its status is taken from the first of three runs that
# gives 3.
if have_perf; then
	for try in 1 2 3; do
		perf stat -x, -e "$bad" -- "$ec" 3 >/dev/null 2>"$E2E_TMP/perf" && rc=0 || rc=$?
		[ "$rc" -ne 3 ] || break
	done
	expect_eq "perf's exit status" 3 "$rc"
	expect_eq "the line perf prints" "$(grep -v '^exitcode' "$E2E_TMP/perf")" \
		"<not supported>,,$bad,0,100.00,,"
fi

# Hardware events, presets and metric groups on a machine without a PMU.
hpm stat -x, -e instructions -- true
if [ "$(cat "$E2E_TMP/err")" != "<not supported>,,instructions,0,100.00,," ]; then
	note "instructions counts here: the no-PMU cases need a machine without it"
	echo "PASS: $E2E_NAME"
	exit 0
fi
hpm stat -x, -e instructions -- "$ec" 3
expect_passed "-x, -e instructions" 3 3
expect_eq "-x, -e instructions: the lines" "<not supported>,,instructions,0,100.00,," "$(stat_lines)"
hpm stat -x, -e PAPI_TOT_INS -- "$ec" 3
expect_passed "-x, -e PAPI_TOT_INS" 3 3
expect_eq "-x, -e PAPI_TOT_INS: the lines" "<not supported>,,PAPI_TOT_INS,0,100.00,," "$(stat_lines)"
hpm stat -e PAPI_TOT_INS -- "$ec" 2
expect_passed "-e PAPI_TOT_INS" 2 2
expect_grep "PAPI_TOT_INS: the reason" \
	'^ +<not supported> +PAPI_TOT_INS +# this machine exposes no hardware PMU' "$E2E_TMP/err"

# -M: every metric n/a with the reason (the vendor's metrics of this
# machine's model, if it has tables, may name an event of a PMU the
# machine does not show: "does not resolve here"); the note on a metric too wide for
# the counters says there is no core PMU (it claimed 4 counters).
for g in cost tlb; do
	hpm stat -M "$g" -- "$ec" 3
	expect_passed "-M $g" 3 3
	expect_grep "-M $g: n/a with the reason" \
		'^ +# +n/a .+\([a-z_.]+\): [A-Za-z_-]+: not supported \(this machine exposes no hardware PMU\)$' \
		"$E2E_TMP/err"
	expect_no_grep "-M $g: no metric has a value" '^ +# +[0-9]' "$E2E_TMP/err"
	expect_no_grep "-M $g: no invented counters" 'the core PMU has' "$E2E_TMP/err"
	hpm stat --json -M "$g" -- "$ec" 3
	grep -v '^exitcode: stderr$' "$E2E_TMP/err" >"$E2E_TMP/json"
	expect_eq "--json -M $g: every metric null with a reason" True \
		"$(json "$E2E_TMP/json" 'len(j["metrics"]) > 0 and all(m["value"] is None and ("not supported" in m["reason"] or "does not resolve here" in m["reason"]) for m in j["metrics"])')"
done
hpm stat -M cost -- true
expect_grep "-M cost: the note on cost.other" \
	'^# hpmon: cost.other needs [0-9]+ general counters, and this machine exposes no core PMU \(none in sysfs\): its events cannot be counted here$' \
	"$E2E_TMP/err"
echo "PASS: $E2E_NAME"
