#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# hpmon record/report against perf record/report on the same workloads in
# the same run (bench/record.md has the figures and what they mean):
#
#  1. recording overhead: a CPU-bound workload (ratio) run bare, under
#     `hpmon record` and under `perf record`, both sampling cpu-clock every
#     250007 ns; wall-clock time by hyperfine, and each tool's extra time
#     over the bare run;
#  2. file size: bytes per sample of both files, without and with call
#     chains (-g, frame pointers; the calltree workload);
#  3. report speed: `hpmon report` against `perf report --stdio` on the
#     same samples (each tool's own file of the same run), plain and with
#     call graphs; and `hpmon report` of a million breakpoint samples.
#
#   bench/record.sh [HPMON]     HPMON defaults to build/hpmon
#   RUNS=N                      hyperfine runs (default 5)
#   WORKLOADS=DIR               the built tests/workloads (default: beside HPMON)
#
# Not a test. Needs hyperfine and perf. Run it on an idle machine.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
hpmon=${1:-$here/../build/hpmon}
runs=${RUNS:-5}
[ -x "$hpmon" ] || { echo "record.sh: no hpmon at $hpmon (run make first)" >&2; exit 1; }
for tool in hyperfine perf python3; do
	command -v "$tool" >/dev/null ||
		{ echo "record.sh: $tool is needed (apt-get install hyperfine linux-perf python3)" >&2; exit 1; }
done
wl=${WORKLOADS:-$(dirname "$hpmon")/tests/workloads}
for w in ratio calltree calls; do
	[ -x "$wl/$w" ] || { echo "record.sh: no workload $wl/$w (build the tests)" >&2; exit 1; }
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
norand=(setarch "$(uname -m)" -R)

# samples_perf FILE: samples in a perf.data
samples_perf() {
	perf report -i "$1" --stats 2>/dev/null |
		awk '/ SAMPLE events:/ { for (i = 1; i < NF; i++) if ($i == "events:") { print $(i + 1); exit } }'
}
# samples_hpmon FILE
samples_hpmon() {
	"$hpmon" report -i "$1" --json | python3 -c 'import json,sys; print(sum(e["samples"] for e in json.load(sys.stdin)["events"]))'
}
mean() { python3 -c "import json; print(json.load(open('$1'))['results'][$2]['mean'])"; }

echo "== 1. recording overhead: ratio 300000000, cpu-clock every 250007 ns"
work="$wl/ratio 300000000"
hyperfine -N --warmup 1 --runs "$runs" --export-json "$out/rec.json" \
	-n bare "$work" \
	-n hpmon "$hpmon record -q -e cpu-clock -c 250007 -o $out/o.prof -- $work" \
	-n perf "perf record -q -e cpu-clock -c 250007 -o $out/o.perf.data -- $work" >/dev/null
python3 - "$out/rec.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
b, h, p = (r[k]["mean"] for k in ("bare", "hpmon", "perf"))
print("bare %.3f s, hpmon record %.3f s (+%.3f s, %.1f %%), perf record %.3f s (+%.3f s, %.1f %%)"
      % (b, h, h - b, 100 * (h - b) / b, p, p - b, 100 * (p - b) / b))
print("hpmon's overhead / perf's: %.2f" % ((h - b) / (p - b) if p > b else float("nan")))
PY

echo "== 2. file size, bytes per sample"
for g in "" "-g"; do
	"$hpmon" record -q $g -e cpu-clock -c 250007 -o "$out/s.prof" -- "$wl/calltree" 300000000
	perf record -q $g -e cpu-clock -c 250007 -o "$out/s.perf.data" -- "$wl/calltree" 300000000 \
		>/dev/null 2>&1
	hb=$(stat -c %s "$out/s.prof") hs=$(samples_hpmon "$out/s.prof")
	pb=$(stat -c %s "$out/s.perf.data") ps=$(samples_perf "$out/s.perf.data")
	python3 -c "
h, p = $hb / $hs, $pb / $ps
print('%-14s hpmon %d bytes / %d samples = %.1f; perf %d / %d = %.1f; hpmon/perf = %.3f'
      % ('call chains:' if '$g' else 'no chains:', $hb, $hs, h, $pb, $ps, p, h / p))"
done

echo "== 3. report speed"
"$hpmon" record -q -g -e cpu-clock -c 20011 -o "$out/g.prof" -- "$wl/calltree" 300000000
perf record -q -g -e cpu-clock -c 20011 -o "$out/g.perf.data" -- "$wl/calltree" 300000000 >/dev/null 2>&1
echo "samples: hpmon $(samples_hpmon "$out/g.prof"), perf $(samples_perf "$out/g.perf.data")"
hyperfine -N --warmup 1 --runs "$runs" --export-json "$out/rep.json" \
	-n "hpmon report" "$hpmon report -i $out/g.prof" \
	-n "perf report --stdio --no-children -g none" \
	"perf report -i $out/g.perf.data --stdio --no-children -g none" \
	-n "hpmon report -g" "$hpmon report -i $out/g.prof -g" \
	-n "perf report --stdio" "perf report -i $out/g.perf.data --stdio" >/dev/null
python3 - "$out/rep.json" <<'PY'
import json, sys
r = [(x["command"], x["mean"]) for x in json.load(open(sys.argv[1]))["results"]]
for n, t in r:
    print("%-45s %.3f s" % (n, t))
print("flat listing: perf/hpmon = %.1f; with call graphs: perf/hpmon = %.1f"
      % (r[1][1] / r[0][1], r[3][1] / r[2][1]))
PY
addr=$("${norand[@]}" "$wl/calls" --addr)
"${norand[@]}" "$hpmon" record -q -e "mem:$addr:x" -o "$out/m.prof" -- "$wl/calls" 1000000
"${norand[@]}" perf record -q -e "mem:$addr:x" -o "$out/m.perf.data" -- "$wl/calls" 1000000 >/dev/null 2>&1
hyperfine -N --warmup 1 --runs "$runs" --export-json "$out/m.json" \
	-n hpmon "$hpmon report -i $out/m.prof" -n perf "perf report -i $out/m.perf.data --stdio" >/dev/null
echo "a million breakpoint samples: hpmon report $(mean "$out/m.json" 0 | cut -c1-5) s," \
	"perf report $(mean "$out/m.json" 1 | cut -c1-5) s;" \
	"files: hpmon $(stat -c %s "$out/m.prof") bytes, perf $(stat -c %s "$out/m.perf.data") bytes"
