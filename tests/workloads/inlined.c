// SPDX-License-Identifier: MIT
/*
 * inlined N: all the work is in inner_loop(), which is always inlined
 * into outer_work() (even at -fno-inline): its samples carry outer_work's
 * symbol, and DWARF says they are inner_loop's code.
 */
#include <stdlib.h>

volatile unsigned long sink;

static inline __attribute__((always_inline)) unsigned long inner_loop(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n; i++)
		x = x * 2862933555777941757ul + i;
	return x;
}

__attribute__((noinline, used)) void outer_work(unsigned long n)
{
	sink = inner_loop(n);
}

int main(int argc, char **argv)
{
	outer_work(argc > 1 ? strtoul(argv[1], NULL, 10) : 100000000);
	return 0;
}
