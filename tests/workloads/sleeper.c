// SPDX-License-Identifier: MIT
/*
 * sleeper [-s] [-c] [-w] [-t] [-d MS -p N] MS: stay alive for MS milliseconds.
 *
 *   -s     spin on the CPU instead of sleeping, so task-clock grows with
 *          the wall clock
 *   -c     spin, and count MS (and -d MS) in the spinning thread's CPU
 *          time, not in wall-clock time: its task-clock is then at least
 *          MS however busy the machine is
 *   -w     start only on SIGUSR1 (blocked and waited for, not spun): a
 *          test that attaches first and then sends it counts the whole
 *          plan, however long attaching took. Prints "ready" once the
 *          signal is blocked, so it may be sent from then on
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
#include <signal.h>
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
	int cpu_time;   /* -c: ms and delay_ms are the thread's CPU time */
	int wait_go;    /* -w: start on SIGUSR1 */
};

static long long now_ns(int cpu_time)
{
	struct timespec ts;

	clock_gettime(cpu_time ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void pass_until(long long deadline, int spin, int cpu_time)
{
	long long left;

	while ((left = deadline - now_ns(cpu_time)) > 0) {
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

	if (plan->wait_go) {
		sigset_t go;
		int sig;

		sigemptyset(&go);
		sigaddset(&go, SIGUSR1);
		sigwait(&go, &sig);
	}
	long long start = now_ns(plan->cpu_time);
	if (plan->pages > 0) {
		pass_until(start + plan->delay_ms * 1000000LL, plan->spin, plan->cpu_time);
		if (touch_pages(plan->pages))
			perror("sleeper: mmap");
	}
	pass_until(start + plan->ms * 1000000LL, plan->spin, plan->cpu_time);
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

	while ((opt = getopt(argc, argv, "scwtd:p:")) != -1) {
		switch (opt) {
		case 's': plan.spin = 1; break;
		case 'c': plan.spin = plan.cpu_time = 1; break;
		case 'w': plan.wait_go = 1; break;
		case 't': threaded = 1; break;
		case 'd': plan.delay_ms = parse_ms(optarg); break;
		case 'p': plan.pages = parse_ms(optarg); break;
		default:
			fprintf(stderr, "usage: sleeper [-s] [-c] [-w] [-t] [-d MS -p N] MS\n");
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: sleeper [-s] [-c] [-w] [-t] [-d MS -p N] MS\n");
		return 2;
	}
	plan.ms = parse_ms(argv[optind]);
	if (plan.wait_go) {
		/* blocked before the spinner exists, so that it inherits the mask
		 * and SIGUSR1 waits for sigwait() in whichever thread runs */
		sigset_t go;

		sigemptyset(&go);
		sigaddset(&go, SIGUSR1);
		pthread_sigmask(SIG_BLOCK, &go, NULL);
		printf("ready\n");
		fflush(stdout);
	}
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
