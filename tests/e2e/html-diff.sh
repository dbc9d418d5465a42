# SPDX-License-Identifier: MIT
# diff --html in headless Chromium (tests/e2e/cdp.py): two profiles of
# the ratio workload with a known change, 6:3:1 (A) and 1:3:6 (B): work6
# goes from 60 % to 10 % of the samples, work1 from 10 % to 60 %, work3
# stays at 30 %. The table holds diff --json's rows with its samples and
# points, exactly; the flame graph is B's, work1's frame red (its share
# grew, by the points the table says, within one), work6's blue, work3's
# nearly white; no console error, no request, a screenshot that is not
# blank. A profile that cannot be read leaves no page behind.
#
# HPMON_DIFF_SCREENSHOT=docs/diff-html.png writes the page's picture
# (1280x800) there, for the docs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record-lib.sh"

command -v "${CHROMIUM:-chromium}" >/dev/null ||
	skip "chromium is not installed (scripts/deps installs it for the test lanes)"

hpm_ok record -q -g -e cpu-clock -o "$E2E_TMP/a.prof" -- "$WORKLOADS/ratio" 100000000
hpm_ok record -q -g -e cpu-clock -o "$E2E_TMP/b.prof" -- "$WORKLOADS/ratio" 100000000 1 3 6
hpm_ok diff --json "$E2E_TMP/a.prof" "$E2E_TMP/b.prof"
cp "$E2E_TMP/out" "$E2E_TMP/d.json"
hpm_ok diff --html -o "$E2E_TMP/d.html" "$E2E_TMP/a.prof" "$E2E_TMP/b.prof"
expect_eq "mode 0600" 600 "$(stat -c %a "$E2E_TMP/d.html")"
expect_no_grep "no external resource" '(src|href)=|https?://|@import|url\(' "$E2E_TMP/d.html"

cat >"$E2E_TMP/steps.json" <<'JSON'
[
 {"eval": "(() => { const p = {}; for (const tr of document.querySelectorAll('#funcs tbody tr')) p[tr.dataset.name] = Array.from(tr.cells).map(c => c.textContent); return p; })()"},
 {"eval": "Array.from(document.querySelectorAll('#funcs tbody tr')).map(tr => tr.dataset.name)"},
 {"eval": "(() => { const p = {}; for (const f of document.querySelectorAll('#flame .fr')) if (/^work/.test(f.dataset.name)) { const m = getComputedStyle(f).backgroundColor.match(/[0-9]+/g).map(Number); p[f.dataset.name] = [m, Number(f.dataset.value), Number(f.dataset.percent)]; } return p; })()"},
 {"eval": "document.getElementById('colour').value"},
 {"hover": "#flame .fr[data-name=work1]"},
 {"eval": "document.getElementById('tip').textContent"},
 {"eval": "document.getElementById('head').textContent"}
]
JSON
python3 "$SRCDIR/tests/e2e/cdp.py" "$E2E_TMP/d.html" "$E2E_TMP/steps.json" "$E2E_TMP/cdp.json" \
	--shot "${HPMON_DIFF_SCREENSHOT:-$E2E_TMP/d.png}" --size 1280x800 || fail "the browser driver failed"
res() { json "$E2E_TMP/cdp.json" "$1"; }
expect_eq "no console errors" "[]" "$(res "j['console'] + j['exceptions']")"
expect_eq "no network request" "[]" "$(res "j['requests']")"
expect_in "the screenshot is not blank" 3000 100000 "$(res "j['shot']['nonbg']")"

# the table: diff's rows, values and order
want() { json "$E2E_TMP/d.json" "$1"; }
expect_eq "the table's rows in diff's order" \
	"$(want "[r['sym'] for r in j['rows']]")" "$(res "j['results'][1]")"
for f in work6 work3 work1; do
	row=$(res "j['results'][0]['$f']")
	note "$f: $row"
	expect_eq "$f: samples A, B, delta" \
		"$(want "[(str(r['samples_a']), str(r['samples_b']), ('+' if r['delta'] > 0 else '') + str(r['delta'])) for r in j['rows'] if r['sym'] == '$f'][0]")" \
		"$(res "tuple(j['results'][0]['$f'][2:5])")"
	expect_eq "$f: % A, % B, points" \
		"$(want "[('%.2f%%' % r['percent_a'], '%.2f%%' % r['percent_b'], '%+.2f' % r['delta_points']) for r in j['rows'] if r['sym'] == '$f'][0]")" \
		"$(res "tuple(j['results'][0]['$f'][6:9])")"
done
expect_in "work1: +50 points" 45 55 "$(want "[r['delta_points'] for r in j['rows'] if r['sym'] == 'work1'][0]")"

# the graph's colours: red is more (R well over B), blue less, work3 pale
col() { res "j['results'][2]['$1'][0][$2]"; }
expect_eq "coloured by the change" diff "$(res "j['results'][3]")"
expect_eq "work1 red" True "$(res "j['results'][2]['work1'][0][0] - j['results'][2]['work1'][0][2] > 100")"
expect_eq "work6 blue" True "$(res "j['results'][2]['work6'][0][2] - j['results'][2]['work6'][0][0] > 100")"
expect_eq "work3 nearly white" True "$(res "min(j['results'][2]['work3'][0]) > 200")"
for f in work6 work1; do
	expect_in "$f: the frame's change minus diff's points" -1 1 \
		"$(python3 -c "print($(res "j['results'][2]['$f'][1]") - $(want "[r['delta_points'] for r in j['rows'] if r['sym'] == '$f'][0]"))")"
done
expect_in "work1's frame is B's share" 55 65 "$(res "j['results'][2]['work1'][2]")"
expect_grep "tooltip: B's share and A's" '"work1 \(ratio\): [0-9]+ samples, [0-9.]+% of cpu-clock \(A: [0-9.]+%\)"' \
	"$E2E_TMP/cdp.json"
expect_grep "header: A and B" 'A \(before\).*/a\.prof: .*ratio 100000000.*B \(after\).*/b\.prof: .*ratio 100000000 1 3 6' \
	<(res "j['results'][6]")

# errors: a profile that is not one leaves no page; -o needs --html
echo junk >"$E2E_TMP/junk.prof"
hpm diff --html -o "$E2E_TMP/bad.html" "$E2E_TMP/a.prof" "$E2E_TMP/junk.prof"
expect_eq "unreadable B: exit 1" 1 "$HPM_STATUS"
expect_eq "no page written" no "$([ -e "$E2E_TMP/bad.html" ] && echo yes || echo no)"
hpm diff -o "$E2E_TMP/x.html" "$E2E_TMP/a.prof" "$E2E_TMP/b.prof"
expect_eq "-o without --html: usage" 129 "$HPM_STATUS"
expect_grep "says why" '-o is for --html' "$E2E_TMP/err"
