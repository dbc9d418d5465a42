# SPDX-License-Identifier: MIT
# hpmon report -M / --metric / --metrics-file: metric formulas evaluated per
# row from the counts of the group read at each sample (software events,
# so that it runs without a PMU; the arm64 guest lane checks CPI 1.000 per
# function with cycles and instructions, tests/guest/record-cycles.sh).
#
#  - each row's metric equals the formula applied to that row's counts as
#    the JSON lists them (computed here, independently), for every sort;
#  - task-clock / cpu-clock is 1 within 5 % for the busy functions, whose
#    samples both clocks count alike;
#  - a triggering event that is not read contributes its samples' periods;
#  - a metric over events the profile lacks is an error that names them
#    and the group that would record them.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record-lib.sh"

prof=$E2E_TMP/g.prof
hpm_ok record -e '{cpu-clock,task-clock,page-faults}' -c 1000003 -o "$prof" -- \
	"$WORKLOADS/ratio" 100000000
cat >"$E2E_TMP/my.metrics" <<'EOF'
metric clock_ratio
    formula  task-clock / cpu-clock
    unit     task-clock ns per cpu-clock ns
metric fault_share
    formula  page-faults / (page-faults + 1)
    form     percent
EOF

# check_rows KEYS: every row's clock_ratio and fault_share (-M) against its counts
check_rows() {
	report_json "$prof" --metrics-file "$E2E_TMP/my.metrics" ${1:+--sort "$1"}
	local bad
	bad=$(json "$E2E_TMP/rep.json" "[
	    (r.get('sym'), m['name'], m['value'], want)
	    for r in j['rows']
	    for c in [{e['name']: e.get('count', 0) for e in r['events']}]
	    for m in r['metrics']
	    for want in [
	        (c['task-clock'] / c['cpu-clock'] if c['cpu-clock'] else None)
	        if m['name'] == 'clock_ratio' else
	        100 * c['page-faults'] / (c['page-faults'] + 1)]
	    if (want is None) != (m['value'] is None) or
	       (want is not None and abs(m['value'] - want) > 1e-9 * max(1, abs(want)))]")
	expect_eq "metric values of each row (sort ${1:-sym,dso}) against its counts" "[]" "$bad"
	expect_eq "metrics of the file, in order" "['clock_ratio', 'fault_share']" \
		"$(json "$E2E_TMP/rep.json" "[m['name'] for m in j['metrics']]")"
}
check_rows ""
check_rows "comm"
check_rows "tid,dso"
check_rows "line,sym"

report_json "$prof" --metric 'clock_ratio = task-clock / cpu-clock'
for f in work6 work3 work1; do
	v=$(json "$E2E_TMP/rep.json" \
		"[m['value'] for r in j['rows'] if r.get('sym') == '$f' for m in r['metrics']][0]")
	note "$f: task-clock / cpu-clock = $v"
	expect_in "$f: task-clock / cpu-clock" 0.95 1.05 "$v"
done

# the text listing: the formula in the header, a column of values
hpm_ok report -i "$prof" -M page_faults_per_msec
expect_grep "metric header" '^# metric page_faults_per_msec = page-faults / \(task-clock / 1e6\) \(faults/msec\)$' \
	"$E2E_TMP/out"
expect_grep "metric column" '^#.* page_faults_per_msec  symbol  dso$' "$E2E_TMP/out"
expect_grep "a value per function" '^ +[0-9]+ +[0-9.]+% +[0-9.]+% .* [0-9]+\.[0-9]{3}  work6  ratio$' \
	"$E2E_TMP/out"
# CSV: one column, named by the metric
hpm_ok report -i "$prof" -M page_faults_per_msec --csv
expect_grep "CSV column" '^cpu-clock_samples,.*,page_faults_per_msec,sym,dso$' "$E2E_TMP/out"

# a triggering event without group reads: its samples' periods
one=$E2E_TMP/one.prof
hpm_ok record -e cpu-clock -c 1000003 -o "$one" -- "$WORKLOADS/ratio" 30000000
report_json "$one" --metric 'cpu_ms = cpu-clock / 1e6'
expect_eq "cpu_ms is each row's period / 1e6" "[]" "$(json "$E2E_TMP/rep.json" "[
    r.get('sym') for r in j['rows']
    if abs(r['metrics'][0]['value'] - r['events'][0]['period'] / 1e6) > 1e-9]")"

# events the profile lacks: an error naming them and the group to record
hpm report -i "$prof" -M cpi
expect_eq "exit status of -M cpi without cycles" 1 "$HPM_STATUS"
expect_grep "names the missing events" 'has no counts of cycles, instructions, which the metric cpi needs' \
	"$E2E_TMP/err"
expect_grep "names the group" "hpmon record -e '\\{cycles,instructions\\}'" "$E2E_TMP/err"
hpm report -i "$one" --metrics-file "$E2E_TMP/my.metrics"
expect_eq "exit status without task-clock" 1 "$HPM_STATUS"
expect_grep "task-clock is not in the profile" 'has no counts of task-clock, page-faults, which the metrics need' \
	"$E2E_TMP/err"
expect_grep "one group" "record -e '\\{task-clock,cpu-clock,page-faults\\}'" "$E2E_TMP/err"
hpm report -i "$prof" -M no_such_metric
expect_eq "exit status of an unknown metric" 129 "$HPM_STATUS"
expect_grep "unknown metric" "no metric or metric group 'no_such_metric'" "$E2E_TMP/err"
# the limit of each metric option, as stat and serve say it (metric-args.c)
many=()
for _ in $(seq 65); do many+=(--metric 'x = task-clock'); done
hpm report -i "$prof" "${many[@]}"
expect_eq "exit status of 65 --metric" 129 "$HPM_STATUS"
expect_grep "too many --metric" "^hpmon report: too many --metric options \(at most 64\)$" "$E2E_TMP/err"
hpm report -i "$prof" -M cpi --folded
expect_eq "exit status of metrics with --folded" 129 "$HPM_STATUS"
