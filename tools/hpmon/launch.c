/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch.h"

volatile sig_atomic_t got_signal;
volatile sig_atomic_t child_pid;

int child_start(char **argv, struct child *ch)
{
	int go[2], er[2];

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(er, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return -errno;
	}
	fflush(NULL);
	ch->pid = fork();
	if (ch->pid < 0)
		return -errno;
	if (ch->pid == 0) {
		char c;
		close(go[1]);
		close(er[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		if (read(go[0], &c, 1) != 1)
			_exit(127); /* hpmon gave up before starting us */
		execvp(argv[0], argv);
		int e = errno;
		if (write(er[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(er[1]);
	ch->go_fd = go[1];
	ch->err_fd = er[0];
	ch->pidfd = (int)syscall(SYS_pidfd_open, ch->pid, 0);
	child_pid = ch->pid;
	return 0;
}

int child_go(struct child *ch)
{
	int e = 0;
	ssize_t n;
	sigset_t pipe_set, old;
	/* A signal passed on before the exec ended the child already: the
	 * write then fails (EPIPE), and must not kill hpmon with SIGPIPE. */
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipe_set, &old);
	n = write(ch->go_fd, "g", 1);
	e = n == 1 ? 0 : errno;
	if (e == EPIPE) {
		const struct timespec now = { 0, 0 };
		sigtimedwait(&pipe_set, NULL, &now); /* the SIGPIPE it raised */
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (e)
		return e;
	close(ch->go_fd);
	ch->go_fd = -1;
	do
		n = read(ch->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(ch->err_fd);
	ch->err_fd = -1;
	return n == (ssize_t)sizeof(e) ? e : 0;
}

void child_abort(struct child *ch)
{
	if (ch->go_fd >= 0)
		close(ch->go_fd);
	if (ch->err_fd >= 0)
		close(ch->err_fd);
	if (ch->pid > 0)
		waitpid(ch->pid, NULL, 0);
	if (ch->pidfd >= 0)
		close(ch->pidfd);
	ch->pid = -1;
	child_pid = 0;
}

bool find_program(const char *cmd, char *out, size_t len)
{
	if (strchr(cmd, '/')) {
		snprintf(out, len, "%s", cmd);
		return access(out, X_OK) == 0;
	}
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *end = strchr(path, ':');
		size_t n = end ? (size_t)(end - path) : strlen(path);
		snprintf(out, len, "%.*s%s%s", (int)n, path, n ? "/" : "", cmd);
		if (access(out, X_OK) == 0)
			return true;
		path = end ? end + 1 : path + n;
	}
	return false;
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	got_signal = sig;
	/* Ctrl-C and Ctrl-\ from the terminal (SI_KERNEL: the tty driver sends
	 * them to the whole foreground group) reach the command already: it
	 * decides what to do, and gets the signal once. Every other signal,
	 * and these sent to hpmon alone (kill(1): SI_USER), is passed on: the
	 * measurement ends when the command does, as it would have without
	 * hpmon in between. */
	bool from_tty = si && si->si_code == SI_KERNEL;
	if (child_pid > 0 && !(from_tty && (sig == SIGINT || sig == SIGQUIT)))
		kill((pid_t)child_pid, sig);
}

int exit_status_after_signal(int status)
{
	return got_signal ? 128 + got_signal : status;
}

void install_signals(void)
{
	struct sigaction sa = { 0 };
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: poll() must return so we can print */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
}

int parse_list(const char *arg, int *out, size_t max, size_t *nr, bool ranges)
{
	const char *p = arg;
	*nr = 0;
	while (*p) {
		char *end;
		long lo = strtol(p, &end, 10), hi;
		if (end == p || lo < 0 || lo > 0x3fffffff)
			return -1;
		hi = lo;
		p = end;
		if (ranges && *p == '-') {
			hi = strtol(p + 1, &end, 10);
			if (end == p + 1 || hi < lo)
				return -1;
			p = end;
		}
		for (long v = lo; v <= hi; v++) {
			if (*nr >= max)
				return -1;
			out[(*nr)++] = (int)v;
		}
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
	}
	return *nr ? 0 : -1;
}

int target_option(struct target *t, int c, const char *arg, const char **why)
{
	int tmp[TARGET_MAX_IDS];
	size_t n;

	switch (c) {
	case 'p':
	case 't':
		if (parse_list(arg, tmp, TARGET_MAX_IDS, &n, false)) {
			*why = "'%s' is not a list of process or thread ids";
			return -1;
		}
		for (size_t i = 0; i < n; i++)
			t->ids[i] = tmp[i];
		t->nr_ids = n;
		t->by_tid = c == 't';
		return 1;
	case 'a':
		t->system = true;
		return 1;
	case 'C':
		if (parse_list(arg, t->cpus, TARGET_MAX_IDS, &t->nr_cpus, true)) {
			*why = "'%s' is not a CPU list (e.g. 0,2-3)";
			return -1;
		}
		t->system = true;
		return 1;
	}
	return 0;
}

/* Whether /proc/@id is a thread (-t) or a thread group's leader (-p): its
 * status file's Tgid is its own id. */
static bool task_exists(pid_t id, bool by_tid, const char *procfs)
{
	char path[4096], line[128];
	bool ok = false;
	snprintf(path, sizeof(path), "%s/%d/status", procfs ? procfs : "/proc", (int)id);
	FILE *f = fopen(path, "re");
	if (!f)
		return errno != ENOENT && errno != ESRCH;
	if (by_tid) {
		fclose(f);
		return true;
	}
	while (fgets(line, sizeof(line), f)) {
		char *end;
		if (strncmp(line, "Tgid:", 5))
			continue;
		long tgid = strtol(line + 5, &end, 10);
		ok = end != line + 5 && tgid == id;
		break;
	}
	fclose(f);
	return ok;
}

const char *target_check(const struct target *t, bool command)
{
	if (t->system && t->nr_ids)
		return "-a/-C and -p/-t exclude each other";
	if (!command && !t->system && !t->nr_ids)
		return "nothing to %s: give a COMMAND, -p PID, -t TID or -a";
	return NULL;
}

pid_t target_missing(const struct target *t, const char *procfs)
{
	for (size_t i = 0; i < t->nr_ids; i++)
		if (!task_exists(t->ids[i], t->by_tid, procfs))
			return t->ids[i];
	return -1;
}

void target_say_missing(const char *cmd, const struct target *t, const char *procfs)
{
	pid_t id = target_missing(t, procfs);
	const char *what = t->by_tid ? "thread" : "process";
	char opt = t->by_tid ? 't' : 'p';

	if (id >= 0)
		fprintf(stderr, "%s: no such %s: %d (given to -%c): check the id, or that the %s "
			"is still running\n", cmd, what, (int)id, opt, what);
	else /* the task ended between the kernel's refusal and the look */
		fprintf(stderr, "%s: a %s of -%c ended before it could be measured\n", cmd, what,
			opt);
}
