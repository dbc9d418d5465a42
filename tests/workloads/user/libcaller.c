// SPDX-License-Identifier: MIT
/* libcaller K: call lib_work() of libuser.so K times (README.md). */
#include <stdio.h>
#include <stdlib.h>

void lib_work(unsigned long i);

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: libcaller K\n");
		return 2;
	}
	long k = atol(argv[1]);
	for (long i = 0; i < k; i++)
		lib_work((unsigned long)i);
	return 0;
}
