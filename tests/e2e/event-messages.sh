#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Event specifications hpmon refuses name the real cause, through the
# tool: a tracefs missing under HPMON_SYSFS_ROOT (the path looked for, and
# HPMON_TRACEFS_ROOT to point elsewhere), a misspelt term after mem:, a
# term with '=' and no value, wildcards outside tracepoints and a wildcard
# that matches nothing. Each is a usage error (129) and nothing runs.
. "$(dirname "$0")/lib.sh"

: "${TESTDATA:?TESTDATA must name tests/data}"
skl=$TESTDATA/sysfs-intel-skl
marker=$E2E_TMP/ran

# refused SPEC MSG [ADVICE]: `stat -e SPEC -- touch marker` exits 129, its
# first line is "hpmon stat: MSG" exactly and its last "See 'hpmon stat
# --help'." (a usage error), ADVICE (a regex) is a line of its own, and
# the command did not run.
refused() {
	hpm stat -e "$1" -- touch "$marker"
	expect_eq "stat -e '$1': exit status" 129 "$HPM_STATUS"
	expect_eq "stat -e '$1': the message" "hpmon stat: $2" "$(head -1 "$E2E_TMP/err")"
	expect_eq "stat -e '$1': the last line" "See 'hpmon stat --help'." "$(tail -1 "$E2E_TMP/err")"
	[ -z "${3:-}" ] || expect_grep "stat -e '$1': the advice" "$3" "$E2E_TMP/err"
	[ ! -e "$marker" ] || fail "stat -e '$1': the command ran"
}

# A recorded sysfs tree has no tracefs: say where it was looked for.
export HPMON_SYSFS_ROOT=$skl
refused sched:sched_switch "cannot tell whether 'sched:sched_switch' is a tracepoint: the sysfs root $skl has none (looked for kernel/tracing/events and kernel/debug/tracing/events under it)" \
	'^  point HPMON_TRACEFS_ROOT at a tracefs directory, one that holds events/ \(/sys/kernel/tracing, or a recorded tree\)$'
refused 'sched:*' "tracepoint pattern 'sched:*' needs tracefs: the sysfs root $skl has none (looked for kernel/tracing/events and kernel/debug/tracing/events under it)" \
	'^  point HPMON_TRACEFS_ROOT at'
export HPMON_TRACEFS_ROOT=$E2E_TMP
refused sched:sched_switch "cannot tell whether 'sched:sched_switch' is a tracepoint: the tracefs root $E2E_TMP has no events/ directory" \
	'^  point HPMON_TRACEFS_ROOT at'
# with one, a pattern that matches nothing says where it looked
export HPMON_TRACEFS_ROOT=$TESTDATA/tracefs
refused 'sched:nomatch_*' "no tracepoint under $TESTDATA/tracefs/events matches 'sched:nomatch_*' (see 'hpmon list tracepoint')"

# Terms: a misspelt one is unknown (not "not a number"), with the closest.
refused 'mem:0/nme=x/' "event mem:0 takes no term 'nme' (its terms: config, config1, config2, name, period, freq, call-graph, stack-size, time)" \
	'^  did you mean: name\?$'
refused 'msr/nme=x/' "PMU msr has no term or event 'nme' (its terms: event)" '^  did you mean: name\?$'
refused 'cpu/config1=/' "term 'config1' has '=' but no value: write config1=N, or the term alone for 1"
refused 'cpu/umask=0x/' "'0x' is not a number for term 'umask' (write a decimal or 0x hex number)"

# Wildcards: tracepoints only.
refused 'cycles*' "'cycles*' holds a wildcard, and wildcards match tracepoints only (SUBSYS:NAME: sched:sched_*, *:*), not other event names" \
	'^  did you mean: cycles\?$'
refused 'cpu*/event=1/' "'cpu*/event=1/' holds a wildcard, and wildcards match tracepoints only (SUBSYS:NAME: sched:sched_*, *:*), not PMU names or terms"
refused 'software/cpu-clock*/' "'cpu-clock*' holds a wildcard, and terms take none: wildcards match tracepoints only (SUBSYS:NAME)"
echo "PASS: $E2E_NAME"
