#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The default output: perf's table on stderr, nothing on stdout but the
# command's own output.
. "$(dirname "$0")/lib.sh"

hpm_ok stat -e task-clock,page-faults,cycles -- "$WORKLOADS/pages" 100
t=$E2E_TMP/err
expect_eq "stdout" "" "$(cat "$E2E_TMP/out")"
expect_grep "title" "^ *Performance counter stats for '$WORKLOADS/pages 100':\$" "$t"
expect_grep "task-clock line" '^ +[0-9]+\.[0-9]+ +msec +task-clock( |$)' "$t"
expect_grep "task-clock's CPUs utilized" 'task-clock +# +[0-9]+\.[0-9]+ +CPUs utilized' "$t"
expect_grep "page-faults line" '^ +[0-9,]+ +page-faults( |$)' "$t"
expect_grep "cycles line" '^ +(<not supported>|<not counted>|[0-9,]+) +cycles( |$)' "$t"
expect_grep "elapsed" '^ +[0-9]+\.[0-9]+ +seconds time elapsed$' "$t"
expect_grep "user time" '^ +[0-9]+\.[0-9]+ +seconds user$' "$t"
expect_grep "sys time" '^ +[0-9]+\.[0-9]+ +seconds sys$' "$t"

# The count is the one of the CSV form (deterministic runs).
table_vs_csv() {
	local pf
	hpm_norand_ok stat -e page-faults -- "$WORKLOADS/pages" 100
	pf=$(sed -nE 's/^ +([0-9,]+) +page-faults.*/\1/p' "$E2E_TMP/err" | tr -d ,)
	hpm_norand_ok stat -x, -e page-faults -- "$WORKLOADS/pages" 100
	expect_eq "page-faults, table vs CSV" "$(csv "$E2E_TMP/err" , "num(ev('page-faults')[0][0])")" "$pf"
}
retry 3 table_vs_csv

# Thousands separators, and none with --no-big-num.
hpm_ok stat -e page-faults -- "$WORKLOADS/pages" 2000
expect_grep "thousands separator" '^ +[0-9],[0-9]{3} +page-faults' "$E2E_TMP/err"
hpm_ok stat --no-big-num -e page-faults -- "$WORKLOADS/pages" 2000
expect_grep "--no-big-num" '^ +[0-9]{4} +page-faults' "$E2E_TMP/err"
# perf's -B (--big-num): the default, and the last of the two wins
hpm_ok stat --no-big-num -B -e page-faults -- "$WORKLOADS/pages" 2000
expect_grep "--no-big-num -B" '^ +[0-9],[0-9]{3} +page-faults' "$E2E_TMP/err"
hpm_ok stat --big-num --no-big-num -e page-faults -- "$WORKLOADS/pages" 2000
expect_grep "--big-num --no-big-num" '^ +[0-9]{4} +page-faults' "$E2E_TMP/err"

# Groups and modifiers are accepted (perf names the members of a group
# without the group's modifier, so both names are fine).
hpm_ok stat -e '{task-clock,page-faults}:u,context-switches:k' -- "$WORKLOADS/pages" 10
expect_grep "group member" ' page-faults(:u)?( |$)' "$E2E_TMP/err"
expect_grep "group leader" ' task-clock(:u)?( |$)' "$E2E_TMP/err"
expect_grep "event with modifier" ' context-switches:k( |$)' "$E2E_TMP/err"

# The rows line up: an event's name starts in the same column whether it
# was counted, is <not supported> (a software event no kernel has) or is
# <not counted>, and the unit column keeps the unit (as perf: "<not
# counted> msec task-clock"). Before, the name of a row without a count
# came one column left of the counted rows'.
hpm_ok stat -e 'page-faults,software/config=0x99/,task-clock' -- "$WORKLOADS/pages" 10
col() { # col NAME: the column where NAME starts on its row
	awk -v n="$1" '{ i = index($0, " " n " "); if (!i) i = index($0, " " n "\n"); if (i) { print i; exit } }' \
		<(sed 's/$/ /' "$E2E_TMP/err")
}
expect_grep "a <not supported> row" '<not supported> +software/config=0x99/' "$E2E_TMP/err"
expect_eq "<not supported> row: the name's column" "$(col page-faults)" "$(col software/config=0x99/)"
expect_eq "msec row: the name's column" "$(col page-faults)" "$(col task-clock)"
sleep 30 &
sleeper=$!
E2E_BG_PIDS="${E2E_BG_PIDS:-} $sleeper"
asleep() { [ "$(cat /proc/"$sleeper"/comm)" = sleep ] && grep -q '^State:[[:space:]]*S' /proc/"$sleeper"/status; }
wait_for "the sleeper to sleep" 10 asleep
# a process that sleeps all along: its task-clock is never counted
hpm_ok stat -e 'page-faults,task-clock' -p "$sleeper" -- sleep 0.1
expect_grep "<not counted> keeps the unit" '^ +<not counted> msec +task-clock' "$E2E_TMP/err"
expect_eq "<not counted> row: the name's column" "$(col page-faults)" "$(col task-clock)"

# Without -e: a default set that includes task-clock.
hpm_ok stat -- "$WORKLOADS/pages" 10
expect_grep "default events" 'task-clock' "$E2E_TMP/err"
echo "PASS: $E2E_NAME"
