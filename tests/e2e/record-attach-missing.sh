#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# hpmon record with -p and -t lists that hold an id naming no task: it
# fails at once, with a non-zero exit, names the missing id wherever it is
# in the list (never a live one), and writes no profile.
. "$(dirname "$0")/lib.sh"

# No task ever has the id pid_max: ids run from 1 to pid_max - 1.
missing=$(cat /proc/sys/kernel/pid_max)
live=$$
prof=$E2E_TMP/p.prof

# expect_missing KIND OPT LIST [EVENT]: `record OPT LIST` names $missing as
# a KIND.
expect_missing() {
	local kind=$1 opt=$2 list=$3
	shift 3
	hpm record -o "$prof" "$opt" "$list" "$@"
	[ "$HPM_STATUS" -ne 0 ] || fail "record $opt $list exited 0"
	expect_grep "record $opt $list names the missing $kind" \
		"^hpmon record: no such $kind: $missing \\(given to $opt\\): check the id, or that the $kind is still running\$" \
		"$E2E_TMP/err"
	expect_no_grep "record $opt $list does not name the live $kind" \
		"no such .*: $live\\b" "$E2E_TMP/err"
	expect_eq "record $opt $list: one line of error" 1 "$(grep -c '^hpmon record: no such' "$E2E_TMP/err")"
	[ ! -e "$prof" ] || fail "record $opt $list wrote $prof"
}

expect_missing process -p "$live,$missing"
expect_missing process -p "$missing,$live"
expect_missing process -p "1,$live,$missing" -e task-clock
expect_missing process -p "$missing" -e page-faults
expect_missing thread -t "$live,$missing"
expect_missing thread -t "$missing,$live" -e task-clock
echo "PASS: $E2E_NAME"
