#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Startup cost: `hpmon stat -e task-clock true` against
# `perf stat -e task-clock true`, in the same run.
#
# Wall-clock: hyperfine, RUNS runs of each; the median with its quartiles
# and the ratio to perf's (the goal is <= 0.2).
# CPU time (user + sys of the process and the children it waited for,
# from wait4's rusage, what /usr/bin/time reports): RUNS more runs, the
# commands taking turns run by run so that a change of load touches them
# all alike. "Own CPU" is what a tool adds to the command it measures: its
# CPU time less that of the `true` run just before it, per run; the table
# gives the median with its quartiles (the goal is <= 0.5 ms).
#
# The floors, on this machine, in the same run (bench/countfloor.c, built
# here dynamically as hpmon is, and statically): the least a counting tool
# can cost (a CLONE_VM child, task-clock enabled at its exec, wait, read,
# print one line), and, the same program without a command (it prints its
# usage and exits), the cost of starting a process at all: a "hello
# world". `hpmon --version` is hpmon's own start without any work.
# Then the size of each hpmon binary and the shared objects it needs.
# Run it on an idle machine: on a busy one every command waits for a CPU,
# the wall-clock figures above all (the load is printed before and after).
#
#   bench/startup.sh [HPMON]     HPMON defaults to build/hpmon
#   RUNS=N                       runs per command (default 300)
#   BEFORE=HPMON2                another hpmon (an older build) timed in
#                                the same run, for a before/after table
#   CC=                          the compiler for countfloor (default cc)
#
# Not a test: its numbers depend on the machine. Needs hyperfine, perf and
# a C compiler with static glibc (Debian: apt-get install hyperfine
# linux-perf libc6-dev).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
hpmon=${1:-$here/../build/hpmon}
runs=${RUNS:-300}
before=${BEFORE:-}

[ -x "$hpmon" ] || { echo "startup.sh: no hpmon at $hpmon (run make first)" >&2; exit 1; }
[ -z "$before" ] || [ -x "$before" ] ||
	{ echo "startup.sh: BEFORE=$before is not a program" >&2; exit 1; }
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "startup.sh: RUNS takes a count, not '$runs'" >&2; exit 1; }
for tool in hyperfine perf python3; do
	command -v "$tool" >/dev/null ||
		{ echo "startup.sh: $tool is needed (apt-get install hyperfine linux-perf python3)" >&2; exit 1; }
done
true_bin=$(type -P true)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# The floors (bench/countfloor.c): built here; not part of the build, not
# installed.
cc=${CC:-cc}
for link in dynamic static; do
	"$cc" -O2 -D_GNU_SOURCE -Wall -Wextra -Werror -include "$here/../lib/sys/banned.h" \
		$([ $link = static ] && echo -static) -o "$out/floor-$link" "$here/countfloor.c"
done

# Each writes its table to stderr, discarded. -N: no shell in between,
# so only the commands themselves are timed. countfloor without a command
# exits 2 (its usage): -i lets it.
names=(true hpmon)
cmds=("$true_bin" "$hpmon stat -e task-clock $true_bin")
[ -z "$before" ] || { names+=(before); cmds+=("$before stat -e task-clock $true_bin"); }
names+=(perf floor-dynamic floor-static hello-dynamic hello-static hpmon-version)
cmds+=("perf stat -e task-clock $true_bin" "$out/floor-dynamic $true_bin"
	"$out/floor-static $true_bin" "$out/floor-dynamic" "$out/floor-static" "$hpmon --version")
hf=()
for k in "${!names[@]}"; do
	hf+=(-n "${names[$k]}" "${cmds[$k]}")
done

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min), $(nproc) CPUs"
hyperfine -N -i --warmup 20 --runs "$runs" --export-json "$out/wall.json" "${hf[@]}" >/dev/null 2>&1
printf '%s\n' "${names[@]}" >"$out/names"
printf '%s\n' "${cmds[@]}" >"$out/cmds"
python3 - "$out" "$runs" <<'PY'
import json, os, shlex, statistics, sys

out, runs = sys.argv[1], int(sys.argv[2])
names = open(out + "/names").read().split("\n")[:-1]
cmds = [shlex.split(c) for c in open(out + "/cmds").read().split("\n")[:-1]]
# a process that runs `true` is charged true's CPU time; the others not
with_true = {"hpmon", "before", "perf", "floor-dynamic", "floor-static"}
null = os.open(os.devnull, os.O_RDWR)

def cpu_ms(argv):
    pid = os.posix_spawnp(argv[0], argv, os.environ,
                         file_actions=[(os.POSIX_SPAWN_DUP2, null, 0),
                                       (os.POSIX_SPAWN_DUP2, null, 1),
                                       (os.POSIX_SPAWN_DUP2, null, 2)])
    _, _, ru = os.wait4(pid, 0)
    return (ru.ru_utime + ru.ru_stime) * 1e3

for _ in range(10):  # warm up
    for c in cmds:
        cpu_ms(c)
cpu = {n: [] for n in names}
own = {n: [] for n in names}
for _ in range(runs):
    t = None
    for n, c in zip(names, cmds):
        v = cpu_ms(c)
        t = v if n == "true" else t
        cpu[n].append(v)
        own[n].append(v - t if n in with_true else v)
wall = {r["command"]: r["times"] for r in json.load(open(out + "/wall.json"))["results"]}

def q(v):
    a = statistics.quantiles(v, n=4)
    return "%.3f (%.3f-%.3f)" % (statistics.median(v), a[0], a[2])

perf_wall = statistics.median(wall["perf"])
print("%d runs each; medians (quartiles), ms; own CPU: less the true run just before"
      % runs)
print("%-14s %-26s %-8s %-22s %s" % ("", "wall", "/ perf", "CPU", "own CPU"))
for n in names:
    print("%-14s %-26s %-8s %-22s %s"
          % (n, q([t * 1e3 for t in wall[n]]),
             "%.3f" % (statistics.median(wall[n]) / perf_wall), q(cpu[n]),
             q(own[n]) if n != "true" else ""))
print("goals: hpmon's wall / perf <= 0.2, and its own CPU <= 0.5 ms")
m = {n: statistics.median(own[n]) for n in names}
print("hpmon's own CPU: %.3f ms; the floors of a counting tool on this machine: %.3f ms "
      "dynamic (as hpmon links), %.3f ms static"
      % (m["hpmon"], m["floor-dynamic"], m["floor-static"]))
print("hpmon above the dynamic floor: %.3f ms (%.2f x the floor)"
      % (m["hpmon"] - m["floor-dynamic"], m["hpmon"] / m["floor-dynamic"]))
print("starting a process at all (a hello world): %.3f ms dynamic, %.3f ms static; "
      "hpmon --version %.3f ms" % (m["hello-dynamic"], m["hello-static"], m["hpmon-version"]))
PY
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"

# What each binary brings to every start: its size and its shared objects
for b in "$hpmon" $before; do
	needed=$(objdump -p "$b" 2>/dev/null | awk '/NEEDED/ { printf "%s ", $2 }')
	printf '%s: %s bytes (text+data %s), needs %s\n' "$b" "$(stat -c %s "$b")" \
		"$(size "$b" 2>/dev/null | awk 'NR == 2 { print $1 + $2 }')" "${needed:-nothing}"
done
