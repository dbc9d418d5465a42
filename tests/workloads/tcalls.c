// SPDX-License-Identifier: MIT
/*
 * tcalls T P K: calls of hpm_tick() in threads and child processes, so
 * that location events (exec:hpm_tick) are known per thread and process.
 *
 *   thread i (i = 0..T-1) calls hpm_tick() (i + 1) * K times
 *   child  j (j = 0..P-1) calls it (T + j + 1) * K times
 *   the main thread calls it K times, before anything else
 *
 * Everything runs one after the other. hpm_tick is global and never
 * inlined or cloned, like hpm_work in calls.c.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__clang__)
#define HPM_NOIPA __attribute__((noinline, used))
#else
#define HPM_NOIPA __attribute__((noipa, used))
#endif

void hpm_tick(void);
volatile unsigned long hpm_ticks;

HPM_NOIPA void hpm_tick(void)
{
	hpm_ticks++;
}

static void ticks(long n)
{
	for (long i = 0; i < n; i++)
		hpm_tick();
}

static void *thread_main(void *arg)
{
	ticks((long)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	long t, p, k;
	char *e1, *e2, *e3;

	if (argc != 4) {
		fprintf(stderr, "usage: tcalls THREADS PROCESSES K\n");
		return 2;
	}
	t = strtol(argv[1], &e1, 10);
	p = strtol(argv[2], &e2, 10);
	k = strtol(argv[3], &e3, 10);
	if (*e1 || *e2 || *e3 || t < 0 || p < 0 || k < 0 || t > 64 || p > 64) {
		fprintf(stderr, "tcalls: bad arguments\n");
		return 2;
	}
	ticks(k);
	for (long j = 0; j < p; j++) {
		pid_t c = fork();
		if (c == 0) {
			ticks((t + j + 1) * k);
			_exit(0);
		}
		if (c < 0 || waitpid(c, NULL, 0) != c)
			return 1;
	}
	for (long i = 0; i < t; i++) {
		pthread_t th;
		if (pthread_create(&th, NULL, thread_main, (void *)((i + 1) * k)) ||
		    pthread_join(th, NULL))
			return 1;
	}
	return 0;
}
