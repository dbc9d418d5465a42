// SPDX-License-Identifier: MIT
/*
 * ratio N [A B C]: three functions doing the same work in the ratio
 * 6 : 3 : 1 (or A : B : C, for a profile of a known change: diff's tests).
 *
 * work6, work3 and work1 run the same loop 6*N, 3*N and N times per round,
 * over 20 rounds, interleaved so that a slower or faster phase of the
 * machine hits all three alike. A sampling profiler should put 60 %, 30 %
 * and 10 % of the samples in them (start-up and main are negligible for
 * N of a million or more). With A B C, work6 runs A*N times, work3 B*N,
 * work1 C*N.
 */
#include <stdio.h>
#include <stdlib.h>

#include "spin.h"

volatile unsigned long sink;

static unsigned long parts[3] = { 6, 3, 1 };

__attribute__((noinline, used)) void work6(unsigned long n) { SPIN(parts[0] * n); }
__attribute__((noinline, used)) void work3(unsigned long n) { SPIN(parts[1] * n); }
__attribute__((noinline, used)) void work1(unsigned long n) { SPIN(parts[2] * n); }

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000000;
	for (int i = 0; i < 3 && argc == 5; i++)
		parts[i] = strtoul(argv[2 + i], NULL, 10);
	for (int round = 0; round < 20; round++) {
		work6(n / 20);
		work3(n / 20);
		work1(n / 20);
	}
	return 0;
}
