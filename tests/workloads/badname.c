// SPDX-License-Identifier: MIT
/*
 * badname N: a program whose name is an attack on the terminal that shows
 * it. It renames itself (prctl PR_SET_NAME) to BADNAME below: an escape
 * sequence that clears the screen, a newline followed by what looks like
 * another row, and a byte that is not UTF-8; then starts one thread,
 * which inherits the name, and both spin N iterations. Prints the name's
 * bytes in hex so that tests compare against the same source of truth.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

/* 15 bytes, the most a task name holds */
#define BADNAME "x\x1b[2J\nfake-1 \xff\a"

volatile unsigned long sink;

__attribute__((noinline, used)) static void *spin(void *arg)
{
	unsigned long n = *(unsigned long *)arg, x = sink;
	for (unsigned long i = 0; i < n; i++)
		x = x * 2862933555777941757ul + i;
	sink = x;
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000000;
	pthread_t t;

	if (prctl(PR_SET_NAME, BADNAME))
		return 1;
	for (const unsigned char *p = (const unsigned char *)BADNAME; *p; p++)
		printf("%02x", *p);
	printf("\n");
	fflush(stdout);
	if (pthread_create(&t, NULL, spin, &n))
		return 1;
	spin(&n);
	pthread_join(t, NULL);
	return 0;
}
