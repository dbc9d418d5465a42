# SPDX-License-Identifier: MIT
# report --html's panels in headless Chromium (tests/e2e/cdp.py):
#  - annotate: a click on work6's row shows its source lines and hottest
#    instructions, the hot line the one `hpmon annotate` puts the most
#    samples on, its samples report's, the hottest instruction annotate's;
#  - the time range: a run of work6 alone, then of work1 alone (two
#    processes, one after the other); dragging over the part of the strip
#    where work6 ran leaves it alone in the table and the graph, over where
#    work1 ran work1; "whole run" gives the first values back;
#  - colours and metrics: a group {cpu-clock,task-clock} read at each
#    sample and a metric task-clock / cpu-clock (-M from a file): the
#    table's metric column is report -M's value, the frames coloured by the
#    metric and by the ratio of the counts carry the same value, near 1;
#  - no console error, no request, in every page.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record-lib.sh"

command -v "${CHROMIUM:-chromium}" >/dev/null ||
	skip "chromium is not installed (scripts/deps installs it for the test lanes)"
CDP=("python3" "$SRCDIR/tests/e2e/cdp.py")
clean() { expect_eq "$1: no console errors, no requests" "[] []" \
	"$(json "$2" "' '.join(str(x) for x in [j['console'] + j['exceptions'], j['requests']])")"; }

# -- annotate
hpm_ok record -q -g -e cpu-clock -o "$E2E_TMP/r.prof" -- "$WORKLOADS/ratio" 100000000
hpm_ok report -i "$E2E_TMP/r.prof" --html -o "$E2E_TMP/r.html"
report_json "$E2E_TMP/r.prof"
hpm_ok annotate -i "$E2E_TMP/r.prof" work6
# annotate's line with the most samples, and its hottest instruction
read -r hot_line hot_addr <<<"$(awk '
	/ratio\.c:[0-9]+/ { match($0, /ratio\.c:[0-9]+/); line = substr($0, RSTART + 8, RLENGTH - 8) }
	/^ +[0-9]+ +[0-9.]+% +[0-9a-f]+:/ { n[line] += $1; if ($1 > best) { best = $1; a = $3 } }
	END { for (l in n) if (n[l] > m) { m = n[l]; hl = l } sub(":", "", a); print hl, a }' "$E2E_TMP/out")"
note "annotate: hottest line $hot_line, instruction $hot_addr"
cat >"$E2E_TMP/a.json" <<'JSON'
[
 {"eval": "document.getElementById('anno').hidden"},
 {"click": "#funcs tbody tr[data-name=work6] td"},
 {"eval": "document.getElementById('anno').hidden"},
 {"eval": "(() => { const h = document.querySelector('#anno-lines tr.hot'); return h ? [h.dataset.line, h.cells[1].textContent, h.cells[3].textContent] : null; })()"},
 {"eval": "document.querySelector('#anno-hot tr').cells[0].textContent"},
 {"eval": "document.querySelector('#anno .note').textContent"},
 {"click": "#anno-close"},
 {"eval": "document.getElementById('anno').hidden"}
]
JSON
"${CDP[@]}" "$E2E_TMP/r.html" "$E2E_TMP/a.json" "$E2E_TMP/cdp-a.json" || fail "the browser driver failed"
res() { json "$E2E_TMP/cdp-a.json" "$1"; }
clean annotate "$E2E_TMP/cdp-a.json"
expect_eq "the panel opens on a click" "True False" "$(res "j['results'][0]") $(res "j['results'][2]")"
expect_eq "the hot line is annotate's" "$hot_line" "$(res "j['results'][3][0]")"
expect_eq "its samples are work6's" "$(samples work6)" "$(res "j['results'][3][1]")"
expect_grep "its source text" 'void work6\(unsigned long n\)' <(res "j['results'][3][2]")
expect_eq "the hottest instruction is annotate's" "$hot_addr" "$(res "j['results'][4]")"
expect_grep "the function's samples" "^$(samples work6) samples of cpu-clock" <(res "j['results'][5]")
expect_eq "closed" True "$(res "j['results'][7]")"

