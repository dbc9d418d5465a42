# SPDX-License-Identifier: MIT
# hpmon list and hpmon diag see the guest's PMU: armv8_pmuv3 with 6
# general counters plus the cycle counter, whose events inst_retired and
# cpu_cycles open and count.
. ./lib/check.sh

run list hpmon list
expect_ok list-runs list
expect "list-has-pmu-section" "$(shown list)" grep -q '^PMU events of armv8_pmuv3' "$SCRATCH/list.out"
for ev in inst_retired cpu_cycles; do
	line=$(grep -E "^ +([a-z0-9_]+/)?$ev/? " "$SCRATCH/list.out" | head -n1)
	expect "list-shows-$ev" "$(shown list)" test -n "$line"
	case $line in
	*"(supported"*) pass "list-$ev-supported" ;;
	*) fail "list-$ev-supported" "line: $line" ;;
	esac
done
# Each line is a name, a kind in brackets and a description.
bad=$(awk '/^PMU events of armv8_pmuv3/ { on = 1; next } /^[^ ]/ { on = 0 }
	on && NF && !/^  [^ ]+ +\[[a-z]+\] +[^ (]/ { print }' "$SCRATCH/list.out")
expect_eq list-lines-have-descriptions "" "$bad"

# A PMU event by its sysfs name counts what the generic event counts.
run gen hpmon stat -x, -e instructions:u -- loop 1000000
run raw hpmon stat -x, -e armv8_pmuv3/inst_retired/u -- loop 1000000
expect_eq pmu-event-counts-exactly "$(csv_lines gen | field 1)" \
	"$(csv_lines raw | field 1)" "$(shown gen)" "$(shown raw)"

run diag hpmon diag
expect_ok diag-runs diag
expect "diag-shows-pmu-counters" "$(shown diag)" \
	grep -Eq '^PMU armv8_pmuv3(_0)? .*: 6 general counters \+ cycle counter' "$SCRATCH/diag.out"
expect "diag-shows-paranoid" "$(shown diag)" \
	grep -Eq '^perf_event_paranoid: +-1' "$SCRATCH/diag.out"
finish
