// SPDX-License-Identifier: MIT
/*
 * switcher N [PAGES]: block N times (a 200 us sleep each), so the process
 * is switched out N times more than `switcher 0`, then touch PAGES fresh
 * anonymous pages (PAGES page faults more), and exit.
 *
 * Each sleep is a voluntary context switch. Between two sleeps the
 * process runs for microseconds, so a preemption (an extra, involuntary
 * switch) is rare even on a busy machine; tests comparing two runs
 * retry once or twice for it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static long arg(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*end || v < 0) {
		fprintf(stderr, "switcher: '%s' is not a count\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long n, pages = 0, page = sysconf(_SC_PAGESIZE);
	struct timespec ts = { 0, 200000 };

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: switcher N [PAGES]\n");
		return 2;
	}
	n = arg(argv[1]);
	if (argc == 3)
		pages = arg(argv[2]);
	for (long i = 0; i < n; i++)
		nanosleep(&ts, NULL);
	if (pages > 0) {
		char *p = mmap(NULL, (size_t)pages * (size_t)page, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return 1;
		madvise(p, (size_t)pages * (size_t)page, MADV_NOHUGEPAGE);
		for (long i = 0; i < pages; i++)
			((volatile char *)p)[i * page] = 1;
	}
	return 0;
}
