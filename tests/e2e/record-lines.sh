# SPDX-License-Identifier: MIT
# Source lines from DWARF: two loops of one function run 3*N and N
# iterations, so --lines puts 75 % and 25 % of the samples on their lines
# (within 3 points).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record-lib.sh"

src=${SRCDIR:-$(dirname "$0")/../..}/tests/workloads/lines.c
la=$(grep -n 'LOOP_A' "$src" | grep -v '^\s*\*' | tail -n1 | cut -d: -f1)
lb=$(grep -n 'LOOP_B' "$src" | tail -n1 | cut -d: -f1)
hpm_ok record -q -e cpu-clock -o "$E2E_TMP/l.prof" -- "$WORKLOADS/lines" 200000000
report_json "$E2E_TMP/l.prof" --lines
# shares of the user-space samples: the kernel's (interrupts taken while
# the loops ran) grow with the machine's load, 10 to 17 % seen while a
# compiler ran beside
user="sum(r['events'][0]['samples'] for r in j['rows'] if r.get('dso') != '[kernel.kallsyms]')"
a=$(json "$E2E_TMP/rep.json" "100 * sum(r['events'][0]['samples'] for r in j['rows'] if r['line'] == 'lines.c:$la') / $user")
b=$(json "$E2E_TMP/rep.json" "100 * sum(r['events'][0]['samples'] for r in j['rows'] if r['line'] == 'lines.c:$lb') / $user")
note "line $la: $a %, line $lb: $b %"
expect_in "first loop's line" 72 78 "$a"
expect_in "second loop's line" 22 28 "$b"
hpm_ok report -i "$E2E_TMP/l.prof" --lines
expect_grep "line column" "lines.c:$la +two_loops +lines\$" "$E2E_TMP/out"
# perf's sort key names: srcline is line, symbol is sym, the same rows
hpm_ok report -i "$E2E_TMP/l.prof" --sort line,sym
cp "$E2E_TMP/out" "$E2E_TMP/line-sym"
expect_grep "--sort line,sym" "^ +[0-9]+ +[0-9.]+% +[0-9.]+% +lines.c:$la +two_loops\$" "$E2E_TMP/line-sym"
hpm_ok report -i "$E2E_TMP/l.prof" --sort srcline,symbol
diff "$E2E_TMP/line-sym" "$E2E_TMP/out" >/dev/null ||
	fail "--sort srcline,symbol differs from --sort line,sym: $(diff "$E2E_TMP/line-sym" "$E2E_TMP/out" | head)"
