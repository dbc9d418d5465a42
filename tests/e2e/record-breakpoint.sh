# SPDX-License-Identifier: MIT
# A breakpoint on the first instruction of a function, with period 1, as
# the trigger: exactly one sample per call, all of them in that function,
# where the host's breakpoints fire (else refused, saying why).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record-lib.sh"

addr=$("${NORAND[@]}" "$WORKLOADS/calls" --addr)
if host_bp_fires; then
	for k in 1 1000 54321; do
		hpm_norand_ok record -q -e "mem:$addr:x" -o "$E2E_TMP/b.prof" -- "$WORKLOADS/calls" $k
		report_json "$E2E_TMP/b.prof"
		expect_eq "samples of hpm_work for $k calls" $k "$(samples hpm_work)"
		expect_eq "samples in all for $k calls" $k \
			"$(json "$E2E_TMP/rep.json" "j['events'][0]['samples']")"
	done
else
	# breakpoints that never fire are refused, and nothing is written
	hpm_norand record -q -e "mem:$addr:x" -o "$E2E_TMP/b.prof" -- "$WORKLOADS/calls" 1
	expect_bp_refused "record -e mem:$addr:x"
	[ ! -e "$E2E_TMP/b.prof" ] || fail "a refused record wrote $E2E_TMP/b.prof"
fi

# Software events and tracepoints trigger too, with period 1: page faults
# of a program that touches N fresh pages, all in the function that does.
hpm_norand_ok record -q -e page-faults -o "$E2E_TMP/p.prof" -- "$WORKLOADS/pages" 3000
report_json "$E2E_TMP/p.prof"
expect_eq "page-fault samples in touch_pages" 3000 "$(samples touch_pages)"
# ... and with -c 100, one sample per 100 faults (the 3000 pages' faults
# give 30, give or take one for where the count of the faults before them
# leaves off), not one per fault as the kernel does when a software event's
# samples carry their period
hpm_norand_ok record -q -e page-faults -c 100 -o "$E2E_TMP/p.prof" -- "$WORKLOADS/pages" 3000
report_json "$E2E_TMP/p.prof"
expect_in "page-fault samples in touch_pages with -c 100" 29 31 "$(samples touch_pages)"
if [ -d /sys/kernel/tracing/events/syscalls/sys_enter_getppid ] ||
   [ -d /sys/kernel/debug/tracing/events/syscalls/sys_enter_getppid ]; then
	# python calls getppid itself too: two runs differ by exactly the loop's
	for n in 0 77; do
		hpm_ok record -q -e syscalls:sys_enter_getppid -o "$E2E_TMP/t$n.prof" -- \
			python3 -c "import os; [os.getppid() for _ in range($n)]"
		report_json "$E2E_TMP/t$n.prof"
		eval "c$n=\$(json \"\$E2E_TMP/rep.json\" \"j['events'][0]['samples']\")"
	done
	expect_eq "one sample per getppid call" 77 $((c77 - c0))
else
	note "no syscalls tracepoints here: tracepoint check skipped"
fi
