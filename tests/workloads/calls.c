// SPDX-License-Identifier: MIT
/*
 * calls K: call hpm_work() exactly K times.
 *
 * hpm_work is a global, never inlined or cloned function, so `nm` finds
 * it and an execution breakpoint on its first instruction (perf's and
 * hpmon's `-e mem:ADDR:x`) fires exactly K times.
 *
 * The executable may be position independent (Debian's default): its
 * address is then nm's value plus the load address, which is fixed when
 * address-space randomisation is off (setarch -R). `calls --base` prints
 * that load address, `calls --addr` the runtime address of hpm_work; the
 * tests use them only to check their own arithmetic, never to tell hpmon
 * anything.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__clang__)
#define HPM_NOIPA __attribute__((noinline, used))
#else
#define HPM_NOIPA __attribute__((noipa, used))
#endif

/* Start of the executable's first segment, from the linker. */
extern const char __executable_start[];

void hpm_work(unsigned long i);

volatile unsigned long hpm_sink;

HPM_NOIPA void hpm_work(unsigned long i)
{
	hpm_sink += i;
}

int main(int argc, char **argv)
{
	char *end;
	long k;

	if (argc == 2 && !strcmp(argv[1], "--base")) {
		printf("0x%jx\n", (uintmax_t)(uintptr_t)__executable_start);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--addr")) {
		printf("0x%jx\n", (uintmax_t)(uintptr_t)&hpm_work);
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: calls K | --base | --addr\n");
		return 2;
	}
	k = strtol(argv[1], &end, 10);
	if (*end || k < 0) {
		fprintf(stderr, "calls: bad count '%s'\n", argv[1]);
		return 2;
	}
	for (long i = 0; i < k; i++)
		hpm_work((unsigned long)i);
	return 0;
}
