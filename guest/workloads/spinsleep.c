/* SPDX-License-Identifier: MIT */
/*
 * spinsleep N MS: a user-mode loop of N iterations, then a sleep of MS
 * ms, then the loop again: two busy phases with a quiet one between, for
 * timelines. The loop is loop.c's (3 instructions an iteration), so the
 * user-mode instructions are 6 * N + C, C a constant of the binary for
 * arguments of the same lengths, and none are retired in the sleep.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void spin(unsigned long n)
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

static unsigned long arg(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);
	if (*s < '0' || *s > '9' || *end) {
		fprintf(stderr, "spinsleep: '%s' is not a number\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: spinsleep N MS\n");
		return 2;
	}
	unsigned long n = arg(argv[1]), ms = arg(argv[2]);
	struct timespec ts = { .tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000 };
	spin(n);
	while (nanosleep(&ts, &ts))
		;
	spin(n);
	return 0;
}
