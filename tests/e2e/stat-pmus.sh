#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Events written once for several PMUs, as perf prints them: on a hybrid
# CPU (the recorded Alder Lake tree) a generic event is one line per core
# PMU, cpu_core/cycles/ and cpu_atom/cycles/, and a group one group per
# core PMU; the boxes of an uncore PMU (uncore_cbox_0..3 of the recorded
# Skylake tree) are one merged line, or one line each with --no-merge.
# hpmon resolves against the tree (HPMON_SYSFS_ROOT) and opens on this
# machine, where these events may not count: the lines, names and order
# are checked, not the counts.
. "$(dirname "$0")/lib.sh"

: "${TESTDATA:?TESTDATA must name tests/data}"
sleeper=$WORKLOADS/sleeper

# The trees with this machine's online CPUs, so that -a opens on CPUs
# that exist.
online=$(cat /sys/devices/system/cpu/online)
for t in sysfs-intel-adl sysfs-intel-skl; do
	cp -r "$TESTDATA/$t" "$E2E_TMP/$t"
	echo "$online" >"$E2E_TMP/$t/devices/system/cpu/online"
done
ADL=$E2E_TMP/sysfs-intel-adl
SKL=$E2E_TMP/sysfs-intel-skl

# names_are WHAT FILE SEP NAMES...: the CSV lines' event column, in order.
names_are() {
	local what=$1 file=$2 sep=$3
	shift 3
	expect_eq "$what" "$*" "$(csv "$file" "$sep" "' '.join(r[2] for r in rows)")"
}

# ---- hybrid: one event per core PMU ----
HPMON_SYSFS_ROOT=$ADL hpm_ok stat -x, -e cycles,instructions:u,task-clock -- "$sleeper" 10
names_are "generic events on a hybrid CPU" "$E2E_TMP/err" , \
	cpu_core/cycles/ cpu_atom/cycles/ cpu_core/instructions:u/ cpu_atom/instructions:u/ task-clock

HPMON_SYSFS_ROOT=$ADL hpm_ok stat -x, -e '{cycles,L1-dcache-load-misses}:u,page-faults' -- "$sleeper" 10
names_are "a group becomes one group per core PMU" "$E2E_TMP/err" , \
	cpu_core/cycles/ cpu_core/L1-dcache-load-misses/ cpu_atom/cycles/ \
	cpu_atom/L1-dcache-load-misses/ page-faults

# what stays one event: a PMU's own event, a raw code
HPMON_SYSFS_ROOT=$ADL hpm_ok stat -x, -e cpu_atom/cycles/,r3c,task-clock -- "$sleeper" 10
names_are "PMU events and raw codes" "$E2E_TMP/err" , cpu_atom/cycles/ r3c task-clock

HPMON_SYSFS_ROOT=$ADL hpm_ok stat --json -e cycles,task-clock -- "$sleeper" 10
expect_eq "JSON event names" "['cpu_core/cycles/', 'cpu_atom/cycles/', 'task-clock']" \
	"$(json "$E2E_TMP/err" "[e['name'] for e in j['events']]")"

# metrics count on cpu_core only: their events are cpu_core's
HPMON_SYSFS_ROOT=$ADL hpm_ok stat -x, -M ipc -- "$sleeper" 10
expect_grep "-M ipc counts cpu_core/instructions/" ',cpu_core/instructions/,' "$E2E_TMP/err"
expect_no_grep "-M ipc counts nothing on cpu_atom" 'cpu_atom' "$E2E_TMP/err"

# ---- the merge's arithmetic, with counters this machine has ----
# A tree whose PMU swbox has two instances of the software PMU's type:
# swbox/config=1/ is task-clock twice, merged into one line (not a
# recorded machine; it lets the sums be checked where no uncore counts).
BOX=$E2E_TMP/sysfs-boxes
cp -r "$TESTDATA/sysfs-x86-vm-nopmu" "$BOX"
for b in 0 1; do
	mkdir -p "$BOX/bus/event_source/devices/swbox_$b/format"
	echo 1 >"$BOX/bus/event_source/devices/swbox_$b/type"
done
HPMON_SYSFS_ROOT=$BOX hpm_ok stat --json -e swbox/config=1/,task-clock -- "$sleeper" -s 50
expect_eq "JSON: the two instances are one line" "['swbox/config=1/', 'task-clock']" \
	"$(json "$E2E_TMP/err" "[e['name'] for e in j['events']]")"
# both instances count the same task over the same time as task-clock
expect_in "merged count / task-clock" 1.8 2.2 \
	"$(json "$E2E_TMP/err" "event(j, 'swbox/config=1/')['raw_count'] / event(j, 'task-clock')['raw_count']")"
expect_in "merged enabled time / task-clock's" 1.8 2.2 \
	"$(json "$E2E_TMP/err" "event(j, 'swbox/config=1/')['enabled_ns'] / event(j, 'task-clock')['enabled_ns']")"
expect_eq "merged running time is the sum" True \
	"$(json "$E2E_TMP/err" "event(j, 'swbox/config=1/')['running_ns'] == event(j, 'swbox/config=1/')['enabled_ns']")"
HPMON_SYSFS_ROOT=$BOX hpm_ok stat --no-merge -x, -e swbox/config=1/,task-clock -- "$sleeper" 10
names_are "--no-merge: each instance" "$E2E_TMP/err" , swbox_0/config=1/ swbox_1/config=1/ task-clock

# ---- uncore boxes: merged, or one line each ----
hpm stat -a -e cpu-clock -- "$sleeper" 1
if [ "$HPM_STATUS" -ne 0 ]; then
	skip "system-wide counting is not allowed here (the hybrid part passed)"
fi
HPMON_SYSFS_ROOT=$SKL hpm_ok stat -a -x, -e uncore_cbox/clockticks/,cpu-clock -- "$sleeper" 10
names_are "uncore boxes merged" "$E2E_TMP/err" , uncore_cbox/clockticks/ cpu-clock

HPMON_SYSFS_ROOT=$SKL hpm_ok stat -a --no-merge -x, -e uncore_cbox/clockticks/,cpu-clock -- "$sleeper" 10
names_are "--no-merge: one line per box" "$E2E_TMP/err" , uncore_cbox_0/clockticks/ \
	uncore_cbox_1/clockticks/ uncore_cbox_2/clockticks/ uncore_cbox_3/clockticks/ cpu-clock

HPMON_SYSFS_ROOT=$SKL hpm_ok stat -a --json -e uncore_cbox/clockticks/,cpu-clock -- "$sleeper" 10
expect_eq "JSON: one merged event" "['uncore_cbox/clockticks/', 'cpu-clock']" \
	"$(json "$E2E_TMP/err" "[e['name'] for e in j['events']]")"

# -A: an uncore PMU counts on the CPUs of its cpumask (CPU 0) only
HPMON_SYSFS_ROOT=$SKL hpm_ok stat -a -A -x, -e uncore_cbox/clockticks/,cpu-clock -- "$sleeper" 10
expect_eq "-A: the uncore line is CPU0's only" "['CPU0']" \
	"$(csv "$E2E_TMP/err" , "[r[0] for r in ev('uncore_cbox/clockticks/')]")"
nr_online=$(python3 -c 'import sys
print(sum(int(b) - int(a) + 1 if a else 1 for a, _, b in
          (r.partition("-") if "-" in r else ("", "", r) for r in sys.argv[1].split(","))))' "$online")
expect_eq "-A: cpu-clock on every CPU" "$nr_online" \
	"$(csv "$E2E_TMP/err" , "len(ev('cpu-clock'))")"
