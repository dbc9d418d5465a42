# SPDX-License-Identifier: MIT
# annotate: samples per instruction with disassembly and source lines;
# diff: per-function change between two profiles, largest first: each
# row's change is the difference of the function's shares in the two
# reports, exactly. (The shares themselves are the run's: ratio's 60 %
# for work6 strays with the machine's load, and the kernel's share grows
# with it; record-ratio checks them against the run's own CPU times.)
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
# the shares each report gives
report_json "$E2E_TMP/a.prof"
a6=$(pct work6) a6n=$(samples work6)
expect_eq "work6 has A's most samples" work6 "$(json "$E2E_TMP/rep.json" "j['rows'][0]['sym']")"
report_json "$E2E_TMP/b.prof"
b2=$(pct two_loops) b2n=$(samples two_loops)
expect_eq "two_loops has B's most samples" two_loops "$(json "$E2E_TMP/rep.json" "j['rows'][0]['sym']")"
hpm_ok diff --json "$E2E_TMP/a.prof" "$E2E_TMP/b.prof"
cp "$E2E_TMP/out" "$E2E_TMP/d.json"
d() { json "$E2E_TMP/d.json" "[r['$2'] for r in j['rows'] if r['sym'] == '$1'][0]"; }
# (pct is rounded to 3 places)
expect_in "work6 gone: minus its share of A ($a6 %)" "$(python3 -c "print(-$a6 - 0.001)")" \
	"$(python3 -c "print(-$a6 + 0.001)")" "$(d work6 delta_points)"
expect_eq "work6's samples in A" "$a6n" "$(d work6 samples_a)"
expect_eq "work6 not in B" 0 "$(d work6 samples_b)"
expect_in "two_loops new: its share of B ($b2 %)" "$(python3 -c "print($b2 - 0.001)")" \
	"$(python3 -c "print($b2 + 0.001)")" "$(d two_loops delta_points)"
expect_eq "two_loops's samples in B" "$b2n" "$(d two_loops samples_b)"
expect_eq "no ratio for a new function" None "$(d two_loops ratio)"
expect_eq "largest change first" True "$(json "$E2E_TMP/d.json" "abs(j['rows'][0]['delta_points']) >= abs(j['rows'][-1]['delta_points'])")"
hpm_ok diff "$E2E_TMP/a.prof" "$E2E_TMP/a.prof"
expect_grep "same profile: ratio 1" '1\.000 .* \+0\.00 +work6 +ratio' "$E2E_TMP/out"
