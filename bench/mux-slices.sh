#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Capture the raw slices of multiplexed counts in the arm64 guest lane
# (bench/guest-mux-slices.sh) into FILE, for bench/mux-estimators.py to
# compare uncertainty estimators on, off line.
#
#   bench/mux-slices.sh FILE          # PS=, NS=, SEEDS=, MUXES= narrow it
#   TRACE=1 bench/mux-slices.sh FILE  # every read hpmon makes, from a build
#                                     # with bench/mux-slices-trace.patch
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: bench/mux-slices.sh FILE" >&2; exit 2; }
out=$1
cd "$(dirname "$0")/.."
[ -x build-aarch64/hpmon ] || scripts/build-aarch64 >/dev/null
env=()
for v in PS NS SEEDS MUXES TRACE; do [ -n "${!v:-}" ] && env+=("$v=${!v}"); done
scripts/pmu-guest --timeout 3000 --add bench/guest-mux-slices.sh:/root/slices.sh \
	-- env "${env[@]}" sh slices.sh >"$out.tmp"
grep -E '^(X|I|E|FAILED) ' "$out.tmp" >"$out"
rm -f "$out.tmp"
grep -c '^E ' "$out" | sed 's/$/ runs/' >&2
