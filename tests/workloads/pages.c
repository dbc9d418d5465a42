// SPDX-License-Identifier: MIT
/*
 * pages N: touch N fresh anonymous pages, one write per page.
 *
 * Every first write to a fresh anonymous page is one minor page fault, so
 * the page-faults count of two runs differs by exactly the difference of
 * their N: everything else the program does is the same in both runs.
 * Transparent huge pages are switched off for the mapping, or one fault
 * could fill 512 pages at once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

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

int main(int argc, char **argv)
{
	char *end;
	long n;

	if (argc != 2) {
		fprintf(stderr, "usage: pages N\n");
		return 2;
	}
	n = strtol(argv[1], &end, 10);
	if (*end || n < 0 || n > 1L << 24) {
		fprintf(stderr, "pages: bad count '%s'\n", argv[1]);
		return 2;
	}
	if (touch_pages(n)) {
		perror("pages: mmap");
		return 1;
	}
	return 0;
}
