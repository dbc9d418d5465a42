#!/bin/bash
# SPDX-License-Identifier: MIT
# stat --topdown [--td-level N]: perf 6.1's top-down events where the PMU
# has them, and its refusals where it has not; bad levels are usage errors.
source "$(dirname "$0")/lib.sh"

# expect_rc WANT WHAT CMD...: CMD exits WANT; its stderr in $E2E_TMP/err
expect_rc() {
	local want=$1 what=$2 rc=0
	shift 2
	"$@" >/dev/null 2>"$E2E_TMP/err" || rc=$?
	[ "$rc" = "$want" ] || fail "$what: exit $rc, want $want: $(cat "$E2E_TMP/err")"
}

expect_rc 129 "--td-level 3" "$HPMON" stat --topdown --td-level 3 -- true
grep -q -- "--td-level takes 1 or 2" "$E2E_TMP/err" || fail "--td-level 3: $(cat "$E2E_TMP/err")"
expect_rc 129 "--td-level x" "$HPMON" stat --topdown --td-level x -- true
expect_rc 129 "--td-level without --topdown" "$HPMON" stat --td-level 1 -- true
grep -q -- "--td-level needs --topdown" "$E2E_TMP/err" || fail "--td-level alone: $(cat "$E2E_TMP/err")"

sysfs=/sys/bus/event_source/devices
if [ ! -e "$sysfs/cpu" ] && [ ! -e "$sysfs/cpu_core" ]; then
	expect_rc 1 "--topdown without a PMU" "$HPMON" stat --topdown -- true
	grep -q "no hardware PMU" "$E2E_TMP/err" ||
		fail "--topdown without a PMU does not say so: $(cat "$E2E_TMP/err")"
	expect_rc 1 "--topdown -a without a PMU" "$HPMON" stat --topdown -a -- true
	grep -q "no hardware PMU" "$E2E_TMP/err" ||
		fail "--topdown -a without a PMU does not say so: $(cat "$E2E_TMP/err")"
	echo "PASS: $E2E_NAME"
	exit 0
fi

pmu=cpu
[ -e "$sysfs/cpu_core" ] && pmu=cpu_core
if [ -e "$sysfs/$pmu/events/topdown-retiring" ]; then
	# Ice Lake on: the slots group, and perf's figures beside it
	"$HPMON" stat -x, --topdown -- "$WORKLOADS/ratio" 100000 2>"$E2E_TMP/td.csv" >/dev/null ||
		fail "stat --topdown failed: $(cat "$E2E_TMP/td.csv")"
	for ev in slots topdown-retiring topdown-bad-spec topdown-fe-bound topdown-be-bound; do
		grep -q ",$ev," "$E2E_TMP/td.csv" || grep -q ",$pmu/$ev/," "$E2E_TMP/td.csv" ||
			fail "stat --topdown: no $ev line: $(cat "$E2E_TMP/td.csv")"
	done
	if grep -q '^[0-9][0-9.]*,,.*topdown-retiring' "$E2E_TMP/td.csv"; then
		grep -q 'Retiring' "$E2E_TMP/td.csv" ||
			fail "stat --topdown: no Retiring figure: $(cat "$E2E_TMP/td.csv")"
	fi
elif [ -e "$sysfs/$pmu/events/topdown-total-slots" ]; then
	expect_rc 129 "--topdown without -a before Ice Lake" "$HPMON" stat --topdown -- true
	grep -q "system-wide mode (-a)" "$E2E_TMP/err" || fail "$(cat "$E2E_TMP/err")"
else
	expect_rc 1 "--topdown without top-down events" "$HPMON" stat --topdown -- true
	grep -q "no top-down" "$E2E_TMP/err" || fail "$(cat "$E2E_TMP/err")"
fi
echo "PASS: $E2E_NAME"
