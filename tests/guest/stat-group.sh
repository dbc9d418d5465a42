# SPDX-License-Identifier: MIT
# A group of cycles and instructions, user mode only: under -icount
# shift=0 one instruction takes one cycle, so the two counts are equal,
# and equal to instructions counted alone.
. ./lib/check.sh

N=2000000

run solo hpmon stat -e instructions:u -x, -- loop $N
run g hpmon stat -e '{cycles:u,instructions:u}' -x, -- loop $N
expect_ok group-runs g

cyc=$(csv_lines g | awk -F, '$3 == "cycles:u" { print $1 }')
ins=$(csv_lines g | awk -F, '$3 == "instructions:u" { print $1 }')
solo=$(csv_lines solo | field 1)
if is_count "$cyc" && is_count "$ins"; then
	pass group-counts
	expect_eq cycles-equal-instructions "$cyc" "$ins"
	expect_eq group-equals-solo "$solo" "$ins"
else
	fail group-counts "$(shown g)"
fi
# A group is scheduled as one: both members ran all the time.
expect_eq group-running-100 "100.00 100.00" \
	"$(csv_lines g | field 5 | tr '\n' ' ' | sed 's/ $//')" "$(shown g)"
finish
