# SPDX-License-Identifier: MIT
# report --trace-event: the file follows the Trace Event Format's rules
# (tests/export/check.py), its samples' stacks equal --folded's exactly,
# its counter tracks sum to the samples' periods, threads get their own
# tracks and names, LOST records become global instants, and headless
# Chromium parses it without error.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/export-lib.sh"

hpm_ok record -q -g -e cpu-clock -o "$E2E_TMP/c.prof" -- "$WORKLOADS/calltree" 60000000
hpm_ok report -i "$E2E_TMP/c.prof" --folded
cp "$E2E_TMP/out" "$E2E_TMP/folded"
hpm_ok report -i "$E2E_TMP/c.prof" --trace-event -o "$E2E_TMP/t.json"
T=$E2E_TMP/t.json
expect_eq "the file's mode" 600 "$(stat -c %a "$T")"
export_check trace "$T"
export_check folded-eq "$E2E_TMP/folded" "$T" trace
# the counters (per 10 ms) hold every sample's period, in nanoseconds
expect_eq "counters sum the periods" \
	"$(json "$T" "sum(e['args']['period'] for e in j['traceEvents'] if e['ph'] == 'i' and e['cat'] == 'sample')")" \
	"$(json "$T" "int(sum(e['args']['nanoseconds'] for e in j['traceEvents'] if e['ph'] == 'C'))")"
# times count from a 10 ms boundary: the counters' intervals start on them
expect_eq "counter intervals on 10 ms boundaries" True \
	"$(json "$T" "all(round(e['ts'] * 1000) % 10000000 == 0 for e in j['traceEvents'] if e['ph'] == 'C')")"
expect_eq "process and thread named" "['calltree', 'calltree']" \
	"$(json "$T" "sorted(e['args']['name'] for e in j['traceEvents'] if e['ph'] == 'M')")"
expect_eq "samples after the origin" True \
	"$(json "$T" "all(e['ts'] >= 0 for e in j['traceEvents'] if e['ph'] == 'i')")"
expect_eq "no output on stdout with -o" "" "$(cat "$E2E_TMP/out")"

# threads: each on its own track, named as it named itself
hpm_ok record -q -e cpu-clock -c 100000 -o "$E2E_TMP/th.prof" -- "$WORKLOADS/threads" 3 0 2000
hpm_ok report -i "$E2E_TMP/th.prof" --trace-event
cp "$E2E_TMP/out" "$E2E_TMP/th.json"
export_check trace "$E2E_TMP/th.json"
expect_eq "every sampled thread is named" True \
	"$(json "$E2E_TMP/th.json" "{e['tid'] for e in j['traceEvents'] if e['ph'] == 'i'} <= {e['tid'] for e in j['traceEvents'] if e['ph'] == 'M' and e['name'] == 'thread_name'}")"
expect_eq "workers named" True \
	"$(json "$E2E_TMP/th.json" "any(e['args']['name'].startswith('worker-') for e in j['traceEvents'] if e['ph'] == 'M')")"

# LOST records: a global instant at their time, with the count and event
# (11 ns: times count from the start of the first counter interval, 0 here)
python3 "$EXPORT_DIR/lost-profile.py" "$SRCDIR/fuzz/gen-profile.py" "$E2E_TMP/lost.prof"
hpm_ok report -i "$E2E_TMP/lost.prof" --trace-event -o "$E2E_TMP/lost.json"
export_check trace "$E2E_TMP/lost.json"
expect_eq "lost instant" "[('g', 0.011, 7, 'cpu-clock')]" \
	"$(json "$E2E_TMP/lost.json" "[(e['s'], e['ts'], e['args']['count'], e['args']['event']) for e in j['traceEvents'] if e.get('cat') == 'lost']")"
expect_eq "the samples around it" 20 "$(json "$E2E_TMP/lost.json" "sum(e['ph'] == 'i' and e['cat'] == 'sample' for e in j['traceEvents'])")"

# Headless Chromium parses it (a local page, no network) and writes its
# verdict into the page.
chromium=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chromium" ] || skip "chromium is needed for the browser check (apt-get install chromium)"
export_check trace-page "$T" "$E2E_TMP/page.html"
timeout -k 5 90 "$chromium" --headless --disable-gpu --no-sandbox --no-first-run \
	--disable-extensions --disable-background-networking --user-data-dir="$E2E_TMP/chromium" \
	--dump-dom "file://$E2E_TMP/page.html" >"$E2E_TMP/dom" 2>"$E2E_TMP/chromium.err" ||
	fail "chromium failed: $(tail -n 5 "$E2E_TMP/chromium.err")"
n=$(json "$T" "len(j['traceEvents'])")
expect_grep "chromium's verdict" "<pre id=\"verdict\">ok $n events " "$E2E_TMP/dom"
