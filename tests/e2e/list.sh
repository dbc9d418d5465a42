#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# hpmon list: sections of events, each tried here and marked supported or
# not with the reason; a pattern filters (and searches tracepoints and
# native events); --json is an array of objects; a recorded sysfs tree
# lists that machine's PMU events without opening them.
. "$(dirname "$0")/lib.sh"

: "${TESTDATA:?TESTDATA must name tests/data}"
devices=/sys/bus/event_source/devices

# line NAME: the listing line of event NAME in $E2E_TMP/out
line() {
	grep -E "^  $(printf '%s' "$1" | sed 's/[.[\*^$/]/\\&/g') +\[" "$E2E_TMP/out" || true
}

core=
for d in "$devices"/*; do
	case ${d##*/} in cpu | cpu_core | cpu_atom) core=${d##*/} ;; esac
	[ -n "$core" ] || [ ! -e "$d/cpus" ] || core=${d##*/}
done

# ---- the full listing ----
hpm_ok list
out=$E2E_TMP/out
for s in 'Hardware events:' 'Software events:' 'Hardware cache events:'; do
	expect_grep "section $s" "^$s\$" "$out"
done
# Each event line: name, [kind], description, (supported...) or (not supported: why)
bad=$(grep '^  [^-]' "$out" | grep -vE '^  [^ ]+ +\[[a-z]+\](  .*)?  \((supported(, system-wide only: -a)?|not supported: .+)\)$' || true)
expect_eq "malformed event lines" "" "$bad"
case $(line task-clock) in
*"[software]"*"(supported)") ;;
*) fail "task-clock is not listed as supported: '$(line task-clock)'" ;;
esac
if [ -z "$core" ]; then
	case $(line cpu-cycles) in
	*"(also cycles)"*"(not supported: this machine exposes no hardware PMU)") ;;
	*) fail "cpu-cycles without a PMU: '$(line cpu-cycles)'" ;;
	esac
	case $(line L1-dcache-load-misses) in
	*"[cache]"*"(not supported: this machine exposes no hardware PMU)") ;;
	*) fail "L1-dcache-load-misses without a PMU: '$(line L1-dcache-load-misses)'" ;;
	esac
	# the reason in full, once
	expect_eq "notes of the no-PMU reason" 1 \
		"$(grep -c '^  - this machine exposes no hardware PMU' "$out")"
else
	case $(line cpu-cycles) in
	*"(supported)") ;;
	*) fail "cpu-cycles with a core PMU: '$(line cpu-cycles)'" ;;
	esac
fi
# sysfs PMU events by their spec, under their PMU
for d in "$devices"/*/events; do
	pmu=$(basename "$(dirname "$d")")
	for a in "$d"/*; do
		case $a in *.scale | *.unit | *.snapshot | *.per-pkg) continue ;; esac
		[ -e "$a" ] || continue
		expect_grep "PMU event $pmu/${a##*/}/" "^  $pmu/${a##*/}/ +\\[pmu\\]" "$out"
	done
	expect_grep "PMU section $pmu" "^PMU events of $pmu:\$" "$out"
done
if [ -d "$devices/breakpoint" ]; then
	expect_grep "breakpoint syntax" '^  mem:ADDR\[/LEN\]\[:r\|w\|x\|rw\] +\[breakpoint\]' "$out"
fi
expect_grep "tracepoints left out, said so" "^Tracepoints: " "$out"
expect_no_grep "no tracepoint without a pattern" '\[tracepoint\]' "$out"

# ---- patterns ----
hpm_ok list task-clock
expect_eq "events matching task-clock" 1 "$(grep -c '^  [^-]' "$E2E_TMP/out")"
hpm_ok list 'L1-dcache-*'
expect_eq "events matching L1-dcache-*" 6 "$(grep -c '^  L1-dcache-' "$E2E_TMP/out")"
expect_eq "only L1-dcache-* events" 6 "$(grep -c '^  [^-]' "$E2E_TMP/out")"
hpm_ok list FAULTS
# libpfm4's native events of the host's CPU (MODEL::EVENT) match too where
# libpfm4 knows the CPU, whether or not it has a PMU, and so do the events
# of its vendor tables (fp_disp_faults.x87_fill_fault on Zen 3): the
# generic ones are the same everywhere
expect_eq "a substring, any case" "alignment-faults emulation-faults major-faults minor-faults page-faults " \
	"$(grep '^  [^-]' "$E2E_TMP/out" | grep -v ' \[vendor\]' | awk '{print $1}' | grep -v '::' | sort | tr '\n' ' ')"
if grep -q '^  [^ ]*::' "$E2E_TMP/out"; then
	expect_no_grep "native events matched by their name only" '^  [^ ]*::[^ ]* ' \
		<(grep '^  [^ ]*::' "$E2E_TMP/out" | grep -vi 'faults')
fi
hpm list no-such-event-anywhere
expect_eq "exit status when nothing matches" 1 "$HPM_STATUS"
expect_grep "nothing matches, said" "no event matches 'no-such-event-anywhere'" "$E2E_TMP/err"

# Tracepoints, when tracefs can be read: a pattern finds them.
if [ -r /sys/kernel/tracing/events/sched/sched_switch/id ]; then
	hpm_ok list 'sched:sched_switch'
	case $(line sched:sched_switch) in
	*"[tracepoint]"*"(supported)") ;;
	*) fail "sched:sched_switch: '$(line sched:sched_switch)'" ;;
	esac
	hpm_ok list --tracepoints
	n=$(grep -c '\[tracepoint\]' "$E2E_TMP/out")
	[ "$n" -gt 100 ] || fail "--tracepoints listed $n tracepoints"
	# events without an id (ftrace's internal records) cannot be opened
	if [ ! -e /sys/kernel/tracing/events/ftrace/bprint/id ]; then
		! grep -q '^  ftrace:bprint ' "$E2E_TMP/out" || fail "ftrace:bprint (no id) is listed"
	fi
