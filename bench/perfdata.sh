#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Reading perf.data: `hpmon report -i perf.data` against `perf report -i
# perf.data --stdio` on the same file, in the same run. The file is
# recorded here by perf record (task-clock, CALLGRAPH: none by default,
# "-g" for frame-pointer call chains) of the 6:3:1 workload (tests/workloads/
# ratio N). Prints hyperfine's mean wall-clock time of each, the CPU time
# (user + sys) of one run of each, and the ratios perf / hpmon; the goal is
# 10 or more. Then the record types the file holds, read and skipped, from
# `hpmon convert`.
#
#   bench/perfdata.sh [HPMON]     HPMON defaults to build/hpmon
#   N=200000000                   the workload's size (about 2 s, 8000 samples)
#   FREQ=4000                     perf record -F
#   CALLGRAPH=-g                  record call chains too (report -g on both)
#   RUNS=10                       hyperfine runs of each
#
# Not a test: its numbers depend on the machine. Needs perf and hyperfine.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
hpmon=${1:-$here/../build/hpmon}
ratio=$(dirname "$hpmon")/tests/workloads/ratio
n=${N:-200000000}
freq=${FREQ:-4000}
cg=${CALLGRAPH:-}
runs=${RUNS:-10}

[ -x "$hpmon" ] || { echo "perfdata.sh: no hpmon at $hpmon (run make first)" >&2; exit 1; }
[ -x "$ratio" ] || { echo "perfdata.sh: no workload at $ratio" >&2; exit 1; }
for t in perf hyperfine python3; do
	command -v $t >/dev/null || { echo "perfdata.sh: $t is needed" >&2; exit 1; }
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

perf record -q -F "$freq" -e task-clock $cg -o "$out/perf.data" "$ratio" "$n" >/dev/null 2>&1
samples=$(perf report -i "$out/perf.data" --stats 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }')
echo "perfdata.sh: perf.data of $samples samples ($(stat -c %s "$out/perf.data") bytes), call graph: ${cg:-none}"

hcmd="$hpmon report -i $out/perf.data $cg"
pcmd="perf report -i $out/perf.data --stdio $cg"
# perf report keeps no cache between runs but ~/.debug, which it fills on
# its first run: both get warm-up runs.
hyperfine -N -w 2 -r "$runs" --export-json "$out/h.json" "$hcmd" "$pcmd" >/dev/null 2>&1

# cpu CMD...: CPU seconds (user + sys) of one run, its output dropped
cpu() {
	python3 - "$@" <<'PY'
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.3f" % (u.ru_utime + u.ru_stime))
PY
}
hc=$(cpu $hcmd)
pc=$(cpu $pcmd)
python3 - "$out/h.json" "$hc" "$pc" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
h, p = r[0]["mean"], r[1]["mean"]
hc, pc = float(sys.argv[2]), float(sys.argv[3])
print("  hpmon report   %7.3f s wall (mean of %d)  %7.3f s CPU" % (h, len(r[0]["times"]), hc))
print("  perf report    %7.3f s wall (mean of %d)  %7.3f s CPU" % (p, len(r[1]["times"]), pc))
print("  ratio perf / hpmon: %.1fx wall, %.1fx CPU (goal >= 10)" % (p / h, pc / max(hc, 0.001)))
PY
"$hpmon" convert -i "$out/perf.data" -o "$out/c.prof" 2>&1 | sed 's/^/  /'
