/* SPDX-License-Identifier: MIT */
/*
 * hpmon stat -a --per-thread | --per-process | --per-cgroup: the whole
 * machine (or the CPUs of -C), every count attributed to the task that
 * ran while it accrued (hpmon/sysacct.h), summed into rows (sysrows.h).
 * The total line is the CPUs' own counts, which the rows add up to.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hpmon/sysacct.h>
#include "output/advice.h"
#include "output/exit.h"
#include "stat/stat-cmd.h"
#include "counting/sysrows.h"

#define POLL_MS 100 /* drain at least this often: buffers stay small */

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct systasks {
	struct stat_run *run;
	struct hpm_sysacct *a;
	struct sysrows rows;
	uint64_t *prev_total;   /* -I: totals at the previous line */
};

/* The report's totals: the CPUs' counts (since the previous line with
 * @delta), with the times the groups were enabled and running. */
static void fill_totals(struct systasks *st, bool delta)
{
	struct stat_report *r = st->run->r;
	for (size_t i = 0; i < r->nr_ev; i++) {
		struct hpm_count *c = &r->ev[i].c;
		memset(c, 0, sizeof(*c));
		hpm_sysacct__total(st->a, i, &c->value, &c->enabled, &c->running);
		uint64_t v = c->value;
		if (delta)
			c->value -= st->prev_total[i];
		st->prev_total[i] = v;
		/* counted in one group, never multiplexed against itself: the
		 * rows' counts are exact, their times are the group's */
		r->ev[i].sigma = 0;
	}
}

/* The row's cgroup path, owned by the row (stat_free_rows frees it). */
static char *by_cgroup_or_task(const struct sysrow *sr)
{
	return strdup(sr->cgroup);
}

static void row_label(struct stat_row *row, const struct sysrow *sr, enum stat_agg agg)
{
	if (agg == AGG_CGROUP) {
		size_t n = strlen(sr->cgroup);
		const char *p = sr->pid <= 0 ? sr->comm : sr->cgroup[0] ? sr->cgroup : "?";
		if (sr->pid > 0 && n >= sizeof(row->label))
			snprintf(row->label, sizeof(row->label), "...%s",
				 sr->cgroup + n - (sizeof(row->label) - 4));
		else
			snprintf(row->label, sizeof(row->label), "%s", p);
	} else if (sr->pid < 0) {
		snprintf(row->label, sizeof(row->label), "%s", sr->comm);
	} else {
		snprintf(row->label, sizeof(row->label), "%s-%d", sr->comm,
			 agg == AGG_THREAD ? (int)sr->tid : (int)sr->pid);
	}
}

/* The report's rows: every row with a count (in this interval with
 * @delta), in the order they first ran. */
