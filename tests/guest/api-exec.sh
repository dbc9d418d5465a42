# SPDX-License-Identifier: MIT
# Location events on arm64: hardware breakpoints (4-byte instructions, the
# arm64 debug registers) and uprobes count a function's calls exactly in
# a program of the guest: api-regions calls spin() twice and main once.
. ./lib/check.sh

# count RUN EVENT: the count of EVENT in the -x, output of run RUN
count() { csv_lines "$1" | grep ",$2," | field 1; }

run a hpmon stat -x, -e exec:spin,exec:main,exec:spin:uprobe -- api-regions 5
expect_ok runs a
expect_eq breakpoint 2 "$(count a exec:spin)" "$(shown a)"
expect_eq breakpoint-main 1 "$(count a exec:main)" "$(shown a)"
expect_eq uprobe 2 "$(count a exec:spin:uprobe)" "$(shown a)"
run r hpmon stat -x, -e 'exec:spin%return' -- api-regions 5
expect_eq returns 2 "$(count r 'exec:spin%return')" "$(shown r)"
run h hpmon stat -e exec:spin -- api-regions 5
expect "how" "$(shown h)" grep -q 'exec:spin: breakpoint at 0x[0-9a-f]* (spin+0x0 in api-regions)' \
	"$SCRATCH/h.err"
run n hpmon stat -e exec:no_such -- api-regions 5
expect_eq no-such-function 129 "$(rc n)" "$(shown n)"
finish
