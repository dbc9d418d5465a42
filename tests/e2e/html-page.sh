# SPDX-License-Identifier: MIT
# report --html in headless Chromium, driven through the DevTools protocol
# (tests/e2e/cdp.py): the 6:3:1 workload sampled with call chains. No
# console error or exception; no network request (the page's policy
# forbids them, the browser's proxy refuses them, and the Network events
# are checked); the flame graph and the table show work6/work3/work1 at
# report's percentages (within 1 point); a click zooms a frame to the
# full width; the search highlights; the table sorts and filters; the
# tooltip says samples and percent; the screenshot is not blank. With two
# events, the selector re-weights the graph. A task named "<script>..."
# stays text.
#
# HPMON_SCREENSHOT=docs/report-html.png also writes the picture of a call
# tree (the calltree workload) at 1280x800 there, for the docs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record-lib.sh"

command -v "${CHROMIUM:-chromium}" >/dev/null ||
	skip "chromium is not installed (scripts/deps installs it for the test lanes)"
CDP=("python3" "$SRCDIR/tests/e2e/cdp.py")

hpm_ok record -g -e cpu-clock -o "$E2E_TMP/r.prof" -- "$WORKLOADS/ratio" 100000000
hpm_ok report -i "$E2E_TMP/r.prof" --html -o "$E2E_TMP/r.html"
expect_eq "mode 0600" 600 "$(stat -c %a "$E2E_TMP/r.html")"
expect_no_grep "no external resource" '(src|href)=|https?://|@import|url\(' "$E2E_TMP/r.html"
expect_grep "the data inline" '<script type="application/json" id="data">\{' "$E2E_TMP/r.html"
report_json "$E2E_TMP/r.prof" -g

cat >"$E2E_TMP/steps.json" <<'JSON'
[
 {"eval": "(() => { const p = {}; for (const f of document.querySelectorAll('#flame .fr')) p[f.dataset.name] = (p[f.dataset.name] || 0) + Number(f.dataset.percent); return p; })()"},
 {"eval": "(() => { const p = {}; for (const tr of document.querySelectorAll('#funcs tbody tr')) p[tr.dataset.name] = [parseFloat(tr.cells[2].textContent), parseFloat(tr.cells[4].textContent)]; return p; })()"},
 {"eval": "document.getElementById('flame').clientWidth"},
 {"click": "#flame .fr[data-name=work3]"},
 {"eval": "document.querySelector('#flame .fr[data-name=work3]').getBoundingClientRect().width"},
 {"click": "#reset"},
 {"type": ["#search", "work1"]},
 {"eval": "[Array.from(document.querySelectorAll('#flame .fr.hl')).map(f => f.dataset.name), document.getElementById('match').textContent]"},
 {"click": "#funcs th[data-k=name]"},
 {"eval": "Array.from(document.querySelectorAll('#funcs tbody tr')).map(tr => tr.dataset.name)"},
 {"type": ["#filter", "work"]},
 {"eval": "Array.from(document.querySelectorAll('#funcs tbody tr')).map(tr => tr.dataset.name)"},
 {"hover": "#flame .fr[data-name=work6]"},
 {"eval": "document.getElementById('tip').hidden ? '' : document.getElementById('tip').textContent"},
 {"eval": "document.getElementById('head').textContent"}
]
JSON
"${CDP[@]}" "$E2E_TMP/r.html" "$E2E_TMP/steps.json" "$E2E_TMP/cdp.json" --shot "$E2E_TMP/r.png" ||
	fail "the browser driver failed"
res() { json "$E2E_TMP/cdp.json" "$1"; }
expect_eq "no console errors" "[]" "$(res "j['console'] + j['exceptions']")"
expect_eq "no network request" "[]" "$(res "j['requests']")"
note "time to interactive: $(res "j['tti_ms']") ms"
expect_in "interactive within 10 s (bench/html.sh measures it)" 0 10000 "$(res "j['tti_ms']")"
inc() {
	json "$E2E_TMP/rep.json" "round(sum(c['inclusive'] for c in j['callgraph'] if c['sym'] == '$1'), 3)"
}
for f in work6 work3 work1; do
	g=$(res "j['results'][0]['$f']") t=$(res "j['results'][1]['$f'][1]") s=$(res "j['results'][1]['$f'][0]")
	r=$(inc $f) rs=$(pct $f)
	note "$f: graph $g %, table total $t % self $s %; report inclusive $r % self $rs %"
	expect_in "$f: graph minus report" -1 1 "$(python3 -c "print($g - $r)")"
	expect_in "$f: table total minus report" -1 1 "$(python3 -c "print($t - $r)")"
	expect_in "$f: table self minus report" -1 1 "$(python3 -c "print($s - $rs)")"
