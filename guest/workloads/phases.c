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

#include "spin.h"

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: phases ROUNDS BUSY CALLS\n");
		return 2;
	}
	unsigned long rounds = spin_arg("phases", argv[1]), busy = spin_arg("phases", argv[2]), calls = spin_arg("phases", argv[3]);
	for (unsigned long r = 0; r < rounds; r++) {
		spin(busy);
		for (unsigned long c = 0; c < calls; c++)
			syscall(SYS_getppid);
	}
	return 0;
}
