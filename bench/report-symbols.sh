#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Symbol look-up in reports: `hpmon report` against `perf report --stdio`
# on a profile of a g++ compile (cc1plus: 31 000 dynamic symbols, many
# distinct addresses), each tool's own file of the same workload recorded
# with call chains (-g, cpu-clock every 250 us).
#
# Times (median wall-clock by hyperfine after a warm-up run, and mean CPU
# time, user + sys), with the ratio perf/hpmon:
#   hpmon report              perf report --stdio (its default: inlines)
#   hpmon report --inline     perf report --stdio --no-inline
#   hpmon report -g           perf report --stdio -g
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

# time_cmd NAME CMD...: median wall-clock and mean CPU (user + sys) seconds
time_cmd() {
	local name=$1
	shift
	hyperfine -N -w 1 -r "$runs" --export-json "$out/$name.json" -- "$(printf '%q ' "$@")" \
		>/dev/null 2>&1
	python3 -c 'import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"][0]
print("%.4f %.4f" % (statistics.median(r["times"]), r["user"] + r["system"]))' "$out/$name.json"
}

printf '%-44s %9s %9s\n' "command" "wall s" "cpu s"
pair() {
	local label_h=$1 label_p=$2
	shift 2
	local hcmd=() pcmd=() side=h
	for a in "$@"; do
		if [ "$a" = "--" ]; then side=p; continue; fi
		if [ $side = h ]; then hcmd+=("$a"); else pcmd+=("$a"); fi
	done
	read -r hw hc <<<"$(time_cmd h "${hcmd[@]}")"
	read -r pw pc <<<"$(time_cmd p "${pcmd[@]}")"
	printf '%-44s %9s %9s\n' "$label_h" "$hw" "$hc" "$label_p" "$pw" "$pc"
	python3 -c "print('%-44s %8.1fx %8.1fx' % ('  ratio perf/hpmon', $pw / $hw, $pc / $hc))"
}
if [ -n "$before" ]; then
	read -r bw bc <<<"$(time_cmd b "$before" report -i "$out/h.prof")"
	printf '%-44s %9s %9s\n' "hpmon report (before: $before)" "$bw" "$bc"
	read -r bw bc <<<"$(time_cmd b "$before" report -i "$out/h.prof" --inline)"
	printf '%-44s %9s %9s\n' "hpmon report --inline (before)" "$bw" "$bc"
fi
pair "hpmon report" "perf report --stdio" \
	"$hpmon" report -i "$out/h.prof" -- perf report -i "$out/p.data" --stdio
pair "hpmon report --inline" "perf report --stdio --no-inline" \
	"$hpmon" report -i "$out/h.prof" --inline -- perf report -i "$out/p.data" --stdio --no-inline
pair "hpmon report --inline" "perf report --stdio (inlines)" \
	"$hpmon" report -i "$out/h.prof" --inline -- perf report -i "$out/p.data" --stdio
pair "hpmon report -g" "perf report --stdio -g --no-inline" \
	"$hpmon" report -i "$out/h.prof" -g -- perf report -i "$out/p.data" --stdio -g --no-inline
