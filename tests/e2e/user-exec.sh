#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Location events: exact executions of functions, returns, a source line
# in a loop and an address, with hardware breakpoints and with uprobes, in
# a position-independent program and in one that is not, per thread and
# in child processes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/user-lib.sh"
require_hooks

calls=$WORKLOADS/calls

# Every hpmon this test runs notes its pid: its uprobes are named after it
# (hpmon_PID/...), and the check at the end looks only at those, not at
# the uprobes of tests running beside this one.
real_hpmon=$HPMON
HPMON=$E2E_TMP/hpmon
printf '#!/bin/sh\necho $$ >>"%s"\nexec "%s" "$@"\n' "$E2E_TMP/hpmon.pids" "$real_hpmon" >"$HPMON"
chmod +x "$HPMON"

LC_ALL=C readelf -h "$calls" | grep -q 'Type:[[:space:]]*DYN' ||
	fail "$calls should be position independent (Debian's default)"

# count EVENT PROGRAM ARGS...: the count hpmon stat -x, prints for EVENT
count() {
	local ev=$1
	shift
	hpm_ok stat -x, -e "$ev" -- "$@"
	field_of "$E2E_TMP/err" , "$ev"
}

mechs=()
if host_bp_fires; then
	mechs+=(bp)
else
	# breakpoints that never fire: ':bp' is refused, nothing runs
	hpm stat -x, -e exec:hpm_work:bp -- "$calls" 1
	expect_bp_refused "exec:hpm_work:bp"
	expect_no_grep "exec:hpm_work:bp: nothing counted" "exec:hpm_work" "$E2E_TMP/out"
	can_uprobe || skip "breakpoints do not fire here and uprobes need root: nothing counts exec: events"
fi
if can_uprobe; then
	mechs+=(uprobe)
else
	note "not root: uprobes are checked by user-errors only"
fi

for m in "${mechs[@]}"; do
	for k in 0 1 777 5000; do
		expect_eq "exec:hpm_work:$m, calls $k" "$k" "$(count "exec:hpm_work:$m" "$calls" "$k")"
	done
done
# the default: a breakpoint while there are slots; a uprobe where
# breakpoints do not fire, said in one line
expect_eq "exec:hpm_work, calls 321" 321 "$(count exec:hpm_work "$calls" 321)"
if host_bp_fires; then
	expect_grep "how exec:hpm_work is counted" 'exec:hpm_work: breakpoint at 0x[0-9a-f]+ \(hpm_work\+0x0 in calls\)' \
		<(hpm_ok stat -e exec:hpm_work -- "$calls" 3; cat "$E2E_TMP/err")
else
	hpm_ok stat -e exec:hpm_work -- "$calls" 3
	expect_grep "how exec:hpm_work is counted" 'exec:hpm_work: uprobe at .*/calls:0x[0-9a-f]+ \(hpm_work\+0x0 in calls\)' \
		"$E2E_TMP/err"
	expect_eq "the note on breakpoints, once" 1 \
		"$(grep -c '^hpmon stat: note: hardware breakpoints do not fire on this host .*: 1 exec: event is counted with uprobes instead$' "$E2E_TMP/err")"
fi

# returns (uretprobes)
if can_uprobe; then
	expect_eq "exec:hpm_work%return" 4321 "$(count 'exec:hpm_work%return' "$calls" 4321)"
fi

# a source line inside the loop of main, and a line inside hpm_work
line=$(grep -n 'hpm_work((unsigned long)i);' "$SRCDIR/tests/workloads/calls.c" | cut -d: -f1)
[ -n "$line" ] || fail "no call of hpm_work in calls.c"
for m in "${mechs[@]}"; do
	expect_eq "exec:calls.c:$line:$m" 999 "$(count "exec:calls.c:$line:$m" "$calls" 999)"
done
line=$(grep -n 'hpm_sink += i;' "$SRCDIR/tests/workloads/calls.c" | cut -d: -f1)
expect_eq "exec:calls.c:$line" 1001 "$(count "exec:calls.c:$line" "$calls" 1001)"

