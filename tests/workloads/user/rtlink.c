// SPDX-License-Identifier: MIT
/*
 * rtlink K: a program that uses the in-program runtime only (marker.h and
 * region.h), linked with -lhpmon-rt and nothing else (tests/e2e/user-rt.sh).
 * Marked, it enters region "step" K times, counting `steps` once and
 * `evens` every second time; then, unmarked, counts `after` once.
 *
 * Built with -DNO_HPMON the same program has no runtime at all: the
 * baseline of the runtime's size.
 */
#include <stdio.h>
#include <stdlib.h>

#ifdef NO_HPMON
#define HPM_COUNT(name) ((void)0)
#define hpm_region_begin(name) 0
#define hpm_region_end(name) 0
#define hpm_mark(on) ((void)0)
#define hpm_counter_get(name) 0ull
#else
#include <hpmon/marker.h>
#include <hpmon/region.h>
#endif

int main(int argc, char **argv)
{
	long k = argc > 1 ? atol(argv[1]) : 1000;
	int rc = 0;

	hpm_mark(true);
	for (long i = 0; i < k; i++) {
		rc |= hpm_region_begin("step");
		HPM_COUNT(steps);
		if (i % 2 == 0)
			HPM_COUNT(evens);
		rc |= hpm_region_end("step");
	}
	hpm_mark(false);
	HPM_COUNT(after);
	printf("steps %llu evens %llu after %llu\n", (unsigned long long)hpm_counter_get("steps"),
	       (unsigned long long)hpm_counter_get("evens"),
	       (unsigned long long)hpm_counter_get("after"));
	return rc ? 1 : 0;
}
