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
#  3. report speed: bench/report.sh, run with the same hpmon, RUNS and
#     WORKLOADS (`hpmon report` against `perf report --stdio` on the same
#     samples: bench/report.md).
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
for w in ratio calltree; do
	[ -x "$wl/$w" ] || { echo "record.sh: no workload $wl/$w (build the tests)" >&2; exit 1; }
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# the kernel symbols hpmon report keeps for the boot: in the scratch
# directory, filled by the warm-up run
export XDG_CACHE_HOME=$out/cache

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

echo "== 3. report speed (bench/report.sh, bench/report.md)"
RUNS=$runs WORKLOADS=$wl "$here/report.sh" "$hpmon"
