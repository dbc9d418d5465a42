# SPDX-License-Identifier: MIT
# Symbol sources beyond the plain symbol table: inlined functions (DWARF),
# JIT code named in /tmp/perf-PID.map, a stripped program whose symbols
# are in a separate debug file found by build-id, and the summary of what
# stayed unresolved.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record-lib.sh"

# inlined: the samples are outer_work's by symbol, inner_loop's by DWARF
hpm_ok record -q -e cpu-clock -o "$E2E_TMP/i.prof" -- "$WORKLOADS/inlined" 150000000
report_json "$E2E_TMP/i.prof"
expect_in "outer_work by symbol" 95 100 "$(pct outer_work)"
report_json "$E2E_TMP/i.prof" --inline
expect_in "inner_loop by DWARF" 95 100 "$(pct 'inner_loop (inlined in outer_work)')"

# JIT: code in anonymous memory, named by the map the program wrote
hpm_ok record -q -e cpu-clock -o "$E2E_TMP/j.prof" -- "$WORKLOADS/jit" 200000000
map=$(cat "$E2E_TMP/out")
E2E_JIT_MAP=$map
trap 'rm -f "$E2E_JIT_MAP"; e2e_cleanup' EXIT
report_json "$E2E_TMP/j.prof"
expect_in "jitted_loop from $map" 95 100 "$(pct jitted_loop)"
rm -f "$map"
hpm_ok report -i "$E2E_TMP/j.prof"
expect_grep "unresolved JIT code by object and offset" '^ +[0-9]+ +[0-9.]+% +[0-9.]+% +anon\+0x[0-9a-f]+ +anon$' "$E2E_TMP/out"
expect_grep "unresolved summary" 'samples without symbols.*' "$E2E_TMP/out"
expect_grep "why" '//anon +[0-9]+ of [0-9]+ samples: anonymous memory, no /tmp/perf-PID.map' "$E2E_TMP/out"

# stripped program, symbols in DEBUG/.build-id/xx/yyyy.debug
command -v objcopy >/dev/null || skip "objcopy (binutils) is needed"
cp "$WORKLOADS/ratio" "$E2E_TMP/ratio"
objcopy --only-keep-debug "$E2E_TMP/ratio" "$E2E_TMP/ratio.debug"
strip -s "$E2E_TMP/ratio"
id=$(readelf -n "$E2E_TMP/ratio" | sed -n 's/.*Build ID: *//p')
[ -n "$id" ] || fail "no build-id in the workload"
mkdir -p "$E2E_TMP/debug/.build-id/${id:0:2}"
mv "$E2E_TMP/ratio.debug" "$E2E_TMP/debug/.build-id/${id:0:2}/${id:2}.debug"
hpm_ok record -q -e cpu-clock -o "$E2E_TMP/s.prof" -- "$E2E_TMP/ratio" 100000000
hpm_ok report -i "$E2E_TMP/s.prof"
expect_no_grep "stripped: no work6" ' work6 ' "$E2E_TMP/out"
expect_grep "stripped: said why" 'ratio +[0-9]+ of [0-9]+ samples: the file has no symbol table' "$E2E_TMP/out"
report_json "$E2E_TMP/s.prof" --debug-dir "$E2E_TMP/debug"
expect_in "work6 from the debug file" 57 63 "$(pct work6)"
hpm_ok script -i "$E2E_TMP/s.prof" -G -F ip,sym
expect_no_grep "script, stripped: no work6" ' work6$' "$E2E_TMP/out"
hpm_ok script -i "$E2E_TMP/s.prof" -G -F ip,sym --debug-dir "$E2E_TMP/debug"
expect_grep "script: work6 from the debug file" ' work6$' "$E2E_TMP/out"
report_json "$E2E_TMP/s.prof" --debug-dir "$E2E_TMP/debug" --lines
expect_eq "source lines from the debug file" True \
	"$(json "$E2E_TMP/rep.json" "any(r['line'].startswith('ratio.c:') for r in j['rows'])")"
