// SPDX-License-Identifier: MIT
/*
 * switcher N [PAGES]: block N times (a 200 us sleep each), so the process
 * is switched out N times more than `switcher 0`, then touch PAGES fresh
 * anonymous pages (PAGES page faults more), and exit.
 *
 * Each sleep is a voluntary context switch. On a busy machine the
 * process is also preempted (involuntary switches), and a fault may
 * block: with SWITCHER_RUSAGE=FILE it writes the kernel's own count of
 * its switches so far, "VOLUNTARY INVOLUNTARY" (getrusage, at its end),
 * which tests compare with the counted ones. The file is made anew
 * first and written last, so that nothing after the count blocks (ext4
 * writes a file truncated from a longer one back as it is closed): the
 * one switch the kernel makes after it is then the process's exit, but
 * where the machine preempts it in between.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
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
	const char *out = getenv("SWITCHER_RUSAGE");
	if (out)
		unlink(out);
	FILE *f = out ? fopen(out, "w") : NULL;
	if (out && !f)
		return 1;
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
	struct rusage ru;
	if (f) {
		if (getrusage(RUSAGE_SELF, &ru))
			return 1;
		fprintf(f, "%ld %ld\n", ru.ru_nvcsw, ru.ru_nivcsw);
		if (fclose(f))
			return 1;
	}
	return 0;
}
