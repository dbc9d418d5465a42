# SPDX-License-Identifier: MIT
# perf.data files that perf writes here, read by hpmon report, annotate,
# diff and convert: the same samples and split as perf report, the same
# callers with -g, -z (zstd) files, a group read at each sample (:S), -a,
# --call-graph dwarf; and the files it refuses, with the reason.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record-lib.sh"

command -v perf >/dev/null || skip "perf is not installed (linux-perf)"
P=$E2E_TMP
prec() { timeout -k 5 60 perf record -q "$@" 2>"$P/perf.err" >/dev/null; }
prec -e task-clock -o "$P/t.data" /bin/true ||
	skip "perf record cannot sample here: $(cat "$P/perf.err")"

# perf_samples FILE [EVENT]: the SAMPLE records perf report counts, of
# the whole file (or of the named event).
perf_samples() {
	perf report -i "$1" --stats 2>/dev/null |
		awk -v e="${2:-}" 'e != "" && $1 == e && $2 == "stats:" { in_ev = 1 }
			/SAMPLE events:/ && (e == "" || in_ev) { print $3; exit }'
}

# 1. The 6:3:1 split and the sample count, plain and -z.
for z in "" -z; do
	prec -e task-clock $z -o "$P/r.data" "$WORKLOADS/ratio" 40000000 ||
		fail "perf record $z: $(cat "$P/perf.err")"
	report_json "$P/r.data"
	expect_eq "complete$z" True "$(json "$P/rep.json" "j['complete']")"
	expect_eq "samples as perf report$z" "$(perf_samples "$P/r.data")" \
		"$(json "$P/rep.json" "j['events'][0]['samples']")"
	for f in work6 work3 work1; do
		h=$(pct $f) p=$(perf_pct "$P/r.data" $f)
		expect_in "$f percent$z: hpmon $h, perf $p" "$(python3 -c "print($p - 0.5)")" \
			"$(python3 -c "print($p + 0.5)")" "$h"
	done
	expect_in "work6 share$z" 55 65 "$(pct work6)"
done
hpm_ok report -i "$P/r.data"
expect_grep "header names the event" '^# event task-clock: [0-9]+ samples' "$E2E_TMP/out"
expect_grep "perf's command line" '^# profile of: .*perf record .*-z' "$E2E_TMP/out"

# annotate and diff read it too; convert writes a profile that reads alike
hpm_ok annotate -i "$P/r.data" work6
expect_grep "annotate" 'work6' "$E2E_TMP/out"
hpm_ok diff "$P/r.data" "$P/r.data"
expect_grep "diff" 'work6' "$E2E_TMP/out"
hpm_ok convert -i "$P/r.data" -o "$P/r.prof"
expect_grep "convert lists what it read" 'read: .*SAMPLE [0-9]+' "$E2E_TMP/err"
expect_grep "convert: compressed records" 'COMPRESSED [0-9]+' "$E2E_TMP/err"
[ "$(stat -c %a "$P/r.prof")" = 600 ] || fail "convert's output is not mode 0600"
cp "$P/rep.json" "$P/data.json"
report_json "$P/r.prof"
expect_eq "converted profile: same rows" \
	"$(json "$P/data.json" "[(r['sym'], r['events'][0]['samples']) for r in j['rows']]")" \
	"$(json "$P/rep.json" "[(r['sym'], r['events'][0]['samples']) for r in j['rows']]")"

# 2. -g: the same callers as perf's own stacks. Edges between the call
# tree's functions, from perf script (perf's unwinding and symbols) and
# from hpmon report --folded, counted once per sample.
prec -g -e task-clock -o "$P/g.data" "$WORKLOADS/calltree" 40000000 ||
	fail "perf record -g: $(cat "$P/perf.err")"
perf script -i "$P/g.data" -F ip,sym 2>/dev/null >"$P/g.perf"
hpm_ok report -i "$P/g.data" --folded
cp "$E2E_TMP/out" "$P/g.folded"
python3 - "$P/g.perf" "$P/g.folded" <<'EOF' || fail "callers differ from perf's (above)"
import re, sys
fns = {"main", "tree_a", "tree_b", "tree_c", "tree_d"}
def edges(stacks):
    out = {}
    for st, n in stacks:
        seen = set()
        for a, b in zip(st, st[1:]):
            if a in fns and b in fns and (a, b) not in seen:
                seen.add((a, b))
                out[(a, b)] = out.get((a, b), 0) + n
    return out
