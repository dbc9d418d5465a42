#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The seeds of fuzz-perfdata (fuzz/corpus/perfdata/): small perf.data files
# as perf record writes them by default and with -g, -z, a group read at
# each sample (:S), --call-graph dwarf and --no-buildid. Run from a build
# directory's parent: fuzz/gen-perfdata.sh [BUILD] (default build), with
# perf installed and sampling allowed (perf_event_paranoid <= 2).
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:-build}
r=$b/tests/workloads/ratio c=$b/tests/workloads/calltree
out=fuzz/corpus/perfdata
mkdir -p "$out"
rec() { local name=$1; shift; perf record -q -c 2000000 -o "$out/$name" "$@" >/dev/null 2>&1; }
rec plain -e task-clock "$r" 2000000
rec callchain -e task-clock -g "$c" 2000000
rec zstd -e task-clock -z "$r" 2000000
rec group -e '{task-clock,page-faults}:S' "$r" 2000000
perf record -q -c 4000000 -o "$out/dwarf" -e task-clock --call-graph dwarf,256 "$r" 2000000 >/dev/null 2>&1
rec nobid -e task-clock --no-buildid "$r" 2000000
chmod 644 "$out"/*
