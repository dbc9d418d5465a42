# SPDX-License-Identifier: MIT
# report --html's views in headless Chromium, driven by puppeteer-core
# from npm (tests/e2e/page-driver.mjs; installed under the build
# directory, as the export tests' validators are), with interactions:
#  - the call tree opens with its heaviest path expanded; a click expands
#    a node; its shares are report -g's (the same percentages, to the
#    hundredth) and its leaves' self samples report's, exactly;
#  - the inverted tree's functions and samples are report's rows exactly;
#  - a function's sandwich, from the table: its callers' and callees'
#    shares are report -g's lines for it;
#  - a drag over the samples' lane chooses a range, which the URL's
#    fragment then says, and the same link opened again shows the same
#    tree;
#  - of three spinning tasks: the lanes named comm/tid and in CPUs, one
#    scale shared by default, a lane's own on request, time ticks; a
#    thread chosen in the selector makes the table that thread's (report
#    --tid's samples, exactly); a link #view=inverted&thread=TID shows
#    the thread's inverted tree with report --tid's samples; the stack
#    chart of that thread draws its samples, at the resolution it says;
#  - no console error or exception, no request anywhere.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record-lib.sh"
. "$(dirname "$0")/export-lib.sh"

command -v "${CHROMIUM:-chromium}" >/dev/null ||
	skip "chromium is not installed (scripts/deps installs it for the test lanes)"
npm_validators puppeteer-core@24.43.1
DRIVE() { NODE_PATH=$NPM_MODULES CHROMIUM=$(command -v "${CHROMIUM:-chromium}") \
	timeout 300 node "$SRCDIR/tests/e2e/page-driver.mjs" "$@" || fail "the browser driver failed"; }
