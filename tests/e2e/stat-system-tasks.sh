#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# stat -a --per-process | --per-thread | --per-cgroup: the whole machine
# by task. A workload with known counts runs while it counts: its row
# shows exactly its page faults (`switcher 50 100` faults exactly 100
# more pages than `switcher 0 0`) and exactly the context switches the
# kernel counted for it (rusage, at its end) and its exit's, two
# processes of the same name that lived a millisecond each are two rows,
# and the rows add up exactly to the total, idle and kernel threads
# included. stat-system-tasks-busy.sh checks the same on a busy machine.
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

# The rows add up to the total, for every event: KEY is the rows' array.
sums_exact() {
	local key=$1
	expect_eq "rows ($key) add up to the totals" True "$(json "$E2E_TMP/err" "all(
		sum(r['events'][i]['raw_count'] for r in j['$key']) == e['raw_count']
		for i, e in enumerate(j['events']))")"
}

# switcher's counts: 'faults switches' of its one row. It is started by
# a shell that only waits for it: the copy-on-write faults between its
# fork and its exec are then its own in every run, where a parent that
# goes on working (hpmon) would take some of them one run and not the
# next.
row_of_switcher() {
	json "$E2E_TMP/err" "(' '.join(str(r['events'][i]['raw_count']) for r in
		[x for x in j['processes'] if x['comm'] == '$SWN'] for i in (0, 1))
		if len([x for x in j['processes'] if x['comm'] == '$SWN']) == 1 else 'rows?')"
}

# The switches the kernel itself counted for the switcher (rusage, at its
# end): voluntary + involuntary. A busy machine preempts it, and the
# counted switches must follow the kernel's, not a fixed 50.
export SWITCHER_RUSAGE=$E2E_TMP/ru
kernel_switches() { awk '{ print $1 + $2 }' "$E2E_TMP/ru"; }

# A row's switches against the kernel's count, taken before the end: the
# row has exactly one more, its exit's (the kernel counts it as the
# process leaves the CPU for good, after any count it could report), and
# at most two more where the machine preempted it after its count.
switches_exact() {
	local what=$1 counted=$2 kernel=$3
	expect_in "$what: its switches minus the kernel's count (its exit's, and preemptions after the count)" \
		1 3 $((counted - kernel))
}

exact() {
	local base more k0 k1
	hpm_norand_ok stat -a --per-process --json -e $EV -- sh -c "$SW 0 0; :"
	sums_exact processes
	base=$(row_of_switcher)
	k0=$(kernel_switches)
	hpm_norand_ok stat -a --per-process --json -e $EV -- sh -c "$SW 50 100; :"
	sums_exact processes
	more=$(row_of_switcher)
	k1=$(kernel_switches)
	note "switcher 0 0: $base ($k0 by rusage); switcher 50 100: $more ($k1 by rusage)"
	read -r f0 c0 <<<"$base"
	read -r f1 c1 <<<"$more"
	expect_eq "page faults of 'switcher 50 100' minus 'switcher 0 0'" 100 $((f1 - f0))
	expect_in "the kernel's switches: 50 sleeps" 50 100000 "$k1"
	switches_exact "switcher 0 0" "$c0" "$k0"
	switches_exact "switcher 50 100" "$c1" "$k1"
}
retry 3 exact

# Every row names its task: pid, comm, cgroup path (read from procfs: a
# process gone before it was read has its parent's, or "" when that is
# gone too); idle is pid 0 with its CPU.
expect_eq "process rows have pid, comm, cgroup" True "$(json "$E2E_TMP/err" "all(
	isinstance(r['pid'], int) and isinstance(r['comm'], str) and isinstance(r['cgroup'], str)
	for r in j['processes'])")"
expect_eq "switcher's cgroup" True "$(json "$E2E_TMP/err" "all(r['cgroup'].startswith('/')
	for r in j['processes'] if r['comm'] == '$SWN')")"
expect_eq "idle rows" True "$(json "$E2E_TMP/err" "all(r['comm'].startswith('swapper/')
	and 'cpu' in r for r in j['processes'] if r['pid'] == 0)")"
expect_eq "the command's status is there" 0 "$(json "$E2E_TMP/err" "j['exit_status']")"

# Short-lived processes are kept, and two of one name are two rows.
hpm_ok stat -a --per-process --json -e $EV -- sh -c "$SW 0 0; $SW 0 0"
sums_exact processes
expect_eq "two switcher processes, two rows" 2 "$(json "$E2E_TMP/err" \
	"len(set(r['pid'] for r in j['processes'] if r['comm'] == '$SWN'))")"

