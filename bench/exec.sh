#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What counting executions costs per hit (bench/user-events.md): hpmon's
# location events with a hardware breakpoint and with a uprobe, against
# perf's breakpoint (mem:ADDR:x) and perf probe's uprobe, on the same
# workload (tests/workloads/calls: K calls of hpm_work).
#
#   bench/exec.sh [HPMON] [WORKLOADS]  # build/hpmon, build/tests/workloads
#                                      # K=200000 calls, RUNS=5
#
# Each way is timed with hyperfine at K calls and at 0 calls; the
# difference over K is the cost of one hit, whatever the tool costs to
# start. Needs root (uprobes), hyperfine and perf.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
hpmon=${1:-$root/build/hpmon}
wl=${2:-$root/build/tests/workloads}
k=${K:-200000}
runs=${RUNS:-5}
calls=$wl/calls
for tool in hyperfine perf; do
	command -v $tool >/dev/null || { echo "bench/exec.sh: $tool is needed" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "bench/exec.sh: uprobes need root" >&2; exit 1; }
tmp=$(mktemp -d)
cleanup() {
	perf probe -q -d 'probe_calls:*' >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT

# perf's breakpoint needs the runtime address: no randomisation
norand=(setarch "$(uname -m)" -R)
addr=$("${norand[@]}" "$calls" --addr)
perf probe -q -x "$calls" hpm_work >/dev/null
declare -A cmd=(
	[none]="$calls"
	[hpmon-bp]="$hpmon stat -o /dev/null -e exec:hpm_work:bp -- $calls"
	[hpmon-uprobe]="$hpmon stat -o /dev/null -e exec:hpm_work:uprobe -- $calls"
	[perf-mem]="${norand[*]} perf stat -o /dev/null -e mem:$addr:x -- $calls"
	[perf-probe]="perf stat -o /dev/null -e probe_calls:hpm_work -- $calls"
)
order=(none hpmon-bp perf-mem hpmon-uprobe perf-probe)
echo "machine: $(uname -m), $(nproc) CPUs, $(uname -r); K=$k calls, $runs runs each"
printf '%-14s %12s %12s %12s\n' way "0 calls ms" "K calls ms" "per hit us"
for w in "${order[@]}"; do
	hyperfine -N -w 1 -r "$runs" --export-json "$tmp/$w-0.json" "${cmd[$w]} 0" >/dev/null 2>&1
	hyperfine -N -w 1 -r "$runs" --export-json "$tmp/$w-k.json" "${cmd[$w]} $k" >/dev/null 2>&1
	python3 - "$tmp/$w-0.json" "$tmp/$w-k.json" "$w" "$k" <<'EOF'
import json, sys
a = json.load(open(sys.argv[1]))["results"][0]["median"]
b = json.load(open(sys.argv[2]))["results"][0]["median"]
k = int(sys.argv[4])
print("%-14s %12.2f %12.2f %12.3f" % (sys.argv[3], a * 1e3, b * 1e3, (b - a) / k * 1e6))
EOF
done