q() { python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$1"; }
ROWS() { q "Array.from(document.querySelectorAll('$1 tbody tr')).filter(t => t.dataset.name).map(t => [Number(t.dataset.depth), t.dataset.name, t.dataset.total, Number(t.dataset.n), t.dataset.selfn === undefined ? null : Number(t.dataset.selfn), t.dataset.open])"; }
TABLE=$(q "Object.fromEntries(Array.from(document.querySelectorAll('#funcs tbody tr')).map(t => [t.dataset.name, [Number(t.cells[3].textContent), Number(t.cells[5].textContent)]]))")
# report's text rows as {symbol: samples}
text_rows() { awk '!/^#/ && NF == 5 { printf "%s %s\n", $4, $1 }' "$1" |
	python3 -c 'import sys, json; print(json.dumps({l.split()[0]: int(l.split()[1]) for l in sys.stdin}))'; }

# -- one thread, a known call tree
hpm_ok record -g -e cpu-clock -o "$E2E_TMP/t.prof" -- "$WORKLOADS/calltree" 30000000
hpm_ok report -i "$E2E_TMP/t.prof" --html -o "$E2E_TMP/t.html"
hpm_ok report -i "$E2E_TMP/t.prof" -g
cp "$E2E_TMP/out" "$E2E_TMP/g.txt"
text_rows "$E2E_TMP/g.txt" >"$E2E_TMP/rows.json"
cat >"$E2E_TMP/t.json" <<JSON
[
 {"click": "#views button[data-view=calltree]"},
 {"eval": $(ROWS '#calltree')},
 {"click": "#calltree tr[data-name=tree_d] .tog"},
 {"eval": $(ROWS '#calltree')},
 {"click": "#views button[data-view=inverted]"},
 {"eval": $(ROWS '#inverted')},
 {"click": "#funcs tr[data-name=tree_a] .sw"},
 {"eval": "[location.hash, document.getElementById('sec-title').textContent]"},
 {"eval": $(ROWS '#callers')},
 {"eval": $(ROWS '#callees')},
 {"click": "#views button[data-view=calltree]"},
 {"drag": ["#strip", 0.2, 0.6]},
 {"eval": "location.hash"},
 {"eval": $(ROWS '#calltree')},
 {"eval": $TABLE}
]
JSON
DRIVE "$E2E_TMP/t.html" "$E2E_TMP/t.json" "$E2E_TMP/r1.json"
res() { json "$E2E_TMP/r1.json" "$1"; }
expect_eq "no console errors, no requests" "[] [] []" "$(res "' '.join(str(x) for x in [j['console'], j['exceptions'], j['requests']])")"
# report -g's lines: "INCL% SELF% sym [dso]" and its "<- P% caller", "-> P% callee"
g_incl() { awk -v s="$1" '$1 ~ /%$/ && $3 == s { sub("%", "", $1); print $1; exit }' "$E2E_TMP/g.txt"; }
g_edge() { awk -v s="$1" -v d="$2" -v o="$3" '$1 ~ /%$/ { cur = $3 } cur == s && $1 == d && $3 == o { sub("%", "", $2); print $2; exit }' "$E2E_TMP/g.txt"; }
expect_eq "call tree: the heaviest path open at first" \
	"[['__libc_start_call_main', '1'], ['main', '1'], ['tree_a', '1'], ['tree_b', '1']]" \
	"$(res "[[r[1], r[5]] for r in j['results'][0][:4]]")"
for f in main tree_a tree_b tree_c tree_d; do
	expect_eq "call tree: $f's total is report -g's" "$(g_incl $f)" \
		"$(res "[r[2] for r in j['results'][1] if r[1] == '$f' and r[0] <= 3][0]")"
done
for f in tree_b tree_c tree_d; do
	expect_eq "call tree: $f's self samples are report's" "$(json "$E2E_TMP/rows.json" "j['$f']")" \
		"$(res "[r[4] for r in j['results'][1] if r[1] == '$f' and r[0] <= 3][0]")"
done
expect_eq "call tree: tree_d closed at first" "0" "$(res "[r[5] for r in j['results'][0] if r[1] == 'tree_d'][0]")"
expect_eq "call tree: a click opens tree_d" "1" "$(res "[r[5] for r in j['results'][1] if r[1] == 'tree_d'][0]")"
# tree_d's one callee, tree_end, is a few instructions: a run samples it
# or not, and the tree shows it exactly when report -g does
d_callee=$(awk '$1 ~ /%$/ { cur = $3 } cur == "tree_d" && $1 == "->" { print "True"; exit }' "$E2E_TMP/g.txt")
expect_eq "call tree: with its callees shown, as report -g has them" "${d_callee:-False}" \
	"$(res "len(j['results'][1]) > len(j['results'][0])")"
expect_eq "inverted: the functions and their self samples, report's rows exactly" "[]" \
	"$(res "sorted(set((r[1], r[3]) for r in j['results'][2] if r[0] == 0) ^ set(json.load(open('$E2E_TMP/rows.json')).items()))")"
expect_eq "sandwich: from the table's mark, in the fragment" "['#view=sandwich&fn=tree_a', 'Sandwich']" "$(res "j['results'][3]")"
expect_eq "sandwich: tree_a's total, report -g's" "$(g_incl tree_a)" "$(res "j['results'][4][0][2]")"
expect_eq "sandwich: its callers, report -g's" "[['main', '$(g_edge tree_a '<-' main)']]" \
	"$(res "[[r[1], r[2]] for r in j['results'][4] if r[0] == 1]")"
expect_eq "sandwich: its callees, report -g's" "[['tree_b', '$(g_edge tree_a '->' tree_b)'], ['tree_c', '$(g_edge tree_a '->' tree_c)']]" \
	"$(res "[[r[1], r[2]] for r in j['results'][5] if r[0] == 1 and r[1].startswith('tree_')]")"
expect_grep "a range: in the fragment" '^#view=calltree&range=[0-9.]+-[0-9.]+$' <(res "j['results'][6]")
expect_eq "a range: fewer samples in the tree" True \
	"$(res "0 < j['results'][7][0][3] < [r[3] for r in j['results'][1] if r[0] == 0][0]")"
expect_eq "a range: the table follows (main's total samples the tree's)" "$(res "j['results'][7][1][3]")" \
	"$(res "j['results'][8]['main'][1]")"

# the links: the range's, and a sandwich's, opened anew
cat >"$E2E_TMP/l.json" <<JSON
[
 {"goto": $(q "$(res "j['results'][6]")")},
 {"eval": $(ROWS '#calltree')},
 {"goto": "#view=sandwich&fn=tree_a"},
 {"eval": $(ROWS '#callees')},
 {"hash": "#view=inverted&q=tree_%5Bbc%5D"},
 {"eval": "[document.getElementById('sec-title').textContent, document.getElementById('search').value, Array.from(document.querySelectorAll('#inverted tr.hl')).map(t => t.dataset.name).sort()]"},
 {"goto": "#view=sandwich&fn=no_such_function"},
 {"eval": "document.getElementById('state-note').textContent"}
]
JSON
DRIVE "$E2E_TMP/t.html" "$E2E_TMP/l.json" "$E2E_TMP/r2.json"
res2() { json "$E2E_TMP/r2.json" "$1"; }
expect_eq "links: no console errors, no requests" "[] [] []" "$(res2 "' '.join(str(x) for x in [j['console'], j['exceptions'], j['requests']])")"
expect_eq "the range's link: the same tree" "$(res "j['results'][7]")" "$(res2 "j['results'][0]")"
expect_eq "the sandwich's link: the same callees" "$(res "j['results'][5]")" "$(res2 "j['results'][1]")"
expect_eq "a link followed in the page: the view and the search" "['Inverted tree', 'tree_[bc]', ['tree_b', 'tree_c']]" \
	"$(res2 "j['results'][2]")"
expect_eq "a link to what is not there says so" 'The link names no function "no_such_function".' "$(res2 "j['results'][3]")"

# -- three tasks: a child process and two threads, spinning
hpm_ok record -g -e cpu-clock -o "$E2E_TMP/s.prof" -- "$WORKLOADS/spinners" 100000000
T1=$(awk '$1 == "t1" { print $3 }' "$E2E_TMP/out")
T2=$(awk '$1 == "t2" { print $3 }' "$E2E_TMP/out")
CH=$(awk '$1 == "child" { print $2 }' "$E2E_TMP/out")
[ -n "$T1" ] && [ -n "$T2" ] && [ -n "$CH" ] || fail "spinners did not say its tasks: $(cat "$E2E_TMP/out")"
hpm_ok report -i "$E2E_TMP/s.prof" --html -o "$E2E_TMP/s.html"
hpm_ok report -i "$E2E_TMP/s.prof" --tid "$T1"
text_rows "$E2E_TMP/out" >"$E2E_TMP/t1.json"
LANES=$(q "Array.from(document.querySelectorAll('#lanes canvas.lc')).filter(c => c.dataset.event).map(c => [c.dataset.thread, c.dataset.unit, Number(c.dataset.max)])")
cat >"$E2E_TMP/s.json" <<JSON
[
 {"eval": $LANES},
 {"eval": "document.getElementById('axis').dataset.ticks"},
 {"click": "#lanes canvas.lc[data-tid='$T2'] ~ label.own input"},
 {"eval": $LANES},
 {"click": "#threads summary"},
 {"click": "#thread-list input[data-tid='$T1']"},
	{"eval": "[location.hash, document.getElementById('threads-sum').textContent]"},
 {"eval": $TABLE},
 {"goto": "#view=inverted&thread=$T1"},
 {"eval": $(ROWS '#inverted')},
 {"goto": "#view=stackchart&thread=$T1"},
 {"eval": "[document.getElementById('stack-canvas').dataset.task, Number(document.getElementById('stack-canvas').dataset.samples), Number(document.getElementById('stack-canvas').dataset.boxes), document.getElementById('stack-note').textContent]"}
]
JSON
DRIVE "$E2E_TMP/s.html" "$E2E_TMP/s.json" "$E2E_TMP/r3.json"
res3() { json "$E2E_TMP/r3.json" "$1"; }
expect_eq "tasks: no console errors, no requests" "[] [] []" "$(res3 "' '.join(str(x) for x in [j['console'], j['exceptions'], j['requests']])")"
expect_eq "lanes named comm/tid (comm/pid for the process)" "['spin-child/$CH', 'spin-t1/$T1', 'spin-t2/$T2']" \
	"$(res3 "sorted(t for t, u, m in j['results'][0] if t.startswith('spin-'))")"
expect_eq "cpu-clock's lanes in CPUs" "['CPUs']" "$(res3 "sorted(set(u for t, u, m in j['results'][0]))")"
expect_eq "the lanes share one scale" 1 "$(res3 "len(set(m for t, u, m in j['results'][0]))")"
expect_eq "a lane on its own scale: below the shared one" True \
	"$(res3 "[m for t, u, m in j['results'][2] if t == 'spin-t2/$T2'][0] < [m for t, u, m in j['results'][2] if t == 'all'][0]")"
expect_grep "time ticks" '^0 s,0\.[0-9]+ s,' <(res3 "j['results'][1]")
expect_eq "a thread chosen: in the fragment and the selector" "['#view=flame&thread=$T1', 'tasks: spin-t1/$T1']" "$(res3 "j['results'][3]")"
expect_eq "a thread chosen: the table is its functions, report --tid's samples" "[]" \
	"$(res3 "sorted(set((k, v[0]) for k, v in j['results'][4].items() if v[0]) ^ set(json.load(open('$E2E_TMP/t1.json')).items()))")"
expect_eq "a thread chosen: the others' functions gone" "[]" "$(res3 "[k for k in j['results'][4] if k in ('spin_t2', 'spin_child')]")"
expect_eq "#view=inverted&thread=T1: the thread's functions, report --tid's samples" "[]" \
	"$(res3 "sorted(set((r[1], r[3]) for r in j['results'][5] if r[0] == 0) ^ set(json.load(open('$E2E_TMP/t1.json')).items()))")"
expect_eq "the stack chart: the thread's samples" "['spin-t1/$T1', $(json "$E2E_TMP/t1.json" "sum(j.values())")]" \
	"$(res3 "j['results'][6][:2]")"
expect_eq "the stack chart: boxes drawn" True "$(res3 "j['results'][6][2] > 0")"
expect_grep "the stack chart says its resolution" 'each at its time to 1 µs \(the resolution the page keeps\)' <(res3 "j['results'][6][3]")
