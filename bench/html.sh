#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# report --html and --svg on a profile of about 1M samples with call
# chains (the calltree workload sampled every 10 us of cpu-clock, -g):
#   - the page's size (flame trees, functions, time bins, annotate data of
#     the 50 hottest functions, the timeline; the largest parts of its
#     data are listed), against the profile's and against the folded
#     stacks (report --folded, what third-party flame-graph tools read):
#     the goal is at most 10 MB;
#   - its time to interactive in headless Chromium (performance.now()
#     when the page's code has drawn it; tests/e2e/cdp.py), median of 5:
#     the goal is 2 s or less;
#   - the CPU time of writing it, against report's text listing of the
#     same profile (the same reading of the file), as a ratio.
#
#   bench/html.sh [HPMON]            # N=180000000 units of calltree
#   PROFILE=g.prof bench/html.sh     # a profile of your own instead, e.g.
#     hpmon record -g -e cpu-clock -c 10007 -o g.prof -- g++ -O2 -c big.cc
#     (big.cc: bench/report-symbols.sh's source with Gen<60>): deep and
#     varied C++ stacks, each address of stripped cc1plus a "function"
set -euo pipefail
HPMON=${1:-build/hpmon}
SRC=$(cd "$(dirname "$0")/.." && pwd)
WL=$(dirname "$HPMON")/tests/workloads/calltree
N=${N:-180000000}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

if [ -n "${PROFILE:-}" ]; then
	cp "$PROFILE" "$T/p.prof"
else
	"$HPMON" record -g -e cpu-clock -c 10007 -o "$T/p.prof" -- "$WL" "$N" 2>"$T/rec.err" >/dev/null ||
		{ cat "$T/rec.err" >&2; exit 1; }
fi
"$HPMON" report -i "$T/p.prof" 2>/dev/null | grep -m1 '^# event' || true
cpu() { /usr/bin/time -f '%U %S' -o "$T/time" "$@" >/dev/null; awk '{print $1 + $2}' "$T/time"; }
c_text=$(cpu "$HPMON" report -i "$T/p.prof")
c_html=$(cpu "$HPMON" report -i "$T/p.prof" --html -o "$T/p.html")
c_svg=$(cpu "$HPMON" report -i "$T/p.prof" --svg -o "$T/p.svg")
"$HPMON" report -i "$T/p.prof" --folded >"$T/p.folded" 2>/dev/null
s_prof=$(stat -c %s "$T/p.prof") s_html=$(stat -c %s "$T/p.html")
s_svg=$(stat -c %s "$T/p.svg") s_fold=$(stat -c %s "$T/p.folded")
echo '[]' >"$T/steps.json"
tti=()
for i in 1 2 3 4 5; do
	python3 "$SRC/tests/e2e/cdp.py" "$T/p.html" "$T/steps.json" "$T/cdp.json"
	tti+=("$(python3 -c "import json; print(json.load(open('$T/cdp.json'))['tti_ms'])")")
done
med=$(printf '%s\n' "${tti[@]}" | sort -n | sed -n 3p)
printf 'profile %d bytes; page %d bytes (%.2f x the profile, %.2f x the folded stacks, %d bytes); svg %d bytes\n' \
	"$s_prof" "$s_html" "$(echo "$s_html / $s_prof" | bc -l)" "$(echo "$s_html / $s_fold" | bc -l)" "$s_fold" "$s_svg"
printf 'time to interactive: median %s ms of %s\n' "$med" "${tti[*]}"
python3 - "$T/p.html" <<'PY'
import json, re, sys
d = json.loads(re.search(r'id="data">(.*?)</script>', open(sys.argv[1]).read(), re.S).group(1))
parts = sorted(((len(json.dumps(v, separators=(',', ':'))), k) for k, v in d.items()), reverse=True)
print('the data\'s largest parts (bytes): ' + ', '.join('%s %d' % (k, n) for n, k in parts[:6]))
PY
printf 'CPU: report %s s, --html %s s (%.2f x), --svg %s s (%.2f x)\n' "$c_text" "$c_html" \
	"$(echo "$c_html / $c_text" | bc -l)" "$c_svg" "$(echo "$c_svg / $c_text" | bc -l)"
