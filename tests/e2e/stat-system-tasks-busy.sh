#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# stat -a --per-thread on a busy machine: two processes spin on the CPUs
# while a workload sleeps 50 times, so that it is preempted and its CPU
# switches among many tasks. Its row has exactly the context switches
# the kernel counted for it (rusage, at its end) and one more, its exit's
# (up to two more: preemptions after its count); it is never charged
# another task's switch. The kernel writes no sample at all for some
# tasks' switches (docs/hpmon-top.md): those go to the [lost] row, and
# the rows still add up exactly to the total.
. "$(dirname "$0")/lib.sh"

SWN=sw$$
cp "$WORKLOADS/switcher" "$E2E_TMP/$SWN"
SW=$E2E_TMP/$SWN
EV=context-switches,page-faults
hpm stat -a -e cpu-clock -- true
[ "$HPM_STATUS" -eq 0 ] || skip "system-wide counting is not allowed here: $(head -1 "$E2E_TMP/err")"

# two spinners, as many as this project's machines have CPUs, killed when
# the test ends
bg sh -c 'while :; do :; done'
bg sh -c 'while :; do :; done'

export SWITCHER_RUSAGE=$E2E_TMP/ru

busy() {
	hpm_ok stat -a --per-thread --json -e $EV -- sh -c "$SW 50 0; :"
	expect_eq "rows add up to the totals" True "$(json "$E2E_TMP/err" "all(
		sum(r['events'][i]['raw_count'] for r in j['threads']) == e['raw_count']
		for i, e in enumerate(j['events']))")"
	local c k
	c=$(json "$E2E_TMP/err" "[r['events'][0]['raw_count'] for r in j['threads']
		if r['comm'] == '$SWN'][0] if len([r for r in j['threads']
		if r['comm'] == '$SWN']) == 1 else 'rows?'")
	k=$(awk '{ print $1 + $2 }' "$E2E_TMP/ru")
	note "switcher 50: $c switches, $k by rusage ($(cat "$E2E_TMP/ru"): voluntary, involuntary)"
	expect_in "the kernel's switches: 50 sleeps" 50 100000 "$k"
	expect_in "its switches minus the kernel's count (its exit's, and preemptions after the count)" \
		1 3 $((c - k))
}
# three runs, each checked: a miscount is not retried away
busy
busy
busy
