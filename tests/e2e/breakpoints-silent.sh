#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The other side of every breakpoint test, on any machine: with
# tests/shims/silent-bp.c preloaded into hpmon and perf, breakpoints open
# and never fire, as on guests that do not get their debug registers.
# The tests that use breakpoints then ask the host (host_bp_fires: perf's
# mem:ADDR:x counts 0) and must find hpmon's refusals, its uprobe fallback
# and its note; and hpmon's own measure must say "do not fire". The tests
# it runs define uprobes in tracefs (uprobe_events): CTest runs it apart
# from the others that do (tests/CMakeLists.txt).
. "$(dirname "$0")/lib.sh"

shim=$(dirname "$WORKLOADS")/shims/libsilent-bp.so
[ -f "$shim" ] || fail "no $shim: build the tests (tests/shims)"
: "${SRCDIR:?SRCDIR must name the source tree}"

# a sanitized hpmon wants its runtime first; the shim is plain C
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

LD_PRELOAD=$shim hpm_ok diag --json
expect_eq "diag under the shim: breakpoints on code" False \
	"$(json "$E2E_TMP/out" 'j["breakpoints"]["code"]["fires"]')"
expect_eq "diag under the shim: breakpoints on data" False \
	"$(json "$E2E_TMP/out" 'j["breakpoints"]["data"]["fires"]')"

for t in stat-breakpoint record-breakpoint user-exec user-errors validate; do
	if ! LD_PRELOAD=$shim E2E_BP_FIRES= bash "$SRCDIR/tests/e2e/$t.sh" >"$E2E_TMP/$t.log" 2>&1; then
		rc=$?
		[ "$rc" -eq 77 ] && { note "$t skips under the shim: $(grep SKIP "$E2E_TMP/$t.log")"; continue; }
		fail "$t with breakpoints that never fire (status $rc):
$(tail -20 "$E2E_TMP/$t.log")"
	fi
done
echo "PASS: $E2E_NAME"