fi

# Natives: this CPU's, or a sentence saying there are none; libpfm4 told to
# detect a Skylake lists (and resolves) its events.
hpm_ok list --native
if ! grep -q '\[native\]' "$E2E_TMP/out"; then
	expect_grep "no native events, said" '^Native events \(libpfm4\): none: libpfm4 detected no PMU' "$E2E_TMP/out"
fi
LIBPFM_FORCE_PMU=skl hpm_ok list INST_RETIRED:ANY_P --no-probe
expect_grep "Skylake native" '^  skl::INST_RETIRED:ANY_P +\[native\]  .+  \(not probed\)$' "$E2E_TMP/out"

# ---- JSON ----
hpm_ok list --json
python3 -c 'import json,sys; json.load(sys.stdin)' <"$E2E_TMP/out" || fail "--json does not parse"
expect_eq "JSON keys" "description kind model name pmu reason supported table_version" \
	"$(json "$E2E_TMP/out" '" ".join(sorted(set(k for e in j for k in e)))')"
expect_eq "JSON every entry has every key" True \
	"$(json "$E2E_TMP/out" 'all(len(e) == 8 for e in j)')"
expect_eq "JSON task-clock" "True None software" \
	"$(json "$E2E_TMP/out" '" ".join(str(e[k]) for e in j if e["name"] == "task-clock" for k in ("supported", "reason", "kind"))')"
expect_eq "JSON cpu-cycles supported" "$([ -n "$core" ] && echo True || echo False)" \
	"$(json "$E2E_TMP/out" '[e["supported"] for e in j if e["name"] == "cpu-cycles"][0]')"
expect_eq "JSON unsupported ones say why" True \
	"$(json "$E2E_TMP/out" 'all(e["reason"] for e in j if e["supported"] is False)')"
hpm_ok list --json task-clock
expect_eq "JSON with a pattern" "task-clock" "$(json "$E2E_TMP/out" '" ".join(e["name"] for e in j)')"

# ---- another machine's sysfs: listed, not opened ----
HPMON_SYSFS_ROOT=$TESTDATA/sysfs-intel-skl hpm_ok list
out=$E2E_TMP/out
expect_grep "Skylake cpu PMU section" '^PMU events of cpu:$' "$out"
case $(line cpu/mem-loads/) in
*"[pmu]  event=0xcd,umask=0x1,ldlat=3  (not probed)") ;;
*) fail "cpu/mem-loads/ of Skylake: '$(line cpu/mem-loads/)'" ;;
esac
expect_grep "Skylake uncore" '^  uncore_imc/data_reads/ +\[pmu\]' "$out"
expect_grep "not opened, said" "^Events were not opened: sysfs root $TESTDATA/sysfs-intel-skl is not this machine's\$" "$out"
HPMON_SYSFS_ROOT=$TESTDATA/sysfs-intel-skl hpm_ok list --json 'cpu/*'
expect_eq "recorded tree in JSON: not probed" "None" \
	"$(json "$E2E_TMP/out" 'set(e["supported"] for e in j).pop()')"
expect_eq "recorded tree in JSON: the cpu PMU" "cpu" \
	"$(json "$E2E_TMP/out" 'set(e["pmu"] for e in j).pop()')"
HPMON_SYSFS_ROOT=$TESTDATA/sysfs-arm-n1 HPMON_TRACEFS_ROOT=$TESTDATA/tracefs hpm_ok list --tracepoints
expect_grep "N1 PMU event" '^  armv8_pmuv3_0/inst_retired/ +\[pmu\]  event=0x0*8  \(not probed\)$' "$E2E_TMP/out"
expect_eq "recorded tracepoints" 14 "$(grep -c '\[tracepoint\]' "$E2E_TMP/out")"

# ---- usage ----
hpm list --bogus
expect_eq "exit status of a bad option" 129 "$HPM_STATUS"
hpm list a b
expect_eq "exit status of two patterns" 129 "$HPM_STATUS"
note "ok"
