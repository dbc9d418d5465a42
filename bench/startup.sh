#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Startup cost: `hpmon stat -e task-clock true` against
# `perf stat -e task-clock true`, timed by hyperfine. Prints the median
# wall-clock time of each and the ratio hpmon/perf (the goal is <= 0.2),
# then the same for CPU time (user + sys), and hpmon's own CPU time (that
# of hpmon stat less that of true run alone). Run it on an idle machine:
# on a busy one both tools wait for a CPU and the ratio drifts up.
#
#   bench/startup.sh [HPMON]     HPMON defaults to build/hpmon
#   RUNS=N                       runs per command (default 200)
#
# Not a test: its numbers depend on the machine. Needs hyperfine and perf
# (Debian: apt-get install hyperfine linux-perf).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
hpmon=${1:-$here/../build/hpmon}
runs=${RUNS:-200}

[ -x "$hpmon" ] || { echo "startup.sh: no hpmon at $hpmon (run make first)" >&2; exit 1; }
for tool in hyperfine perf python3; do
	command -v "$tool" >/dev/null ||
		{ echo "startup.sh: $tool is needed (apt-get install hyperfine linux-perf python3)" >&2; exit 1; }
done
true_bin=$(command -v true)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Both write their table to stderr; hyperfine discards it. -N: no shell
# in between, so only the tools themselves are timed.
hyperfine -N --warmup 20 --runs "$runs" --export-json "$out/startup.json" \
	-n true "$true_bin" \
	-n hpmon "$hpmon stat -e task-clock $true_bin" \
	-n perf "perf stat -e task-clock $true_bin" >&2

python3 - "$out/startup.json" <<'PY'
import json, sys
res = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
h, p = res["hpmon"]["median"], res["perf"]["median"]
print("hpmon stat median: %8.3f ms" % (h * 1e3))
print("perf stat median:  %8.3f ms" % (p * 1e3))
print("ratio hpmon/perf:  %8.3f (goal <= 0.2)" % (h / p))
# CPU time (user + sys, means) moves less than wall-clock time on a busy
# machine, where both tools also wait for a CPU.
hc = res["hpmon"]["user"] + res["hpmon"]["system"]
pc = res["perf"]["user"] + res["perf"]["system"]
print("CPU time, mean:    hpmon %.3f ms, perf %.3f ms, ratio %.3f" % (hc * 1e3, pc * 1e3, hc / pc))
# hpmon's own: what it adds to the command it runs (goal <= 0.5 ms)
tc = res["true"]["user"] + res["true"]["system"]
print("hpmon's own CPU:   %.3f ms (hpmon stat minus true alone, %.3f ms; goal <= 0.5)"
      % ((hc - tc) * 1e3, tc * 1e3))
PY
