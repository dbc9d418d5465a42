# SPDX-License-Identifier: MIT
# Three functions doing work in the ratio 6:3:1, sampled on cpu-clock:
# the report puts 60/30/10 % of the samples in them, within 2 points,
# and within 2 points of what perf reports for the same workload sampled
# the same way.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record-lib.sh"

N=200000000
hpm_ok record -e cpu-clock -o "$E2E_TMP/r.prof" -- "$WORKLOADS/ratio" $N
expect_grep "summary" 'samples written to' "$E2E_TMP/err"
report_json "$E2E_TMP/r.prof"
p6=$(pct work6) p3=$(pct work3) p1=$(pct work1)
note "hpmon: work6 $p6 %, work3 $p3 %, work1 $p1 %"
expect_in "work6 percent" 58 62 "$p6"
expect_in "work3 percent" 28 32 "$p3"
expect_in "work1 percent" 8 12 "$p1"
expect_eq "complete" True "$(json "$E2E_TMP/rep.json" "j['complete']")"

# The text listing: samples, percent, cumulative percent, symbol, object.
hpm_ok report -i "$E2E_TMP/r.prof"
expect_grep "prof listing" '^ +[0-9]+ +[0-9.]+% +[0-9.]+% +work6 +ratio$' "$E2E_TMP/out"
expect_grep "header" '^# event cpu-clock: [0-9]+ samples, period 250007' "$E2E_TMP/out"

# The default event where no PMU exists is cpu-clock, and hpmon says so.
hpm_ok record -o "$E2E_TMP/d.prof" -- "$WORKLOADS/ratio" 1000000
expect_grep "default event note" 'sampling (cycles|cpu-clock)' "$E2E_TMP/err"

if have_perf; then
	perf record -q -e cpu-clock -c 250007 -o "$E2E_TMP/perf.data" -- \
		"$WORKLOADS/ratio" $N >/dev/null 2>&1 || fail "perf record failed"
	for f in work6 work3 work1; do
		h=$(pct $f)
		p=$(perf_pct "$E2E_TMP/perf.data" $f)
		note "$f: hpmon $h %, perf $p %"
		expect_in "$f: hpmon minus perf" -2 2 "$(python3 -c "print($h - $p)")"
	done
else
	note "perf cannot sample here: comparison skipped"
fi