# an address as nm shows it: the program's own, not the runtime's
sym=$(nm "$calls" | awk '$3 == "hpm_work" { print $1 }')
addr=$(printf '0x%x' $((0x$sym)))
expect_eq "exec:$addr" 77 "$(count "exec:$addr" "$calls" 77)"

# a program that is not position independent
gcc -O1 -g -fno-inline -no-pie -fno-pie -o "$E2E_TMP/calls-nopie" "$SRCDIR/tests/workloads/calls.c" ||
	fail "cannot build calls without PIE"
LC_ALL=C readelf -h "$E2E_TMP/calls-nopie" | grep -q 'Type:[[:space:]]*EXEC' ||
	fail "calls-nopie is position independent after all"
for m in "${mechs[@]}"; do
	expect_eq "exec:hpm_work:$m (no PIE)" 555 "$(count "exec:hpm_work:$m" "$E2E_TMP/calls-nopie" 555)"
done

# with address-space randomisation on, in every run: two runs load the
# program at different addresses and count the same
expect_eq "randomised run 1" 100 "$(count exec:hpm_work "$calls" 100)"
expect_eq "randomised run 2" 100 "$(count exec:hpm_work "$calls" 100)"

# per thread and per process: inherited like every event
for m in "${mechs[@]}"; do
	hpm_ok stat --per-thread -x, -e "exec:hpm_tick:$m" -- "$WORKLOADS/tcalls" 3 2 100
	got=$(csv "$E2E_TMP/err" , "sorted(num(r[1]) for r in ev('exec:hpm_tick:$m'))")
	expect_eq "per thread, exec:hpm_tick:$m" "[100, 100, 200, 300, 400, 500]" "$got"
	names=$(csv "$E2E_TMP/err" , "sorted(set(r[0].rsplit('-', 1)[0] for r in ev('exec:hpm_tick:$m')))")
	expect_eq "thread names, exec:hpm_tick:$m" "['tcalls']" "$names"
	hpm_ok stat -x, -e "exec:hpm_tick:$m" -- "$WORKLOADS/tcalls" 3 2 100
	expect_eq "total, exec:hpm_tick:$m" 1600 "$(field_of "$E2E_TMP/err" , "exec:hpm_tick:$m")"
done

# JSON
hpm_ok stat --json -o "$E2E_TMP/x.json" -e exec:hpm_work -- "$calls" 42
expect_eq "JSON count" 42 "$(json "$E2E_TMP/x.json" "int(event(j, 'exec:hpm_work')['count'])")"

# interval lines (-I) count the calls as they happen (a breakpoint hit
# costs some microseconds: 40000 calls take a quarter second or more)
hpm_ok stat -I 50 -x, -e exec:hpm_work -- "$calls" 40000
expect_eq "-I lines add up" 40000 "$(csv "$E2E_TMP/err" , "sum(delta(r) for r in ev('exec:hpm_work'))")"
expect_in "-I lines" 2 1000 "$(csv "$E2E_TMP/err" , "len(ev('exec:hpm_work'))")"

# no uprobe of this test's hpmon runs is left behind in tracefs (a pid
# that is a running hpmon again belongs to another test by now)
if can_uprobe; then
	uprobe_events=/sys/kernel/tracing/uprobe_events
	[ -e "$uprobe_events" ] || uprobe_events=/sys/kernel/debug/tracing/uprobe_events
	for pid in $(sort -un "$E2E_TMP/hpmon.pids"); do
		[ "$(cat "/proc/$pid/comm" 2>/dev/null)" != hpmon ] || continue
		! grep -q "hpmon_$pid/" "$uprobe_events" ||
			fail "uprobes of hpmon $pid left in tracefs: $(grep "hpmon_$pid/" "$uprobe_events")"
	done
fi
echo "PASS: $E2E_NAME"
