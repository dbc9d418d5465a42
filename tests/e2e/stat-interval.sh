#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# -I 100 on a 450 ms spinning workload prints 4 intervals, 100 ms apart,
# and a last, shorter one up to the exit (as perf does), and the deltas add
# up to what a run without -I counts: exactly for page faults
# (deterministic), to the closing total for task-clock (JSON).
. "$(dirname "$0")/lib.sh"

# Spins 450 ms and touches 500 pages at the end, between two ticks: only
# the last, partial interval holds them.
cmd=("$WORKLOADS/sleeper" -s -d 450 -p 500 450)

total() {
	hpm_norand_ok stat -x, -e page-faults -- "${cmd[@]}"
	csv "$E2E_TMP/err" , "num(ev('page-faults')[0][0])"
}

csv_intervals() {
	local total n
	total=$(total)
	hpm_norand_ok stat -I 100 -x, -e task-clock,page-faults -- "${cmd[@]}"
	cp "$E2E_TMP/err" "$E2E_TMP/i.csv"
	n=$(csv "$E2E_TMP/i.csv" , "len(ev('page-faults'))")
	expect_in "number of intervals" 4 7 "$n"
	expect_eq "task-clock and page-faults in every interval" "$n" \
		"$(csv "$E2E_TMP/i.csv" , "len(ev('task-clock'))")"
	expect_eq "sum of interval page-faults == total" "$total" \
		"$(csv "$E2E_TMP/i.csv" , "sum(delta(r) for r in ev('page-faults'))")"
	expect_in "one interval holds the 500 touched pages" 500 $((500 + 64)) \
		"$(csv "$E2E_TMP/i.csv" , "max(delta(r) for r in ev('page-faults'))")"
	# It spins for wall-clock time, so how much of it it runs depends on
	# what else the machine runs (other tests: a quarter of a CPU or less);
	# but it runs, and no longer than it lives (the last timestamp).
	expect_in "sum of interval task-clock (msec)" 1 \
		"$(csv "$E2E_TMP/i.csv" , "float(ev('task-clock')[-1][0]) * 1000 + 1")" \
		"$(csv "$E2E_TMP/i.csv" , "sum(delta(r) for r in ev('task-clock'))")"
	# Timestamps: rising, about 100 ms apart, the last near the end.
	python3 - "$E2E_TMP/i.csv" <<'PY' || fail "bad interval timestamps in: $(cat "$E2E_TMP/i.csv")"
import sys
ts = [float(l.split(",")[0]) for l in open(sys.argv[1]) if ",page-faults," in l]
steps = [b - a for a, b in zip([0.0] + ts, ts)]
ok = all(0.05 <= s <= 0.3 for s in steps[:-1]) and 0 < steps[-1] <= 0.3
ok = ok and 0.4 <= ts[-1] <= 1.0
if not ok:
    print("timestamps %s" % ts, file=sys.stderr)
sys.exit(0 if ok else 1)
PY
}
retry 3 csv_intervals

# JSON: one object per line and interval, with interval_ns and time_ns,
# then one closing object with the totals and the exit status.
json_intervals() {
	local total
	total=$(total)
	hpm_norand_ok stat -I 100 --json -e task-clock,page-faults -- "${cmd[@]}"
	cp "$E2E_TMP/err" "$E2E_TMP/i.json"
	expect_in "JSON intervals" 4 7 "$(json "$E2E_TMP/i.json" "len([o for o in js if 'interval_ns' in o])")"
	expect_eq "JSON: every interval has time_ns and both events" True \
		"$(json "$E2E_TMP/i.json" "all('time_ns' in o and len(o['events']) == 2 for o in js if 'interval_ns' in o)")"
	expect_eq "JSON: interval_ns of the full intervals" True \
		"$(json "$E2E_TMP/i.json" "all(o['interval_ns'] == 100000000 for o in [o for o in js if 'interval_ns' in o][:-1])")"
	expect_eq "JSON interval times rise" True \
		"$(json "$E2E_TMP/i.json" "[o['time_ns'] for o in js if 'interval_ns' in o] == sorted(o['time_ns'] for o in js if 'interval_ns' in o)")"
	expect_eq "JSON sum of interval page-faults" "$total" \
		"$(json "$E2E_TMP/i.json" "sum(int(event(o, 'page-faults')['count']) for o in js if 'interval_ns' in o)")"
	expect_eq "JSON sum of interval page-faults == closing total" True \
		"$(json "$E2E_TMP/i.json" "sum(event(o, 'page-faults')['raw_count'] for o in js if 'interval_ns' in o) == event(j, 'page-faults')['raw_count']")"
	expect_eq "JSON closing object: exit status" 0 "$(json "$E2E_TMP/i.json" "j['exit_status']")"
	expect_eq "JSON closing object: total page-faults" "$total" \
		"$(json "$E2E_TMP/i.json" "int(event(j, 'page-faults')['count'])")"
	expect_eq "JSON closing object: total task-clock == sum of intervals" True \
		"$(json "$E2E_TMP/i.json" "abs(sum(event(o, 'task-clock')['raw_count'] for o in js if 'interval_ns' in o) - event(j, 'task-clock')['raw_count']) <= 1000")"
}
retry 3 json_intervals
echo "PASS: $E2E_NAME"
