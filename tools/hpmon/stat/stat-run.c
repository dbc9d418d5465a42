/* SPDX-License-Identifier: MIT */
/*
 * One hpmon stat measurement (stat-cmd.h): the session on its target, the
 * wait for the command or Ctrl-C, -I intervals, and the uncertainty of
 * multiplexed counts.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "output/advice.h"
#include "output/attr-dump.h"
#include "output/exit.h"
#include "stat/stat-cmd.h"
#include "stat/stat-mux.h"

/* How often counts are read to estimate the uncertainty of multiplexed
 * ones (hpm_slices): at least this, more rarely when reading is slow. */
#define SAMPLE_MS 10

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void on_task(enum hpm_task_event what, const struct hpm_task *t,
		    uint64_t time_ns, const struct hpm_count *counts, void *arg)
{
	struct stat_run *run = arg;
	if (!run->t0_ns)
		run->t0_ns = time_ns;
	stat_print_trace(run->out, run->r, what, t,
			 (double)(time_ns - run->t0_ns) / 1e9, counts);
}

/* Thread @tid's name, from the context's procfs (tests point it at
 * recorded trees); "" when it cannot be read. */
static void delta(struct hpm_count *d, const struct hpm_count *now, const struct hpm_count *prev)
{
	*d = *now;
	if (now->err)
		return;
	d->value = now->value - prev->value;
	d->enabled = now->enabled - prev->enabled;
	d->running = now->running - prev->running;
}

/* Read event @idx's total, as if always on when hpmon multiplexes. */
static int read_event(struct stat_run *run, size_t idx, struct hpm_count *c)
{
	int rc = hpm_session__read(run->s, idx, c);
	if (!rc)
		stat_mux__fix(run->mux, idx, c);
	return rc;
}

static void read_totals(struct stat_run *run)
{
	stat_mux__sync(run->mux);
	for (size_t i = 0; i < run->r->nr_ev; i++)
		read_event(run, i, &run->r->ev[i].c);
}

/* Read every event once more for the uncertainty estimate (hpm_slices). */
static void sample_counts(struct stat_run *run)
{
	struct hpm_count c;
	if (!run->sample)
		return;
	uint64_t t0 = now_ns();
	stat_mux__sync(run->mux);
	for (size_t i = 0; i < run->r->nr_ev; i++)
		if (read_event(run, i, &c) == 0)
			hpm_slices__add(run->slices, i, &c);
	/* keep the reading below 1% of the time */
	uint64_t took = now_ns() - t0;
	if (took * 100 > run->sample_ns)
		run->sample_ns = took * 100;
}

/* Each event's uncertainty, for counts @c read at the end of the slices
 * recorded (the totals, or one interval's deltas). */
static void set_sigmas(struct stat_run *run, const struct hpm_count *now)
{
	struct stat_report *r = run->r;
	for (size_t i = 0; i < r->nr_ev; i++) {
		if (run->sample)
			hpm_slices__add(run->slices, i, &now[i]);
		const struct hpm_count *c = &r->ev[i].c;
		r->ev[i].sigma = run->sample ? hpm_slices__sigma(run->slices, i, c)
					     : (c->running < c->enabled ? NAN : 0);
	}
	/* members of one group move together: their covariances, for the
	 * metrics (a ratio inside one group has no multiplexing error) */
	if (!run->sample || r->nr_ev < 2)
		return;
	if (!r->cov && !(r->cov = calloc(r->nr_ev * r->nr_ev, sizeof(*r->cov))))
		return;
	for (size_t i = 0; i < r->nr_ev; i++)
		for (size_t j = 0; j < r->nr_ev; j++)
			r->cov[i * r->nr_ev + j] =
				i != j && r->ev[i].leader == r->ev[j].leader
					? hpm_slices__cov(run->slices, i, j, &r->ev[i].c, &r->ev[j].c)
					: 0;
}

/* Everything computed from the counts before printing. */
void stat_prepare(struct stat_run *run)
{
	if (run->sm)
		stat_metrics_compute(run->sm, run->r);
}

