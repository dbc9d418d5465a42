// SPDX-License-Identifier: MIT
/*
 * The fake PMU's clock (tests/shims/fake-pmu.c tells the whole): the
 * monotonic clocks stand still, and move on by $FAKE_PMU_DURATION_NS each
 * time a child of the tool ends; the tool's SIGCHLD handler and its waits
 * are seen through, and the child is held until its parent has read the
 * clock after the child began, or waits.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include "fake-pmu.h"

static uint64_t clock_ns = 1000000000000ull; /* 1000 s: any fixed start */

static uint64_t duration_ns(void)
{
	const char *s = getenv("FAKE_PMU_DURATION_NS");
	return s && *s ? strtoull(s, NULL, 0) : 1000000000ull;
}

static void epoch_bump(void);

static int clock_faked(clockid_t id)
{
	const char *s = getenv("FAKE_PMU_CLOCK");
	if (s && !strcmp(s, "real"))
		return 0;
	return id == CLOCK_MONOTONIC || id == CLOCK_MONOTONIC_RAW ||
	       id == CLOCK_MONOTONIC_COARSE || id == CLOCK_BOOTTIME;
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
	static int (*real)(clockid_t, struct timespec *);
	if (!real)
		real = (int (*)(clockid_t, struct timespec *))fp_real("clock_gettime");
	if (!clock_faked(id))
		return real(id, ts);
	pthread_mutex_lock(&fp_lock);
	fp_catch_up_locked();
	ts->tv_sec = (time_t)(clock_ns / 1000000000ull);
	ts->tv_nsec = (long)(clock_ns % 1000000000ull);
	pthread_mutex_unlock(&fp_lock);
	epoch_bump();
	return 0;
}

/*
 * A child was reaped: the workload's time passes, and the counters of the
 * enabled events move on. Once a child: when the tool catches SIGCHLD (perf
 * does, and skips its wait4 when the child has ended before it), the
 * signal moves the clock and the wait of the same child does not again.
 * The handler only counts; the clock moves at the shim's next call.
 */
#define NR_SEEN 64
static _Atomic int pending;
static _Atomic pid_t seen[NR_SEEN]; /* children the signal announced */

void fp_catch_up_locked(void)
{
	uint64_t d;
	int n = atomic_exchange(&pending, 0);

	if (!n)
		return;
	d = duration_ns() * (uint64_t)n;
	clock_ns += d;
	fp_advance_locked(d, n);
}

static int clock_real(void)
{
	const char *s = getenv("FAKE_PMU_CLOCK");
	return s && !strcmp(s, "real");
}

/* from the signal handler: @pid has ended */
static void child_ended_signal(pid_t pid)
{
	for (int i = 0; i < NR_SEEN; i++) {
		pid_t none = 0;
		if (atomic_load(&seen[i]) == pid)
			return;
		if (atomic_compare_exchange_strong(&seen[i], &none, pid)) {
			atomic_fetch_add(&pending, 1);
			return;
		}
	}
}

/* from a wait that reaped @pid */
static void child_reaped(pid_t pid)
{
	int announced = 0;
	for (int i = 0; i < NR_SEEN; i++) {
		pid_t p = pid;
		if (atomic_compare_exchange_strong(&seen[i], &p, 0))
			announced = 1;
	}
	if (!announced)
		atomic_fetch_add(&pending, 1);
	if (clock_real())
		atomic_store(&pending, 0);
	pthread_mutex_lock(&fp_lock);
	fp_catch_up_locked();
	pthread_mutex_unlock(&fp_lock);
}

/* ---- SIGCHLD: the tool's handler, behind the shim's ---- */

static struct sigaction chld_user; /* the tool's SIGCHLD disposition */

static void on_chld(int sig, siginfo_t *si, void *uc)
{
	if (si && (si->si_code == CLD_EXITED || si->si_code == CLD_KILLED ||
		   si->si_code == CLD_DUMPED) && !clock_real())
		child_ended_signal(si->si_pid);
	if (chld_user.sa_flags & SA_SIGINFO)
		chld_user.sa_sigaction(sig, si, uc);
	else if (chld_user.sa_handler != SIG_DFL && chld_user.sa_handler != SIG_IGN)
		chld_user.sa_handler(sig);
}

int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	static int (*real)(int, const struct sigaction *, struct sigaction *);
	struct sigaction mine, prev;
	int rc;

	if (!real)
		real = (int (*)(int, const struct sigaction *, struct sigaction *))fp_real("sigaction");
	if (sig != SIGCHLD || !act || act->sa_handler == SIG_DFL || act->sa_handler == SIG_IGN) {
		rc = real(sig, act, old);
		if (!rc && sig == SIGCHLD && old && old->sa_sigaction == on_chld)
			*old = chld_user;
		if (!rc && sig == SIGCHLD && act)
			chld_user = *act;
		return rc;
	}
	mine = *act;
	mine.sa_flags |= SA_SIGINFO;
	mine.sa_sigaction = on_chld;
	rc = real(sig, &mine, &prev);
	if (rc)
		return rc;
	if (old)
		*old = prev.sa_sigaction == on_chld ? chld_user : prev;
	chld_user = *act;
	return 0;
}

