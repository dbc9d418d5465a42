/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch/launch.h"

volatile sig_atomic_t got_signal;
volatile sig_atomic_t child_pid;

/*
 * The command's process shares hpmon's memory until its exec (CLONE_VM,
 * as posix_spawn's child): forking copied hpmon's page tables, and every
 * page hpmon then wrote while the child waited for its counters took a
 * copy-on-write fault in one of the two; about 0.1 ms of each start
 * (bench/startup.sh). Unlike posix_spawn's, hpmon does not wait for the
 * exec (no CLONE_VFORK): it opens the counters on the child meanwhile.
 *
 * So the child runs on a stack of its own and calls only what is safe
 * there: system calls through libc and execvp, which searches PATH on the
 * stack. It shares hpmon's thread-local errno, which these calls set only
 * when they fail; hpmon does not read errno of the calls it makes while
 * the child may be failing an exec (child_go's write and read), and no
 * signal handler of hpmon's runs in the child: all signals stay blocked
 * until the child has set every handled one back to its default.
 */
struct child_args {
	char **argv;
	int go_rd, er_wr;  /* the child's ends */
	int go_wr, er_rd;  /* hpmon's ends, closed in the child */
	sigset_t mask;     /* hpmon's mask, the command's */
};

/* The signals install_signals() catches and passes on to the command. */
static const int passed_on[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static int child_main(void *p)
{
	const struct child_args *a = p;
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	char c;

	close(a->go_wr);
	close(a->er_rd);
	/* The signals hpmon passes on at their default even where hpmon's
	 * caller ignored them, so that they end the command. They are also
	 * the only ones with a handler of hpmon's (install_signals(), and
	 * launch.h's rule), which must not run here: no other needs
	 * resetting. Asking the kernel about each of the 64 signals instead
	 * cost 27 us of every start on a VM (bench/startup.sh). */
	for (size_t i = 0; i < sizeof(passed_on) / sizeof(passed_on[0]); i++)
		sigaction(passed_on[i], &dfl, NULL);
	sigprocmask(SIG_SETMASK, &a->mask, NULL);
	if (read(a->go_rd, &c, 1) != 1)
		_exit(127); /* hpmon gave up before starting us */
	execvp(a->argv[0], a->argv);
	int e = errno;
	if (write(a->er_wr, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

/* Room for execvp: its PATH candidate and, for a script without "#!",
 * the argument vector it passes to /bin/sh, both on the stack. Pages that
 * are not touched cost nothing. */
static size_t child_stack_len(char **argv)
{
	size_t argc = 0, len = 64 * 1024 + 2 * PATH_MAX;
	const char *path = getenv("PATH");
	long page = sysconf(_SC_PAGESIZE);

	while (argv[argc])
		argc++;
	len += (argc + 3) * sizeof(char *) + (path ? strlen(path) : 0);
	if (page <= 0)
		page = 4096;
	return (len + (size_t)page - 1) / (size_t)page * (size_t)page;
}

static void child_stack_free(struct child *ch)
{
	if (ch->stack)
		munmap(ch->stack, ch->stack_len);
	ch->stack = NULL;
}

int child_start(char **argv, struct child *ch)
{
	struct child_args *a;
	sigset_t all;
	int go[2], er[2], err;

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(er, O_CLOEXEC)) {
		err = -errno;
		goto close_go;
	}
	ch->stack_len = child_stack_len(argv);
	ch->stack = mmap(NULL, ch->stack_len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
	if (ch->stack == MAP_FAILED) {
		ch->stack = NULL;
		err = -errno;
		goto close_er;
	}
	/* The child reads its arguments after this function may have
	 * returned: they live at the bottom of its stack, which grows down
	 * (on every architecture hpmon builds for) from the top. */
	a = ch->stack;
	a->argv = argv;
	a->go_rd = go[0];
	a->go_wr = go[1];
	a->er_rd = er[0];
	a->er_wr = er[1];
	fflush(NULL);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &a->mask);
	ch->pid = clone(child_main, (char *)ch->stack + ch->stack_len, CLONE_VM | SIGCHLD, a);
	err = ch->pid < 0 ? -errno : 0;
	pthread_sigmask(SIG_SETMASK, &a->mask, NULL);
	if (err) {
		child_stack_free(ch);
		goto close_er;
	}
	close(go[0]);
	close(er[1]);
	ch->go_fd = go[1];
	ch->err_fd = er[0];
	ch->pidfd = (int)syscall(SYS_pidfd_open, ch->pid, 0);
	child_pid = ch->pid;
	return 0;
close_er:
	close(er[0]);
	close(er[1]);
close_go:
	close(go[0]);
	close(go[1]);
	return err;
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
	/* Only a signal fails this read of a pipe, and errno may be the
	 * child's now (above): retry on any failure. */
	do
		n = read(ch->err_fd, &e, sizeof(e));
	while (n < 0);
	close(ch->err_fd);
	ch->err_fd = -1;
	if (n == (ssize_t)sizeof(e))
		return e; /* the child is exiting on its stack: freed once reaped */
	/* end of file: the exec closed the child's end, after it left
	 * hpmon's memory for its own */
	child_stack_free(ch);
	return 0;
}

void child_abort(struct child *ch)
{
	if (ch->go_fd >= 0)
		close(ch->go_fd);
	if (ch->err_fd >= 0)
		close(ch->err_fd);
	if (ch->pid > 0)
		waitpid(ch->pid, NULL, 0);
	child_stack_free(ch); /* the child no longer runs on it */
	if (ch->pidfd >= 0)
		close(ch->pidfd);
	/* a second call (record's cleanup after an earlier one) does nothing:
	 * no descriptor closed twice, perhaps another's by then */
	ch->go_fd = ch->err_fd = ch->pidfd = -1;
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
	for (size_t i = 0; i < sizeof(passed_on) / sizeof(passed_on[0]); i++)
		sigaction(passed_on[i], &sa, NULL);
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

void target_init(struct target *t)
{
	memset(t, 0, offsetof(struct target, ids));
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
