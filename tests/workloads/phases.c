// SPDX-License-Identifier: MIT
/*
 * phases MS PAGES [THREADS]: a run in two phases, for timelines.
 *
 * Each of THREADS threads (default 1: the main thread alone; else the
 * main thread waits and workers "phase-0" ... do the work, side by side)
 * first spins for MS ms of its own CPU time without touching a new page,
 * then touches PAGES fresh anonymous pages spread evenly over MS more ms
 * of CPU time: one minor page fault each (transparent huge pages off), so
 * page faults come in the second half only, and a thread's count differs
 * between runs with other PAGES by exactly the difference.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 16

static long ms, pages;

static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static volatile unsigned long sink;

static void spin_until(double t)
{
	while (cpu_ms() < t)
		for (int i = 0; i < 1000; i++)
			sink += (unsigned long)i;
}

static int work(void)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)(pages > 0 ? pages : 1) * (size_t)page;
	/* mapped before the first phase: the second one only faults */
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	madvise(p, len, MADV_NOHUGEPAGE);
	double t0 = cpu_ms();
	spin_until(t0 + (double)ms);
	for (long i = 0; i < pages; i++) {
		((volatile char *)p)[i * page] = 1;
		spin_until(t0 + (double)ms + (double)ms * (double)(i + 1) / (double)pages);
	}
	spin_until(t0 + 2.0 * (double)ms);
	return munmap(p, len);
}

static void *worker(void *arg)
{
	char name[16];
	snprintf(name, sizeof(name), "phase-%d", (int)(long)arg);
	prctl(PR_SET_NAME, name);
	return (void *)(long)work();
}

int main(int argc, char **argv)
{
	pthread_t t[MAX_THREADS];
	long n = argc > 3 ? atol(argv[3]) : 1;

	if (argc < 3 || (ms = atol(argv[1])) <= 0 || (pages = atol(argv[2])) < 0 || n < 1 ||
	    n > MAX_THREADS) {
		fprintf(stderr, "usage: phases MS PAGES [THREADS (1-%d)]\n", MAX_THREADS);
		return 2;
	}
	if (n == 1)
		return work() ? 1 : 0;
	for (long i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i))
			return 1;
	int rc = 0;
	for (long i = 0; i < n; i++) {
		void *r;
		pthread_join(t[i], &r);
		rc |= r != NULL;
	}
	return rc;
}
