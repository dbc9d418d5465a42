#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A group read at each sample: report counts for each row what the group
# counted since the previous read of the same counter, in the reads'
# order, and its rows add up to exactly what script shows of the same
# reads. Kernel samples wait for kallsyms and are accounted after later
# ones: before, their reads were taken after later reads, the counter
# seemed to go back, and whole counter values were added (report's total
# about twice script's).
. "$(dirname "$0")/lib.sh"

hpm_ok record -q -e '{cpu-clock,task-clock}' -o "$E2E_TMP/g.prof" -- "$WORKLOADS/pages" 60000
hpm_ok report -i "$E2E_TMP/g.prof" --json --sort dso
cp "$E2E_TMP/out" "$E2E_TMP/r.json"
kernel=$(json "$E2E_TMP/r.json" "sum(e.get('samples', 0) for r in j['rows'] if r['dso'] == '[kernel.kallsyms]' for e in r['events'] if e['name'] == 'cpu-clock')")
[ "$kernel" -gt 0 ] || skip "no sample in the kernel here (perf_event_paranoid keeps hpmon out of it?): nothing waits for kallsyms"
report_total=$(json "$E2E_TMP/r.json" "sum(e.get('count', 0) for r in j['rows'] for e in r['events'] if e['name'] == 'task-clock')")
hpm_ok script -i "$E2E_TMP/g.prof" -G -F event,period
script_total=$(awk '$2 == "task-clock:" { s += $1 } END { printf "%d\n", s }' "$E2E_TMP/out")
[ "$script_total" -gt 0 ] || fail "script shows no task-clock reads: $(head -5 "$E2E_TMP/out")"
expect_eq "task-clock counted over the rows, as script reads it ($kernel kernel samples)" \
	"$script_total" "$report_total"
echo "PASS: $E2E_NAME"
