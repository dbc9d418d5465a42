// SPDX-License-Identifier: MIT
/*
 * countfloor: the least a counting tool can cost to start. It does what
 * `hpmon stat -e task-clock CMD` must do and nothing else: start CMD in a
 * child that shares its memory until the exec (CLONE_VM, as hpmon's
 * launch), open task-clock on it (inherited, enabled at the exec), let it
 * exec, wait for it, read the count and print one line. No option
 * parsing, no event resolution, no metric, one small binary linked with
 * libc alone. Built dynamically and statically by bench/startup.sh, its
 * CPU time less that of the command alone is the floor of any counting
 * tool's own CPU time on the machine: process start (the dynamic
 * loader's work, or none), the child's creation and the counter.
 *
 *   countfloor CMD [ARGS]
 *
 * Exits with the command's status (128+N for signal N), 127 if it could
 * not run.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static char stack[64 * 1024] __attribute__((aligned(16)));
static int go[2];

static int child(void *argv)
{
	char c;
	close(go[1]);
	if (read(go[0], &c, 1) != 1)
		_exit(127);
	execvp(((char **)argv)[0], argv);
	_exit(127);
}

int main(int argc, char **argv)
{
	struct perf_event_attr a;
	uint64_t v;
	int st, fd;

	if (argc < 2) {
		fprintf(stderr, "usage: countfloor CMD [ARGS]\n");
		return 2;
	}
	if (pipe2(go, O_CLOEXEC))
		return 127;
	pid_t pid = clone(child, stack + sizeof(stack), CLONE_VM | SIGCHLD, argv + 1);
	if (pid < 0)
		return 127;
	close(go[0]);
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.disabled = 1;
	a.inherit = 1;
	a.enable_on_exec = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (write(go[1], "g", 1) != 1)
		return 127;
	close(go[1]);
	if (waitpid(pid, &st, 0) != pid)
		return 127;
	if (fd >= 0 && read(fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
		fprintf(stderr, "%.2f msec task-clock\n", (double)v / 1e6);
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}
