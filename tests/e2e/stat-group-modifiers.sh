# SPDX-License-Identifier: MIT
# Group modifiers as perf applies them, counted for real: :D (pinned) on a
# group pins its leader only, so its members count too (every member used
# to be pinned, which the kernel refuses: page-faults was <not supported>);
# a group's :u adds to a member's :k instead of replacing it, so the
# member counts in both modes; a named group counts as a group.
. "$(dirname "$0")/lib.sh"

# pages 300: at least 300 page faults in user mode.
hpm_ok stat -x, -e '{task-clock,page-faults}:D' -- "$WORKLOADS/pages" 300
pf=$(csv "$E2E_TMP/err" , "num(ev('page-faults')[0][0])")
[ "$pf" != None ] || fail "page-faults in a pinned group is not counted: $(cat "$E2E_TMP/err")"
expect_in "page-faults of a pinned group" 300 100000 "$pf"

# {page-faults:k}:u counts kernel and user faults: as much as page-faults,
# more than page-faults:k alone. Rows in the order written.
hpm_norand_ok stat -x, -e '{page-faults:k}:u,page-faults,page-faults:k' -- "$WORKLOADS/pages" 300
both=$(csv "$E2E_TMP/err" , "num(rows[0][0])")
all=$(csv "$E2E_TMP/err" , "num(rows[1][0])")
kernel=$(csv "$E2E_TMP/err" , "num(rows[2][0])")
note "group {page-faults:k}:u $both, page-faults $all, page-faults:k $kernel"
expect_eq "{page-faults:k}:u counts as page-faults (user and kernel)" "$all" "$both"
[ "$kernel" -lt "$both" ] || fail "page-faults:k ($kernel) is not below the group's ($both): the group's :u replaced :k"

# A named group: both members counted, in one group.
hpm_ok stat -x, -e 'g1{task-clock,page-faults}' -- "$WORKLOADS/pages" 10
pf=$(csv "$E2E_TMP/err" , "num(ev('page-faults')[0][0])")
expect_in "page-faults of a named group" 10 100000 "$pf"
