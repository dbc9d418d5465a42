// SPDX-License-Identifier: MIT
/*
 * marked A B C: marked counting leaves out known parts (README.md).
 *
 * Touches A fresh pages, marks itself, touches B, unmarks, touches C; a
 * thread that never marks itself touches 7. Under `hpmon stat --marked
 * -e page-faults` the count is exactly B. The counter `work` gets 1000
 * unmarked, B marked, 1000 unmarked: it counts B.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <hpmon/marker.h>

static void touch(long n)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, (size_t)(n + 1) * (size_t)page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		exit(1);
	madvise(p, (size_t)(n + 1) * (size_t)page, MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		((volatile char *)p)[i * page] = 1;
	munmap(p, (size_t)(n + 1) * (size_t)page);
}

static void *unmarked_thread(void *arg)
{
	(void)arg;
	touch(7);
	HPM_ADD(work, 7);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	if (argc != 4) {
		fprintf(stderr, "usage: marked A B C\n");
		return 2;
	}
	long a = atol(argv[1]), b = atol(argv[2]), c = atol(argv[3]);
	touch(1); /* the first call faults in code of its own */
	touch(a);
	HPM_ADD(work, 1000);
	hpm_mark(true);
	touch(b);
	HPM_ADD(work, b);
	hpm_mark(false);
	touch(c);
	HPM_ADD(work, 1000);
	if (pthread_create(&th, NULL, unmarked_thread, NULL) || pthread_join(th, NULL))
		return 1;
	return 0;
}
