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
# count from the command's exec to its exit. perf changes the environment
# it hands the command (it prepends its own directory to PATH and adds
# PERF_BUILDID_DIR and PREFIX), and a larger environment can push the
# initial stack over one more page. So hpmon is given exactly the
# environment perf gives the command, read back from an `env -0` run under
# perf, and then both start the command with the same stack.
same_as_perf() {
	local ref user
	local -a penv
	timeout 30 "${NORAND[@]}" perf stat -x, -e page-faults:u -- env -0 \
		>"$E2E_TMP/perf-env" 2>/dev/null
	mapfile -d '' penv <"$E2E_TMP/perf-env"
	[ "${#penv[@]}" -gt 0 ] || fail "perf stat -- env -0 printed no environment"
	timeout 30 "${NORAND[@]}" perf stat -x, -e page-faults:u -- \
		"$WORKLOADS/pages" 100 2>"$E2E_TMP/perf" >/dev/null
	ref=$(csv "$E2E_TMP/perf" , "num(ev('page-faults:u')[0][0])")
	timeout -k 5 "$E2E_TIMEOUT" env -i "${penv[@]}" "${NORAND[@]}" "$HPMON" \
		stat -x, -e page-faults:u -- "$WORKLOADS/pages" 100 \
		>/dev/null 2>"$E2E_TMP/err" </dev/null ||
		fail "hpmon stat under perf's environment failed: $(cat "$E2E_TMP/err")"
	user=$(csv "$E2E_TMP/err" , "num(ev('page-faults:u')[0][0])")
	expect_eq "page-faults:u of 'pages 100', hpmon vs perf" "$ref" "$user"
}
if have_perf; then
	retry 3 same_as_perf
else
	note "perf is not usable here: not compared with perf"
fi
echo "PASS: $E2E_NAME"
