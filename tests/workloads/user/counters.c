// SPDX-License-Identifier: MIT
/*
 * counters T K [MS]: software counters in T threads (README.md).
 *
 *   thread i (i = 0..T-1), one after the other: HPM_COUNT(ticks)
 *   (i + 1) * K times and HPM_ADD(bytes, 3) as often
 *   main: HPM_COUNT(masked) K times, the middle half of them with the
 *   counter switched off by the program: K / 2 count
 *
 * With MS, every thread spreads its ticks over MS milliseconds (for -I).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <hpmon/marker.h>

static long k, ms;

static void *thread_main(void *arg)
{
	long n = (long)arg;
	long chunk = n / 100 ? n / 100 : 1;
	for (long i = 0; i < n; i++) {
		HPM_COUNT(ticks);
		HPM_ADD(bytes, 3);
		if (ms && i % chunk == chunk - 1) {
			struct timespec ts = { 0, ms * 10000L };
			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long t;
	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: counters THREADS K [MS]\n");
		return 2;
	}
	t = atol(argv[1]);
	k = atol(argv[2]);
	ms = argc == 4 ? atol(argv[3]) : 0;
	for (long i = 0; i < k; i++) {
		if (i == k / 4)
			hpm_counter_enable("masked", false);
		if (i == k / 4 + k / 2)
			hpm_counter_enable("masked", true);
		HPM_COUNT(masked);
	}
	for (long i = 0; i < t; i++) {
		pthread_t th;
		if (pthread_create(&th, NULL, thread_main, (void *)((i + 1) * k)) ||
		    pthread_join(th, NULL))
			return 1;
	}
	return 0;
}
