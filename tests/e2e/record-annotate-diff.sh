# SPDX-License-Identifier: MIT
# annotate: samples per instruction with disassembly and source lines;
# diff: per-function change between two profiles, largest first.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record-lib.sh"

hpm_ok record -q -e cpu-clock -o "$E2E_TMP/a.prof" -- "$WORKLOADS/ratio" 100000000
hpm_ok annotate -i "$E2E_TMP/a.prof" work6
expect_grep "instructions with samples" '^ +[0-9]+ +[0-9.]+% +[0-9a-f]+: +[a-z]' "$E2E_TMP/out"
expect_grep "source interleaved" 'ratio.c:[0-9]+ +' "$E2E_TMP/out"
total=$(awk '/^ +[0-9]+ +[0-9.]+% +[0-9a-f]+:/ { s += $1 } END { print s }' "$E2E_TMP/out")
report_json "$E2E_TMP/a.prof"
expect_eq "instruction samples add up" "$(samples work6)" "$total"
hpm annotate -i "$E2E_TMP/a.prof" no_such_function
expect_eq "unknown symbol" 1 "$HPM_STATUS"

# B: the same workload, and the lines workload instead of it
hpm_ok record -q -e cpu-clock -o "$E2E_TMP/b.prof" -- "$WORKLOADS/lines" 100000000
hpm_ok diff --json "$E2E_TMP/a.prof" "$E2E_TMP/b.prof"
cp "$E2E_TMP/out" "$E2E_TMP/d.json"
d() { json "$E2E_TMP/d.json" "[r['$2'] for r in j['rows'] if r['sym'] == '$1'][0]"; }
expect_in "work6 gone" -62 -58 "$(d work6 delta_points)"
expect_eq "work6 not in B" 0 "$(d work6 samples_b)"
expect_in "two_loops new" 98 100 "$(d two_loops delta_points)"
expect_eq "no ratio for a new function" None "$(d two_loops ratio)"
expect_eq "largest change first" True "$(json "$E2E_TMP/d.json" "abs(j['rows'][0]['delta_points']) >= abs(j['rows'][-1]['delta_points'])")"
hpm_ok diff "$E2E_TMP/a.prof" "$E2E_TMP/a.prof"
expect_grep "same profile: ratio 1" '1\.000 .* \+0\.00 +work6 +ratio' "$E2E_TMP/out"
