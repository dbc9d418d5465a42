// SPDX-License-Identifier: MIT
/*
 * renames R N: R rounds in which the process renames itself on one CPU
 * and then spins on another, so that each rename's COMM record and the
 * samples after it land in the ring buffers of different CPUs:
 *
 *   round k, on the last CPU allowed:   prctl(PR_SET_NAME, k odd ? "ren-a" : "ren-b")
 *   then on the first CPU allowed:      spin_a(N) if k is odd, else spin_b(N)
 *
 * spin_a runs only under the name ren-a, spin_b only under ren-b. The
 * samples are on the CPU whose buffer a reader drains first, the rename
 * on the one it drains last. With one CPU the process just renames and
 * spins. Prints the CPUs used ("cpus FIRST LAST").
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>

#include "spin.h"

volatile unsigned long sink;

__attribute__((noinline, used)) void spin_a(unsigned long k) { SPIN(k); }
__attribute__((noinline, used)) void spin_b(unsigned long k) { SPIN(k); }

static void run_on(int cpu)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	sched_setaffinity(0, sizeof(s), &s); /* moves the caller at once */
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 40;
	unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 10) : 2000000;
	int first = -1, last = -1;
	cpu_set_t all;

	if (sched_getaffinity(0, sizeof(all), &all) == 0)
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &all)) {
				if (first < 0)
					first = c;
				last = c;
			}
	printf("cpus %d %d\n", first, last);
	fflush(stdout);
	for (int k = 1; k <= rounds; k++) {
		if (last >= 0)
			run_on(last);
		prctl(PR_SET_NAME, k % 2 ? "ren-a" : "ren-b");
		if (first >= 0)
			run_on(first);
		if (k % 2)
			spin_a(n);
		else
			spin_b(n);
	}
	return 0;
}
