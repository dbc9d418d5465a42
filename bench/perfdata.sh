#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Reading perf.data: `hpmon report -i perf.data` against `perf report -i
# perf.data --stdio` on the same file, in the same run. The file is
# recorded here by perf record (task-clock, CALLGRAPH: none by default,
# "-g" for frame-pointer call chains) of the 6:3:1 workload (tests/workloads/
# ratio N). Prints hyperfine's mean wall-clock time of each, the CPU time
# (user + sys, hyperfine's means) of each, and the ratios perf / hpmon; the goal is
# 10 or more. Then the record types the file holds, read and skipped, from
# `hpmon convert`.
#
#   bench/perfdata.sh [HPMON]     HPMON defaults to build/hpmon
#   N=200000000                   the workload's size (about 2 s, 8000 samples)
#   FREQ=4000                     perf record -F
#   CALLGRAPH=-g                  record call chains too (report -g on both)
#   WORKLOAD=calltree             another workload of tests/workloads (calltree
#                                 keeps frame pointers: real call chains)
#   RUNS=10                       hyperfine runs of each
#
# Not a test: its numbers depend on the machine. Needs perf and hyperfine.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
hpmon=${1:-$here/../build/hpmon}
ratio=$(dirname "$hpmon")/tests/workloads/${WORKLOAD:-ratio}
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

python3 - "$out/h.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
h, p = r[0]["mean"], r[1]["mean"]
hc, pc = r[0]["user"] + r[0]["system"], r[1]["user"] + r[1]["system"]
print("  hpmon report   %7.3f s wall  %7.3f s CPU (means of %d runs)" % (h, hc, len(r[0]["times"])))
print("  perf report    %7.3f s wall  %7.3f s CPU (means of %d runs)" % (p, pc, len(r[1]["times"])))
print("  ratio perf / hpmon: %.1fx wall, %.1fx CPU (goal >= 10)" % (p / h, pc / max(hc, 1e-6)))
PY
"$hpmon" convert -i "$out/perf.data" -o "$out/c.prof" 2>&1 | sed 's/^/  /'
