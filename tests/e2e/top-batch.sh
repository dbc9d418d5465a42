#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# hpmon top -b: frames of every task's counts. While it runs, a workload
# with known counts runs twice: `switcher 0 0` and `switcher 50 100`
# (100 more pages: exactly 100 more page faults; 50 sleeps: 50 more
# context switches; each run's switches exactly the kernel's own count
# and its exit's, up to 2 more where it was preempted after the count). With -c (cumulative)
# both short-lived processes are rows of the last frame, each with its
# own exact counts; in every frame the rows and the idle tasks (apart)
# add up to the frame's total.
#
# The text frames read as top's: the clock as %CPU (the rows' and the
# idle tasks' add up to 100 per CPU), every count as a rate per second
# with '/s' in its header (with -c over the time since the start, which
# the title gives: the rate of `switcher 50 0`'s switches times that time
# is its exact count), the idle tasks on a line of their own, none a row.
. "$(dirname "$0")/lib.sh"

# The workloads run under names of this run's own (a copy named sw<pid>):
# other tests may run the same workloads meanwhile, and every task of the
# machine is a row here.
SWN=sw$$
cp "$WORKLOADS/switcher" "$E2E_TMP/$SWN"
SW=$E2E_TMP/$SWN
THN=th$$
cp "$WORKLOADS/threads" "$E2E_TMP/$THN"
EV=page-faults,context-switches,task-clock
hpm stat -a -e cpu-clock -- true
[ "$HPM_STATUS" -eq 0 ] || skip "system-wide counting is not allowed here: $(head -1 "$E2E_TMP/err")"

# top -b ARGS in the background while CMD runs; its frames in $E2E_TMP/top
top_while() {
	local frames=$1
	shift
	timeout -k 5 "$E2E_TIMEOUT" "$HPMON" top -b -n "$frames" -d 0.4 "${TOP_ARGS[@]}" \
		>"$E2E_TMP/top" 2>"$E2E_TMP/top.err" &
	local pid=$!
	sleep 0.5 # the first frame is under way
	"$@"
	wait "$pid" || fail "hpmon top ${TOP_ARGS[*]} exited $?: $(cat "$E2E_TMP/top.err")"
}

sums_exact() {
	expect_eq "every frame's rows and idle tasks add up to its total" True "$(json "$E2E_TMP/top" "all(
		sum(r['events'][i]['count'] for r in f['rows'] + f['idle']) == t['count']
		for f in js for i, t in enumerate(f['total']))")"
	expect_eq "the idle tasks are apart: no row of pid 0, every idle entry is one" True \
		"$(json "$E2E_TMP/top" "(all(r.get('pid') != 0 for f in js for r in f['rows']) and
		all(r['pid'] == 0 and 'cpu' in r for f in js for r in f['idle']))")"
}

exact() {
	TOP_ARGS=(--json -c -e $EV)
	top_while 4 sh -c "SWITCHER_RUSAGE=$E2E_TMP/ru0 ${NORAND[*]} sh -c '$SW 0 0; :';
		SWITCHER_RUSAGE=$E2E_TMP/ru1 ${NORAND[*]} sh -c '$SW 50 100; :'"
	sums_exact
	local got
	got=$(json "$E2E_TMP/top" "' '.join('%d %d' % (event(r, 'page-faults')['count'],
		event(r, 'context-switches')['count']) for r in sorted(
		[r for r in j['rows'] if r['comm'] == '$SWN'], key=lambda r: r['pid']))")
	note "switcher 0 0, then switcher 50 100: $got"
	read -r f0 c0 f1 c1 <<<"$got"
	[ -n "${c1:-}" ] || fail "two switcher rows in the last frame, got '$got'"
	expect_eq "page faults of 'switcher 50 100' minus 'switcher 0 0'" 100 $((f1 - f0))
	# the switches the kernel itself counted for each (rusage at its end:
	# a busy machine preempts it), and one more: its exit's, which comes
	# after any count it can report (up to two more preemptions after it)
	local k0 k1
	k0=$(awk '{ print $1 + $2 }' "$E2E_TMP/ru0")
	k1=$(awk '{ print $1 + $2 }' "$E2E_TMP/ru1")
	expect_in "the kernel's switches: 50 sleeps" 50 100000 "$k1"
	expect_in "context switches of 'switcher 0 0' minus the kernel's count" 1 3 $((c0 - k0))
	expect_in "context switches of 'switcher 50 100' minus the kernel's count" 1 3 $((c1 - k1))
}
retry 3 exact

# The frame object: time, interval, per-CPU line, rows with pid, comm and
# events [name, count]; exited processes say so.
expect_eq "frames" 4 "$(json "$E2E_TMP/top" "len(js)")"
expect_eq "frame keys" True "$(json "$E2E_TMP/top" "all(k in f for f in js
	for k in ('time', 'interval', 'rows', 'total', 'cpus'))")"
expect_in "interval (s)" 0.3 3 "$(json "$E2E_TMP/top" "js[1]['interval']")"
# switches counted without their sample, since the start: a count that
# never falls (docs/hpmon-top.md)
expect_eq "unsampled_switches: a count, never falling" True "$(json "$E2E_TMP/top" "(
	all(isinstance(f['unsampled_switches'], int) for f in js) and all(
	a['unsampled_switches'] <= b['unsampled_switches'] for a, b in zip(js, js[1:])))")"
