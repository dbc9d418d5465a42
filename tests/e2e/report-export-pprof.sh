# SPDX-License-Identifier: MIT
# report --pprof, decoded by npm's pprof-format (a decoder hpmon did not
# write): the stacks and sample counts equal --folded's exactly; the
# sample types are the events with their units and their totals equal
# report's; labels, mappings with build ids, functions with their files
# and first lines, inline frames, system names of C++ functions; and the
# output file's rules (0600, no symlink, the old file kept on failure).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/export-lib.sh"

npm_validators pprof-format@2.3.2
decode() { node "$EXPORT_DIR/pprof-summary.js" "$NPM_MODULES" "$1" >"$2" || fail "pprof-format cannot decode $1"; }

# A known call tree, with stacks (frame pointers).
hpm_ok record -q -g -e cpu-clock -o "$E2E_TMP/c.prof" -- "$WORKLOADS/calltree" 60000000
hpm_ok report -i "$E2E_TMP/c.prof" --folded
cp "$E2E_TMP/out" "$E2E_TMP/folded"
hpm_ok report -i "$E2E_TMP/c.prof" --json
cp "$E2E_TMP/out" "$E2E_TMP/rep.json"
hpm_ok report -i "$E2E_TMP/c.prof" --pprof -o "$E2E_TMP/c.pb.gz"
expect_eq "the file's mode" 600 "$(stat -c %a "$E2E_TMP/c.pb.gz")"
gzip -t "$E2E_TMP/c.pb.gz" || fail "--pprof did not write gzip"
decode "$E2E_TMP/c.pb.gz" "$E2E_TMP/s.json"
S=$E2E_TMP/s.json
export_check folded-eq "$E2E_TMP/folded" "$S" pprof cpu-clock
expect_eq "sample types" "[['samples', 'count'], ['cpu-clock', 'nanoseconds']]" "$(json "$S" "j['sampleType']")"
expect_eq "default sample type" cpu-clock "$(json "$S" "j['defaultSampleType']")"
expect_eq "period type" "['cpu-clock', 'nanoseconds']" "$(json "$S" "j['periodType']")"
expect_eq "samples total" "$(json "$E2E_TMP/rep.json" "j['events'][0]['samples']")" "$(json "$S" "j['totals'][0]")"
expect_eq "cpu-clock total (ns)" "$(json "$E2E_TMP/rep.json" "int(j['events'][0]['period'])")" "$(json "$S" "j['totals'][1]")"
expect_eq "labels" "['comm,cpu,event,pid,tid']" \
	"$(json "$S" "sorted(set(','.join(sorted(s['labels'])) for s in j['samples']))")"
expect_eq "comm label" "['calltree']" "$(json "$S" "sorted(set(s['labels']['comm'] for s in j['samples']))")"
expect_eq "one process, pid = tid" True "$(json "$S" "len(set(s['labels']['pid'] for s in j['samples'])) == 1 and all(s['labels']['pid'] == s['labels']['tid'] for s in j['samples'])")"
expect_eq "the command as a comment" True "$(json "$S" "j['comments'][0].endswith('calltree 60000000')")"
expect_eq "duration" True "$(json "$S" "j['durationNanos'] > 0 and int(j['timeNanos']) > 1.6e18")"

# the workload's mapping: its file, its build id, its offsets; every
# location inside its mapping (but at the top of the address space, where
# a chain's 0 lands as the address before it and no limit is above)
bid=$(readelf -n "$WORKLOADS/calltree" 2>/dev/null | awk '/Build ID/ { print $3 }')
m="[m for m in j['mappings'] if m['filename'].endswith('/calltree')][0]"
[ -z "$bid" ] || expect_eq "build id" "$bid" "$(json "$S" "$m['buildId']")"
expect_eq "mapping with functions, files, lines" "True True True" \
	"$(json "$S" "' '.join(str($m[k]) for k in ('hasFunctions', 'hasFilenames', 'hasLineNumbers'))")"
expect_eq "locations inside their mappings" True "$(json "$S" "all(int(m['start']) <= int(l['address']) < int(m['limit']) or int(l['address']) == int(m['limit']) == 2**64 - 1 for l in j['locations'] for m in j['mappings'] if m['id'] == l['mappingId'])")"
# functions: names, source files and first lines (the line of 'tree_a(')
la=$(grep -n '^__attribute__.* void tree_a(' "$SRCDIR/tests/workloads/calltree.c" | cut -d: -f1)
f="[f for f in j['functions'] if f['name'] == 'tree_a'][0]"
expect_eq "tree_a's file" True "$(json "$S" "$f['filename'].endswith('calltree.c')")"
expect_in "tree_a's first line" "$la" "$((la + 1))" "$(json "$S" "$f['startLine']")"

