#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# How often the stated uncertainty of a multiplexed count covers its true
# error, with the kernel's fixed rotation and with hpmon's own (stat --mux),
# measured where counts are exact: the arm64 guest lane (QEMU -icount, a
# real ARMv8 PMU; docs/guest-lane.md). Boots the guest once, runs
# bench/guest-mux-coverage.sh there (12, 16 and 20 x instructions:u on 6
# counters, a program alternating P ms of user loop and P ms of system
# calls, P from 0.3 to 25 ms, four runs per rotation, P and N) and prints
# the table by phase length and rotation: within 1 and 2 sigma, the error
# RMS, and the median sigma against the error RMS.
#
#   bench/mux-coverage.sh [LOG]      # needs build-aarch64 (make aarch64)
#   PS="1 8" NS=16 SEEDS="1 2" MUXES=hpmon bench/mux-coverage.sh   # a part
set -euo pipefail
cd "$(dirname "$0")/.."
log=${1:-$(mktemp)}
[ $# -ge 1 ] || trap 'rm -f "$log"' EXIT
[ -x build-aarch64/hpmon ] || scripts/build-aarch64 >/dev/null
env=()
for v in PS NS SEEDS MUXES; do [ -n "${!v:-}" ] && env+=("$v=${!v}"); done
scripts/pmu-guest --timeout 3000 --add tests/guest/lib:/root/lib \
	--add bench/guest-mux-coverage.sh:/root/mux-coverage.sh \
	-- env "${env[@]}" sh mux-coverage.sh >"$log" 2>&1 || {
	tail -20 "$log" >&2
	exit 1
}
python3 bench/mux-coverage.py "$log"
