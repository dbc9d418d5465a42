# SPDX-License-Identifier: MIT
# report --svg: a static flame graph. The 6:3:1 workload, sampled with
# call chains: the SVG parses as XML, the root frame spans the whole width
# and holds every sample, work6/work3/work1 have the widths and titles of
# their shares (within 1 point of report's percentages), the file is the
# same twice (deterministic), names that attack the terminal come out as
# escaped text, and headless Chromium shows it with no error.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record-lib.sh"

hpm_ok record -g -e cpu-clock -o "$E2E_TMP/r.prof" -- "$WORKLOADS/ratio" 100000000
hpm_ok report -i "$E2E_TMP/r.prof" --svg -o "$E2E_TMP/r.svg"
expect_eq "nothing on stdout with -o" "" "$(cat "$E2E_TMP/out")"
expect_eq "mode 0600" 600 "$(stat -c %a "$E2E_TMP/r.svg")"
report_json "$E2E_TMP/r.prof" -g

# (name, samples, percent, x, width) of every frame
cat >"$E2E_TMP/frames.py" <<'PY'
import re, sys, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse(sys.argv[1]).getroot()
for g in root.findall("s:g", ns):
    t = g.find("s:title", ns).text
    m = re.fullmatch(r"(.*) \((\d+) samples, ([0-9.]+)%\)", t, re.S)
    r = g.find("s:rect", ns)
    print("%s\t%s\t%s\t%s\t%s" % (m[1], m[2], m[3], r.get("x"), r.get("width")))
PY
python3 "$E2E_TMP/frames.py" "$E2E_TMP/r.svg" >"$E2E_TMP/frames" || fail "the SVG does not parse as XML"
total=$(json "$E2E_TMP/rep.json" "j['events'][0]['samples']")
root=$(awk -F'\t' '$1 == "all"' "$E2E_TMP/frames")
expect_eq "root frame: every sample" "$total" "$(cut -f2 <<<"$root")"
expect_eq "root frame: 100 %" 100.00 "$(cut -f3 <<<"$root")"
expect_eq "root frame: the whole width (1200 less 2 x 10 of margin)" 1180.00 "$(cut -f5 <<<"$root")"
inc() {
	json "$E2E_TMP/rep.json" "round(sum(c['inclusive'] for c in j['callgraph'] if c['sym'] == '$1'), 3)"
}
for f in work6 work3 work1; do
	line=$(awk -F'\t' -v f=$f '$1 == f' "$E2E_TMP/frames")
	[ -n "$line" ] || fail "no frame $f in the SVG"
	p=$(cut -f3 <<<"$line") w=$(cut -f5 <<<"$line") r=$(inc $f)
	note "$f: SVG $p % ($w px), report $r %"
	expect_in "$f: SVG minus report, points" -1 1 "$(python3 -c "print($p - $r)")"
	expect_in "$f: width is its share of 1180 px" -1 1 "$(python3 -c "print($w - 1180 * $p / 100)")"
done
expect_in "work6 share" 57 63 "$(awk -F'\t' '$1 == "work6" {print $3}' "$E2E_TMP/frames")"

hpm_ok report -i "$E2E_TMP/r.prof" --svg
cmp -s "$E2E_TMP/out" "$E2E_TMP/r.svg" || fail "two runs over one profile gave different SVGs"

# a picture with no other format
hpm report -i "$E2E_TMP/r.prof" --svg --pprof
expect_eq "--svg --pprof: usage" 129 "$HPM_STATUS"
hpm report -i "$E2E_TMP/r.prof" --svg --json
expect_eq "--svg --json: usage" 129 "$HPM_STATUS"

# a task named with an escape sequence, a newline and a byte that is not UTF-8
hpm_ok record -g -e cpu-clock -o "$E2E_TMP/b.prof" -- "$WORKLOADS/badname" 20000000
hpm_ok report -i "$E2E_TMP/b.prof" --svg -o "$E2E_TMP/b.svg"
python3 "$E2E_TMP/frames.py" "$E2E_TMP/b.svg" >"$E2E_TMP/bframes" || fail "badname's SVG does not parse"
grep -qF 'x\x1b[2J\nfake-1 \xff\x07' "$E2E_TMP/bframes" || fail "the task's name is not escaped text: $(head -3 "$E2E_TMP/bframes")"

if ! command -v "${CHROMIUM:-chromium}" >/dev/null; then
	note "SKIP part: chromium is not installed (scripts/deps installs it): the SVG was not shown in a browser"
	exit 0
fi
echo '[{"eval": "document.documentElement.tagName + \" \" + document.querySelectorAll(\"rect\").length"}]' >"$E2E_TMP/steps.json"
python3 "$SRCDIR/tests/e2e/cdp.py" "$E2E_TMP/r.svg" "$E2E_TMP/steps.json" "$E2E_TMP/cdp.json" \
	--no-wait --shot "$E2E_TMP/r.png" --size 1200x400 || fail "the browser driver failed"
expect_eq "no console errors" "[]" "$(json "$E2E_TMP/cdp.json" "j['console'] + j['exceptions']")"
expect_eq "no requests" "[]" "$(json "$E2E_TMP/cdp.json" "j['requests']")"
expect_grep "an svg with frames" '"svg [0-9]+"' "$E2E_TMP/cdp.json"
expect_in "the picture is not blank (pixels unlike the background, of 1 in 16)" 1000 100000 \
	"$(json "$E2E_TMP/cdp.json" "j['shot']['nonbg']")"
