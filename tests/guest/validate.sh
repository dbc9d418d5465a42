# SPDX-License-Identifier: MIT
# hpmon validate on a real ARMv8 PMU: the loop's 8 instructions an
# iteration are counted exactly, and so are its cycles, by the model of a
# machine that retires one instruction a cycle (QEMU under -icount); the
# software side is exact as on every machine. QEMU's PMU implements no
# branch event: the kernel refuses the generic one, and validate says so.
. ./lib/check.sh

run v hpmon validate --quick -e instructions,PAPI_TOT_INS,cycles,page-faults,context-switches,breakpoint
expect_ok runs v
expect "instructions-exact" "$(shown v)" sh -c \
	"grep -Eq '^instructions +instructions:u +8 +8 +\+0\.00 % +exact \(deterministic\)' '$SCRATCH/v.out'"
expect "preset-exact" "$(shown v)" sh -c \
	"grep -Eq '^instructions +PAPI_TOT_INS:u +8 +8 +\+0\.00 % +exact \(deterministic\)' '$SCRATCH/v.out'"
expect "cycles-exact-one-a-cycle" "$(shown v)" sh -c \
	"grep -Eq '^cycles +cycles:u +8 +8 +\+0\.00 % +exact, one instruction a cycle' '$SCRATCH/v.out'"
expect "page-faults-exact" "$(shown v)" sh -c \
	"grep -Eq '^page faults +page-faults +1 +1 .*exact \(deterministic\)' '$SCRATCH/v.out'"
expect "context-switches-exact" "$(shown v)" sh -c \
	"grep -Eq '^context switches +context-switches .*exact' '$SCRATCH/v.out'"
expect "breakpoint-exact" "$(shown v)" sh -c \
	"grep -Eq '^breakpoint hits +breakpoint +1 +1 .*exact' '$SCRATCH/v.out'"

run b hpmon validate --quick -e branches
expect_ok branches-runs b
expect "branches-not-supported" "$(shown b)" sh -c \
	"grep -Eq '^branches +branches:u +not supported \\[1\\]' '$SCRATCH/b.out' &&
	 grep -q '^\\[1\\] the PMU does not support this event' '$SCRATCH/b.out'"
finish
