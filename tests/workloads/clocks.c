// SPDX-License-Identifier: MIT
/*
 * clocks N: read CLOCK_MONOTONIC N times. glibc answers clock_gettime from
 * the vdso, without a system call, so nearly all of the time is spent in
 * the kernel's vdso code mapped into the process ([vdso]).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	struct timespec ts;
	unsigned long long sum = 0;
	long n;

	if (argc != 2 || (n = atol(argv[1])) < 0) {
		fprintf(stderr, "usage: clocks N\n");
		return 2;
	}
	for (long i = 0; i < n; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		sum += (unsigned long long)ts.tv_nsec;
	}
	printf("%llu\n", sum & 1);
	return 0;
}