/* -I: print this interval's deltas and keep the totals for the next. */
static void interval_tick(struct stat_run *run, uint64_t start)
{
	struct stat_report *r = run->r;
	struct hpm_count *now = calloc(r->nr_ev, sizeof(*now));
	uint64_t t = now_ns();

	if (!now)
		return;
	bool changed = t - start > run->last_tick_ns + 1000000;
	stat_mux__sync(run->mux);
	for (size_t i = 0; i < r->nr_ev; i++) {
		read_event(run, i, &now[i]);
		changed |= now[i].value != run->prev[i].value;
	}
	if (!changed) {
		free(now);
		return; /* nothing new since the last line, which was < 1 ms ago */
	}
	for (size_t i = 0; i < r->nr_ev; i++) {
		delta(&r->ev[i].c, &now[i], &run->prev[i]);
		run->prev[i] = now[i];
	}
	set_sigmas(run, now);
	hpm_slices__restart(run->slices);
	free(now);
	if (r->agg != AGG_GLOBAL) {
		stat_collect_rows(run);
		if (run->nr_prev_rows < r->nr_rows) {
			/* rows only grow (new threads); keep earlier totals */
			struct hpm_count **v = realloc(run->prev_rows, r->nr_rows * sizeof(*v));
			if (!v)
				return;
			for (size_t k = run->nr_prev_rows; k < r->nr_rows; k++)
				v[k] = calloc(r->nr_ev, sizeof(struct hpm_count));
			run->prev_rows = v;
			run->nr_prev_rows = r->nr_rows;
		}
		for (size_t k = 0; k < r->nr_rows; k++)
			for (size_t i = 0; run->prev_rows[k] && i < r->nr_ev; i++) {
				struct hpm_count cur = r->rows[k].c[i];
				delta(&r->rows[k].c[i], &cur, &run->prev_rows[k][i]);
				run->prev_rows[k][i] = cur;
			}
	}
	stat_merge_instances(r);
	r->interval = true;
	r->ts = (double)(t - start) / 1e9;
	r->interval_ns = (uint64_t)run->o->interval_ms * 1000000ull;
	r->span_ns = t - start - run->last_tick_ns;
	run->last_tick_ns = t - start;
	stat_prepare(run);
	stat_print(run->out, r);
	r->interval = false;
}

static bool targets_alive(const struct stat_opts *o)
{
	for (size_t i = 0; i < o->tg.nr_ids; i++)
		if (kill(o->tg.ids[i], 0) == 0 || errno == EPERM)
			return true;
	return false;
}

/*
 * Wait for the command (or Ctrl-C / the targets' end), draining records
 * and printing intervals. Returns 0 or -errno.
 */
static int wait_loop(struct stat_run *run, struct child *ch, int *status,
		     struct rusage *ru, uint64_t start)
{
	int rbfd = hpm_session__poll_fd(run->s);
	uint64_t next = run->o->interval_ms ? start + (uint64_t)run->o->interval_ms * 1000000ull : 0;
	uint64_t next_sample = run->sample ? start + run->sample_ns : 0;
	bool have_child = ch && ch->pid > 0;

