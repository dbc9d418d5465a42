# SPDX-License-Identifier: MIT
# Per-event record terms, as perf takes them: call-graph=dwarf on one
# event and call-graph=no on the other record a stack for the first and
# none for the second, whichever the profile's main event is; a
# call-graph=no term wins over -g; period= wins over -c. The profile read
# back (report -g, --folded) shows callers where, and only where, chains
# were recorded. (The attributes themselves, time=0 and stack-size=
# included, are checked against perf's evlist in unit/test-record-terms.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record-lib.sh"

tree="$WORKLOADS/calltree"
n=60000000

# callers_of SYM: the caller lines (<-) under SYM in report -g's text
callers_of() {
	awk -v s="$1" '/^ +[0-9.]+% +[0-9.]+% / { on = ($3 == s) ; next } on && /<-/' "$E2E_TMP/out"
}

# 1. task-clock with DWARF stacks first: report's main event has callers.
hpm_ok record -q -e 'task-clock/call-graph=dwarf,stack-size=8192/,page-faults/call-graph=no/' \
	-o "$E2E_TMP/a.prof" -- "$tree" "$n"
hpm_ok report -i "$E2E_TMP/a.prof" -g
expect_grep "dwarf event: a call graph" '^# call graph of task-clock' "$E2E_TMP/out"
callers_of tree_b >"$E2E_TMP/cb"
expect_grep "dwarf event: tree_b's caller" '<- +[0-9.]+% +tree_a$' "$E2E_TMP/cb"
hpm_ok report -i "$E2E_TMP/a.prof" --folded
expect_grep "dwarf event: folded stacks" '^calltree;(.*;)?main;tree_a;tree_b [0-9]+$' "$E2E_TMP/out"
report_json "$E2E_TMP/a.prof"
expect_eq "page-faults sampled too" True \
	"$(json "$E2E_TMP/rep.json" "event(j, 'page-faults/call-graph=no/')['samples'] > 0")"

# 2. The same events, page-faults (call-graph=no) first: it is the main
# event, and none of its samples has a caller.
hpm_ok record -q -e 'page-faults/call-graph=no/,task-clock/call-graph=dwarf/' \
	-o "$E2E_TMP/b.prof" -- "$tree" "$n"
hpm_ok report -i "$E2E_TMP/b.prof" -g
expect_no_grep "no-chain event: no caller" '^ +<- ' "$E2E_TMP/out"
hpm_ok report -i "$E2E_TMP/b.prof" --folded
expect_grep "no-chain event: folded" '^calltree;[^;]+ [0-9]+$' "$E2E_TMP/out"
expect_no_grep "no-chain event: one frame a stack" '^[^;]*;[^;]*;' "$E2E_TMP/out"

# 3. -g for every event but the one that says call-graph=no.
hpm_ok record -q -g -e 'cpu-clock/call-graph=no/,task-clock' -o "$E2E_TMP/c.prof" -- "$tree" "$n"
hpm_ok report -i "$E2E_TMP/c.prof" --folded
expect_no_grep "-g, call-graph=no: one frame a stack" '^[^;]*;[^;]*;' "$E2E_TMP/out"
hpm_ok record -q -e 'cpu-clock/call-graph=fp/' -o "$E2E_TMP/d.prof" -- "$tree" "$n"
hpm_ok report -i "$E2E_TMP/d.prof" --folded
expect_grep "call-graph=fp without -g" '^calltree;(.*;)?main;tree_a;tree_b [0-9]+$' "$E2E_TMP/out"

# 4. period= wins over -c: every page fault is a sample with period=1,
# though -c asks for one in a million.
hpm_ok record -q -c 1000000 -e 'page-faults/period=1/' -o "$E2E_TMP/e.prof" -- "$tree" 1000
report_json "$E2E_TMP/e.prof"
expect_in "period=1 over -c: page-fault samples" 20 100000 \
	"$(json "$E2E_TMP/rep.json" "j['events'][0]['samples']")"

# 5. call-graph=lbr is refused, saying what to write instead.
hpm record -q -e 'cpu-clock/call-graph=lbr/' -o "$E2E_TMP/f.prof" -- "$tree" 1000
expect_eq "lbr refused" 1 "$HPM_STATUS"
expect_grep "lbr: what to write" 'call-graph=lbr.*call-graph=fp.*call-graph=dwarf' "$E2E_TMP/err"

# 6. time=0: samples without time stamps are still placed in their
# mappings (which keep theirs) and named.
hpm_ok record -q -e 'task-clock/time=0/' -o "$E2E_TMP/g.prof" -- "$tree" "$n"
report_json "$E2E_TMP/g.prof"
expect_in "time=0: tree_b's share (%)" 25 42 "$(pct tree_b)"

# 7. A freq= term above the kernel's limit is refused as -F is, naming the term.
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null || echo 0)
if [ "$max" -gt 0 ]; then
	hpm record -q -e "task-clock/freq=$((max * 2))/" -o "$E2E_TMP/h.prof" -- "$tree" 1000
	expect_eq "freq= above the limit: exit" 129 "$HPM_STATUS"
	expect_grep "freq= above the limit: why" "freq=$((max * 2)) of 'task-clock/freq=$((max * 2))/' is above the kernel's limit of $max" "$E2E_TMP/err"
fi

# 8. A tracepoint takes record's terms, as perf's: call-graph=dwarf on
# sys_enter_read gives each of zeroread's 40 reads its user stack,
# main -> zero_reader -> read (40 samples of 4 KiB stacks fit the default
# buffer: none is lost); a pattern gives the terms to every tracepoint it
# matches; a term of another kind is refused, naming the ones it takes.
if [ "$(id -u)" -eq 0 ] && [ -d /sys/kernel/tracing/events/syscalls ]; then
	hpm_ok record -q -e 'syscalls:sys_enter_read/call-graph=dwarf,stack-size=4096/u' \
		-o "$E2E_TMP/t.prof" -- "$WORKLOADS/zeroread" 40
	hpm_ok report -i "$E2E_TMP/t.prof" --folded
	expect_grep "tracepoint, call-graph=dwarf: the reads' stacks" \
		'^zeroread;(.*;)?main;zero_reader;read 40$' "$E2E_TMP/out"
	hpm_ok record -q -e 'syscalls:sys_enter_rea*/call-graph=dwarf/,sched:sched_process_ex*/call-graph=no/' \
		-o "$E2E_TMP/u.prof" -- "$WORKLOADS/zeroread" 40
	hpm_ok report -i "$E2E_TMP/u.prof" --folded
	expect_grep "pattern with terms: the reads' stacks" \
		'^zeroread;(.*;)?main;zero_reader;read 40$' "$E2E_TMP/out"
	report_json "$E2E_TMP/u.prof"
	expect_eq "pattern with terms: one event per tracepoint, sched's sampled" True \
		"$(json "$E2E_TMP/rep.json" "event(j, 'sched:sched_process_exit')['samples'] == 1")"
	hpm record -q -e 'syscalls:sys_enter_read/name=rd/' -o "$E2E_TMP/v.prof" -- true
	expect_eq "tracepoint, name=: exit" 129 "$HPM_STATUS"
	expect_grep "tracepoint, name=: why" "tracepoint syscalls:sys_enter_read takes no term 'name' \\(its terms: call-graph, stack-size, time" "$E2E_TMP/err"
fi
