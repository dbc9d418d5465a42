// SPDX-License-Identifier: MIT
/*
 * regions K P [T]: regions that touch known numbers of pages (README.md).
 *
 * In main, then in T threads one after the other: region "step" K times,
 * each touching P fresh pages and, in "inner" nested in it, P more. Each
 * fresh page written once is one page fault, so "step" counts 2 * P * K
 * page faults and "inner" P * K, exactly, per thread.
 *
 * A warm-up pass under other names runs first in each thread: the first
 * calls fault in code and data of their own (the program's, libc's), which
 * the exact counts are not about. Then main ends "orphan", which never
 * began, and leaves "open" open.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <hpmon/region.h>

static long k, pages;

static void touch(long n)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, (size_t)n * (size_t)page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		exit(1);
	madvise(p, (size_t)n * (size_t)page, MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		((volatile char *)p)[i * page] = 1;
	munmap(p, (size_t)n * (size_t)page);
}

static void step(const char *outer, const char *inner)
{
	hpm_region_begin(outer);
	touch(pages);
	hpm_region_begin(inner);
	touch(pages);
	hpm_region_end(inner);
	hpm_region_end(outer);
}

static void *thread_main(void *arg)
{
	(void)arg;
	step("warm-up", "warm-up-inner");
	for (long i = 0; i < k; i++)
		step("step", "inner");
	return NULL;
}

int main(int argc, char **argv)
{
	long t;
	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: regions K PAGES [THREADS]\n");
		return 2;
	}
	k = atol(argv[1]);
	pages = atol(argv[2]);
	t = argc == 4 ? atol(argv[3]) : 0;
	if (k < 0 || pages < 1 || t < 0 || t > 64)
		return 2;
	thread_main(NULL);
	for (long i = 0; i < t; i++) {
		pthread_t th;
		if (pthread_create(&th, NULL, thread_main, NULL) || pthread_join(th, NULL))
			return 1;
	}
	hpm_region_end("orphan");
	hpm_region_begin("open");
	return 0;
}
