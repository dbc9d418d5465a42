// SPDX-License-Identifier: MIT
/*
 * sleeper [-s] [-t] [-d MS -p N] MS: stay alive for MS milliseconds.
 *
 *   -s     spin on the CPU instead of sleeping, so task-clock grows with
 *          the wall clock
 *   -t     do the sleeping or spinning in a second thread named "spinner"
 *          while the main thread only waits for it, so a per-thread count
 *          tells the two apart
 *   -p N   touch N fresh anonymous pages (N page faults) ...
 *   -d MS  ... MS milliseconds after the start (default 0)
 *
 * It is the target of the attach (-p PID, -t TID) and interval (-I) tests,
 * which start it, attach to it and let it run out.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

struct plan {
	long ms;        /* how long to stay alive */
	long delay_ms;  /* when to touch the pages */
	long pages;     /* how many pages to touch */
	int spin;
};

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void pass_until(long long deadline, int spin)
{
	long long left;

	while ((left = deadline - now_ns()) > 0) {
		if (!spin) {
			struct timespec ts = { left / 1000000000LL, left % 1000000000LL };

			nanosleep(&ts, NULL);
		}
	}
}

static int touch_pages(long n)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p;

	if (n <= 0)
		return 0;
	p = mmap(NULL, (size_t)n * (size_t)page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	madvise(p, (size_t)n * (size_t)page, MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		((volatile char *)p)[i * page] = 1;
	return munmap(p, (size_t)n * (size_t)page);
}

static void *run(void *arg)
{
	const struct plan *plan = arg;
	long long start = now_ns();

	if (plan->pages > 0) {
		pass_until(start + plan->delay_ms * 1000000LL, plan->spin);
		if (touch_pages(plan->pages))
			perror("sleeper: mmap");
	}
	pass_until(start + plan->ms * 1000000LL, plan->spin);
	return NULL;
}

static void *spinner(void *arg)
{
	prctl(PR_SET_NAME, "spinner");
	return run(arg);
}

static long parse_ms(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v < 0) {
		fprintf(stderr, "sleeper: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	struct plan plan = { 0 };
	int threaded = 0, opt;
	pthread_t t;

	while ((opt = getopt(argc, argv, "std:p:")) != -1) {
		switch (opt) {
		case 's': plan.spin = 1; break;
		case 't': threaded = 1; break;
		case 'd': plan.delay_ms = parse_ms(optarg); break;
		case 'p': plan.pages = parse_ms(optarg); break;
		default:
			fprintf(stderr, "usage: sleeper [-s] [-t] [-d MS -p N] MS\n");
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: sleeper [-s] [-t] [-d MS -p N] MS\n");
		return 2;
	}
	plan.ms = parse_ms(argv[optind]);
	if (!threaded) {
		run(&plan);
		return 0;
	}
	if (pthread_create(&t, NULL, spinner, &plan)) {
		fprintf(stderr, "sleeper: cannot create a thread\n");
		return 1;
	}
	pthread_join(t, NULL);
	return 0;
}
