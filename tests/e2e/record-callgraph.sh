# SPDX-License-Identifier: MIT
# Call chains (frame pointers) of a known call tree: inclusive and self
# percent per function, the caller/callee edges, and folded stacks.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record-lib.sh"

hpm_ok record -q -g -e cpu-clock -o "$E2E_TMP/c.prof" -- "$WORKLOADS/calltree" 120000000
report_json "$E2E_TMP/c.prof" -g
# A sample taken in the kernel while the workload ran (an interrupt, a
# preemption) has the workload's user stack below its kernel part: it
# counts in the functions' inclusive shares and edges, but in no user
# function's self share. Their number grows with the machine's load (0.5 %
# idle, 10 to 17 % seen while a compiler ran beside), so self shares are
# taken of the user-space samples.
user_scale() {
	json "$E2E_TMP/rep.json" "j['events'][0]['samples'] / sum(r['events'][0]['samples'] for r in j['rows'] if r.get('dso') != '[kernel.kallsyms]')"
}
cg() {
	local scale=1
	[ "$2" = self ] && scale=$(user_scale)
	json "$E2E_TMP/rep.json" "[c['$2'] for c in j['callgraph'] if c['sym'] == '$1'][0] * $scale"
}
edge() { json "$E2E_TMP/rep.json" "sum(e['percent'] for c in j['callgraph'] if c['sym'] == '$1' for e in c['callees'] if e['sym'] == '$2')"; }
expect_in "tree_a inclusive" 63.7 69.7 "$(cg tree_a inclusive)"
expect_in "tree_a self" 14.7 18.7 "$(cg tree_a self)"
expect_in "tree_b inclusive" 30.3 36.3 "$(cg tree_b inclusive)"
expect_in "tree_c inclusive" 14.7 18.7 "$(cg tree_c inclusive)"
expect_in "tree_d inclusive" 30.3 36.3 "$(cg tree_d inclusive)"
expect_in "main inclusive" 98 100 "$(cg main inclusive)"
expect_in "main -> tree_a" 63.7 69.7 "$(edge main tree_a)"
expect_in "tree_a -> tree_b" 30.3 36.3 "$(edge tree_a tree_b)"
expect_eq "no edge main -> tree_b" 0 "$(edge main tree_b)"

hpm_ok report -i "$E2E_TMP/c.prof" -g
expect_grep "text call graph" '^ +[0-9.]+% +[0-9.]+% +tree_a +\[calltree\]' "$E2E_TMP/out"
expect_grep "callee line" '^ +-> +[0-9.]+% +tree_b' "$E2E_TMP/out"

hpm_ok report -i "$E2E_TMP/c.prof" --folded
expect_grep "folded" '^calltree;(.*;)?main;tree_a;tree_b [0-9]+$' "$E2E_TMP/out"
total=$(awk '{ s += $NF } END { print s }' "$E2E_TMP/out")
expect_eq "folded counts every sample" "$(json "$E2E_TMP/rep.json" "j['events'][0]['samples']")" "$total"

# The same tree from DWARF: user registers and stack copies, unwound at
# report time with the objects' CFI (no frame pointers needed).
hpm_ok record -q --call-graph dwarf -e cpu-clock -o "$E2E_TMP/w.prof" -- "$WORKLOADS/ratio" 60000000
report_json "$E2E_TMP/w.prof" -g
expect_in "dwarf: main inclusive" 98 100 "$(cg main inclusive)"
expect_in "dwarf: main -> work6" 57 63 "$(edge main work6)"
expect_in "dwarf: main -> work1" 8 12 "$(edge main work1)"
expect_in "dwarf: work6 self" 57 63 "$(cg work6 self)"
