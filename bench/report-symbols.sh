#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Symbol look-up in reports: `hpmon report` against `perf report --stdio`
# on a profile of a g++ compile (cc1plus: 31 000 dynamic symbols, many
# distinct addresses), each tool's own file of the same workload recorded
# with call chains (-g, cpu-clock every 250 us).
#
# Times (median wall-clock by hyperfine after a warm-up run, and mean CPU
# time, user + sys), with the ratio perf/hpmon of the CPU times, each
# hpmon command three ways:
#   warm       its objects' symbol caches filled (by the warm-up run)
#   cold       the symbol caches emptied before each run (hyperfine
#              --prepare; the kernel's table of this boot is kept)
#   no-cache   --no-cache: neither cache read nor written
# against perf's same-run figures:
#   hpmon report              perf report --stdio (its default: inlines)
#   hpmon report --inline     perf report --stdio (inlines) and --no-inline
#   hpmon report -g           perf report --stdio -g --no-inline
#
#   bench/report-symbols.sh [HPMON [HPMON_BEFORE]]
#       HPMON defaults to build/hpmon; HPMON_BEFORE, another build (e.g.
#       of the previous commit), is timed on hpmon's profile too.
#   RUNS=N   hyperfine runs (default 5)
#   SRC=FILE the C++ file compiled (default: a generated one using the
#            standard library's containers, algorithms and regex)
#
# Not a test. Needs hyperfine, perf and g++. Run it on an idle machine.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
hpmon=${1:-$here/../build/hpmon}
before=${2:-}
runs=${RUNS:-5}
[ -x "$hpmon" ] || { echo "report-symbols.sh: no hpmon at $hpmon (run make first)" >&2; exit 1; }
for tool in hyperfine perf g++ python3; do
	command -v "$tool" >/dev/null ||
		{ echo "report-symbols.sh: $tool is needed (apt-get install hyperfine linux-perf g++ python3)" >&2; exit 1; }
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export XDG_CACHE_HOME=$out/cache

src=${SRC:-$out/big.cc}
if [ -z "${SRC:-}" ]; then
	cat >"$src" <<'CC'
#include <algorithm>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>
template <int N> struct Gen {
	std::map<std::string, std::vector<int>> m;
	int run(const std::string &s) {
		std::regex re("([a-z]+)([0-9]{" + std::to_string(N % 5 + 1) + "})");
		std::smatch k;
		if (std::regex_search(s, k, re)) m[k[1]].push_back(N);
		std::vector<int> v(m.size());
		std::sort(v.begin(), v.end(), [](int a, int b) { return a > b; });
		std::unordered_map<int, std::set<std::string>> u;
		u[N].insert(s);
		std::ostringstream o;
		o << s << N << u.size();
		return (int)o.str().size() + Gen<N - 1>().run(s);
	}
};
template <> struct Gen<0> { int run(const std::string &) { return 0; } };
int main(int argc, char **argv) { return Gen<40>().run(argc > 1 ? argv[1] : "abc123"); }
CC
fi
compile=(g++ -O2 -c "$src" -o "$out/big.o")

"$hpmon" record -q -g -e cpu-clock -c 250000 -o "$out/h.prof" -- "${compile[@]}"
perf record -q -g -e cpu-clock -c 250000 -o "$out/p.data" -- "${compile[@]}" 2>/dev/null
hs=$("$hpmon" report -i "$out/h.prof" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"][0]["samples"])')
ps=$(perf report -i "$out/p.data" --stdio --no-inline 2>/dev/null | sed -n 's/^# Samples: *\([0-9KM.]*\).*/\1/p' | head -1)
echo "# profiles of: ${compile[*]}"
echo "# samples: hpmon $hs, perf $ps"

# time_cmd NAME CMD...: median wall-clock and mean CPU (user + sys)
# seconds; $PREP, when set, runs before each run (hyperfine --prepare)
time_cmd() {
	local name=$1 prep=()
	shift
	[ -n "${PREP:-}" ] && prep=(--prepare "$PREP")
	hyperfine -N -w 1 -r "$runs" "${prep[@]}" --export-json "$out/$name.json" \
		-- "$(printf '%q ' "$@")" >/dev/null 2>&1
	python3 -c 'import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"][0]
print("%.4f %.4f" % (statistics.median(r["times"]), r["user"] + r["system"]))' "$out/$name.json"
}

echo "# load before: $(uptime)"
printf '%-48s %9s %9s %s\n' "command" "wall s" "cpu s" "perf/hpmon (cpu)"
# perf's figures first, each the reference of the hpmon rows below it
perf_row() { # LABEL VAR CMD...: time perf, keep its CPU seconds in VAR
	local label=$1 var=$2
	shift 2
	read -r w c <<<"$(time_cmd p "$@")"
	printf '%-48s %9s %9s\n' "$label" "$w" "$c"
	printf -v "$var" '%s' "$c"
}
# hpmon_rows LABEL REF_CPU... -- ARGS...: hpmon report ARGS warm, cold and
# with --no-cache, each with its ratio to every REF_CPU given
hpmon_rows() {
	local label=$1 refs=() args=()
	shift
	while [ "$1" != "--" ]; do refs+=("$1"); shift; done
	shift
	args=("$@")
	local mode w c ratios
	for mode in warm cold no-cache; do
		case $mode in
		warm) read -r w c <<<"$(time_cmd h "$hpmon" report "${args[@]}")" ;;
		cold) read -r w c <<<"$(PREP="rm -rf $XDG_CACHE_HOME/hpmon/symbols" \
				time_cmd h "$hpmon" report "${args[@]}")" ;;
		no-cache) read -r w c <<<"$(time_cmd h "$hpmon" report "${args[@]}" --no-cache)" ;;
		esac
		ratios=$(python3 -c 'import sys; c = float(sys.argv[1]); print(" ".join("%.1fx" % (float(r) / c) for r in sys.argv[2:]))' "$c" "${refs[@]}")
		printf '%-48s %9s %9s %s\n' "  $label, $mode" "$w" "$c" "$ratios"
	done
}
if [ -n "$before" ]; then
	read -r bw bc <<<"$(time_cmd b "$before" report -i "$out/h.prof")"
	printf '%-48s %9s %9s\n' "hpmon report (before: $before)" "$bw" "$bc"
	read -r bw bc <<<"$(time_cmd b "$before" report -i "$out/h.prof" --inline)"
	printf '%-48s %9s %9s\n' "hpmon report --inline (before)" "$bw" "$bc"
fi
perf_row "perf report --stdio (its default: inlines)" p_inl \
	perf report -i "$out/p.data" --stdio
perf_row "perf report --stdio --no-inline" p_noinl \
	perf report -i "$out/p.data" --stdio --no-inline
perf_row "perf report --stdio -g --no-inline" p_g \
	perf report -i "$out/p.data" --stdio -g --no-inline
echo "# ratios: perf's default (inlines) first, then --no-inline"
hpmon_rows "hpmon report" "$p_inl" "$p_noinl" -- -i "$out/h.prof"
hpmon_rows "hpmon report --inline" "$p_inl" "$p_noinl" -- -i "$out/h.prof" --inline
echo "# ratio: perf -g --no-inline"
hpmon_rows "hpmon report -g" "$p_g" -- -i "$out/h.prof" -g
echo "# load after: $(uptime)"
