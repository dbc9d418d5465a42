#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Measurement overhead on a CPU-bound command: its wall-clock and CPU time
# (user + sys, the tool's own included) run bare, under `hpmon stat` and
# under `perf stat`, timed by hyperfine, and the ratios to the bare run.
# Run it on an idle machine: wall-clock ratios of a 1 s command on a busy
# one move by tens of percent either way.
#
#   bench/overhead.sh [HPMON]    HPMON defaults to build/hpmon
#   RUNS=N                       runs per command (default 20)
#   EVENTS=LIST                  events to count (default: task-clock,
#                                page-faults,context-switches,cpu-migrations)
#
# The workload is a fixed amount of CPU work: `calls 300000000` of
# tests/workloads (300 million calls of a small function, about 1 s),
# built next to hpmon, or `sha256sum` of 512 MiB of zeros where it is
# missing. Not a test. Needs hyperfine and perf.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
hpmon=${1:-$here/../build/hpmon}
runs=${RUNS:-20}
events=${EVENTS:-task-clock,page-faults,context-switches,cpu-migrations}

[ -x "$hpmon" ] || { echo "overhead.sh: no hpmon at $hpmon (run make first)" >&2; exit 1; }
for tool in hyperfine perf python3; do
	command -v "$tool" >/dev/null ||
		{ echo "overhead.sh: $tool is needed (apt-get install hyperfine linux-perf python3)" >&2; exit 1; }
done
calls=$(dirname "$hpmon")/tests/workloads/calls
if [ -x "$calls" ]; then
	work="$calls 300000000"
else
	work="sh -c 'head -c 536870912 /dev/zero | sha256sum'"
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

hyperfine -N --warmup 2 --runs "$runs" --export-json "$out/overhead.json" \
	-n bare "$work" \
	-n hpmon "$hpmon stat -e $events -- $work" \
	-n perf "perf stat -e $events -- $work" >&2

python3 - "$out/overhead.json" "$work" <<'PY'
import json, sys
res = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
bare = res["bare"]["median"]
print("workload: %s" % sys.argv[2])
bare_cpu = res["bare"]["user"] + res["bare"]["system"]
for name in ("bare", "hpmon", "perf"):
    m = res[name]["median"]
    cpu = res[name]["user"] + res[name]["system"]
    print("%-6s wall median %9.3f ms  ratio %.4f   CPU mean %9.3f ms  ratio %.4f"
          % (name, m * 1e3, m / bare, cpu * 1e3, cpu / bare_cpu))
PY
