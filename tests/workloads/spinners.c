// SPDX-License-Identifier: MIT
/*
 * spinners N: a child process and two threads spin, each in a function of
 * its own, so that samples can be checked per process and per thread:
 *
 *   child process "spin-child"   spin_child(2 * N)
 *   thread "spin-t1"             spin_t1(N)
 *   thread "spin-t2"             spin_t2(N)
 *
 * Prints "child PID", "t1 PID TID" and "t2 PID TID" to stdout.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spin.h"

volatile unsigned long sink;

static unsigned long n;

__attribute__((noinline, used)) void spin_child(unsigned long k) { SPIN(k); }
__attribute__((noinline, used)) void spin_t1(unsigned long k) { SPIN(k); }
__attribute__((noinline, used)) void spin_t2(unsigned long k) { SPIN(k); }

static void *thread(void *arg)
{
	int which = (int)(long)arg;
	prctl(PR_SET_NAME, which == 1 ? "spin-t1" : "spin-t2");
	printf("t%d %d %ld\n", which, (int)getpid(), (long)syscall(SYS_gettid));
	fflush(stdout);
	if (which == 1)
		spin_t1(n);
	else
		spin_t2(n);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	n = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000000;
	fflush(stdout);
	pid_t c = fork();
	if (c == 0) {
		prctl(PR_SET_NAME, "spin-child");
		spin_child(2 * n);
		_exit(0);
	}
	printf("child %d\n", (int)c);
	fflush(stdout);
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, thread, (void *)(i + 1));
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	waitpid(c, NULL, 0);
	return 0;
}
