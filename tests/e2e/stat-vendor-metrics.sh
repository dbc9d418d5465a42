#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The vendors' metrics under perf's names (docs/metrics.md, "The vendors'
# metrics"): with HPMON_CPUID naming a Skylake-SP and its recorded sysfs
# tree (which has no counters), -M takes perf's groups and metric names,
# case-insensitive, each metric is n/a naming the event this machine
# cannot count, JSON carries the metric under perf's name; a model without
# tables says so in the unknown name's message, and keeps hpmon's own
# metrics.
. "$(dirname "$0")/lib.sh"

: "${TESTDATA:?TESTDATA must name tests/data}"
export HPMON_SYSFS_ROOT=$TESTDATA/sysfs-intel-skl
export HPMON_CPUID=GenuineIntel-6-55-4

for m in TopdownL1 topdownl1; do
	hpm_ok stat -M "$m" -- true
	for t in tma_frontend_bound tma_bad_speculation tma_backend_bound tma_retiring; do
		expect_grep "-M $m: $t" "n/a % \\($t\\): [A-Z_.]+: not supported" "$E2E_TMP/err"
	done
done
hpm_ok stat -M tma_backend_bound -- true
expect_grep "-M tma_backend_bound" '^ +# +n/a % \(tma_backend_bound\): IDQ_UOPS_NOT_DELIVERED.CORE: not supported' "$E2E_TMP/err"
if grep -q tma_frontend_bound "$E2E_TMP/err"; then fail "-M tma_backend_bound shows tma_frontend_bound"; fi

hpm_ok stat -j -M IPC -- true
expect_grep "-j -M IPC" '"metrics":\[\{"name":"IPC","value":null,"unit":"","uncertainty":null,"reason":"INST_RETIRED.ANY: not supported' "$E2E_TMP/err"
expect_grep "-j -M IPC: perf's metric-unit" '"name":"IPC",.*"metric-value":null,"metric-unit":"IPC"' "$E2E_TMP/err"
expect_grep "-j -M IPC: the events" '"events":\[\{"name":"INST_RETIRED.ANY",.*\{"name":"CPU_CLK_UNHALTED.THREAD"' "$E2E_TMP/err"

hpm_ok stat -j -M tma_retiring -- true
expect_grep "-j -M tma_retiring: perf's metric-unit" '"metric-value":null,"metric-unit":"%  tma_retiring"' "$E2E_TMP/err"

# hpmon's own lower-case metrics stay beside perf's
hpm_ok stat -M ipc -- true
expect_grep "-M ipc" 'n/a insn per cycle \(ipc\)' "$E2E_TMP/err"

# an unknown name: the model's name, and the closest
hpm stat -M TopdownL9 -- true
expect_eq "-M TopdownL9: exit status" 129 "$HPM_STATUS"
expect_eq "-M TopdownL9: the message" "hpmon stat: no metric or metric group 'TopdownL9' for skylakex processors (see 'hpmon list metrics')" "$(head -1 "$E2E_TMP/err")"
expect_grep "-M TopdownL9: the suggestion" 'did you mean: .*TopdownL1' "$E2E_TMP/err"

# a model without tables: one note in the message, hpmon's metrics only
export HPMON_CPUID=GenuineIntel-6-99-4
hpm stat -M TopdownL1 -- true
expect_eq "no tables: exit status" 129 "$HPM_STATUS"
expect_eq "no tables: the message" "hpmon stat: no metric or metric group 'TopdownL1' for intel processors (see 'hpmon list metrics'); this machine's model (GenuineIntel-6-99-4) has no vendor tables: hpmon's own metrics only" "$(head -1 "$E2E_TMP/err")"
hpm_ok stat -M ipc -- true
expect_grep "no tables: -M ipc" 'n/a insn per cycle \(ipc\)' "$E2E_TMP/err"
echo "PASS: $E2E_NAME"
