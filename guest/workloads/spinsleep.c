/* SPDX-License-Identifier: MIT */
/*
 * spinsleep N MS: a user-mode loop of N iterations, then a sleep of MS
 * ms, then the loop again: two busy phases with a quiet one between, for
 * timelines. The loop is loop.c's (3 instructions an iteration), so the
 * user-mode instructions are 6 * N + C, C a constant of the binary for
 * arguments of the same lengths, and none are retired in the sleep.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "spin.h"

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: spinsleep N MS\n");
		return 2;
	}
	unsigned long n = spin_arg("spinsleep", argv[1]), ms = spin_arg("spinsleep", argv[2]);
	struct timespec ts = { .tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000 };
	spin(n);
	while (nanosleep(&ts, &ts))
		;
	spin(n);
	return 0;
}