	for (;;) {
		struct pollfd p[2];
		nfds_t n = 0;
		int timeout = -1;

		if (have_child && ch->pidfd >= 0)
			p[n++] = (struct pollfd){ .fd = ch->pidfd, .events = POLLIN };
		if (rbfd >= 0)
			p[n++] = (struct pollfd){ .fd = rbfd, .events = POLLIN };
		if (next) {
			uint64_t t = now_ns();
			timeout = t >= next ? 0 : (int)((next - t + 999999) / 1000000);
		}
		if (next_sample) {
			uint64_t t = now_ns();
			int ts = t >= next_sample ? 0 : (int)((next_sample - t + 999999) / 1000000);
			if (timeout < 0 || ts < timeout)
				timeout = ts;
		}
		if (run->mux) {
			uint64_t t = now_ns(), due = stat_mux__due(run->mux);
			/* to the microsecond: dwells are a few ms */
			int tm = t >= due ? 0 : (int)((due - t) / 1000000);
			if (timeout < 0 || tm < timeout)
				timeout = tm;
		}
		if (!have_child || ch->pidfd < 0)
			timeout = timeout < 0 || timeout > 100 ? 100 : timeout;
		int rc = poll(p, n, timeout);
		if (rc < 0 && errno != EINTR)
			return -errno;
		if (rbfd >= 0)
			hpm_session__drain(run->s);
		if (run->mux && now_ns() >= stat_mux__due(run->mux)) {
			/* a slice ends at each switch: read it, then turn */
			sample_counts(run);
			stat_mux__switch(run->mux, now_ns());
			next_sample = now_ns() + run->sample_ns;
		}
		if (next_sample && now_ns() >= next_sample) {
			sample_counts(run);
			next_sample = now_ns() + run->sample_ns;
		}
		if (next && now_ns() >= next) {
			interval_tick(run, start);
			next += (uint64_t)run->o->interval_ms * 1000000ull;
		}
		if (have_child) {
			pid_t w = wait4(ch->pid, status, WNOHANG, ru);
			if (w == ch->pid)
				return 0;
			if (w < 0 && errno != EINTR)
				return -errno;
			continue; /* a signal: passed on to the command (launch.c); we wait for it */
		}
		if (got_signal)
			return 0;
		if (run->o->tg.nr_ids && !targets_alive(run->o))
			return 0;
	}
}

/* What was counted, for the advice on an event that could not be. */
static int advice_target(const struct stat_opts *o)
{
	return o->tg.system ? ADVICE_SYSTEM : o->tg.nr_ids ? ADVICE_ATTACH : ADVICE_COMMAND;
}

static void finish_events(struct stat_run *run)
{
	struct stat_report *r = run->r;
	for (size_t i = 0; i < r->nr_ev; i++) {
		struct stat_event *e = &r->ev[i];
		const struct hpm_event *ev = hpm_evlist__event(run->list, i);
		e->err = hpm_session__event_error(run->s, i);
		if (e->err == -ENODEV && hpm_event__cpus(ev)[0])
			snprintf(e->reason, sizeof(e->reason),
				 "PMU %s counts on CPUs %s only, and none of them is counted here",
				 hpm_event__pmu(ev), hpm_event__cpus(ev));
		else if (e->err && !stat_user_reason(run->s, i, e->reason, sizeof(e->reason)))
			advice_open(run->ctx, ev, e->err, advice_target(run->o), e->reason,
				    sizeof(e->reason));
		size_t n = strlen(e->name);
		if (hpm_session__event_user_only(run->s, i) && !strstr(e->name, ":u"))
			snprintf(e->name + n, sizeof(e->name) - n, ":u");
	}
}

/*
 * Is @err one that leaves the event <not supported> while the measurement
 * goes on? perf's stat_handle_error skips an event the kernel or the
 * machine does not support (EINVAL, ENOSYS, ENOENT, EOPNOTSUPP, ENXIO),
 * runs the command even when no event opened, and prints its line; ENODEV
 * is hpmon's PMU that counts on other CPUs only. Anything else (no
 * permission, a missing task, out of file descriptors) ends the
 * measurement before the command runs.
 */
static bool open_err_unsupported(int err)
{
	switch (-err) {
	case EINVAL:
	case ENOSYS:
	case ENOENT:
	case EOPNOTSUPP:
	case ENXIO:
	case ENODEV:
		return true;
	default:
		return false;
	}
}

static int open_failed(struct stat_run *run, int err)
{
	char why[320];
	if (err == -ESRCH && run->o->tg.nr_ids) {
		target_say_missing("hpmon stat", &run->o->tg, hpm_ctx__procfs_root(run->ctx));
		return HPM_EXIT_FAIL;
	}
	const struct hpm_event *ev = hpm_evlist__event(run->list, 0);
	if (!stat_user_reason(run->s, 0, why, sizeof(why)))
		advice_open(run->ctx, ev, err, advice_target(run->o), why, sizeof(why));
	fprintf(stderr, "hpmon stat: cannot count '%s': %s\n", hpm_event__name(ev), why);
	return HPM_EXIT_FAIL;
}

