# SPDX-License-Identifier: MIT
# hpmon stat counts user-mode instructions exactly under -icount shift=0:
# the loop workload retires 3 instructions per iteration, so two runs
# differ by exactly 3 * (N2 - N1), and a repeated run counts the same.
. ./lib/check.sh

N1=1000000
N2=3000000
K=3

run a hpmon stat -e instructions:u -x, -- loop $N1
run b hpmon stat -e instructions:u -x, -- loop $N2
run a2 hpmon stat -e instructions:u -x, -- loop $N1
expect_ok runs a
expect_ok runs-again b

ca=$(csv_lines a | field 1)
cb=$(csv_lines b | field 1)
ca2=$(csv_lines a2 | field 1)
if is_count "$ca" && is_count "$cb"; then
	pass counts-are-numbers
	expect_eq linear-difference $((K * (N2 - N1))) $((cb - ca)) \
		"loop $N1: $ca" "loop $N2: $cb"
	# What is not the loop is the start-up and exit of a static binary:
	# some thousands of instructions, never more than a million.
	expect "constant-part-small" "loop $N1 counted $ca" \
		test $((ca - K * N1)) -gt 0 -a $((ca - K * N1)) -lt 1000000
else
	fail counts-are-numbers "$(shown a)" "$(shown b)"
fi
expect_eq repeatable "$ca" "$ca2"

# A generic name as a term of the core PMU, as perf takes it: the PMU has
# no "instructions" alias, so it is the architected event the kernel maps
# instructions to (inst_retired), and counts exactly what instructions:u
# does.
run pmuterm hpmon stat -e armv8_pmuv3/instructions/u -x, -- loop $N1
expect_eq pmu-generic-term "$ca" "$(csv_lines pmuterm | field 1)" "$(shown pmuterm)"
expect_eq event-column instructions:u "$(csv_lines a | field 3)" "$(shown a)"

# The measured command's exit status passes through.
run st hpmon stat -e instructions:u -x, -- sh -c 'exit 7'
expect_eq exit-status-passes-through 7 "$(rc st)" "$(shown st)"

# --json carries the same exact count.
run j hpmon stat -e instructions:u --json -o "$SCRATCH/j.json" -- loop $N1
jc=$(tr -d ' \n' <"$SCRATCH/j.json" 2>/dev/null |
	sed -n 's/.*"events":\[{[^]]*"count":\([0-9]*\).*/\1/p')
expect_eq json-count "$ca" "$jc" "$(shown j)" "$(cat "$SCRATCH/j.json" 2>&1)"
finish
