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
#     call graphs, and once more without the kernel symbols report keeps
#     for the boot (--no-cache: it makes the kernel list kallsyms, as the
#     first report of a boot does); a million cpu-clock samples with call
#     chains (calltree 1500000000 every 20011 ns); and a million breakpoint
#     samples (one address).
#     Median wall-clock times (hyperfine, after a warm-up run), and CPU
#     times (user + system, mean): on a busy machine a short command waits
#     for a CPU longer than a long one, so wall-clock ratios understate.
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
# the kernel symbols hpmon report keeps for the boot: in the scratch
# directory, filled by the warm-up run
export XDG_CACHE_HOME=$out/cache
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
median() { python3 -c "import json; print(json.load(open('$1'))['results'][$2]['median'])"; }

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
	-n "perf report --stdio" "perf report -i $out/g.perf.data --stdio" \
	-n "hpmon report --no-cache" "$hpmon report -i $out/g.prof --no-cache" \
	-n "hpmon report -g --no-cache" "$hpmon report -i $out/g.prof -g --no-cache" >/dev/null
python3 - "$out/rep.json" <<'PY'
import json, sys
r = [(x["command"], x["median"], x["user"] + x["system"])
     for x in json.load(open(sys.argv[1]))["results"]]
for n, t, c in r:
    print("%-45s %.3f s wall, %.3f s CPU" % (n, t, c))
for k, what in ((1, "wall"), (2, "CPU")):
    print("%s: flat listing: perf/hpmon = %.1f (%.1f with --no-cache); "
          "with call graphs: perf/hpmon = %.1f (%.1f with --no-cache)"
          % (what, r[1][k] / r[0][k], r[1][k] / r[4][k], r[3][k] / r[2][k], r[3][k] / r[5][k]))
PY
addr=$("${norand[@]}" "$wl/calls" --addr)
"${norand[@]}" "$hpmon" record -q -e "mem:$addr:x" -o "$out/m.prof" -- "$wl/calls" 1000000
"${norand[@]}" perf record -q -e "mem:$addr:x" -o "$out/m.perf.data" -- "$wl/calls" 1000000 >/dev/null 2>&1
hyperfine -N --warmup 1 --runs "$runs" --export-json "$out/m.json" \
	-n hpmon "$hpmon report -i $out/m.prof" -n perf "perf report -i $out/m.perf.data --stdio" >/dev/null
python3 - "$out/m.json" <<'PY'
import json, sys
r = [(x["median"], x["user"] + x["system"]) for x in json.load(open(sys.argv[1]))["results"]]
print("a million breakpoint samples: hpmon report %.3f s wall, %.3f s CPU; perf report "
      "%.3f s wall, %.3f s CPU; perf/hpmon = %.1f wall, %.1f CPU"
      % (r[0][0], r[0][1], r[1][0], r[1][1], r[1][0] / r[0][0], r[1][1] / r[0][1]))
PY
echo "files: hpmon $(stat -c %s "$out/m.prof") bytes, perf $(stat -c %s "$out/m.perf.data") bytes"
# a million cpu-clock samples with call chains: many addresses, kernel samples
"$hpmon" record -q -g -e cpu-clock -c 20011 -o "$out/b.prof" -- "$wl/calltree" 1500000000
perf record -q -g -e cpu-clock -c 20011 -o "$out/b.perf.data" -- "$wl/calltree" 1500000000 \
	>/dev/null 2>&1
echo "samples: hpmon $(samples_hpmon "$out/b.prof"), perf $(samples_perf "$out/b.perf.data")"
hyperfine -N --warmup 1 --runs "$runs" --export-json "$out/b.json" \
	-n "hpmon report" "$hpmon report -i $out/b.prof" \
	-n "perf report --stdio --no-children -g none" \
	"perf report -i $out/b.perf.data --stdio --no-children -g none" \
	-n "hpmon report -g" "$hpmon report -i $out/b.prof -g" \
	-n "perf report --stdio" "perf report -i $out/b.perf.data --stdio" >/dev/null
python3 - "$out/b.json" <<'PY'
import json, sys
r = [(x["command"], x["median"], x["user"] + x["system"])
     for x in json.load(open(sys.argv[1]))["results"]]
for n, t, c in r:
    print("%-45s %.3f s wall, %.3f s CPU" % (n, t, c))
for k, what in ((1, "wall"), (2, "CPU")):
    print("%s: a million cpu-clock samples: flat perf/hpmon = %.1f; with call graphs: "
          "perf/hpmon = %.1f" % (what, r[1][k] / r[0][k], r[3][k] / r[2][k]))
PY
