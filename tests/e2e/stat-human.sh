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

# Without -e: a default set that includes task-clock.
hpm_ok stat -- "$WORKLOADS/pages" 10
expect_grep "default events" 'task-clock' "$E2E_TMP/err"
echo "PASS: $E2E_NAME"
