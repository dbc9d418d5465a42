#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The per-thread breakdown, run many times: `hpmon stat --per-thread
# --json -e page-faults` of a command with 4 threads (tests/workloads/
# threads 4 0 16 by default), and the number of runs whose breakdown is
# incomplete: a thread row without a count, or rows that do not add up to
# the total. The goal is 0. Prints one line per incomplete run (its run
# number, what hpmon said on stderr) and a summary.
#
#   bench/breakdown.sh [N [HPMON]]   N defaults to 10000, HPMON to build/hpmon
#   WORKLOAD="cmd args"              the command (default: threads 4 0 16)
#   KEEP=DIR                         keep the output of incomplete runs in DIR
#   JOBS=J                           runs at a time (default 2: the load of
#                                    a second run makes the race likelier)
#
# Not a test: it takes minutes, and its result is a rate. Needs jq.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
n=${1:-10000}
hpmon=${2:-$here/../build/hpmon}
workload=${WORKLOAD:-$here/../build/tests/workloads/threads 4 0 16}
jobs=${JOBS:-2}

[ -x "$hpmon" ] || { echo "breakdown.sh: no hpmon at $hpmon (run make first)" >&2; exit 1; }
command -v jq >/dev/null || { echo "breakdown.sh: jq is needed (apt-get install jq)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# one run: "ok", or "incomplete: why"
one() {
	local i=$1 json err
	# shellcheck disable=SC2086 # WORKLOAD is a command line
	"$hpmon" stat --per-thread --json -e page-faults -- $workload 2>"$out/err.$i" >/dev/null || true
	json=$(grep '^{' "$out/err.$i" || true)
	err=$(grep -v '^{' "$out/err.$i" | tr '\n' ' ' || true)
	if [ -z "$json" ]; then
		echo "run $i: no JSON output: $err"
		return
	fi
	# complete: every row has a count and the rows add up to the total
	jq -r --arg i "$i" --arg err "$err" '
		(.events[0].count) as $total
		| ([.threads[].events[0].count] | map(select(. == null)) | length) as $missing
		| ([.threads[].events[0].count // 0] | add) as $sum
		| if $missing > 0 then "run \($i): \($missing) of \(.threads | length) rows without a count; stderr: \($err)"
		  elif $sum != $total then "run \($i): rows add up to \($sum), the total is \($total); stderr: \($err)"
		  else "ok" end' <<<"$json" >"$out/res.$i"
	if [ -n "${KEEP:-}" ] && [ "$(cat "$out/res.$i")" != ok ]; then
		cp "$out/err.$i" "$KEEP/run.$i"
	fi
	cat "$out/res.$i"
	rm -f "$out/err.$i" "$out/res.$i"
}

export -f one
export hpmon workload out KEEP
start=$(date +%s)
seq 1 "$n" | xargs -P "$jobs" -I{} bash -c 'one {}' >"$out/results"
bad=$(grep -vc '^ok$' "$out/results" || true)
grep -v '^ok$' "$out/results" | head -n 50 || true
echo "breakdown.sh: $bad of $n runs incomplete ($(($(date +%s) - start)) s, $jobs at a time, load $(cut -d' ' -f1-3 /proc/loadavg))"
