/* SPDX-License-Identifier: MIT */
/*
 * loop N: run a loop of exactly LOOP_INSNS instructions per iteration N
 * times, then exit 0.
 *
 * The loop is aarch64 assembly, so the compiler cannot change it, and
 * everything else the program does (C start-up, parsing N, exit) runs the
 * same instructions for every N of the same number of digits. The user-mode
 * instruction count of a run is therefore LOOP_INSNS * N + C, with C a
 * constant of the binary: two runs with N1 and N2 (same digit count)
 * differ by exactly LOOP_INSNS * (N2 - N1). N = 0 runs no iteration.
 */
#include <stdio.h>
#include <stdlib.h>

#include "spin.h"

#define LOOP_INSNS SPIN_INSNS

int main(int argc, char **argv)
{
	char *end;
	unsigned long n;

	if (argc != 2 || argv[1][0] < '0' || argv[1][0] > '9') {
		fprintf(stderr, "usage: loop N   (%d instructions per iteration)\n",
			LOOP_INSNS);
		return 2;
	}
	n = strtoul(argv[1], &end, 10);
	if (*end) {
		fprintf(stderr, "loop: bad count '%s'\n", argv[1]);
		return 2;
	}
	spin(n);
	return 0;
}
