#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# -p and -t lists with an id that names no task: hpmon stat fails at once,
# with a non-zero exit, and names the missing id, wherever it is in the
# list, never a live one.
. "$(dirname "$0")/lib.sh"

# No task ever has the id pid_max: ids run from 1 to pid_max - 1.
missing=$(cat /proc/sys/kernel/pid_max)
live=$$

# expect_missing KIND OPT LIST: `stat OPT LIST` names $missing as a KIND.
expect_missing() {
	local kind=$1 opt=$2 list=$3
	hpm stat "$opt" "$list" -e task-clock
	[ "$HPM_STATUS" -ne 0 ] || fail "stat $opt $list exited 0"
	expect_grep "stat $opt $list names the missing $kind" \
		"^hpmon stat: no such $kind: $missing \\(given to $opt\\)" "$E2E_TMP/err"
	expect_no_grep "stat $opt $list does not name the live $kind" \
		"no such .*: $live\\b" "$E2E_TMP/err"
	expect_eq "stat $opt $list: one line of error" 1 "$(wc -l <"$E2E_TMP/err")"
}

expect_missing process -p "$live,$missing"
expect_missing process -p "$missing,$live"
expect_missing process -p "1,$live,$missing"
expect_missing thread -t "$live,$missing"
expect_missing thread -t "$missing,$live"

