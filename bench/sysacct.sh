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
# and against the BPF alternative, a prototype that is not part of hpmon
# (bench/sysacct-bpf: a program on sched_switch reads the CPU's counters
# and adds the task's share in a kernel map), when clang, bpftool and
# libbpf are there to build it (else it says why it is left out).
# From the extra CPU time per context switch it gives the cost at 20,000
# switches per second, in percent of one CPU (the goal: at most 2 %).
#
# The machine may be shared: the commands take turns, one run each per
# round (in a rotating order), and each round's figures are against that
# round's bare run, so that load which comes and goes hits every command
# alike. The median over rounds is the figure; the range shows the noise.
# The load average is printed before and after.
#
#   bench/sysacct.sh [HPMON]    HPMON defaults to build/hpmon
#   RUNS=N                      rounds (default 10)
#   ROUNDS=N                    ping-pong round trips (default 200000)
#   CPU=N                       the CPU the pair is pinned to (default 0)
#   BEFORE="H1 H2 ..."          other hpmon builds (older versions) to time
#                               in the same rounds, each named by its path
#
# Needs root (or perf_event_paranoid <= 0), hyperfine, perf and taskset;
# the BPF prototype needs root.
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

# the BPF prototype, built here from bench/sysacct-bpf
bpf_why=
case $(uname -m) in
x86_64) bpf_arch=x86 ;;
aarch64) bpf_arch=arm64 ;;
*) bpf_arch=$(uname -m) ;;
esac
if ! command -v clang >/dev/null || ! command -v bpftool >/dev/null ||
	[ ! -r /usr/include/bpf/libbpf.h ]; then
	bpf_why="clang, bpftool and libbpf-dev are needed to build it (scripts/deps bench)"
elif [ ! -r /sys/kernel/btf/vmlinux ]; then
	bpf_why="the kernel has no BTF (/sys/kernel/btf/vmlinux)"
elif ! { bpftool btf dump file /sys/kernel/btf/vmlinux format c >"$out/vmlinux.h" &&
	clang -O2 -g -target bpf -D__TARGET_ARCH_$bpf_arch -I"$out" -c "$here/sysacct-bpf/sysacct.bpf.c" \
		-o "$out/sysacct.bpf.o" &&
	cc -O2 -o "$out/sysacct-bpf" "$here/sysacct-bpf/loader.c" -lbpf; } 2>"$out/bpf.log"; then
	bpf_why="it did not build: $(head -3 "$out/bpf.log")"
elif ! "$out/sysacct-bpf" "$out/sysacct.bpf.o" -- true 2>"$out/bpf.log"; then
	bpf_why="it did not load: $(head -3 "$out/bpf.log")"
fi

# the pair's own context switches, counted per task
switches=$(perf stat -x, -e context-switches -- $work 2>&1 >/dev/null | awk -F, '/context-switches/ {print $1}')

names=(bare "hpmon stat -a --per-process" "perf stat -a" "perf record -a -c 1")
cmds=("$work"
	"$hpmon stat -a --per-process -e $events -o /dev/null -- $work"
	"perf stat -a -e $events -o /dev/null -- $work"
	"perf record -q -a -c 1 -e context-switches -o $out/perf.data -- $work")
for h in ${BEFORE:-}; do
	[ -x "$h" ] || { echo "sysacct.sh: no hpmon at $h (BEFORE)" >&2; exit 1; }
	names+=("$h")
	cmds+=("$h stat -a --per-process -e $events -o /dev/null -- $work")
done
if [ -z "$bpf_why" ]; then
	names+=("BPF prototype")
	cmds+=("$out/sysacct-bpf $out/sysacct.bpf.o -- $work")
fi
n=${#names[@]}
echo "load before: $(uptime)"
for ((i = 0; i < n; i++)); do # warm the page cache
	hyperfine -N --runs 1 -n warm "${cmds[$i]}" >/dev/null 2>&1
done
for ((r = 0; r < runs; r++)); do
	for ((k = 0; k < n; k++)); do
		i=$(((r + k) % n))
		hyperfine -N --runs 1 --export-json "$out/$r-$i.json" -n "${names[$i]}" "${cmds[$i]}" \
			>/dev/null 2>>"$out/log" || { cat "$out/log" >&2; exit 1; }
	done
done
echo "load after:  $(uptime)"
[ -z "$bpf_why" ] || echo "BPF prototype left out: $bpf_why"

python3 - "$out" "$runs" "$n" "$switches" "$work" "${names[@]}" <<'PY'
import json, statistics, sys
out, runs, n, switches, work = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
names = sys.argv[6:]
res = [[json.load(open("%s/%d-%d.json" % (out, r, i)))["results"][0] for i in range(n)]
       for r in range(runs)]
cpu = lambda x: x["user"] + x["system"]
print("workload: %s (%d context switches of the pair), %d rounds" % (work, switches, runs))
print("extra CPU per switch: each round against its own bare run; median [min - max]")
width = max(28, max(len(x) for x in names))
print("%-*s %10s %10s  %-26s %s" % (width, "", "CPU ms", "wall ms", "ns per switch", "% of one CPU at 20,000/s"))
med = {}
for i, name in enumerate(names):
    c = [cpu(res[r][i]) for r in range(runs)]
    w = [res[r][i]["median"] for r in range(runs)]
    ns = [(cpu(res[r][i]) - cpu(res[r][0])) * 1e9 / switches for r in range(runs)]
    med[name] = ns
    m = statistics.median(ns)
    print("%-*s %10.1f %10.1f  %6.0f [%5.0f - %5.0f]      %5.2f [%.2f - %.2f]"
          % (width, name, statistics.median(c) * 1e3, statistics.median(w) * 1e3, m, min(ns), max(ns),
             m * 2e-3, min(ns) * 2e-3, max(ns) * 2e-3))
def ratio(a, b):
    x, y = med[a], med[b]
    q = [x[r] / y[r] for r in range(runs) if y[r] > 0]
    if q:
        print("%s / %s, extra CPU, median of rounds: %.2f" % (a, b, statistics.median(q)))
ratio(names[1], names[3])
if "BPF prototype" in names:
    ratio(names[1], "BPF prototype")
PY
