// SPDX-License-Identifier: MIT
/*
 * markers: software counters, regions and the mark in one small program
 * (a "server" that parses and answers fake requests in two threads).
 *
 *   examples/markers [REQUESTS]
 *   hpmon stat -e sw:requests,sw:bytes,page-faults --per-thread -- examples/markers
 *   hpmon stat --regions -e page-faults,task-clock -- examples/markers
 *   hpmon stat --marked -e page-faults,sw:requests -- examples/markers
 *
 * Without hpmon the counters still count (hpm_counter_get reads them) and
 * regions and marks cost almost nothing.
 *
 * Build: cc markers.c $(pkg-config --cflags --libs libhpmon-rt) -lpthread
 * (libhpmon-rt alone: the in-program runtime, which needs nothing but libc)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hpmon/marker.h>
#include <hpmon/region.h>

static long requests = 2000;

static size_t parse(const char *req)
{
	hpm_region_begin("parse");
	size_t n = strlen(req);
	HPM_ADD(bytes, n);
	hpm_region_end("parse");
	return n;
}

static char *answer(size_t n)
{
	hpm_region_begin("answer");
	char *buf = malloc(n * 64);
	if (buf)
		memset(buf, 'x', n * 64);
	hpm_region_end("answer");
	return buf;
}

static void *serve(void *arg)
{
	const char *req = arg;
	/* the set-up is not what we want to measure: mark the steady state */
	char *warm = answer(1000);
	free(warm);
	hpm_mark(true);
	for (long i = 0; i < requests; i++) {
		HPM_COUNT(requests);
		free(answer(parse(req)));
	}
	hpm_mark(false);
	printf("%s: %llu requests, %llu bytes\n", req, (unsigned long long)hpm_counter_get("requests"),
	       (unsigned long long)hpm_counter_get("bytes"));
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	static char *const req[2] = { "GET /index.html", "POST /form?a=1&b=2" };

	if (argc > 1)
		requests = atol(argv[1]);
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, serve, req[i]))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
