#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# hpmon report's exports against perf's own converter on the same work in
# the same run: a CPU-bound workload with call chains (calltree, cpu-clock
# every 20011 ns, -g) recorded by both tools, then
#
#   hpmon report --trace-event   against   perf data convert --to-json
#
# (both write every sample with its call stack and symbols as JSON, from
# each tool's own file of the same samples), and, for scale, hpmon report
# --pprof, --speedscope and --folded on the same profile. Median wall-clock
# times (hyperfine, after a warm-up run), CPU times (user + system, mean),
# the ratio hpmon/perf, and the output sizes.
#
#   bench/export.sh [HPMON]     HPMON defaults to build/hpmon
#   RUNS=N                      hyperfine runs (default 5)
#   N=ITERATIONS                calltree's work (default 600000000)
#
# Not a test. Needs hyperfine and perf. Run it on an idle machine.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
hpmon=${1:-$here/../build/hpmon}
runs=${RUNS:-5}
n=${N:-600000000}
[ -x "$hpmon" ] || { echo "export.sh: no hpmon at $hpmon (run make first)" >&2; exit 1; }
for tool in hyperfine perf python3; do
	command -v "$tool" >/dev/null ||
		{ echo "export.sh: $tool is needed (apt-get install hyperfine linux-perf python3)" >&2; exit 1; }
done
wl=$(dirname "$hpmon")/tests/workloads/calltree
[ -x "$wl" ] || { echo "export.sh: no workload $wl (build the tests)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export XDG_CACHE_HOME=$out/cache

"$hpmon" record -q -g -e cpu-clock -c 20011 -o "$out/h.prof" -- "$wl" "$n"
perf record -q -g -e cpu-clock -c 20011 -o "$out/perf.data" -- "$wl" "$n" 2>/dev/null
hs=$("$hpmon" report -i "$out/h.prof" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"][0]["samples"])')
ps=$(perf report -i "$out/perf.data" --stats 2>/dev/null |
	awk '/ SAMPLE events:/ { for (i = 1; i < NF; i++) if ($i == "events:") { print $(i + 1); exit } }')
echo "samples: hpmon $hs, perf $ps (calltree $n, cpu-clock every 20011 ns, -g)"

hyperfine -N -w 1 -r "$runs" --export-json "$out/t.json" \
	"$hpmon report -i $out/h.prof --trace-event -o $out/h.json" \
	"perf data convert -f -i $out/perf.data --to-json $out/p.json" \
	"$hpmon report -i $out/h.prof --pprof -o $out/h.pb.gz" \
	"$hpmon report -i $out/h.prof --speedscope -o $out/h.speedscope" \
	"$hpmon report -i $out/h.prof --folded -o $out/h.folded" >/dev/null
python3 - "$out/t.json" "$out" <<'PY'
import json, os, sys
r = json.load(open(sys.argv[1]))["results"]
out = sys.argv[2]
names = ["hpmon --trace-event", "perf data convert --to-json", "hpmon --pprof",
         "hpmon --speedscope", "hpmon --folded"]
files = ["h.json", "p.json", "h.pb.gz", "h.speedscope", "h.folded"]
for name, x, f in zip(names, r, files):
    cpu = x["user"] + x["system"]
    print(f"{name:30s} median {x['median']:7.3f} s  cpu {cpu:7.3f} s  "
          f"output {os.path.getsize(os.path.join(out, f)) / 1e6:8.1f} MB")
print(f"ratio hpmon --trace-event / perf data convert --to-json: "
      f"wall {r[0]['median'] / r[1]['median']:.3f}, "
      f"cpu {(r[0]['user'] + r[0]['system']) / (r[1]['user'] + r[1]['system']):.3f}")
PY
