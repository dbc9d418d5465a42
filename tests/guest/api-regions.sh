# SPDX-License-Identifier: MIT
# Regions measured by the program itself (hpmon stat --regions) count
# user-mode instructions exactly under -icount: a region around a loop of
# 3 instructions per iteration counts 3 * N more than an empty region,
# plus the call of the loop, the same in every run; nested regions add
# up; and the counts are the same whether the program reads its counters
# with rdpmc (kernel.perf_user_access=1) or with read(2).
. ./lib/check.sh

# region NAME RUN: the instructions:u count of region NAME in run RUN
#   region,NAME,THREAD,CALLS,COUNT,EVENT,PCT,FLAGS
region() { grep "^region,$1," "$SCRATCH/$2.err" | grep ',instructions:u,' | cut -d, -f5; }
calls() { grep "^region,$1," "$SCRATCH/$2.err" | grep ',instructions:u,' | cut -d, -f4; }

N1=1000000
N2=3000000
echo 1 >/proc/sys/kernel/perf_user_access
run u1 hpmon stat --regions -x, -e instructions:u -- api-regions $N1
run u2 hpmon stat --regions -x, -e instructions:u -- api-regions $N2
run u3 hpmon stat --regions -x, -e instructions:u -- api-regions $N1 7
echo 0 >/proc/sys/kernel/perf_user_access
run s1 hpmon stat --regions -x, -e instructions:u -- api-regions $N1
run s2 hpmon stat --regions -x, -e instructions:u -- api-regions $N2
expect_ok runs u1
expect_ok runs-read s1

e1=$(region empty u1)
s1=$(region spin u1)
s2=$(region spin u2)
if is_count "$e1" && is_count "$s1" && is_count "$s2"; then
	pass counts-are-numbers
	expect_eq calls 1 "$(calls spin u1)" "$(shown u1)"
	# the loop alone: exactly 3 instructions an iteration
	expect_eq spin-difference $((3 * (N2 - N1))) $((s2 - s1)) "$(shown u1)" "$(shown u2)"
	# beyond the loop, the call of spin() and the cost of a region
	c=$((s1 - e1 - 3 * N1))
	expect "spin-minus-empty-small" "spin - empty - 3N = $c" test "$c" -ge 0 -a "$c" -lt 100
	expect_eq same-constant "$c" $((s2 - $(region empty u2) - 3 * N2))
	expect "empty-small" "an empty region counted $e1" test "$e1" -gt 0 -a "$e1" -lt 2000
	# nesting: outer holds spin and spin(M)
	o1=$(region outer u1)
	o3=$(region outer u3)
	expect_eq outer-difference $((3 * (N1 - 7))) $((o1 - o3)) "$(shown u1)" "$(shown u3)"
	expect "outer-holds-spin" "outer $o1, spin $s1" test "$o1" -gt $((s1 + 3 * N1))
	# read(2) instead of rdpmc: the same work counted
	expect_eq read-same-as-rdpmc $((s1 - e1)) $(($(region spin s1) - $(region empty s1))) \
		"$(shown s1)"
	expect_eq read-spin-difference $((3 * (N2 - N1))) $(($(region spin s2) - $(region spin s1)))
else
	fail counts-are-numbers "$(shown u1)" "$(shown u2)"
fi
# the whole run's count is hpmon's own (its events on the program)
total=$(csv_lines u1 | grep ',instructions:u,' | grep -v '^region' | field 1)
expect "total-holds-regions" "total $total, outer $(region outer u1)" \
	test "$total" -gt "$(region outer u1)"
finish
