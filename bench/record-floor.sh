#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Recording overhead against its floor: a fixed CPU-bound workload
# (tests/workloads ratio N) run
#   bare,
#   under bench/ringfloor.c, which samples the same event at the same rate
#     into per-CPU ring buffers and only consumes them (data_tail =
#     data_head, no record read): the kernel's own cost, the floor,
#   under hpmon record -F HZ, and
#   under perf record -F HZ,
# all with EVENT (cpu-clock) at HZ (20000) and 128-page buffers, in one
# hyperfine run. Prints each one's CPU seconds (user + system of the whole
# process tree, hyperfine's mean), wall-clock median, and the ratios
# hpmon/floor and perf/floor (the goal: hpmon at the floor, 1.00), then
# the samples each tool wrote, to show they recorded the same work.
#
#   bench/record-floor.sh [HPMON]   HPMON defaults to build/hpmon
#   RUNS=N        hyperfine runs (default 10)
#   N=ITERATIONS  the workload's size (default 300000000, about 1 s)
#   HZ=, EVENT=   sampling rate and event (default 20000, cpu-clock)
#   WORKLOADS=DIR the built tests/workloads (default: beside HPMON)
#   CC=           the compiler for ringfloor (default cc)
#
# Not a test. Needs hyperfine, perf and a C compiler. Run it on an idle
# machine: the ratios are of CPU time, which moves less than wall-clock
# time on a busy one, but not nothing.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
hpmon=${1:-$here/../build/hpmon}
runs=${RUNS:-10}
n=${N:-300000000}
hz=${HZ:-20000}
event=${EVENT:-cpu-clock}
cc=${CC:-cc}
[ -x "$hpmon" ] || { echo "record-floor.sh: no hpmon at $hpmon (run make first)" >&2; exit 1; }
for tool in hyperfine perf python3 "$cc"; do
	command -v "$tool" >/dev/null ||
		{ echo "record-floor.sh: $tool is needed (apt-get install hyperfine linux-perf python3 gcc)" >&2; exit 1; }
done
wl=${WORKLOADS:-$(dirname "$hpmon")/tests/workloads}
[ -x "$wl/ratio" ] || { echo "record-floor.sh: no workload $wl/ratio (build the tests)" >&2; exit 1; }
case $event in
cpu-clock | task-clock) ;;
*) echo "record-floor.sh: EVENT is cpu-clock or task-clock (the events ringfloor opens)" >&2; exit 1 ;;
esac
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# the floor's reader, built here (not installed, not part of the build)
"$cc" -O2 -D_GNU_SOURCE -Wall -Wextra -Werror -include "$here/../lib/sys/banned.h" \
	-o "$out/ringfloor" "$here/ringfloor.c"

work="$wl/ratio $n"
echo "== $work; $event at $hz Hz, 128 pages per CPU, $runs runs each"
hyperfine -N --warmup 1 --runs "$runs" --export-json "$out/floor.json" \
	-n bare "$work" \
	-n floor "$out/ringfloor -e $event -F $hz -m 128 -- $work" \
	-n hpmon "$hpmon record -q -e $event -F $hz -m 128 -o $out/o.prof -- $work" \
	-n perf "perf record -q -e $event -F $hz -m 128 -o $out/o.perf.data -- $work" >/dev/null

python3 - "$out/floor.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
cpu = {k: r[k]["user"] + r[k]["system"] for k in r}
print("%-6s %10s %10s %10s" % ("", "CPU s", "user s", "wall s"))
for k in ("bare", "floor", "hpmon", "perf"):
    print("%-6s %10.3f %10.3f %10.3f" % (k, cpu[k], r[k]["user"], r[k]["median"]))
f = cpu["floor"]
print("floor/bare  %.3f   (what sampling itself costs the workload)" % (f / cpu["bare"]))
print("hpmon/floor %.3f   (goal: 1.00)" % (cpu["hpmon"] / f))
print("perf/floor  %.3f" % (cpu["perf"] / f))
PY

# the samples of the last run of each, to show they sampled the same work
hs=$("$hpmon" report -i "$out/o.prof" --json |
	python3 -c 'import json,sys; print(sum(e["samples"] for e in json.load(sys.stdin)["events"]))')
ps=$(perf report -i "$out/o.perf.data" --stats 2>/dev/null |
	awk '/ SAMPLE events:/ { for (i = 1; i < NF; i++) if ($i == "events:") { print $(i + 1); exit } }')
echo "samples of the last run: hpmon $hs, perf ${ps:-?}"
