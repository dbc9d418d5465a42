/* SPDX-License-Identifier: MIT */
/*
 * phases ROUNDS BUSY CALLS: ROUNDS times, a user-mode loop of BUSY
 * iterations, then CALLS system calls (getppid). Under -icount the
 * user-mode instruction rate is high in the first phase and low in the
 * second (the guest's instructions go to the kernel), so a multiplexed
 * count of it has a real uncertainty, and events of one group (user
 * instructions and user cycles) rise and fall together.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

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
		fprintf(stderr, "phases: '%s' is not a number\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: phases ROUNDS BUSY CALLS\n");
		return 2;
	}
	unsigned long rounds = arg(argv[1]), busy = arg(argv[2]), calls = arg(argv[3]);
	for (unsigned long r = 0; r < rounds; r++) {
		spin(busy);
		for (unsigned long c = 0; c < calls; c++)
			syscall(SYS_getppid);
	}
	return 0;
}
