#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Startup cost: `hpmon stat -e task-clock true` against
# `perf stat -e task-clock true`, timed by hyperfine in one run. Prints for
# each the median wall-clock time with its quartiles and the ratio
# hpmon/perf (the goal is <= 0.2), then the CPU time (user + sys, the
# mean over the runs, with the standard deviation of the wall-clock times
# for scale), and hpmon's own CPU time: that of hpmon stat less that of
# true run alone (the goal is <= 0.5 ms). The same for bench/countfloor.c,
# the least a counting tool can do (CLONE_VM child, task-clock enabled at
# its exec, wait, read, print), built dynamically and statically: the
# floor of "own CPU" on this machine. Then the size of each hpmon binary
# and the shared objects it needs. Run it on an idle machine: on a busy
# one both tools wait for a CPU and the ratio drifts up.
#
#   bench/startup.sh [HPMON]     HPMON defaults to build/hpmon
#   RUNS=N                       runs per command (default 200)
#   BEFORE=HPMON2                another hpmon (an older build) timed in
#                                the same run, for a before/after table
#
#   CC=                          the compiler for countfloor (default cc)
#
# Not a test: its numbers depend on the machine. Needs hyperfine, perf and
# a C compiler with static glibc (Debian: apt-get install hyperfine
# linux-perf libc6-dev).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
hpmon=${1:-$here/../build/hpmon}
runs=${RUNS:-200}
before=${BEFORE:-}

[ -x "$hpmon" ] || { echo "startup.sh: no hpmon at $hpmon (run make first)" >&2; exit 1; }
[ -z "$before" ] || [ -x "$before" ] ||
	{ echo "startup.sh: BEFORE=$before is not a program" >&2; exit 1; }
for tool in hyperfine perf python3; do
	command -v "$tool" >/dev/null ||
		{ echo "startup.sh: $tool is needed (apt-get install hyperfine linux-perf python3)" >&2; exit 1; }
done
true_bin=$(command -v true)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# The floor (bench/countfloor.c): the least a counting tool costs to
# start on this machine, linked dynamically as hpmon is, and statically.
# Built here; not part of the build, not installed.
cc=${CC:-cc}
for link in dynamic static; do
	"$cc" -O2 -D_GNU_SOURCE -Wall -Wextra -Werror -include "$here/../lib/sys/banned.h" \
		$([ $link = static ] && echo -static) -o "$out/floor-$link" "$here/countfloor.c"
done

# Each writes its table to stderr; hyperfine discards it. -N: no shell
# in between, so only the tools themselves are timed.
cmds=(-n true "$true_bin" -n hpmon "$hpmon stat -e task-clock $true_bin")
[ -z "$before" ] || cmds+=(-n before "$before stat -e task-clock $true_bin")
cmds+=(-n perf "perf stat -e task-clock $true_bin"
	-n floor-dynamic "$out/floor-dynamic $true_bin" -n floor-static "$out/floor-static $true_bin")
hyperfine -N --warmup 20 --runs "$runs" --export-json "$out/startup.json" "${cmds[@]}" >&2

python3 - "$out/startup.json" <<'PY'
import json, statistics, sys
res = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
p = res["perf"]
def quart(r):
    q = statistics.quantiles(r["times"], n=4)
    return q[0] * 1e3, q[2] * 1e3
def cpu(r):
    return (r["user"] + r["system"]) * 1e3
tc = cpu(res["true"])
pc = cpu(p)
print("%-14s %-30s %-12s %-24s %s" % ("", "wall median (quartiles), ms", "wall / perf",
                                      "CPU mean, ms (/ perf)", "own CPU, ms"))
for name in ("hpmon", "before", "perf", "floor-dynamic", "floor-static", "true"):
    if name not in res:
        continue
    r = res[name]
    lo, hi = quart(r)
    own = "%.3f" % (cpu(r) - tc) if name not in ("perf", "true") else ""
    print("%-14s %-30s %-12s %-24s %s"
          % (name, "%.3f (%.3f-%.3f)" % (r["median"] * 1e3, lo, hi),
             "%.3f" % (r["median"] / p["median"]), "%.3f (%.3f)" % (cpu(r), cpu(r) / pc), own))
print("goals: wall / perf <= 0.2 and own CPU <= 0.5 ms")
fd = cpu(res["floor-dynamic"]) - tc
print("hpmon's own CPU over the floor (countfloor, dynamic as hpmon): %.3f ms (%.2f x)"
      % (cpu(res["hpmon"]) - tc - fd, (cpu(res["hpmon"]) - tc) / fd if fd > 0 else float("nan")))
print("own CPU: CPU time of hpmon stat (with true) less that of true alone (%.3f ms);" % tc)
print("wall-clock standard deviation: " + ", ".join(
    "%s %.3f ms" % (n, res[n]["stddev"] * 1e3) for n in res))
PY

# What each binary brings to every start: its size and its shared objects
for b in "$hpmon" $before; do
	needed=$(objdump -p "$b" 2>/dev/null | awk '/NEEDED/ { printf "%s ", $2 }')
	printf '%s: %s bytes (text+data %s), needs %s\n' "$b" "$(stat -c %s "$b")" \
		"$(size "$b" 2>/dev/null | awk 'NR == 2 { print $1 + $2 }')" "${needed:-nothing}"
done
