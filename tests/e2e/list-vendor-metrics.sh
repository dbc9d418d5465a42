#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `hpmon list metrics` and `hpmon list metricgroups` in perf 6.1's words
# and layout, for a Skylake-SP named by HPMON_CPUID: a blank line, the
# heading, a blank line, then each group (or "  NAME" and its
# "       [DESCRIPTION]") once, sorted. Where perf is installed, the groups
# are perf's own list for PERF_CPUID, line for line. A model without
# tables lists hpmon's own with one note.
. "$(dirname "$0")/lib.sh"

: "${TESTDATA:?TESTDATA must name tests/data}"
export HPMON_SYSFS_ROOT=$TESTDATA/sysfs-intel-skl
export HPMON_CPUID=GenuineIntel-6-55-4

hpm_ok list metricgroups
expect_eq "list metricgroups: the heading" "$(printf '\nMetric Groups:\n')" "$(head -3 "$E2E_TMP/out")"
expect_grep "list metricgroups: TopdownL1" '^TopdownL1$' "$E2E_TMP/out"
expect_grep "list metricgroups: tma_L1_group" '^tma_L1_group$' "$E2E_TMP/out"
tail -n +4 "$E2E_TMP/out" >"$E2E_TMP/groups"
LC_ALL=C sort -u "$E2E_TMP/groups" | cmp -s - "$E2E_TMP/groups" || fail "list metricgroups: not sorted once each"
cp "$E2E_TMP/out" "$E2E_TMP/hpmon-groups"

hpm_ok list metrics
expect_eq "list metrics: the heading" "$(printf '\nMetrics:\n')" "$(head -3 "$E2E_TMP/out")"
expect_grep "list metrics: tma_frontend_bound" '^  tma_frontend_bound$' "$E2E_TMP/out"
grep -A1 '^  tma_frontend_bound$' "$E2E_TMP/out" | tail -1 >"$E2E_TMP/desc"
expect_eq "list metrics: its description" \
	"       [This category represents fraction of slots where the processor's Frontend undersupplies its Backend]" \
	"$(cat "$E2E_TMP/desc")"
expect_grep "list metrics: IPC" '^  IPC$' "$E2E_TMP/out"
if grep -q '^  ipc$' "$E2E_TMP/out"; then fail "list metrics lists hpmon's own ipc"; fi

if command -v perf >/dev/null && perf version 2>/dev/null | grep -q '^perf version 6\.1\.'; then
	PERF_CPUID=$HPMON_CPUID perf list metricgroups >"$E2E_TMP/perf-groups" 2>/dev/null
	cmp -s "$E2E_TMP/perf-groups" "$E2E_TMP/hpmon-groups" ||
		fail "list metricgroups differs from perf 6.1's: $(diff "$E2E_TMP/perf-groups" "$E2E_TMP/hpmon-groups" | head -5)"
else
	echo "note: perf 6.1 is not installed: the groups are not compared with its list"
fi

# no tables: hpmon's own metrics, one note
export HPMON_CPUID=GenuineIntel-6-99-4
hpm_ok list metricgroups
expect_eq "no tables: the note" "# hpmon: this processor model has no vendor tables: hpmon's own metrics" "$(cat "$E2E_TMP/err")"
expect_grep "no tables: hpmon's group ipc" '^ipc$' "$E2E_TMP/out"
echo "PASS: $E2E_NAME"