sighandler_t signal(int sig, sighandler_t handler)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART; /* BSD semantics, as glibc's signal() */
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, sig);
	if (sigaction(sig, &sa, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}

/*
 * The workload must not end before the tool has read its start time:
 * perf reads it after it lets the child go, and a child quicker than that
 * would end in no time at all. So each tool process shares with its
 * children (a memfd named in $FAKE_PMU_EPOCH, "fd:pid") an epoch, which
 * it moves on at each read of the fake clock, and a count of its threads
 * inside a wait or poll. A direct child of that process, as it ends,
 * waits (at most 2 s) until the epoch has moved past the one it saw at
 * its start, or its parent waits.
 */
static _Atomic uint64_t *epoch;       /* ours: [0] epoch, [1] waiting */
static _Atomic uint64_t *parent_epoch; /* our parent's, if we hold */
static uint64_t parent_epoch0;

static void epoch_bump(void)
{
	if (epoch)
		atomic_fetch_add(&epoch[0], 1);
}

static void waiting(int delta)
{
	if (epoch)
		atomic_fetch_add(&epoch[1], (uint64_t)(int64_t)delta);
}

static void hold_at_exit(void)
{
	struct timespec ts = { 0, 100000 };
	for (int i = 0; i < 20000; i++) {
		if (atomic_load(&parent_epoch[0]) > parent_epoch0 || atomic_load(&parent_epoch[1]))
			return;
		nanosleep(&ts, NULL);
	}
}

__attribute__((constructor)) static void epoch_init(void)
{
	const char *s = getenv("FAKE_PMU_EPOCH");
	char buf[64];
	int fd;
	void *p;

	if (s && strchr(s, ':') && (pid_t)strtol(strchr(s, ':') + 1, NULL, 10) == getppid()) {
		p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, (int)strtol(s, NULL, 10), 0);
		if (p != MAP_FAILED) {
			parent_epoch = p;
			parent_epoch0 = atomic_load(&parent_epoch[0]);
			atexit(hold_at_exit);
		}
	}
	if (clock_real())
		return;
	fd = memfd_create("fake-pmu-epoch", 0); /* inherited across exec */
	if (fd < 0 || ftruncate(fd, 4096) < 0)
		return;
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return;
	epoch = p;
	snprintf(buf, sizeof(buf), "%d:%d", fd, (int)getpid());
	setenv("FAKE_PMU_EPOCH", buf, 1);
}

int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	static int (*real)(struct pollfd *, nfds_t, int);
	if (!real)
		real = (int (*)(struct pollfd *, nfds_t, int))fp_real("poll");
	int r;
	waiting(1);
	r = real(fds, n, timeout);
	waiting(-1);
	return r;
}

/* Did a wait that returned a child reap it (not a stop or continue)? */
static int reaped(const int *status, int options)
{
	if (status)
		return WIFEXITED(*status) || WIFSIGNALED(*status);
	return !(options & (WUNTRACED | WCONTINUED));
}

pid_t wait4(pid_t pid, int *status, int options, struct rusage *ru)
{
	static pid_t (*real)(pid_t, int *, int, struct rusage *);
	pid_t r;
	if (!real)
		real = (pid_t (*)(pid_t, int *, int, struct rusage *))fp_real("wait4");
	waiting(1);
	r = real(pid, status, options, ru);
	waiting(-1);
	if (r > 0 && reaped(status, options))
		child_reaped(r);
	return r;
}

pid_t waitpid(pid_t pid, int *status, int options)
{
	static pid_t (*real)(pid_t, int *, int);
	pid_t r;
	if (!real)
		real = (pid_t (*)(pid_t, int *, int))fp_real("waitpid");
	waiting(1);
	r = real(pid, status, options);
	waiting(-1);
	if (r > 0 && reaped(status, options))
		child_reaped(r);
	return r;
}

pid_t wait(int *status)
{
	return waitpid(-1, status, 0);
}

int waitid(idtype_t idtype, id_t id, siginfo_t *info, int options)
{
	static int (*real)(idtype_t, id_t, siginfo_t *, int);
	int r;
	if (!real)
		real = (int (*)(idtype_t, id_t, siginfo_t *, int))fp_real("waitid");
	waiting(1);
	r = real(idtype, id, info, options);
	waiting(-1);
	/* reaped, unless WNOWAIT left it, or WNOHANG found none */
	if (r == 0 && !(options & WNOWAIT) && info && info->si_pid > 0 &&
	    (info->si_code == CLD_EXITED || info->si_code == CLD_KILLED ||
	     info->si_code == CLD_DUMPED))
		child_reaped(info->si_pid);
	return r;
}
