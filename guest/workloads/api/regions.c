/* SPDX-License-Identifier: MIT */
/*
 * api-regions N [M]: regions around a loop of exactly 3 instructions per
 * iteration (the guest lane's `loop`), for `hpmon stat --regions`.
 *
 *   "empty"  begun and ended at once: what a region costs by itself
 *   "spin"   around spin(N): 3 * N instructions more than "empty", plus
 *            the call of spin() itself, a constant
 *   "outer"  around "spin" and a second spin(M) (default N): nesting
 *
 * Each is entered once; everything else the program does is the same for
 * every N, so differences between runs are exact multiples of 3.
 */
#include <stdio.h>
#include <stdlib.h>
#include <hpmon/region.h>

/* Instructions per iteration: subs, nop, b.ne. */
#define LOOP_INSNS 3

static void __attribute__((noinline)) spin(unsigned long n)
{
	if (n == 0)
		return;
	__asm__ volatile("1:	subs	%0, %0, #1\n"
			 "	nop\n"
			 "	b.ne	1b\n"
			 : "+r"(n)
			 :
			 : "cc");
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: api-regions N [M]   (%d instructions per iteration)\n",
			LOOP_INSNS);
		return 2;
	}
	unsigned long n = strtoul(argv[1], NULL, 10);
	unsigned long m = argc == 3 ? strtoul(argv[2], NULL, 10) : n;
	hpm_region_begin("empty");
	hpm_region_end("empty");
	hpm_region_begin("outer");
	hpm_region_begin("spin");
	spin(n);
	hpm_region_end("spin");
	spin(m);
	hpm_region_end("outer");
	return 0;
}
