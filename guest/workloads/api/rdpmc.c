/* SPDX-License-Identifier: MIT */
/*
 * api-rdpmc N: the event-set API reading instructions:u of its own thread
 * with rdpmc (mrs PMEVCNTR<n>_EL0 from user space) and with read(2), around
 * the same loop of 3 instructions per iteration.
 *
 * For each method it prints one line
 *   METHOD USES_RDPMC N LOOP EMPTY
 * LOOP: instructions counted between two reads around spin(N); EMPTY:
 * between two reads with nothing in between. LOOP - EMPTY is the loop and
 * its call only, the same for both methods if both read the same counter.
 *
 * User-space reads need kernel.perf_user_access=1 (the test sets it) and
 * the event to ask for them: config1 bit 1, armv8_pmuv3's "rdpmc" format.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <hpmon/counters.h>

static void __attribute__((noinline)) spin(unsigned long n)
{
	if (n == 0)
		return;
	__asm__ volatile("1:	subs	%0, %0, #1\n"
			 "	nop\n"
			 "	b.ne	1b\n"
			 : "+r"(n)
			 :
			 : "cc");
}

static int measure(const char *method, bool no_rdpmc, unsigned long n)
{
	struct perf_event_attr a;
	struct hpm_count c0, c1, c2, c3;
	const char *name = "instructions:u";

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.config1 = 0x2; /* rdpmc */
	struct hpm_eventset_opts o = { .sz = sizeof(o), .no_rdpmc = no_rdpmc };
	struct hpm_eventset *es = hpm_eventset__new_attrs(&a, &name, 1, &o);
	if (!es) {
		perror("hpm_eventset__new_attrs");
		return 1;
	}
	if (hpm_eventset__start(es)) {
		perror("hpm_eventset__start");
		return 1;
	}
	/* the same code for both measurements: one warms the other up */
	for (int pass = 0; pass < 2; pass++) {
		hpm_eventset__read(es, &c0);
		spin(n);
		hpm_eventset__read(es, &c1);
		hpm_eventset__read(es, &c2);
		spin(0);
		hpm_eventset__read(es, &c3);
	}
	printf("%s %d %lu %llu %llu\n", method, hpm_eventset__rdpmc(es, 0), n,
	       (unsigned long long)(c1.value - c0.value), (unsigned long long)(c3.value - c2.value));
	hpm_eventset__stop(es);
	hpm_eventset__free(es);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: api-rdpmc N\n");
		return 2;
	}
	unsigned long n = strtoul(argv[1], NULL, 10);
	return measure("rdpmc", false, n) || measure("read", true, n);
}
