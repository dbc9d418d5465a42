// SPDX-License-Identifier: MIT
/*
 * pingpong N: two processes pass one byte back and forth over two pipes
 * N times. Each pass blocks the sender until the other answers, so the
 * pair makes at least 2N context switches: the context-switch-heavy
 * workload of bench/sysacct.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int ab[2], ba[2];
	char c = 0, *end;
	long n;

	if (argc != 2 || (n = strtol(argv[1], &end, 10)) < 0 || *end) {
		fprintf(stderr, "usage: pingpong N\n");
		return 2;
	}
	if (pipe(ab) || pipe(ba))
		return 1;
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		for (long i = 0; i < n; i++)
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	for (long i = 0; i < n; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			return 1;
	int status;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return 1;
	return 0;
}
