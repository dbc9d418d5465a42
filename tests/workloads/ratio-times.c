// SPDX-License-Identifier: MIT
/*
 * ratio-times N [A B C]: the ratio workload (ratio.c: work6, work3 and
 * work1 run the same loop 6*N, 3*N and N times, or A*N, B*N, C*N, over 20
 * interleaved rounds) that also measures the thread CPU time each function
 * took and writes it to the file HPM_RATIO_TIMES names, a "work6 NS" line
 * each. On a loaded machine the same loop runs at different speeds from
 * phase to phase (a busy sibling core, the host taking the virtual CPU),
 * so a run's true shares stray from 6:3:1 by more than sampling error: a
 * test compares a profile with the run's own shares.
 *
 * main keeps a frame pointer: the work functions are leaves without one,
 * and a frame-pointer call chain taken in them reads main's %rbp. Without
 * it main's timing code would keep a stack address there, and each round's
 * samples would get a caller read from a different stack slot.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "spin.h"

volatile unsigned long sink;

static unsigned long parts[3] = { 6, 3, 1 };

__attribute__((noinline, used)) void work6(unsigned long n) { SPIN(parts[0] * n); }
__attribute__((noinline, used)) void work3(unsigned long n) { SPIN(parts[1] * n); }
__attribute__((noinline, used)) void work1(unsigned long n) { SPIN(parts[2] * n); }

static long long cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

__attribute__((optimize("no-omit-frame-pointer"))) int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000000;
	const char *path = getenv("HPM_RATIO_TIMES");
	long long ns[3] = { 0 }, t;

	for (int i = 0; i < 3 && argc == 5; i++)
		parts[i] = strtoul(argv[2 + i], NULL, 10);
	for (int round = 0; round < 20; round++) {
		t = cpu_ns();
		work6(n / 20);
		ns[0] += cpu_ns() - t;
		t = cpu_ns();
		work3(n / 20);
		ns[1] += cpu_ns() - t;
		t = cpu_ns();
		work1(n / 20);
		ns[2] += cpu_ns() - t;
	}
	if (path) {
		FILE *f = fopen(path, "w");
		if (!f)
			return perror(path), 1;
		fprintf(f, "work6 %lld\nwork3 %lld\nwork1 %lld\n", ns[0], ns[1], ns[2]);
		if (fclose(f))
			return perror(path), 1;
	}
	return 0;
}