# -- the time range: work6 alone, then work1 alone; with a fixed period
# (the bins without periods: "each") and with a frequency (periods vary)
for mode in "" "-F 1999"; do
	hpm_ok record -q -g -e cpu-clock $mode -o "$E2E_TMP/t.prof" -- sh -c \
		"'$WORKLOADS/ratio' 200000000 1 0 0 && '$WORKLOADS/ratio' 200000000 0 0 1"
	hpm_ok report -i "$E2E_TMP/t.prof" --html -o "$E2E_TMP/t.html"
	# where work1 starts in the strip (the phases' wall times vary with the
	# machine's load): the ranges are dragged well inside each phase
	read -r f1 f2 f3 f4 <<<"$(python3 - "$E2E_TMP/t.html" <<'PY'
import base64, json, re, sys
d = json.loads(re.search(r'id="data">(.*?)</script>', open(sys.argv[1]).read(), re.S).group(1))
n = d['bins']['n']
def ulebs(s):  # base64 of LEB128 numbers
    u, x, m = [], 0, 1
    for b in base64.b64decode(s):
        x += (b & 0x7f) * m
        m = m * 128 if b & 0x80 else 1
        if not b & 0x80:
            u.append(x)
            x = 0
    return u
k = 3 if d['bins']['each'][0] else 4  # without the period when -c fixed it
if d['bins']['v'] is None:  # the bins are the stack chart's samples': [node, bin, 1]
    v, i, tk, last, S = [], 0, 0, 0, ulebs(d['stacks']['v'][0])
    while i < len(S):
        tk += S[i] // 2
        if not S[i] % 2:
            i += 1
            last = S[i]
        i += 1
        t = d['stacks']['t0'] + tk * d['stacks']['tick']
        v += [last, min(n - 1, max(0, (t - d['bins']['t0']) // d['bins']['width'])), 1]
    k = 3
else:
    v = d['bins']['v'][0]
# the tree: per node its parent's depth + 1 - its depth, what zigzagged,
# samples, and the period unless tree_each gives it
u = ulebs(d['trees'][0])
step = 3 if d['tree_each'][0] else 4
nodes, depth = [], -1
for i in range(0, len(u), step):
    depth = depth + 1 - u[i]
    nodes.append((depth, -(u[i + 1] + 1) // 2 if u[i + 1] % 2 else u[i + 1] // 2))
name = lambda k: d['syms'][nodes[k][1]] if nodes[k][0] and nodes[k][1] >= 0 else ''
b6 = max(v[i + 1] for i in range(0, len(v), k) if name(v[i]) == 'work6')
b1 = min(v[i + 1] for i in range(0, len(v), k) if name(v[i]) == 'work1')
print(0.01, 0.8 * b6 / n, 0.99, (b1 + 1 + 0.2 * (n - b1 - 1)) / n)
PY
	)"
	note "${mode:-fixed period}: work6 ends, work1 starts: dragging $f1 to $f2, $f3 to $f4"
	rows='(() => { const p = {}; for (const tr of document.querySelectorAll("#funcs tbody tr")) p[tr.dataset.name] = parseFloat(tr.cells[4].textContent); return p; })()'
	frames='(() => { const p = {}; for (const f of document.querySelectorAll("#flame .fr")) p[f.dataset.name] = (p[f.dataset.name] || 0) + Number(f.dataset.percent); return p; })()'
	cat >"$E2E_TMP/t.json" <<JSON
[
 {"eval": $(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$rows")},
 {"drag": ["#strip", $f1, $f2]},
 {"eval": $(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$rows")},
 {"eval": $(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$frames")},
 {"eval": "document.getElementById('range').textContent"},
 {"drag": ["#strip", $f3, $f4]},
 {"eval": $(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$rows")},
 {"click": "#clear"},
 {"eval": $(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$rows")}
]
JSON
	"${CDP[@]}" "$E2E_TMP/t.html" "$E2E_TMP/t.json" "$E2E_TMP/cdp-t.json" --shot "$E2E_TMP/t.png" ||
		fail "the browser driver failed"
	res() { json "$E2E_TMP/cdp-t.json" "$1"; }
	clean range "$E2E_TMP/cdp-t.json"
	note "${mode:-fixed period}: whole run: $(res "{k: v for k, v in j['results'][0].items() if k.startswith('work')}")"
	note "${mode:-fixed period}: first phase: $(res "{k: v for k, v in j['results'][2].items() if k.startswith('work')}")"
	note "${mode:-fixed period}: second phase: $(res "{k: v for k, v in j['results'][6].items() if k.startswith('work')}")"
	expect_in "whole run: work6 about half" 40 60 "$(res "j['results'][0]['work6']")"
	expect_in "whole run: work1 about half" 40 60 "$(res "j['results'][0]['work1']")"
	expect_in "first phase: work6 nearly all" 95 100 "$(res "j['results'][2]['work6']")"
	expect_eq "first phase: no work1" 0 "$(res "j['results'][2].get('work1', 0)")"
	expect_in "first phase: the graph's work6 too" 95 100 "$(res "j['results'][3].get('work6', 0)")"
	expect_eq "first phase: no work1 in the graph" 0 "$(res "j['results'][3].get('work1', 0)")"
	expect_grep "the range said" '^range: [0-9.]+ s to [0-9.]+ s of [0-9.]+ s' <(res "j['results'][4]")
	expect_in "second phase: work1 nearly all" 95 100 "$(res "j['results'][6]['work1']")"
	expect_eq "second phase: no work6" 0 "$(res "j['results'][6].get('work6', 0)")"
	expect_eq "whole run again: the first values" True "$(res "j['results'][8] == j['results'][0]")"
done

# -- colours and metrics from a group read at each sample
cat >"$E2E_TMP/my.metrics" <<'EOF2'
metric clock_ratio
    formula  task-clock / cpu-clock
EOF2
hpm_ok record -q -g -e '{cpu-clock,task-clock}' -c 1000003 -o "$E2E_TMP/g.prof" -- \
	"$WORKLOADS/ratio" 100000000
hpm_ok report -i "$E2E_TMP/g.prof" --html --metrics-file "$E2E_TMP/my.metrics" -o "$E2E_TMP/g.html"
report_json "$E2E_TMP/g.prof" --metrics-file "$E2E_TMP/my.metrics"
value='(() => { const p = {}; for (const f of document.querySelectorAll("#flame .fr")) if (/^work/.test(f.dataset.name)) p[f.dataset.name] = Number(f.dataset.value); return p; })()'
q() { python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$1"; }
cat >"$E2E_TMP/g.json" <<JSON
[
 {"eval": "Array.from(document.querySelectorAll('#colour option')).map(o => o.value + '=' + o.textContent)"},
 {"eval": "Array.from(document.querySelectorAll('#funcs th')).map(t => t.textContent)"},
 {"eval": "(() => { const tr = document.querySelector('#funcs tbody tr[data-name=work6]'); return tr.cells[tr.cells.length - 1].textContent; })()"},
 {"eval": "(() => { const s = document.getElementById('colour'); s.value = 'm:0'; s.dispatchEvent(new Event('change')); return s.value; })()"},
 {"eval": $(q "$value")},
 {"eval": "document.getElementById('legend').textContent"},
 {"eval": "(() => { const s = document.getElementById('colour'); s.value = 'r:1:0'; s.dispatchEvent(new Event('change')); return s.value; })()"},
 {"eval": $(q "$value")},
 {"hover": "#flame .fr[data-name=work6]"},
 {"eval": "document.getElementById('tip').textContent"}
]
JSON
"${CDP[@]}" "$E2E_TMP/g.html" "$E2E_TMP/g.json" "$E2E_TMP/cdp-g.json" || fail "the browser driver failed"
res() { json "$E2E_TMP/cdp-g.json" "$1"; }
clean metrics "$E2E_TMP/cdp-g.json"
expect_eq "colour choices: name, the ratios of the counts read, the metric" \
	"['name=function name', 'r:0:1=cpu-clock per task-clock', 'r:1:0=task-clock per cpu-clock', 'm:0=metric clock_ratio']" \
	"$(res "j['results'][0]")"
expect_eq "the table has the metric's column" clock_ratio "$(res "j['results'][1][-1]")"
m6=$(json "$E2E_TMP/rep.json" "'%.3f' % [m['value'] for r in j['rows'] if r.get('sym') == 'work6' for m in r['metrics']][0]")
expect_eq "work6's metric is report -M's" "$m6" "$(res "j['results'][2]")"
expect_in "work6's frame, by the metric: near 1" 0.95 1.05 "$(res "j['results'][4]['work6']")"
expect_grep "a legend of the scale" '^metric clock_ratio: blue [0-9.]+ … red [0-9.]+$' <(res "j['results'][5]")
expect_eq "by the ratio of the counts: the same values" True \
	"$(res "all(abs(j['results'][7][k] - v) < 1e-9 for k, v in j['results'][4].items())")"
expect_grep "the tooltip has the counts" 'cpu-clock [0-9]+, task-clock [0-9]+; [0-9.]+$' <(res "j['results'][9]")
