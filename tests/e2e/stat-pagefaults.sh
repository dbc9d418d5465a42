#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# page-faults are exact: `pages N` faults exactly N more pages than
# `pages 0`, and with address-space randomisation off every run of the
# same command faults the same pages, so the counts are compared exactly.
. "$(dirname "$0")/lib.sh"

# faults N EVENT: page faults of `pages N` as hpmon counts EVENT.
faults() {
	hpm_norand_ok stat -x, -e page-faults,page-faults:u -- "$WORKLOADS/pages" "$1"
	csv "$E2E_TMP/err" , "num(ev('$2')[0][0])"
}

# differences EVENT: pages 1, 100 and 1000 against pages 0.
differences() {
	local event=$1 base again got n
	base=$(faults 0 "$event")
	expect_in "$event of 'pages 0'" 1 10000 "$base"
	again=$(faults 0 "$event")
	expect_eq "$event of 'pages 0', second run" "$base" "$again"
	for n in 1 100 1000; do
		got=$(faults "$n" "$event")
		expect_eq "$event of 'pages $n' minus 'pages 0'" "$n" $((got - base))
	done
}
retry 3 differences page-faults
retry 3 differences page-faults:u

# The kernel-mode share: page-faults counts at least what :u counts.
hpm_norand_ok stat -x, -e page-faults,page-faults:u -- "$WORKLOADS/pages" 100
all=$(csv "$E2E_TMP/err" , "num(ev('page-faults')[0][0])")
user=$(csv "$E2E_TMP/err" , "num(ev('page-faults:u')[0][0])")
expect_in "page-faults:u <= page-faults of 'pages 100'" 100 "$all" "$user"

# The same command under perf counts the same user page faults: both
# count from the command's exec to its exit.
same_as_perf() {
	local ref user
	timeout 30 "${NORAND[@]}" perf stat -x, -e page-faults:u -- \
		"$WORKLOADS/pages" 100 2>"$E2E_TMP/perf" >/dev/null
	ref=$(csv "$E2E_TMP/perf" , "num(ev('page-faults:u')[0][0])")
	user=$(faults 100 page-faults:u)
	expect_eq "page-faults:u of 'pages 100', hpmon vs perf" "$ref" "$user"
}
if have_perf; then
	retry 3 same_as_perf
else
	note "perf is not usable here: not compared with perf"
fi
echo "PASS: $E2E_NAME"
