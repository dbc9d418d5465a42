#!/bin/bash
# SPDX-License-Identifier: MIT
# stat -d, -dd, -ddd add perf 6.1's detailed events after the others, in
# perf's order; perf's figure beside a miss event whose loads count; where
# the machine has no hardware PMU, each says so.
source "$(dirname "$0")/lib.sh"

D1="L1-dcache-loads L1-dcache-load-misses LLC-loads LLC-load-misses"
D2="L1-icache-loads L1-icache-load-misses dTLB-loads dTLB-load-misses iTLB-loads iTLB-load-misses"
D3="L1-dcache-prefetches L1-dcache-prefetch-misses"

# events LEVEL: the events hpmon stat -x, -e task-clock LEVEL counts, in order
events() {
	"$HPMON" stat -x, -e task-clock "$@" -- true 2>"$E2E_TMP/out.csv" ||
		fail "hpmon stat -e task-clock $* failed: $(cat "$E2E_TMP/out.csv")"
	grep -v '^#' "$E2E_TMP/out.csv" | grep -v '^$' | cut -d, -f3 | tr '\n' ' ' | sed 's/ $//'
}
got=$(events -d)
[ "$got" = "task-clock $D1" ] || fail "-d: events '$got', want 'task-clock $D1'"
got=$(events -dd)
[ "$got" = "task-clock $D1 $D2" ] || fail "-dd: events '$got', want 'task-clock $D1 $D2'"
got=$(events -d -d -d)
[ "$got" = "task-clock $D1 $D2 $D3" ] || fail "-d -d -d: events '$got'"
got=$(events --detailed --detailed)
[ "$got" = "task-clock $D1 $D2" ] || fail "--detailed twice: events '$got'"

# -d alone: the default events first, then -d's
"$HPMON" stat -x, -d -- true 2>"$E2E_TMP/alone.csv" || fail "stat -d failed"
first=$(grep -v '^#' "$E2E_TMP/alone.csv" | grep -v '^$' | head -1 | cut -d, -f3)
[ "$first" = task-clock ] || fail "stat -d: first event '$first', want task-clock (the defaults)"
last=$(grep -v '^#' "$E2E_TMP/alone.csv" | grep -v '^$' | tail -1 | cut -d, -f3)
[ "$last" = LLC-load-misses ] || fail "stat -d: last event '$last', want LLC-load-misses"

if "$HPMON" stat -x, -e instructions:u -- true 2>&1 | grep -q 'no hardware PMU'; then
	# no PMU: every detailed event says what is missing
	"$HPMON" stat -d -e task-clock -- true 2>"$E2E_TMP/nopmu" || fail "stat -d failed"
	n=$(grep -c '<not supported>.*no hardware PMU' "$E2E_TMP/nopmu" || true)
	[ "$n" = 4 ] || fail "stat -d without a PMU: $n lines say there is no hardware PMU, want 4:
$(cat "$E2E_TMP/nopmu")"
	note "no hardware PMU: perf's figures not checked here (tests/parity checks them)"
else
	"$HPMON" stat -x, -d -e task-clock -- "$WORKLOADS/ratio" 100000 2>"$E2E_TMP/hw.csv" >/dev/null ||
		fail "stat -d of a loop failed"
	if grep -q '^[0-9][0-9.]*,,L1-dcache-loads,' "$E2E_TMP/hw.csv" &&
		grep -q '^[0-9][0-9.]*,,L1-dcache-load-misses,' "$E2E_TMP/hw.csv"; then
		grep -q ',L1-dcache-load-misses,.*of all L1-dcache accesses' "$E2E_TMP/hw.csv" ||
			fail "no 'of all L1-dcache accesses' beside L1-dcache-load-misses:
$(cat "$E2E_TMP/hw.csv")"
	fi
fi

if have_perf; then
	for d in -d -dd -ddd; do
		perf stat -x, -e task-clock $d -- true 2>"$E2E_TMP/p$d.csv" >/dev/null
		"$HPMON" stat -x, -e task-clock $d -- true 2>"$E2E_TMP/h$d.csv" >/dev/null
		p=$(grep -v '^#' "$E2E_TMP/p$d.csv" | grep -v '^$' | cut -d, -f3 | tr '\n' ' ')
		h=$(grep -v '^#' "$E2E_TMP/h$d.csv" | grep -v '^$' | cut -d, -f3 | tr '\n' ' ')
		[ "$p" = "$h" ] || fail "$d: hpmon counts '$h', perf '$p'"
	done
else
	note "perf is not usable here: events not compared with perf's"
fi
echo "PASS: $E2E_NAME"