static int fill_rows(struct systasks *st, bool delta)
{
	struct stat_report *r = st->run->r;
	stat_free_rows(r);
	for (size_t k = 0; k < st->rows.nr; k++) {
		const struct sysrow *sr = &st->rows.row[k];
		if (!sysrows_active(&st->rows, k, delta))
			continue;
		struct stat_row *v = realloc(r->rows, (r->nr_rows + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		r->rows = v;
		struct stat_row *row = &v[r->nr_rows];
		memset(row, 0, sizeof(*row));
		row->c = calloc(r->nr_ev, sizeof(*row->c));
		row->absent = calloc(r->nr_ev, sizeof(*row->absent));
		if (!row->c || !row->absent) {
			free(row->c);
			free(row->absent);
			return -ENOMEM;
		}
		r->nr_rows++;
		row->pid = sr->pid;
		row->tid = sr->tid;
		row->cpu = sr->cpu;
		row->cgroup = by_cgroup_or_task(sr);
		if (!row->cgroup)
			return -ENOMEM;
		memcpy(row->comm, sr->comm, sizeof(row->comm));
		row_label(row, sr, r->agg);
		for (size_t i = 0; i < r->nr_ev; i++) {
			row->c[i].value = delta ? sr->d[i] : sr->v[i];
			/* a task's share of the group's time is not known: its
			 * counts are exact, so they are shown as counted fully */
			row->c[i].enabled = row->c[i].running = r->ev[i].c.running;
		}
	}
	return 0;
}

static int tick(struct systasks *st, uint64_t start)
{
	struct stat_run *run = st->run;
	struct stat_report *r = run->r;
	int rc = hpm_sysacct__sync(st->a);
	if (rc)
		return rc;
	if ((rc = sysrows_update(&st->rows, st->a)))
		return rc;
	fill_totals(st, true);
	if ((rc = fill_rows(st, true)))
		return rc;
	uint64_t t = now_ns() - start;
	r->interval = true;
	r->ts = (double)t / 1e9;
	r->interval_ns = (uint64_t)run->o->interval_ms * 1000000ull;
	r->span_ns = t - run->last_tick_ns;
	run->last_tick_ns = t;
	stat_merge_instances(r);
	stat_prepare(run);
	stat_print(run->out, r);
	r->interval = false;
	return 0;
}

/* Why the groups could not be opened, said once. */
static int open_failed(struct systasks *st, int err)
{
	struct stat_run *run = st->run;
	size_t bad = hpm_sysacct__failed_event(st->a);
	const struct hpm_event *ev = hpm_evlist__event(run->list, bad == SIZE_MAX ? 0 : bad);
	char why[320];
	if (err == -EOPNOTSUPP && bad != SIZE_MAX &&
	    (hpm_event__kind(ev) == HPM_EV_LOCATION || hpm_event__kind(ev) == HPM_EV_SWCOUNTER)) {
		return advice_usage("stat", "'%s' counts in one program and cannot be counted "
					    "system-wide per task: drop it, or count the program "
					    "without -a", hpm_event__name(ev));
	}
	advice_open(run->ctx, ev, err, ADVICE_SYSTEM, why, sizeof(why));
	if (bad == SIZE_MAX)
		fprintf(stderr, "hpmon stat: cannot count every task of the machine: %s\n", why);
	else
		fprintf(stderr, "hpmon stat: cannot count '%s' on every CPU (each task's share "
			"needs every event in one group): %s\n", hpm_event__name(ev), why);
	return HPM_EXIT_FAIL;
}

static int wait_loop(struct systasks *st, struct child *ch, int *status, uint64_t start)
{
	struct stat_run *run = st->run;
	size_t nfd = hpm_sysacct__nr_fds(st->a);
	struct pollfd *p = calloc(nfd + 1, sizeof(*p));
	uint64_t step = (uint64_t)run->o->interval_ms * 1000000ull;
	uint64_t next = step ? start + step : 0;
	int rc = 0;

	if (!p)
		return -ENOMEM;
	for (;;) {
		nfds_t n = 0;
		if (ch && ch->pidfd >= 0)
			p[n++] = (struct pollfd){ .fd = ch->pidfd, .events = POLLIN };
		for (size_t i = 0; i < nfd; i++)
			p[n++] = (struct pollfd){ .fd = hpm_sysacct__fd(st->a, i), .events = POLLIN };
		int timeout = POLL_MS;
		if (next) {
			uint64_t t = now_ns();
			uint64_t left = t >= next ? 0 : (next - t + 999999) / 1000000;
			if (left < (uint64_t)timeout)
				timeout = (int)left;
		}
		if (poll(p, n, timeout) < 0 && errno != EINTR) {
			rc = -errno;
			break;
		}
		if ((rc = hpm_sysacct__drain(st->a)) < 0)
			break;
		rc = 0;
		if (next && now_ns() >= next) {
			if ((rc = tick(st, start)))
				break;
			next += step;
		}
		if (ch) {
			pid_t w = waitpid(ch->pid, status, WNOHANG);
			if (w == ch->pid)
				break;
			if (w < 0 && errno != EINTR) {
				rc = -errno;
				break;
			}
			continue; /* a signal is passed on to the command: wait for it */
		}
		if (got_signal)
			break;
	}
	free(p);
	return rc;
}

static int measure(struct systasks *st)
{
	struct stat_run *run = st->run;
	struct stat_opts *o = run->o;
	struct stat_report *r = run->r;
	struct child ch = { .pid = -1, .go_fd = -1, .err_fd = -1, .pidfd = -1 };
	struct hpm_sysacct_opts ao = {
		.sz = sizeof(ao),
		.cpus = o->tg.nr_cpus ? o->tg.cpus : NULL,
		.nr_cpus = o->tg.nr_cpus,
		.cgroups = true, /* every row names its cgroup */
	};
	int status = 0, rc;

	st->a = hpm_sysacct__new(run->list, &ao);
	if (!st->a) {
		fprintf(stderr, "hpmon stat: cannot set up counting: %s\n", hpm_strerror(-errno));
		return HPM_EXIT_FAIL;
	}
	if ((rc = hpm_sysacct__open(st->a)))
		return open_failed(st, rc);
	if (o->argv && (rc = child_start(o->argv, &ch))) {
		fprintf(stderr, "hpmon stat: cannot start '%s': %s\n", o->argv[0], strerror(-rc));
		return HPM_EXIT_FAIL;
	}
	uint64_t start = now_ns();
	if ((rc = hpm_sysacct__enable(st->a))) {
		child_abort(&ch);
		fprintf(stderr, "hpmon stat: cannot start counting: %s\n", hpm_strerror(rc));
		return HPM_EXIT_FAIL;
	}
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
	}
	rc = wait_loop(st, o->argv ? &ch : NULL, &status, start);
	r->elapsed_ns = now_ns() - start;
	if (ch.pidfd >= 0)
		close(ch.pidfd);
	child_pid = 0;
	if (!rc && o->interval_ms)
		rc = tick(st, start); /* the last, partial interval, as perf */
	if (!rc)
		rc = hpm_sysacct__stop(st->a);
	if (!rc)
		rc = sysrows_update(&st->rows, st->a);
	if (rc == -EOVERFLOW) {
		fprintf(stderr, "hpmon stat: more tasks started than can be kept (1,048,576): "
			"count a shorter time, or use hpmon top\n");
		return HPM_EXIT_FAIL;
	}
	if (rc) {
		fprintf(stderr, "hpmon stat: counting failed: %s\n", hpm_strerror(rc));
		return HPM_EXIT_FAIL;
	}
	fill_totals(st, false);
	if ((rc = fill_rows(st, false)))
		return HPM_EXIT_FAIL;
	stat_merge_instances(r);
	r->lost = hpm_sysacct__lost(st->a);
	r->per_task = true;
	r->unsampled = hpm_sysacct__unsampled(st->a);
	if (r->lost)
		fprintf(stderr, "hpmon stat: the kernel dropped %llu switch records: what they "
			"would have attributed is in the [lost] row; the totals are exact\n",
			(unsigned long long)r->lost);
	r->interrupted = got_signal != 0;
	if (o->argv) {
		r->have_status = true;
		if (WIFSIGNALED(status)) {
			r->term_signal = WTERMSIG(status);
			r->exit_status = 128 + r->term_signal;
		} else {
			r->exit_status = WEXITSTATUS(status);
		}
		return exit_status_after_signal(r->exit_status);
	}
	return got_signal == SIGINT || !got_signal ? HPM_EXIT_OK : 128 + got_signal;
}

int stat_measure_systasks(struct stat_run *run)
{
	enum sysrows_by by = run->r->agg == AGG_THREAD	? SYSROWS_THREAD
			     : run->r->agg == AGG_CGROUP ? SYSROWS_CGROUP
							 : SYSROWS_PROCESS;
	struct systasks st = { .run = run };
	sysrows_init(&st.rows, by, run->r->nr_ev);
	st.prev_total = calloc(run->r->nr_ev, sizeof(uint64_t));
	int rc = st.prev_total ? measure(&st) : HPM_EXIT_FAIL;
	sysrows_release(&st.rows);
	hpm_sysacct__free(st.a);
	free(st.prev_total);
	return rc;
}
