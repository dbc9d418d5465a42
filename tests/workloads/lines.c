// SPDX-License-Identifier: MIT
/*
 * lines N: one function, two loops on their own source lines; the first
 * runs 3*N iterations and the second N, so a profile by source line puts
 * 75 % and 25 % of the function's samples on LOOP_A_LINE and LOOP_B_LINE.
 */
#include <stdlib.h>

volatile unsigned long sink;

__attribute__((noinline, used)) void two_loops(unsigned long n)
{
	unsigned long x = sink, y = sink;
	for (unsigned long i = 0; i < 3 * n; i++) x = x * 2862933555777941757ul + i; /* LOOP_A */
	for (unsigned long i = 0; i < n; i++) y = y * 2862933555777941757ul + i; /* LOOP_B */
	sink = x + y;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000000;
	for (int r = 0; r < 10; r++)
		two_loops(n / 10);
	return 0;
}
