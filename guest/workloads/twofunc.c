/* SPDX-License-Identifier: MIT */
/*
 * twofunc N: spend user-mode instructions in two functions in a known
 * ratio, for sampling tests.
 *
 * heavy() runs 3 * N iterations and light() runs N iterations of the same
 * 3-instruction aarch64 loop, so heavy() retires exactly three times the
 * instructions of light(). Under the guest lane's -icount shift=0 one
 * user-mode cycle is one instruction, so samples on cycles:u land in
 * heavy and light in a 3 : 1 ratio (plus a few in start-up code).
 * Both are global, never inlined and kept in the symbol table, so a
 * profiler resolves samples to their names.
 */
#include <stdio.h>
#include <stdlib.h>

#define TWOFUNC_RATIO 3

/* One loop per function, written out in each so that every sampled
 * instruction address lies inside the function it is counted for. */
#define SPIN(n)								\
	__asm__ volatile("1:	subs	%0, %0, #1\n"			\
			 "	nop\n"					\
			 "	b.ne	1b\n"				\
			 : "+r"(n)					\
			 :						\
			 : "cc")

void heavy(unsigned long n);
void light(unsigned long n);

__attribute__((noinline, used)) void heavy(unsigned long n)
{
	n *= TWOFUNC_RATIO;
	if (n)
		SPIN(n);
}

__attribute__((noinline, used)) void light(unsigned long n)
{
	if (n)
		SPIN(n);
}

int main(int argc, char **argv)
{
	char *end;
	unsigned long n;

	if (argc != 2 || argv[1][0] < '0' || argv[1][0] > '9') {
		fprintf(stderr, "usage: twofunc N   (heavy: %d*N, light: N "
			"iterations of 3 instructions)\n", TWOFUNC_RATIO);
		return 2;
	}
	n = strtoul(argv[1], &end, 10);
	if (*end) {
		fprintf(stderr, "twofunc: bad count '%s'\n", argv[1]);
		return 2;
	}
	heavy(n);
	light(n);
	return 0;
}