/* The session's options for the target of @o; @pid: the command's. */
static void session_opts(const struct stat_opts *o, pid_t pid, pid_t *ids,
			 struct hpm_session_opts *so)
{
	if (o->tg.system) {
		so->target = HPM_TARGET_CPUS;
		so->cpus = o->tg.nr_cpus ? o->tg.cpus : NULL;
		so->nr_cpus = o->tg.nr_cpus;
	} else if (o->tg.nr_ids) {
		so->target = o->tg.by_tid ? HPM_TARGET_TIDS : HPM_TARGET_PIDS;
		memcpy(ids, o->tg.ids, o->tg.nr_ids * sizeof(pid_t));
		so->ids = ids;
		so->nr_ids = o->tg.nr_ids;
	} else {
		so->target = HPM_TARGET_EXEC;
		ids[0] = pid;
		so->ids = ids;
		so->nr_ids = 1;
		so->track_tasks = o->agg == AGG_THREAD || o->agg == AGG_PROCESS || o->trace;
	}
}

int stat_dry_run(struct stat_run *run)
{
	struct hpm_session_opts so = { .sz = sizeof(so) };
	pid_t ids[TARGET_MAX_IDS];
	char buf[4096];
	int rc = HPM_EXIT_OK;

	session_opts(run->o, 0, ids, &so);
	stat_user_session_opts(run->user, &so, so.target == HPM_TARGET_EXEC);
	struct hpm_session *s = hpm_session__new(run->list, &so);
	if (!s) {
		int err = -errno;
		if (err == -ESRCH && run->o->tg.nr_ids)
			target_say_missing("hpmon stat", &run->o->tg, hpm_ctx__procfs_root(run->ctx));
		else
			fprintf(stderr, "hpmon stat: cannot set up counting: %s\n", hpm_strerror(err));
		return HPM_EXIT_FAIL;
	}
	for (size_t i = 0; i < hpm_evlist__count(run->list); i++) {
		struct perf_event_attr a;
		if (hpm_session__attr(s, i, &a))
			continue;
		hpm_attr__format(buf, sizeof(buf), &a);
		if (fputs(buf, stdout) == EOF)
			rc = HPM_EXIT_FAIL;
	}
	hpm_session__free(s);
	return rc;
}