# A group read at each sample: the member's counts are a sample type of
# their own, with totals equal to report's.
hpm_ok record -q -e '{cpu-clock,task-clock}' -o "$E2E_TMP/g.prof" -- "$WORKLOADS/calltree" 30000000
hpm_ok report -i "$E2E_TMP/g.prof" --json
cp "$E2E_TMP/out" "$E2E_TMP/g.json"
hpm_ok report -i "$E2E_TMP/g.prof" --pprof -o "$E2E_TMP/g.pb.gz"
decode "$E2E_TMP/g.pb.gz" "$E2E_TMP/gs.json"
expect_eq "group: sample types" "[['samples', 'count'], ['cpu-clock', 'nanoseconds'], ['task-clock', 'nanoseconds']]" \
	"$(json "$E2E_TMP/gs.json" "j['sampleType']")"
expect_eq "group: task-clock read at the samples" \
	"$(json "$E2E_TMP/g.json" "int(sum(e['count'] for r in j['rows'] for e in r['events'] if e['name'] == 'task-clock'))")" \
	"$(json "$E2E_TMP/gs.json" "j['totals'][2]")"

# Inline frames: inner_loop's code inlined into outer_work is one location
# with two lines, innermost first.
hpm_ok record -q -e cpu-clock -o "$E2E_TMP/i.prof" -- "$WORKLOADS/inlined" 100000000
hpm_ok report -i "$E2E_TMP/i.prof" --pprof -o "$E2E_TMP/i.pb.gz"
decode "$E2E_TMP/i.pb.gz" "$E2E_TMP/is.json"
expect_eq "inline frames" True "$(json "$E2E_TMP/is.json" "any([x['function'] for x in l['lines']] == ['inner_loop', 'outer_work'] for l in j['locations'])")"
expect_eq "mapping has inline frames" True "$(json "$E2E_TMP/is.json" "[m for m in j['mappings'] if m['filename'].endswith('/inlined')][0]['hasInlineFrames']")"

# C++: the demangled name, and the symbol table's as the system name.
if [ -x "$WORKLOADS/cxxsyms" ]; then
	hpm_ok record -q -e cpu-clock -o "$E2E_TMP/x.prof" -- "$WORKLOADS/cxxsyms" 50000000
	hpm_ok report -i "$E2E_TMP/x.prof" --pprof -o "$E2E_TMP/x.pb.gz"
	decode "$E2E_TMP/x.pb.gz" "$E2E_TMP/xs.json"
	expect_eq "C++ system name" _ZN3hpm7SpinnerIlE4spinEl \
		"$(json "$E2E_TMP/xs.json" "[f['systemName'] for f in j['functions'] if f['name'] == 'hpm::Spinner<long>::spin(long)'][0]")"
else
	note "no C++ workload (g++ missing): system names not checked"
fi

# The output file's rules: a symlink is refused, a failed report leaves
# the old file, binary is not written to a terminal's place by default.
ln -s "$E2E_TMP/target" "$E2E_TMP/link"
hpm report -i "$E2E_TMP/c.prof" --pprof -o "$E2E_TMP/link"
[ "$HPM_STATUS" -ne 0 ] || fail "--pprof -o wrote through a symlink"
[ ! -e "$E2E_TMP/target" ] || fail "the symlink's target was created"
echo old >"$E2E_TMP/keep"
hpm report -i "$E2E_TMP/missing.prof" --pprof -o "$E2E_TMP/keep"
[ "$HPM_STATUS" -ne 0 ] || fail "a report of a missing profile succeeded"
expect_eq "old file kept" old "$(cat "$E2E_TMP/keep")"
# -o - is standard output
hpm_ok report -i "$E2E_TMP/c.prof" --pprof -o -
cmp -s "$E2E_TMP/out" "$E2E_TMP/c.pb.gz" || fail "--pprof -o - differs from the file"
# any format to -o: the folded stacks too
hpm_ok report -i "$E2E_TMP/c.prof" --folded -o "$E2E_TMP/folded2"
cmp -s "$E2E_TMP/folded" "$E2E_TMP/folded2" || fail "--folded -o differs from standard output"
# gzip is not for a terminal
if command -v script >/dev/null; then
	rc=0
	timeout -k 5 "$E2E_TIMEOUT" script -qec "$HPMON report -i $E2E_TMP/c.prof --pprof" /dev/null >"$E2E_TMP/tty" 2>&1 || rc=$?
	expect_eq "--pprof to a terminal: a usage error" 129 "$rc"
	expect_grep "--pprof to a terminal: why" 'gzipped binary data: give -o FILE' "$E2E_TMP/tty"
fi
hpm report -i "$E2E_TMP/c.prof" --pprof --folded
expect_eq "two formats: a usage error" 129 "$HPM_STATUS"
expect_grep "the conflict named" 'formats of their own' "$E2E_TMP/err"