expect_eq "switcher rows have exited" True "$(json "$E2E_TMP/top" "all(r['exited']
	for r in j['rows'] if r['comm'] == '$SWN')")"

# Without -c a frame holds what happened in it: a short-lived process is
# in the frame it ran in, and the frames add up.
TOP_ARGS=(--json -e $EV)
top_while 3 "$SW" 0 5
sums_exact
expect_in "frames with switcher" 1 2 "$(json "$E2E_TMP/top" \
	"sum(1 for f in js if any(r['comm'] == '$SWN' for r in f['rows']))")"

# Threads, cgroups, CSV, filters, sort.
TOP_ARGS=(--json -H -e $EV)
top_while 2 "$E2E_TMP/$THN" 3 0 10
sums_exact
expect_eq "thread rows have tids" True "$(json "$E2E_TMP/top" "all('tid' in r for f in js for r in f['rows'])")"
TOP_ARGS=(--json --cgroup -e $EV)
top_while 1 true
sums_exact
TOP_ARGS=(-x, -e $EV)
top_while 2 true
expect_grep "CSV header" '^# time,interval,pid,tid,comm,cgroup,page-faults,context-switches,task-clock$' "$E2E_TMP/top"
expect_eq "CSV rows" True "$(csv "$E2E_TMP/top" , "len(rows) > 0 and all(len(r) == 9 for r in rows)")"
TOP_ARGS=(--json -p $$ -e $EV)
top_while 1 true
expect_eq "-p: only that process" True "$(json "$E2E_TMP/top" "all(r['pid'] == $$ for f in js for r in f['rows'])")"
TOP_ARGS=(--json -s context-switches -e $EV)
top_while 1 true
expect_eq "-s: sorted by context-switches" True "$(json "$E2E_TMP/top" "all(
	[event(r, 'context-switches')['count'] for r in f['rows']] ==
	sorted([event(r, 'context-switches')['count'] for r in f['rows']], reverse=True) for f in js)")"
TOP_ARGS=(-e $EV)
top_while 1 true
expect_grep "text frame's title" '^hpmon top - [0-9:]+  interval' "$E2E_TMP/top"
expect_grep "text frame's header: rates, and %CPU" '^ +PID USER +COMM +page-faults/s +context-switches/s +%CPU$' \
	"$E2E_TMP/top"
expect_grep "text frame's idle line" \
	'^idle: +[0-9]+\.[0-9] % of [0-9]+ CPUs?  page-faults/s [0-9.]+  context-switches/s [0-9.]+$' "$E2E_TMP/top"
expect_no_grep "no idle task among the rows" '^ +0 +[^ ]+ +swapper' "$E2E_TMP/top"

# The text frame's values: with -c, the switcher's rate of switches times
# the time the title gives is its exact count (as above: the kernel's
# count and its exit's, up to 2 more); every row's %CPU and the idle
# tasks' add up to 100 per CPU (the frame's time read around the CPUs'
# reads, hence the margin).
rates() {
	TOP_ARGS=(-c -e $EV)
	top_while 4 sh -c "SWITCHER_RUSAGE=$E2E_TMP/ru2 ${NORAND[*]} sh -c '$SW 50 0; :'"
	python3 - "$E2E_TMP/top" "$SWN" "$(awk '{ print $1 + $2 }' "$E2E_TMP/ru2")" "$(nproc)" <<'PY' ||
import re, sys
text, swn, kernel, ncpu = open(sys.argv[1]).read(), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
frame = text[text.rindex("hpmon top - "):]
secs = float(re.search(r"\(cumulative, over ([0-9.]+) s\)", frame).group(1))
idle = float(re.search(r"^idle: +([0-9.]+) % of " + str(ncpu) + " CPU", frame, re.M).group(1))
# the values are the last three fields (a name may be empty, or hold blanks)
rows = [l.split() for l in frame.splitlines() if re.match(r" +(\d+|-) ", l)]
sw = [r for r in rows if r[2:3] == [swn]]
assert len(sw) == 1, "one row of %s: %s" % (swn, sw)
switches = float(sw[0][-2]) * secs
print("switcher: %.1f switches/s over %.2f s = %.1f; the kernel's count %d" % (
    float(sw[0][-2]), secs, switches, kernel))
assert kernel + 1 - 0.5 <= switches <= kernel + 3 + 0.5, "rate x time is not the count"
cpu = sum(float(r[-1]) for r in rows) + idle * ncpu
print("%%CPU of the rows and the idle tasks: %.1f, for %d CPUs" % (cpu, ncpu))
assert 0.8 * 100 * ncpu <= cpu <= 1.2 * 100 * ncpu, "%CPU does not add up to 100 per CPU"
PY
		fail "the text frame's values (above):
$(grep -v '^ \+[0-9]\+ ' "$E2E_TMP/top" | tail -5)"
}
retry 3 rates
hpm top -b -n 1 -d 0.1 -s %CPU
expect_eq "-s %CPU: the clock's column by its header" 0 "$HPM_STATUS"

# Misuse is said.
hpm top --json
expect_eq "--json without -b" 129 "$HPM_STATUS"
expect_grep "--json without -b says why" 'add -b' "$E2E_TMP/err"
hpm top -b -s nosuch
expect_eq "-s of no column" 129 "$HPM_STATUS"
hpm top -b -d 0
expect_eq "-d 0" 129 "$HPM_STATUS"
