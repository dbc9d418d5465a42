#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# hpmon report against perf report on the same work, in one run
# (bench/report.md has the figures and what bounds them). Each tool
# records the same workload into its own file, then reads it:
#
#  1. calltree 300000000 sampled on cpu-clock every 20011 ns with call
#     chains (-g, about 250 000 samples): the flat listing (`hpmon report`
#     against `perf report --stdio --no-children -g none`), the call
#     graphs (`hpmon report -g` against perf's default `perf report
#     --stdio`), and both again without the kernel symbols report keeps
#     for the boot (--no-cache: kallsyms read from the kernel);
#  2. a million breakpoint samples (mem:ADDR:x on the calls workload's
#     function, one address): `hpmon report` against `perf report --stdio`;
#  3. a million cpu-clock samples with call chains (calltree 1500000000),
#     flat and with call graphs;
#  4. a program nobody here wrote: python3 running a JSON loop (about 3 s,
#     540 000 samples at tens of thousands of addresses in libpython, no
#     call chains), flat.
#
# Median wall-clock times (hyperfine, after a warm-up run) and mean CPU
# times (user + system), and perf's over hpmon's, the speed-up: on a busy
# machine a short command waits for a CPU longer in proportion, so the
# wall-clock ratio understates; the CPU ratio moves less. The goal is 10
# or more for each flat listing and for the breakpoints.
#
#   bench/report.sh [HPMON]     HPMON defaults to build/hpmon
#   RUNS=N                      hyperfine runs (default 10)
#   WORKLOADS=DIR               the built tests/workloads (default: beside HPMON)
#   BEFORE=HPMON2               another hpmon (an older build) timed on the
#                               same files too: before and after in one run
#   PARTS="1 2 3 4"             the parts to run (default all; part 3 takes
#                               a minute of recording)
#
# Not a test. Needs hyperfine, perf and python3. Run it on an idle machine.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
hpmon=$(realpath "${1:-$here/../build/hpmon}")
runs=${RUNS:-10}
before=${BEFORE:-}
[ -x "$hpmon" ] || { echo "report.sh: no hpmon at $hpmon (run make first)" >&2; exit 1; }
[ -z "$before" ] || [ -x "$before" ] || { echo "report.sh: BEFORE=$before is not a program" >&2; exit 1; }
for tool in hyperfine perf python3; do
	command -v "$tool" >/dev/null ||
		{ echo "report.sh: $tool is needed (apt-get install hyperfine linux-perf python3)" >&2; exit 1; }
done
wl=${WORKLOADS:-$(dirname "$hpmon")/tests/workloads}
for w in calltree calls; do
	[ -x "$wl/$w" ] || { echo "report.sh: no workload $wl/$w (build the tests, or set WORKLOADS)" >&2; exit 1; }
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# the kernel symbols hpmon report keeps for the boot: in the scratch
# directory, filled by the warm-up runs
export XDG_CACHE_HOME=$out/cache
norand=(setarch "$(uname -m)" -R)

samples_perf() {
	perf report -i "$1" --stats 2>/dev/null |
		awk '/ SAMPLE events:/ { for (i = 1; i < NF; i++) if ($i == "events:") { print $(i + 1); exit } }'
}
samples_hpmon() {
	"$hpmon" report -i "$1" --json | python3 -c 'import json,sys; print(sum(e["samples"] for e in json.load(sys.stdin)["events"]))'
}

# bench NAME PAIRS...: PAIRS are "label|hpmon args|perf args"; times
# hpmon (and BEFORE) and perf on each, prints each time and the ratios
bench() {
	local name=$1 cmds=() pair label h p
	shift
	for pair in "$@"; do
		IFS='|' read -r label h p <<<"$pair"
		cmds+=(-n "hpmon $label" "$hpmon report $h")
		[ -z "$before" ] || cmds+=(-n "before $label" "$before report $h")
		cmds+=(-n "perf $label" "perf report $p")
	done
	hyperfine -N --warmup 1 --runs "$runs" --export-json "$out/$name.json" "${cmds[@]}" >/dev/null
	python3 - "$out/$name.json" <<'PY'
import json, sys
r = {x["command"]: (x["median"], x["user"] + x["system"])
     for x in json.load(open(sys.argv[1]))["results"]}
for n, (w, c) in r.items():
    print("  %-52s %7.4f s wall %7.4f s CPU" % (n, w, c))
for n in r:
    if not n.startswith("perf "):
        continue
    label = n[5:]
    p = r[n]
    for who in ("hpmon", "before"):
        k = "%s %s" % (who, label)
        if k in r:
            print("  perf/%-6s %-40s %5.1f wall %5.1f CPU"
                  % (who, label, p[0] / r[k][0], p[1] / r[k][1]))
PY
}