/* Run the measurement once. Returns HPM_EXIT_* or the command's status. */
int stat_measure(struct stat_run *run)
{
	struct stat_opts *o = run->o;
	struct stat_report *r = run->r;
	struct child ch = { .pid = -1, .go_fd = -1, .err_fd = -1, .pidfd = -1 };
	struct hpm_session_opts so = { .sz = sizeof(so) };
	pid_t ids[TARGET_MAX_IDS];
	int status = 0, rc;
	struct rusage ru = { 0 };
	uint64_t start;

	rc = stat_user_before_start(run->user);
	if (rc)
		return rc;
	if (o->argv) {
		rc = child_start(o->argv, &ch);
		if (rc) {
			fprintf(stderr, "hpmon stat: cannot start '%s': %s\n", o->argv[0], strerror(-rc));
			return HPM_EXIT_FAIL;
		}
	}
	session_opts(o, ch.pid, ids, &so);
	stat_user_session_opts(run->user, &so, so.target == HPM_TARGET_EXEC);
	run->s = hpm_session__new(run->list, &so);
	if (!run->s) {
		rc = -errno;
		child_abort(&ch);
		if (rc == -ESRCH && o->tg.nr_ids)
			target_say_missing("hpmon stat", &run->o->tg, hpm_ctx__procfs_root(run->ctx));
		else
			fprintf(stderr, "hpmon stat: cannot set up counting: %s\n", hpm_strerror(rc));
		return HPM_EXIT_FAIL;
	}
	if (o->trace)
		hpm_session__on_task(run->s, on_task, run);
	if (o->verbose >= 2)
		hpm_session__on_open(run->s, attr_dump_open, &run->vv);
	rc = hpm_session__open(run->s);
	if (rc && !open_err_unsupported(rc)) {
		child_abort(&ch);
		return open_failed(run, rc);
	}
	finish_events(run);
	stat_remember_threads(run);
	/* sample the counts when some event may be multiplexed */
	run->sample = false;
	for (size_t i = 0; i < r->nr_ev; i++) {
		uint32_t type = hpm_event__attr(hpm_evlist__event(run->list, i))->type;
		if (!r->ev[i].err && type != PERF_TYPE_SOFTWARE && type != PERF_TYPE_TRACEPOINT)
			run->sample = true;
	}
	hpm_slices__free(run->slices);
	run->slices = run->sample ? hpm_slices__new(r->nr_ev) : NULL;
	run->sample = run->slices != NULL;
	run->sample_ns = SAMPLE_MS * 1000000ull;
	stat_mux__free(run->mux);
	run->mux = NULL;
	/* hpmon's rotation unless the kernel's is asked for: its random
	 * dwells and order leave no phase of the program in step with it
	 * (docs/metrics.md, "Who rotates": measured against the kernel's) */
	if (run->sample && o->mux != MUX_KERNEL) {
		int general, fixed;
		char core[64];
		stat_core_counters(run->ctx, &general, &fixed, core, sizeof(core));
		run->mux = stat_mux__new(run->s, run->list, general, core, o->mux_seed);
	}
	if (so.target != HPM_TARGET_EXEC)
		hpm_session__enable(run->s);
	start = now_ns();
	if (run->mux)
		stat_mux__start(run->mux, start);
	for (size_t i = 0; i < r->nr_ev; i++)
		memset(&run->prev[i], 0, sizeof(run->prev[i]));
	run->last_tick_ns = 0;
	if (o->argv) {
		int e = child_go(&ch);
		if (e) {
			child_abort(&ch);
			fprintf(stderr, "hpmon stat: cannot run '%s': %s\n", o->argv[0], strerror(e));
			if (e == ENOENT)
				fprintf(stderr, "  check the name, or give its path\n");
			return HPM_EXIT_EXEC;
		}
		stat_user_started(run->user, run->s);
		finish_events(run); /* locations open at the exec */
	}
	rc = wait_loop(run, o->argv ? &ch : NULL, &status, &ru, start);
	r->elapsed_ns = now_ns() - start;
	if (!rc && o->interval_ms)
		interval_tick(run, start); /* the last, partial interval, as perf */
	hpm_session__disable(run->s);
	hpm_session__drain(run->s);
	if (ch.pidfd >= 0)
		close(ch.pidfd);
	child_pid = 0;
	if (rc) {
		fprintf(stderr, "hpmon stat: waiting failed: %s\n", strerror(-rc));
		return HPM_EXIT_FAIL;
	}
	read_totals(run);
	{
		struct hpm_count *now = malloc(r->nr_ev * sizeof(*now));
		for (size_t i = 0; now && i < r->nr_ev; i++)
			now[i] = r->ev[i].c;
		if (now)
			set_sigmas(run, now);
		free(now);
	}
	stat_collect_rows(run);
	stat_merge_instances(r);
	r->lost = hpm_session__lost(run->s);
	size_t missing = stat_rows_missing(r);
	if (missing)
		fprintf(stderr, "hpmon stat: the per-%s breakdown is incomplete: %zu of %zu rows have no "
			"count (%s); the totals are exact\n",
			r->agg == AGG_PROCESS ? "process" : "thread", missing, r->nr_rows,
			r->lost ? "the kernel dropped records" :
			"a task outlived the command, or its final counts never arrived");
	r->interrupted = got_signal != 0;
	if (o->argv && !o->tg.nr_ids && !o->tg.system) {
		r->user_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
		r->sys_s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	}
	if (o->argv) {
		r->have_status = true;
		if (WIFSIGNALED(status)) {
			r->term_signal = WTERMSIG(status);
			r->exit_status = 128 + r->term_signal;
		} else {
			r->exit_status = WEXITSTATUS(status);
		}
		/* a signal ended the measurement: say so, as perf does, even
		 * if the command caught it and exited 0 */
		return exit_status_after_signal(r->exit_status);
	}
	return got_signal == SIGINT || !got_signal ? HPM_EXIT_OK : 128 + got_signal;
}