done
expect_in "work6 near 60 %" 57 63 "$(res "j['results'][0]['work6']")"
W=$(res "j['results'][2]")
expect_in "a click on work3 zooms it to the full width ($W px)" "$((W - 1))" "$((W + 1))" "$(res "j['results'][4]")"
expect_eq "search: work1 highlighted" "['work1']" "$(res "j['results'][7][0]")"
expect_grep "search: its share" '"matched: (9|10|11)\.[0-9]+%"' "$E2E_TMP/cdp.json"
expect_eq "sorted by name" True "$(res "j['results'][9] == sorted(j['results'][9])")"
expect_eq "filtered: every row names 'work', work1/3/6 among them" True \
	"$(res "all('work' in n.lower() for n in j['results'][11]) and {'work1', 'work3', 'work6'} <= set(j['results'][11]) and len(j['results'][11]) < len(j['results'][9])")"
expect_grep "tooltip" '"work6 \(ratio\): [0-9]+ samples, [0-9.]+% of cpu-clock"' "$E2E_TMP/cdp.json"
expect_grep "header: command, lost, throttled" 'workloads/ratio 100000000.*lost samples0.*throttled0' \
	<(res "j['results'][14]")
expect_in "the screenshot is not blank (pixels unlike the background, of 1 in 16)" 3000 100000 \
	"$(res "j['shot']['nonbg']")"

# Two events: the selector chooses which weights the graph.
hpm_ok record -g -e cpu-clock,task-clock -o "$E2E_TMP/two.prof" -- "$WORKLOADS/ratio" 100000000
hpm_ok report -i "$E2E_TMP/two.prof" --html -o "$E2E_TMP/two.html"
cat >"$E2E_TMP/two.json" <<'JSON'
[
 {"eval": "Array.from(document.querySelectorAll('#event option')).map(o => o.textContent)"},
 {"eval": "(() => { const s = document.getElementById('event'); s.value = '1'; s.dispatchEvent(new Event('change')); return s.value; })()"},
 {"eval": "(() => { const p = {}; for (const f of document.querySelectorAll('#flame .fr')) p[f.dataset.name] = (p[f.dataset.name] || 0) + Number(f.dataset.percent); return p; })()"},
 {"hover": "#flame .fr[data-name=work6]"},
 {"eval": "document.getElementById('tip').textContent"}
]
JSON
"${CDP[@]}" "$E2E_TMP/two.html" "$E2E_TMP/two.json" "$E2E_TMP/cdp2.json" || fail "the browser driver failed"
res2() { json "$E2E_TMP/cdp2.json" "$1"; }
expect_eq "two events: no console errors" "[]" "$(res2 "j['console'] + j['exceptions']")"
expect_eq "two events in the selector" "['cpu-clock', 'task-clock']" "$(res2 "j['results'][0]")"
expect_in "task-clock: work6 near 60 %" 57 63 "$(res2 "j['results'][2]['work6']")"
expect_in "task-clock: work1 near 10 %" 8 12 "$(res2 "j['results'][2]['work1']")"
expect_grep "task-clock: the tooltip names it" 'of task-clock"' "$E2E_TMP/cdp2.json"

# A task whose name is markup: shown as text, no script runs from it.
cp "$WORKLOADS/ratio" "$E2E_TMP/<script>x=1"
hpm_ok record -g -e cpu-clock -o "$E2E_TMP/s.prof" -- "$E2E_TMP/<script>x=1" 20000000
hpm_ok report -i "$E2E_TMP/s.prof" --html -o "$E2E_TMP/s.html"
expect_no_grep "the name's '<' escaped in the data" '<script>x=1' "$E2E_TMP/s.html"
echo '[{"eval": "Array.from(document.querySelectorAll(\"#flame .fr\")).some(f => f.dataset.name.startsWith(\"<script>x=1/\"))"}, {"eval": "typeof x"}]' \
	>"$E2E_TMP/s.json"
"${CDP[@]}" "$E2E_TMP/s.html" "$E2E_TMP/s.json" "$E2E_TMP/cdp3.json" || fail "the browser driver failed"
expect_eq "markup name: no errors" "[]" "$(json "$E2E_TMP/cdp3.json" "j['console'] + j['exceptions']")"
expect_eq "markup name: a frame of that name (its thread's: NAME/TID), no script run" "[True, 'undefined']" \
	"$(json "$E2E_TMP/cdp3.json" "j['results']")"

if [ -n "${HPMON_SCREENSHOT:-}" ]; then
	hpm_ok record -g -e cpu-clock -o "$E2E_TMP/t.prof" -- "$WORKLOADS/calltree" 30000000
	hpm_ok report -i "$E2E_TMP/t.prof" --html -o "$E2E_TMP/t.html"
	echo '[{"hover": "#flame .fr[data-name=tree_b]"}]' >"$E2E_TMP/t.json"
	"${CDP[@]}" "$E2E_TMP/t.html" "$E2E_TMP/t.json" "$E2E_TMP/cdp4.json" \
		--shot "$HPMON_SCREENSHOT" --size 1280x800 || fail "the browser driver failed"
	note "wrote $HPMON_SCREENSHOT"
fi