parts=" ${PARTS:-1 2 3 4} "
part() { [[ $parts == *" $1 "* ]]; }

echo "machine: $(uname -m), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); perf $(perf --version | cut -d' ' -f3)"
if part 1; then
echo "== 1. calltree 300000000, cpu-clock every 20011 ns, -g"
"$hpmon" record -q -g -e cpu-clock -c 20011 -o "$out/g.prof" -- "$wl/calltree" 300000000
perf record -q -g -e cpu-clock -c 20011 -o "$out/g.perf.data" -- "$wl/calltree" 300000000 >/dev/null 2>&1
echo "  samples: hpmon $(samples_hpmon "$out/g.prof"), perf $(samples_perf "$out/g.perf.data")"
bench g \
	"flat|-i $out/g.prof|-i $out/g.perf.data --stdio --no-children -g none" \
	"call graphs|-i $out/g.prof -g|-i $out/g.perf.data --stdio" \
	"flat --no-cache|-i $out/g.prof --no-cache|-i $out/g.perf.data --stdio --no-children -g none"

fi

if part 2; then
echo "== 2. a million breakpoint samples (calls 1000000, mem:ADDR:x)"
addr=$("${norand[@]}" "$wl/calls" --addr)
"${norand[@]}" "$hpmon" record -q -e "mem:$addr:x" -o "$out/m.prof" -- "$wl/calls" 1000000
"${norand[@]}" perf record -q -e "mem:$addr:x" -o "$out/m.perf.data" -- "$wl/calls" 1000000 >/dev/null 2>&1
echo "  samples: hpmon $(samples_hpmon "$out/m.prof"), perf $(samples_perf "$out/m.perf.data")"
bench m "breakpoints|-i $out/m.prof|-i $out/m.perf.data --stdio"
echo "  files: hpmon $(stat -c %s "$out/m.prof") bytes, perf $(stat -c %s "$out/m.perf.data") bytes"

fi

if part 3; then
echo "== 3. a million cpu-clock samples with call chains (calltree 1500000000)"
"$hpmon" record -q -g -e cpu-clock -c 20011 -o "$out/b.prof" -- "$wl/calltree" 1500000000
perf record -q -g -e cpu-clock -c 20011 -o "$out/b.perf.data" -- "$wl/calltree" 1500000000 >/dev/null 2>&1
echo "  samples: hpmon $(samples_hpmon "$out/b.prof"), perf $(samples_perf "$out/b.perf.data")"
bench b \
	"flat, 1M|-i $out/b.prof|-i $out/b.perf.data --stdio --no-children -g none" \
	"call graphs, 1M|-i $out/b.prof -g|-i $out/b.perf.data --stdio"
fi

if part 4; then
echo "== 4. python3, a JSON loop, cpu-clock every 20011 ns"
py=(python3 -c 'import json
x = 0
for i in range(3000000):
    x += len(json.dumps({"a": i}))')
"$hpmon" record -q -e cpu-clock -c 20011 -o "$out/p.prof" -- "${py[@]}"
perf record -q -e cpu-clock -c 20011 -o "$out/p.perf.data" -- "${py[@]}" >/dev/null 2>&1
echo "  samples: hpmon $(samples_hpmon "$out/p.prof"), perf $(samples_perf "$out/p.perf.data")"
bench p "python3 flat|-i $out/p.prof|-i $out/p.perf.data --stdio --no-children -g none"
fi