# Threads: thread rows carry their tid; the sum holds per thread too.
# `threads 3`: its main thread and its workers worker-0..2, one row each,
# each with its last switch (after its exit: the kernel names the thread
# -1 then, and no row may be named so).
hpm_ok stat -a --per-thread --json -e $EV -- "$E2E_TMP/$THN" 3 0 10
sums_exact threads
expect_eq "thread rows of 'threads 3'" "['$THN', 'worker-0', 'worker-1', 'worker-2']" \
	"$(json "$E2E_TMP/err" "sorted(r['comm'] for r in j['threads'] if r['pid'] ==
		[x['pid'] for x in j['threads'] if x['comm'] == '$THN'][0])")"
expect_eq "thread rows have tids" True "$(json "$E2E_TMP/err" \
	"all('tid' in r for r in j['threads'])")"
expect_eq "no row of tid -1" True "$(json "$E2E_TMP/err" \
	"all(r['tid'] != -1 or r['comm'] == '[lost]' for r in j['threads'])")"

# Cgroups: one row per cgroup path (idle ones by name), summing exactly.
hpm_ok stat -a --per-cgroup --json -e $EV -- "$SW" 1 1
sums_exact cgroups
expect_eq "a cgroup row is its path" True "$(json "$E2E_TMP/err" \
	"any(r['cgroup'].startswith('/') for r in j['cgroups'])")"

# CSV: the workload's row under its label comm-pid; the table: a total.
hpm_norand_ok stat -a --per-process -x, -e page-faults -- "$SW" 0 7
expect_in "switcher's CSV row" 7 10000 "$(csv "$E2E_TMP/err" , \
	"[num(r[1]) for r in rows if r[0].startswith('$SWN-')][0]")"
hpm_ok stat -a --per-process -e page-faults -- "$SW" 0 7
expect_grep "switcher's table row" '^'$SWN'-[0-9]+ +[0-9]+ +page-faults' "$E2E_TMP/err"
expect_grep "the total line" '^total +[0-9,]+ +page-faults' "$E2E_TMP/err"

# -I: a line per interval, the sum exact in each; -C: its CPUs only.
hpm_ok stat -a --per-process -I 100 --json -e $EV -- sleep 0.35
expect_in "intervals" 3 5 "$(json "$E2E_TMP/err" "len([x for x in js if 'interval_ns' in x])")"
expect_eq "each interval's rows add up" True "$(json "$E2E_TMP/err" "all(
	sum(r['events'][i]['raw_count'] for r in x['processes']) == e['raw_count']
	for x in js for i, e in enumerate(x['events']))")"
hpm_ok stat -a -C 0 --per-thread --json -e context-switches -- sleep 0.05
sums_exact threads
expect_eq "-C 0: idle of CPU 0 only (if it ran)" True "$(json "$E2E_TMP/err" \
	"set(r['cpu'] for r in j['threads'] if r['pid'] == 0) <= {0}")"

# Switches the kernel counted without writing their sample (on Linux
# 6.18 it writes nothing for some tasks: docs/hpmon-top.md) are said: in
# JSON always (unsampled_switches, 0 included), in the table's footer
# when there are any. They are part of the [lost] row's switches (which
# also holds, for example, the last switch of a task reaped before it).
hpm_ok stat -a --per-process --json -e context-switches -- sleep 0.3
expect_eq "unsampled_switches: a count within the [lost] row's switches" True \
	"$(json "$E2E_TMP/err" "(isinstance(j['unsampled_switches'], int) and
	0 <= j['unsampled_switches'] <= sum(r['events'][0]['raw_count']
	for r in j['processes'] if r['comm'] == '[lost]'))")"
hpm_ok stat -a --per-process -e context-switches -- sleep 0.3
footer=$(sed -n 's/^ hpmon: \([0-9]*\) context switches were counted without their sample.*/\1/p' \
	"$E2E_TMP/err")
lost_row=$(awk '$1 == "[lost]" { gsub(",", "", $2); print $2 }' "$E2E_TMP/err")
if [ -n "$footer" ]; then
	expect_in "the footer's unsampled switches, within the [lost] row's" 1 "${lost_row:-0}" "$footer"
else
	note "no unsampled switches in this run: the footer is not shown"
fi
hpm_ok stat -e task-clock --json -- true
expect_eq "no unsampled_switches without -a --per-*" False \
	"$(json "$E2E_TMP/err" "'unsampled_switches' in j")"

# Misuse is said.
hpm stat --per-cgroup -e task-clock -- true
expect_eq "--per-cgroup without -a" 129 "$HPM_STATUS"
expect_grep "--per-cgroup without -a says why" 'per-cgroup needs -a' "$E2E_TMP/err"
hpm stat -a --per-process -e exec:main -- "$WORKLOADS/calls" 10
expect_eq "exec: under -a --per-process" 129 "$HPM_STATUS"
expect_grep "exec: under -a says why" 'cannot be counted system-wide per task' "$E2E_TMP/err"
