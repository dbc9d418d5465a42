#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# -x SEP prints perf's CSV: count,unit,event,running_ns,percent,metric,
# metric_unit, with a variance column after the event for -r, a timestamp
# first for -I, <not supported> for events the machine lacks. The layouts
# are checked against fixed expectations and, where perf works, against
# perf's output for the same options.
. "$(dirname "$0")/lib.sh"

EV=task-clock,page-faults,context-switches
sleeper=$WORKLOADS/sleeper

# layout_is WHAT FILE SEP EVENTS REGEX: every line's non-metric kinds (see
# csv_layout) match REGEX; the metric columns are "num text" or empty.
layout_is() {
	local what=$1 file=$2 sep=$3 events=$4 want=$5 l
	csv_layout "$file" "$sep" "$events" >"$file.kinds"
	[ -s "$file.kinds" ] || fail "$what: no CSV lines in: $(cat "$file")"
	while read -r l; do
		[[ $l =~ ^[^:]+:\ ($want)\ \|\ (num\ text|empty\ empty)$ ]] ||
			fail "$what: line layout '$l', expected '$want | num text' in:
$(cat "$file")"
	done <"$file.kinds"
}

# Plain counting: one line per event, 7 fields.
hpm_ok stat -x, -e $EV -- "$sleeper" -c 200
layout_is "-x," "$E2E_TMP/err" , $EV "num (text|empty) EVENT num num"
expect_eq "CSV lines" 3 "$(grep -c . "$E2E_TMP/err")"
expect_eq "unit of task-clock" msec "$(csv "$E2E_TMP/err" , "ev('task-clock')[0][1]")"
# It spins until it has run 200 ms on a CPU, however busy the machine
# (task-clock, the scheduler's time of the event's context, within 10 %).
expect_in "task-clock (msec) of a 200 ms spin" 180 1000 \
	"$(csv "$E2E_TMP/err" , "num(ev('task-clock')[0][0])")"
expect_eq "task-clock percent running" 100.00 "$(csv "$E2E_TMP/err" , "ev('task-clock')[0][4]")"
expect_grep "page-faults count is an integer" '^[0-9]+,,page-faults,' "$E2E_TMP/err"
cp "$E2E_TMP/err" "$E2E_TMP/plain.csv"

# Another separator.
hpm_ok stat -x ';' -e $EV -- "$sleeper" 10
layout_is "-x ';'" "$E2E_TMP/err" ';' $EV "num (text|empty) EVENT num num"

# An event this machine may lack: <not supported> in the count column
# (a machine with a PMU counts it, which is just as valid).
hpm_ok stat -x, -e cycles,task-clock -- "$sleeper" 10
cycles=$(csv "$E2E_TMP/err" , "ev('cycles')[0][0]")
if [[ $cycles == "<not "* ]]; then
	layout_is "-x, unsupported" "$E2E_TMP/err" , cycles,task-clock "(na|num) (text|empty) EVENT num num"
	expect_grep "<not supported> line" '^<not (supported|counted)>,[^,]*,cycles,' "$E2E_TMP/err"
else
	layout_is "-x, cycles" "$E2E_TMP/err" , cycles,task-clock "num (text|empty) EVENT num num"
fi
cp "$E2E_TMP/err" "$E2E_TMP/cycles.csv"

# -r 3: a variance column (x.xx%) after the event name.
hpm_ok stat -r 3 -x, -e $EV -- "$sleeper" 10
layout_is "-r 3 -x," "$E2E_TMP/err" , $EV "num (text|empty) EVENT pct num num"
expect_eq "CSV lines with -r 3" 3 "$(grep -c . "$E2E_TMP/err")"
cp "$E2E_TMP/err" "$E2E_TMP/repeat.csv"

# -I 100: a timestamp column first, seconds with 9 decimals.
hpm_ok stat -I 100 -x, -e $EV -- "$sleeper" -s 350
layout_is "-I 100 -x," "$E2E_TMP/err" , $EV "ts num (text|empty) EVENT num num"
expect_in "interval lines per event for 350 ms" 3 5 \
	"$(csv "$E2E_TMP/err" , "len(ev('task-clock'))")"
cp "$E2E_TMP/err" "$E2E_TMP/interval.csv"

if have_perf; then
	perf stat -x, -e $EV -- "$sleeper" -c 200 2>"$E2E_TMP/p-plain.csv"
	same_layout "-x," "$E2E_TMP/plain.csv" "$E2E_TMP/p-plain.csv" , $EV
	perf stat -x, -e cycles,task-clock -- "$sleeper" 10 2>"$E2E_TMP/p-cycles.csv"
	same_layout "-x, unsupported" "$E2E_TMP/cycles.csv" "$E2E_TMP/p-cycles.csv" , cycles,task-clock
	perf stat -r 3 -x, -e $EV -- "$sleeper" 10 2>"$E2E_TMP/p-repeat.csv"
	same_layout "-r 3 -x," "$E2E_TMP/repeat.csv" "$E2E_TMP/p-repeat.csv" , $EV
	perf stat -I 100 -x, -e $EV -- "$sleeper" -s 350 2>"$E2E_TMP/p-interval.csv"
	same_layout "-I 100 -x," "$E2E_TMP/interval.csv" "$E2E_TMP/p-interval.csv" , $EV
else
	note "perf is not usable here: layouts not compared with perf"
fi
echo "PASS: $E2E_NAME"
