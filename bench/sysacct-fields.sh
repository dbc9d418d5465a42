#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What each part of the switch-out sample of system-wide accounting per
# task costs the kernel (bench/sysacct-fields.c says how it measures):
# counting only, a sample with nothing in it, then the task id, the read
# of the group and each member, the time stamp and its clock, the times
# and the CPU. For docs/hpmon-top.md ("Cost"). Not a test.
#
#   bench/sysacct-fields.sh [BUILD]   BUILD defaults to build (its pingpong)
#   RUNS=N                            rounds (default 6)
#   ROUNDS=N                          ping-pong round trips (default 200000)
#
# Needs root (or perf_event_paranoid <= 0) and a C compiler.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
pp=$build/tests/workloads/pingpong
[ -x "$pp" ] || { echo "sysacct-fields.sh: no $pp (run make first)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cc -O2 -Wall -o "$out/sysacct-fields" "$here/sysacct-fields.c" -lpthread
echo "load before: $(uptime)"
"$out/sysacct-fields" "$pp" "${ROUNDS:-200000}" "${RUNS:-6}"
echo "load after:  $(uptime)"
