#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The cost of system-wide accounting per task (`hpmon stat -a
# --per-process`, `hpmon top`) on a context-switch-heavy workload: a pipe
# ping-pong between two processes pinned to one CPU, so that every switch
# on that CPU is one of theirs and the kernel's part of the cost is billed
# to them. Timed by hyperfine (CPU time: user + sys of the command and
# everything it starts, the tool included), against the bare run and
# against perf on the same work:
#   perf stat -a       system-wide counting, no attribution to tasks
#   perf record -a -c 1 -e context-switches
#                      a sample at every switch, as hpmon takes (perf
#                      writes them to a file; hpmon attributes them)
# From the extra CPU time per context switch it gives the cost at 20,000
# switches per second, in percent of one CPU (the goal: at most 2 %).
#
#   bench/sysacct.sh [HPMON]    HPMON defaults to build/hpmon
#   RUNS=N                      runs per command (default 10)
#   ROUNDS=N                    ping-pong round trips (default 200000)
#   CPU=N                       the CPU the pair is pinned to (default 0)
#
# Needs root (or perf_event_paranoid <= 0), hyperfine, perf and taskset.
# Not a test.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
hpmon=${1:-$here/../build/hpmon}
runs=${RUNS:-10}
rounds=${ROUNDS:-200000}
cpu=${CPU:-0}
events=task-clock,context-switches,page-faults

[ -x "$hpmon" ] || { echo "sysacct.sh: no hpmon at $hpmon (run make first)" >&2; exit 1; }
pp=$(dirname "$hpmon")/tests/workloads/pingpong
[ -x "$pp" ] || { echo "sysacct.sh: no $pp (run make first)" >&2; exit 1; }
for tool in hyperfine perf python3 taskset; do
	command -v "$tool" >/dev/null ||
		{ echo "sysacct.sh: $tool is needed (apt-get install hyperfine linux-perf python3 util-linux)" >&2; exit 1; }
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
work="taskset -c $cpu $pp $rounds"

# the pair's own context switches, counted per task
switches=$(perf stat -x, -e context-switches -- $work 2>&1 >/dev/null | awk -F, '/context-switches/ {print $1}')

hyperfine -N --warmup 1 --runs "$runs" --export-json "$out/sysacct.json" \
	-n bare "$work" \
	-n "hpmon stat -a --per-process" "$hpmon stat -a --per-process -e $events -o /dev/null -- $work" \
	-n "perf stat -a" "perf stat -a -e $events -o /dev/null -- $work" \
	-n "perf record -a -c 1 -e context-switches" \
	"perf record -q -a -c 1 -e context-switches -o $out/perf.data -- $work" >&2

python3 - "$out/sysacct.json" "$switches" "$work" <<'PY'
import json, sys
res = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
switches = int(sys.argv[2])
print("workload: %s (%d context switches of the pair)" % (sys.argv[3], switches))
bare = res["bare"]
bare_cpu = bare["user"] + bare["system"]
for name, r in res.items():
    cpu = r["user"] + r["system"]
    extra_ns = (cpu - bare_cpu) * 1e9 / switches
    print("%-40s wall %8.1f ms (x%.3f)  CPU %8.1f ms (x%.3f)  +%6.0f ns/switch"
          "  = %5.2f %% of one CPU at 20,000 switches/s"
          % (name, r["median"] * 1e3, r["median"] / bare["median"], cpu * 1e3,
             cpu / bare_cpu, extra_ns, extra_ns * 20000 / 1e9 * 100))
PY
