/* SPDX-License-Identifier: MIT */
/*
 * What the guest workloads share: the counted loop and their number
 * arguments. Each workload is a program of its own, built from its one
 * .c file (scripts/build-aarch64); this header is all they share.
 *
 * The loop is aarch64 assembly, so the compiler cannot change it: exactly
 * SPIN_INSNS user-mode instructions an iteration. Everything else a
 * program does runs the same instructions for every count of the same
 * number of digits, so two runs differ by exactly SPIN_INSNS times the
 * difference of their counts.
 */
#ifndef HPMON_GUEST_SPIN_H
#define HPMON_GUEST_SPIN_H

#include <stdio.h>
#include <stdlib.h>

/* Instructions an iteration: subs, nop, b.ne. Tests rely on this value. */
#define SPIN_INSNS 3

/* @n iterations of the loop; none for 0. */
static inline void spin(unsigned long n)
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

/* The decimal number @s, or a message naming @prog and exit 2. */
static inline unsigned long spin_arg(const char *prog, const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);
	if (*s < '0' || *s > '9' || *end) {
		fprintf(stderr, "%s: '%s' is not a number\n", prog, s);
		exit(2);
	}
	return v;
}

#endif
