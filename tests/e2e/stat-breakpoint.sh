#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# An execution breakpoint (-e mem:ADDR:x) on hpm_work counts exactly the K
# calls of `calls K`, where the host's breakpoints fire (else it is refused
# with the reason). The address comes from nm; a position-independent
# executable is loaded at a fixed address when randomisation is off.
. "$(dirname "$0")/lib.sh"

calls=$WORKLOADS/calls
command -v nm >/dev/null || fail "nm (binutils) is needed"
sym=$(nm "$calls" | awk '$3 == "hpm_work" { print $1 }')
[ -n "$sym" ] || fail "nm finds no hpm_work in $calls"
if LC_ALL=C readelf -h "$calls" | grep -q 'Type:[[:space:]]*DYN'; then
	base=$("${NORAND[@]}" "$calls" --base)
else
	base=0
fi
addr=$(printf '0x%x' $((base + 0x$sym)))
# The test's own arithmetic, checked against what the workload sees.
expect_eq "address of hpm_work" "$addr" "$("${NORAND[@]}" "$calls" --addr)"
event="mem:$addr:x"

# Where breakpoints open but never fire, hpmon refuses them, naming the
# reason and the uprobe alternative, rather than printing 0.
if ! host_bp_fires; then
	hpm_norand stat -x, -e "$event" -- "$calls" 7
	expect_bp_refused "$event"
	expect_grep "$event: the alternative" "exec:FUNC" "$E2E_TMP/err"
	hpm_norand stat -x, -e "mem:$addr/8:rw" -- "$calls" 7
	expect_bp_refused "a data breakpoint"
	echo "PASS: $E2E_NAME (breakpoints do not fire here: refused)"
	exit 0
fi

count() {
	hpm_norand_ok stat -x, -e "$event" -- "$calls" "$1"
	csv "$E2E_TMP/err" , "ev('$event')[0][0]"
}

first=$(count 1)
if [ "$first" = "<not supported>" ]; then
	# Only acceptable where perf cannot set the breakpoint either.
	if perf stat -x, -e "$event" true 2>&1 | grep -q '^[0-9]'; then
		fail "hpmon says $event is not supported, perf counts it"
	fi
	skip "this machine offers no hardware breakpoints"
fi
expect_eq "$event with 1 call" 1 "$first"
for k in 0 7 1000 5000; do
	expect_eq "$event with $k calls" "$k" "$(count "$k")"
done

# The same count in JSON, with the event named as given.
hpm_norand_ok stat --json -o "$E2E_TMP/bp.json" -e "$event" -- "$calls" 321
expect_eq "JSON count of $event" 321 "$(json "$E2E_TMP/bp.json" "int(event(j, '$event')['count'])")"
expect_eq "JSON raw_count of $event" 321 "$(json "$E2E_TMP/bp.json" "event(j, '$event')['raw_count']")"
echo "PASS: $E2E_NAME"
