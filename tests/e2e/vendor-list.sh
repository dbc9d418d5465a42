#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# hpmon list shows the events of the vendor's tables for the model
# (HPMON_CPUID as PERF_CPUID), under a heading naming the model and the
# table's version, in text and JSON; a model without tables gets one note
# and no vendor events (docs/hpmon-list.md, docs/vendor-tables.md).
. "$(dirname "$0")/lib.sh"

: "${TESTDATA:?TESTDATA must name tests/data}"
export HPMON_SYSFS_ROOT=$TESTDATA/sysfs-intel-skl

# ---- Skylake client: its table, v53 ----
HPMON_CPUID=GenuineIntel-6-5E-3 hpm_ok list
out=$E2E_TMP/out
expect_eq "vendor headings" "Vendor events of x86/skylake (tables v53, cpuid GenuineIntel-6-5E-3):" \
	"$(grep '^Vendor events' "$out")"
expect_grep "INST_RETIRED.ANY" \
	'^  INST_RETIRED\.ANY +\[vendor\]  Instructions retired from execution  \(not probed\)$' "$out"
expect_grep "an uncore event" '^  UNC_CBO_CACHE_LOOKUP\.ANY_ES +\[vendor\]' "$out"
expect_no_grep "a note of no tables" '^Vendor events: none' "$out"
n=$(grep -c '\[vendor\]' "$out")
# skylake's events less the deprecated ones, as perf lists them, of the
# PMUs the tree has (not uncore_clock's)
want=$(awk -F'\t' '!/^#/ && $4 !~ /deprecated/ && $2 != "uncore_clock"' \
	"$SRCDIR/data/vendor/x86/skylake/events.txt" | wc -l)
expect_no_grep "uncore_clock's event" '^  UNC_CLOCK\.SOCKET ' "$out"
expect_eq "vendor events listed" "$want" "$n"

# a pattern, in JSON
HPMON_CPUID=GenuineIntel-6-5E-3 hpm_ok list --json 'inst_retired.*'
expect_eq "JSON of INST_RETIRED.ANY" \
	"['vendor', 'cpu', 'x86/skylake', 'v53', 'Instructions retired from execution']" \
	"$(json "$E2E_TMP/out" "[(e['kind'], e['pmu'], e['model'], e['table_version'], e['description']) for e in j if e['name'] == 'INST_RETIRED.ANY'][0]" | tr '()' '[]')"

# ---- hybrid: each core PMU's own ----
HPMON_SYSFS_ROOT=$TESTDATA/sysfs-intel-adl HPMON_CPUID=GenuineIntel-6-97-2 hpm_ok list INST_RETIRED.ANY
expect_grep "cpu_core's" '^  cpu_core/INST_RETIRED\.ANY/ +\[vendor\]' "$E2E_TMP/out"
expect_grep "cpu_atom's" '^  cpu_atom/INST_RETIRED\.ANY/ +\[vendor\]' "$E2E_TMP/out"

# ---- a model without tables: one note, no vendor event ----
HPMON_CPUID=GenuineIntel-6-CF-2 hpm_ok list
expect_no_grep "vendor events" '\[vendor\]' "$E2E_TMP/out"
expect_eq "the note" "1" "$(grep -c '^Vendor events: none: Linux 6.1 perf.s tables have no model for this processor (cpuid GenuineIntel-6-CF-2)' "$E2E_TMP/out")"
echo "ok"
