# SPDX-License-Identifier: MIT
# The event-set API (<hpmon/counters.h>) reads the program's own counter
# with rdpmc when the kernel allows user-space reads
# (kernel.perf_user_access=1), and with read(2) when it does not or when
# told not to; both read the same counter: around a loop of 3 instructions
# per iteration they count exactly 3 * N more than around nothing.
. ./lib/check.sh

# line METHOD RUN: "METHOD USES_RDPMC N LOOP EMPTY" of api-rdpmc
line() { grep "^$1 " "$SCRATCH/$2.out"; }
loop_minus_empty() { line "$1" "$2" | awk '{ print $4 - $5 }'; }

N=2000000
echo 1 >/proc/sys/kernel/perf_user_access
run on api-rdpmc $N
run on0 api-rdpmc 0
echo 0 >/proc/sys/kernel/perf_user_access
run off api-rdpmc $N
expect_ok runs on
expect_ok runs-without-user-access off

expect_eq rdpmc-used 1 "$(line rdpmc on | cut -d' ' -f2)" "$(shown on)"
expect_eq read-asked 0 "$(line read on | cut -d' ' -f2)" "$(shown on)"
expect_eq rdpmc-loop $((3 * N)) "$(loop_minus_empty rdpmc on)" "$(shown on)"
expect_eq read-loop $((3 * N)) "$(loop_minus_empty read on)" "$(shown on)"
expect_eq no-loop 0 "$(loop_minus_empty rdpmc on0)" "$(shown on0)"
# forbidden: the same API falls back to read(2), and counts the same
expect_eq rdpmc-refused 0 "$(line rdpmc off | cut -d' ' -f2)" "$(shown off)"
expect_eq fallback-loop $((3 * N)) "$(loop_minus_empty rdpmc off)" "$(shown off)"
# what two reads cost in user-mode instructions, each way: a few hundred
# at most (the user-space read computes times too; read(2)'s user part
# is its libc wrapper)
e_rd=$(line rdpmc on | cut -d' ' -f5)
e_sys=$(line read on | cut -d' ' -f5)
expect "empty-reads-small" "rdpmc $e_rd, read(2) $e_sys" test "$e_rd" -lt 1000 -a "$e_sys" -lt 1000
finish