perf, cur = [], []
for line in open(sys.argv[1]):
    line = line.strip()
    if not line:
        if cur:
            perf.append((cur[::-1], 1))
        cur = []
        continue
    parts = line.split()
    if len(parts) >= 2:
        cur.append(re.sub(r"\+0x[0-9a-f]+$", "", parts[1]))
if cur:
    perf.append((cur[::-1], 1))
hp = []
for line in open(sys.argv[2]):
    st, n = line.rsplit(" ", 1)
    hp.append((st.split(";"), int(n)))
p, h = edges(perf), edges(hp)
if not p or p != h:
    print("perf:", sorted(p.items()), "\nhpmon:", sorted(h.items()))
    sys.exit(1)
EOF
hpm_ok convert -q -i "$P/g.data" -o "$P/g.prof"
hpm_ok report -i "$P/g.prof" --folded
sort "$E2E_TMP/out" >"$P/g.prof.folded"
sort "$P/g.folded" | cmp -s - "$P/g.prof.folded" || fail "the converted -g profile folds otherwise"
report_json "$P/g.data" -g
expect_eq "-g samples as perf" "$(perf_samples "$P/g.data")" \
	"$(json "$P/rep.json" "j['events'][0]['samples']")"

# 3. A group read at each sample (:S): the member is read, not sampled.
prec -e '{task-clock,page-faults}:S' -o "$P/s.data" "$WORKLOADS/ratio" 20000000 ||
	fail "perf record :S: $(cat "$P/perf.err")"
report_json "$P/s.data"
expect_eq "group: events" "['task-clock', 'page-faults']" "$(json "$P/rep.json" "[e['name'] for e in j['events']]")"
expect_eq "group: member does not trigger" False "$(json "$P/rep.json" "j['events'][1]['trigger']")"
expect_eq "group: leader samples as perf" "$(perf_samples "$P/s.data" task-clock)" \
	"$(json "$P/rep.json" "j['events'][0]['samples']")"
expect_in "group: page faults read" 1 100000000 \
	"$(json "$P/rep.json" "sum(e.get('count', 0) for r in j['rows'] for e in r['events'] if e['name'] == 'page-faults')")"

# 4. -a (a dummy event carries the side band; samples carry the CPU) and
# --call-graph dwarf (stack copies unwound at report time).
if prec -a -e cpu-clock -o "$P/a.data" -- "$WORKLOADS/ratio" 10000000; then
	report_json "$P/a.data"
	expect_eq "-a: samples as perf" "$(perf_samples "$P/a.data" cpu-clock)" \
		"$(json "$P/rep.json" "j['events'][0]['samples']")"
else
	note "perf record -a refused here: $(cat "$P/perf.err")"
fi
prec --call-graph dwarf -e task-clock -o "$P/d.data" "$WORKLOADS/ratio" 20000000 ||
	fail "perf record --call-graph dwarf: $(cat "$P/perf.err")"
report_json "$P/d.data" -g
cg() { json "$E2E_TMP/rep.json" "[c['$2'] for c in j['callgraph'] if c['sym'] == '$1'][0]"; }
expect_in "dwarf: main inclusive" 95 100 "$(cg main inclusive)"

# 5. What is refused, and why: the other byte order, a pipe's stream, a
# file perf did not finish (read up to its end, with a warning).
python3 -c "
import sys
d = bytearray(open(sys.argv[1], 'rb').read()); d[0:8] = d[0:8][::-1]
open(sys.argv[2], 'wb').write(d)" "$P/r.data" "$P/swap.data"
hpm report -i "$P/swap.data"
[ "$HPM_STATUS" -ne 0 ] || fail "a perf.data of the other byte order was read"
expect_grep "byte order said" 'other byte order' "$E2E_TMP/err"
timeout -k 5 60 perf record -q -e task-clock -o - "$WORKLOADS/ratio" 1000000 >"$P/pipe.data" 2>/dev/null ||
	fail "perf record -o -"
hpm report -i "$P/pipe.data"
[ "$HPM_STATUS" -ne 0 ] || fail "a perf.data stream was read"
expect_grep "stream said" 'perf inject' "$E2E_TMP/err"
python3 -c "
import struct, sys
d = open(sys.argv[1], 'rb').read()
off, size = struct.unpack('<QQ', d[40:56])   # the data section
open(sys.argv[2], 'wb').write(d[:off + size - 10])" "$P/g.data" "$P/cut.data"
hpm_ok report -i "$P/cut.data"
expect_grep "cut file: warning" 'incomplete: the data section is cut' "$E2E_TMP/out"
expect_grep "cut file: generic name" '^# event task-clock' "$E2E_TMP/out"
exit 0
