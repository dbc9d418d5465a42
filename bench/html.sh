#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# report --html: what the page weighs and costs, measured, with no goal
# checked (docs/hpmon-report.md, "Pictures", has the figures):
#   - the page's size, and its data's largest parts;
#   - the CPU time and peak memory of writing it, beside report -g's of
#     the same profile (the same reading and unwinding of the file, so
#     that the difference is the page's own);
#   - its time to interactive in headless Chromium (performance.now()
#     when the page's code has drawn it; tests/e2e/cdp.py), median of 5.
#
#   bench/html.sh [HPMON]           # the calltree workload sampled every
#                                   # 10 us of cpu-clock with -g: about 1M
#                                   # samples here (N=6000000 units)
#   DWARF=1 bench/html.sh [HPMON]   # g++ -O2 compiling bench/report-
#                                   # symbols.sh's source with Gen<60>,
#                                   # recorded with --call-graph dwarf every
#                                   # 200 us of cpu-clock: deep, varied C++
#                                   # stacks, about 100k samples
#   PROFILE=p.prof bench/html.sh    # a profile of your own
set -euo pipefail
HPMON=${1:-build/hpmon}
SRC=$(cd "$(dirname "$0")/.." && pwd)
WL=$(dirname "$HPMON")/tests/workloads/calltree
N=${N:-6000000}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

if [ -n "${PROFILE:-}" ]; then
	cp "$PROFILE" "$T/p.prof"
elif [ -n "${DWARF:-}" ]; then
	sed -n "/^#include <algorithm>/,/^int main/p" "$SRC/bench/report-symbols.sh" |
		sed 's/Gen<40>/Gen<60>/' >"$T/big.cc"
	"$HPMON" record --call-graph dwarf -e cpu-clock -c 200000 -m 1024 -o "$T/p.prof" -- \
		g++ -O2 -c "$T/big.cc" -o "$T/big.o" 2>"$T/rec.err" >/dev/null || { cat "$T/rec.err" >&2; exit 1; }
else
	"$HPMON" record -g -e cpu-clock -c 10007 -o "$T/p.prof" -- "$WL" "$N" 2>"$T/rec.err" >/dev/null ||
		{ cat "$T/rec.err" >&2; exit 1; }
fi
"$HPMON" report -i "$T/p.prof" 2>/dev/null | grep -m1 '^# event' || true
# CPU seconds (user + system) and peak memory of a command
run() { /usr/bin/time -f '%U %S %M' -o "$T/time" "$@" >/dev/null 2>&1; awk '{printf "%.2f s, %d MB", $1 + $2, $3 / 1024}' "$T/time"; }
c_g=$(run "$HPMON" report -i "$T/p.prof" -g)
c_html=$(run "$HPMON" report -i "$T/p.prof" --html -o "$T/p.html")
s_prof=$(stat -c %s "$T/p.prof") s_html=$(stat -c %s "$T/p.html")
echo '[]' >"$T/steps.json"
tti=()
for i in 1 2 3 4 5; do
	python3 "$SRC/tests/e2e/cdp.py" "$T/p.html" "$T/steps.json" "$T/cdp.json"
	tti+=("$(python3 -c "import json; print(json.load(open('$T/cdp.json'))['tti_ms'])")")
done
med=$(printf '%s\n' "${tti[@]}" | sort -n | sed -n 3p)
printf 'profile %d bytes; page %d bytes\n' "$s_prof" "$s_html"
python3 - "$T/p.html" <<'PY'
import json, re, sys
d = json.loads(re.search(r'id="data">(.*?)</script>', open(sys.argv[1]).read(), re.S).group(1))
parts = sorted(((len(json.dumps(v, separators=(',', ':'))), k) for k, v in d.items()), reverse=True)
print('the data\'s largest parts (bytes): ' + ', '.join('%s %d' % (k, n) for n, k in parts[:8]))
s = d.get('stacks') or {}
print('stack chart: one sample in %d kept, %d left out' % (s.get('stride', 1), s.get('left', 0)))
PY
printf 'CPU and peak memory: report --html %s; report -g %s\n' "$c_html" "$c_g"
printf 'time to interactive: median %s ms of %s\n' "$med" "${tti[*]}"
