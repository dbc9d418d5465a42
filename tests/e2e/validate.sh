#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# hpmon validate judges each event against a benchmark whose count is
# known in advance. The software side is exact on every machine: page
# faults (one per fresh page), major faults (none), context switches (one
# per sleep, plus the preemptions the kernel reports), breakpoint hits
# (one per call, where the host's breakpoints fire: else "not delivered by
# this host", which is no failure). On a machine without a PMU every hardware event is "not
# supported", with the reason; where there is one, it gets a verdict.
. "$(dirname "$0")/lib.sh"

hpm_ok validate --quick --json
J=$E2E_TMP/out
cp "$J" "$E2E_TMP/v.json"
J=$E2E_TMP/v.json
verdict() { json "$J" "[c['verdict'] for c in j['checks'] if c['event'] == '$1'][0]"; }
for ev in page-faults minor-faults major-faults context-switches; do
	expect_eq "$ev verdict" exact "$(verdict "$ev")"
	expect_eq "$ev deterministic" True \
		"$(json "$J" "[c['deterministic'] for c in j['checks'] if c['event'] == '$ev'][0]")"
done
expect_eq "page-faults per page" 1 \
	"$(json "$J" "[c['measured_per_unit'] for c in j['checks'] if c['event'] == 'page-faults'][0]")"
# breakpoints that open but never fire are the host's lack, never broken
bp_verdict=exact
host_bp_fires || bp_verdict="not delivered by this host"
expect_eq "breakpoint verdict" "$bp_verdict" \
	"$(json "$J" "[c['verdict'] for c in j['checks'] if c['check'] == 'breakpoint hits'][0]")"
expect_eq "breakpoint event" True \
	"$(json "$J" "[c['event'].startswith('mem:0x') and c['event'].endswith(':x') for c in j['checks'] if c['check'] == 'breakpoint hits'][0]")"

# Hardware: every check of instructions is judged, or says why it cannot be.
if ! ls /sys/bus/event_source/devices/ 2>/dev/null | grep -Eq '^(cpu|cpu_core|armv8.*)$'; then
	expect_eq "no PMU: instructions:u" "not supported" "$(verdict instructions:u)"
	expect_eq "no PMU: the reason" True \
		"$(json "$J" "'no hardware PMU' in [c['reason'] for c in j['checks'] if c['event'] == 'instructions:u'][0]")"
	expect_eq "no PMU: nothing hardware judged" 0 \
		"$(json "$J" "len([c for c in j['checks'] if c['event'].endswith(':u') and c['verdict'] != 'not supported'])")"
else
	expect_eq "PMU: instructions:u judged" True \
		"$(json "$J" "'$(verdict instructions:u)' in ('exact', 'within', 'biased', 'broken')")"
fi

# The table says the same, the reason once as a footnote.
hpm_ok validate --quick -e page-faults,instructions,breakpoint
expect_grep "table: page-faults" '^page faults +page-faults +1 +1 +\+0\.00 % +exact \(deterministic\)$' "$E2E_TMP/out"
if host_bp_fires; then
	expect_grep "table: breakpoint" '^breakpoint hits +breakpoint +1 +1 .*exact' "$E2E_TMP/out"
else
	expect_grep "table: breakpoint" '^breakpoint hits +breakpoint +not delivered by this host \[[0-9]+\]$' "$E2E_TMP/out"
	expect_grep "table: why" '^\[[0-9]+\] hardware breakpoints do not fire on this host' "$E2E_TMP/out"
fi
expect_eq "table: three rows" 3 "$(grep -cE '^(page faults|instructions|breakpoint hits) ' "$E2E_TMP/out")"
expect_eq "-e without :u means the :u check" 1 "$(grep -c '^instructions  *instructions:u' "$E2E_TMP/out")"

# An event no benchmark knows: the fix is named, exit 129.
hpm validate -e page-faults,no-such-thing
expect_eq "unknown -e: status" 129 "$HPM_STATUS"
expect_grep "unknown -e: message" "no benchmark knows the answer for 'no-such-thing'; 'hpmon validate --list'" "$E2E_TMP/err"
hpm validate -r 0
expect_eq "-r 0: status" 129 "$HPM_STATUS"
hpm validate ls
expect_eq "a command: status" 129 "$HPM_STATUS"
expect_grep "a command: message" "validate runs its own benchmarks, not a command" "$E2E_TMP/err"

hpm_ok validate --list
expect_grep "--list: breakpoint" '^breakpoint hits +calls +1/call +breakpoint$' "$E2E_TMP/out"
