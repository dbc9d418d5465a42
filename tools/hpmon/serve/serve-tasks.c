/* SPDX-License-Identifier: MIT */
/*
 * hpmon serve --per-process / --per-cgroup (serve.h): the accounting per
 * task (hpmon/sysacct.h, as `stat -a --per-process` and `top` use it),
 * summed into rows per process or cgroup (sysrows.h), and each family's
 * rows handed to its book (serve-book.c), which bounds the series.
 *
 * Everything the exposition shows is kept here as sums of increases: the
 * per-CPU counters too, which then come from the same reads as the tasks'
 * counts, so that per-CPU totals = series + [other] holds exactly at
 * every scrape. That also lets the accounting be renewed: it keeps every
 * task it has seen, exited ones too, so past RENEW_TASKS a step stops it
 * (its counts final), and a fresh one starts; the sums go on from where
 * they were, and labels, not the accounting's rows, name the series.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hpmon/hpmon.h>
#include <hpmon/metric.h>
#include <hpmon/sysacct.h>
#include "serve/serve.h"
#include "counting/sysrows.h"

/* Tasks the accounting keeps before it is renewed: a few MiB, far below
 * its limit of 1,048,576, reached in hours by a machine that builds. */
#define RENEW_TASKS 65536
/* How long a series keeps the best rate it had: an exited process stays
 * this long unless busier ones take its place. */
#define HOLD_NS (60ull * 1000000000ull)

enum { FAM_PROCESS, FAM_CGROUP, NR_FAM };

struct serve_tasks {
	struct hpm_evlist *list;
	struct hpm_sysacct_opts ao;
	int *cpus;
	struct hpm_sysacct *a;
	struct hpm_msel *sel;
	size_t nr_ev, nr_metrics, nc;
	struct sysrows rows[NR_FAM];
	struct serve_book *book[NR_FAM];  /* NULL: family not asked for */
	uint64_t *cpu_prev;   /* [nc * nr_ev] the accounting's counts at the last step */
	uint64_t *cpu_acc;    /* [nc * nr_ev] what the exposition shows */
	uint64_t lost_prev, lost_acc;
	uint64_t prev_ns;
	char labels[1024];
};

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A fresh accounting, enabled; the rows start again with it. */
static int open_acct(struct serve_tasks *t, size_t *bad)
{
	*bad = SIZE_MAX;
	t->a = hpm_sysacct__new(t->list, &t->ao);
	if (!t->a)
		return -errno;
	int rc = hpm_sysacct__open(t->a);
	if (!rc)
		rc = hpm_sysacct__enable(t->a);
	if (rc) {
		*bad = hpm_sysacct__failed_event(t->a);
		hpm_sysacct__free(t->a);
		t->a = NULL;
		return rc;
	}
	for (int f = 0; f < NR_FAM; f++) {
		sysrows_release(&t->rows[f]);
		sysrows_init(&t->rows[f], f == FAM_PROCESS ? SYSROWS_PROCESS : SYSROWS_CGROUP,
			     t->nr_ev);
	}
	memset(t->cpu_prev, 0, t->nc * t->nr_ev * sizeof(uint64_t));
	t->lost_prev = 0;
	return 0;
}

void serve_tasks__free(struct serve_tasks *t)
{
	if (!t)
		return;
	hpm_sysacct__free(t->a);
	for (int f = 0; f < NR_FAM; f++) {
		sysrows_release(&t->rows[f]);
		serve_book__free(t->book[f]);
	}
	free(t->cpus);
	free(t->cpu_prev);
	free(t->cpu_acc);
	free(t);
}

int serve_tasks__new(struct hpm_evlist *list, const struct serve_tasks_opts *o,
		     struct serve_tasks **out, size_t *bad)
{
	struct serve_tasks *t = calloc(1, sizeof(*t));
	int rc = -ENOMEM;

	*out = NULL;
	*bad = SIZE_MAX;
	if (!t)
		return rc;
	t->list = list;
	t->sel = o->sel;
	t->nr_ev = hpm_evlist__count(list);
	t->nr_metrics = o->sel ? hpm_msel__count(o->sel) : 0;
	t->ao = (struct hpm_sysacct_opts){ .sz = sizeof(t->ao), .cgroups = true };
	if (o->nr_cpus) {
		t->cpus = malloc(o->nr_cpus * sizeof(int));
		if (!t->cpus)
			goto fail;
		memcpy(t->cpus, o->cpus, o->nr_cpus * sizeof(int));
		t->ao.cpus = t->cpus;
		t->ao.nr_cpus = o->nr_cpus;
	}
	static const char *const by[NR_FAM] = { "process", "cgroup" };
	size_t max[NR_FAM] = { o->per_process, o->per_cgroup };
	for (int f = 0; f < NR_FAM; f++) {
		sysrows_init(&t->rows[f], f == FAM_PROCESS ? SYSROWS_PROCESS : SYSROWS_CGROUP,
			     t->nr_ev);
		if (max[f] && !(t->book[f] = serve_book__new(by[f], t->nr_ev, t->nr_metrics,
							     max[f], 0, HOLD_NS)))
			goto fail;
	}
	/* the CPUs are known once the accounting is: open it with room for none */
	t->cpu_prev = calloc(1, sizeof(uint64_t));
	if (!t->cpu_prev)
		goto fail;
	if ((rc = open_acct(t, bad)))
		goto fail;
	t->nc = hpm_sysacct__nr_cpus(t->a);
	free(t->cpu_prev);
	t->cpu_prev = calloc(t->nc * t->nr_ev + 1, sizeof(uint64_t));
	t->cpu_acc = calloc(t->nc * t->nr_ev + 1, sizeof(uint64_t));
	rc = -ENOMEM;
	if (!t->cpu_prev || !t->cpu_acc)
		goto fail;
	t->prev_ns = mono_ns();
	*out = t;
	return 0;
fail:
	serve_tasks__free(t);
	return rc;
}

size_t serve_tasks__nr_cpus(const struct serve_tasks *t)
{
	return t->nc;
}

int serve_tasks__cpu(const struct serve_tasks *t, size_t c)
{
	return t->a ? hpm_sysacct__cpu(t->a, c) : -1;
}

int serve_tasks__drain(struct serve_tasks *t)
{
	return t->a ? hpm_sysacct__drain(t->a) : 0;
}

bool serve_tasks__full(const struct serve_tasks *t)
{
	return t->a && hpm_sysacct__nr_tasks(t->a) > RENEW_TASKS;
}

/* The label text of a row, into t->labels; *pinned for the rows that are
 * no process or cgroup: idle (every CPU's in one), lost, unattributed. */
static const char *row_labels(struct serve_tasks *t, int fam, const struct sysrow *r, bool *pinned)
{
	const char *key = fam == FAM_PROCESS ? "comm" : "cgroup";
	const char *special = r->pid == HPM_SYSTASK_LOST	 ? "[lost]"
			      : r->pid == HPM_SYSTASK_UNATTRIBUTED ? "[unattributed]"
			      : r->pid == 0			   ? "[idle]"
								   : NULL;
	char comm[80], cg[768];
	*pinned = special != NULL;
	if (special) {
		snprintf(t->labels, sizeof(t->labels), "%s=\"%s\"", key, special);
		return t->labels;
	}
	serve_expo_label(cg, sizeof(cg), r->cgroup[0] ? r->cgroup : "[unknown]");
	if (fam == FAM_CGROUP) {
		snprintf(t->labels, sizeof(t->labels), "cgroup=\"%s\"", cg);
		return t->labels;
	}
	serve_expo_label(comm, sizeof(comm), r->comm);
	snprintf(t->labels, sizeof(t->labels), "pid=\"%d\",comm=\"%s\",cgroup=\"%s\"", (int)r->pid,
		 comm, cg);
	return t->labels;
}

/* Each shown series' metrics over the step, from its increases. */
static void series_metrics(struct serve_tasks *t, struct serve_book *b, double secs)
{
	struct hpm_value *in = calloc(t->nr_ev + 1, sizeof(*in));
	struct hpm_value *mv = calloc(t->nr_metrics + 1, sizeof(*mv));
	struct serve_series *s;
	for (size_t k = 0; (s = serve_book__series(b, k)); k++) {
		for (size_t m = 0; m < t->nr_metrics; m++)
			s->mv[m] = NAN;
		if (!in || !mv || s->pinned)
			continue;
		for (size_t i = 0; i < t->nr_ev; i++)
			hpm_value__set(&in[i],
				       (double)s->d[i] * hpm_event__scale(hpm_evlist__event(t->list, i)),
				       0);
		struct hpm_metric_env env = {
			.sz = sizeof(env), .events = in, .nr_events = t->nr_ev,
			.duration_s = secs, .num_cpus = (int)t->nc,
		};
		hpm_msel__eval(t->sel, &env, mv);
		for (size_t m = 0; m < t->nr_metrics; m++)
			if (!mv[m].na && isfinite(mv[m].value))
				s->mv[m] = mv[m].value;
	}
	free(in);
	free(mv);
}

/* A family's rows that grew into its book, and the book's step. */
static int step_family(struct serve_tasks *t, int f, uint64_t now, double secs)
{
	struct sysrows *rows = &t->rows[f];
	int rc = sysrows_update(rows, t->a);
	if (rc)
		return rc;
	for (size_t r = 0; r < rows->nr; r++) {
		bool pinned;
		if (!sysrows_active(rows, r, true))
			continue;
		const char *l = row_labels(t, f, &rows->row[r], &pinned);
		if ((rc = serve_book__add(t->book[f], l, pinned, rows->row[r].d)))
			return rc;
	}
	if ((rc = serve_book__step(t->book[f], now, secs)))
		return rc;
	if (t->nr_metrics)
		series_metrics(t, t->book[f], secs);
	return 0;
}

int serve_tasks__read(struct serve_tasks *t, const struct serve_event *ev,
		      struct serve_rows *cpus, uint64_t *lost, double *totals,
		      struct serve_set *sets, size_t *nr_sets)
{
	uint64_t now = mono_ns();
	double secs = (double)(now - t->prev_ns) / 1e9;
	size_t bad;
	int rc;

	*nr_sets = 0;
	for (size_t i = 0; i < t->nr_ev; i++)
		totals[i] = 0;
	if (!t->a && (rc = open_acct(t, &bad)))
		return rc; /* renewal failed last time: try again */
	bool renew = hpm_sysacct__nr_tasks(t->a) > RENEW_TASKS;
	rc = renew ? hpm_sysacct__stop(t->a) : hpm_sysacct__sync(t->a);
	if (rc)
		return rc;
	for (size_t c = 0; c < t->nc; c++) {
		for (size_t i = 0; i < t->nr_ev; i++) {
			size_t k = c * t->nr_ev + i;
			uint64_t cur = hpm_sysacct__cpu_count(t->a, c, i);
			t->cpu_acc[k] += cur - t->cpu_prev[k];
			totals[i] += (double)(cur - t->cpu_prev[k]);
			t->cpu_prev[k] = cur;
		}
	}
	uint64_t l = hpm_sysacct__lost(t->a);
	t->lost_acc += l - t->lost_prev;
	t->lost_prev = l;
	for (int f = 0; f < NR_FAM; f++) {
		if (!t->book[f])
			continue;
		if ((rc = step_family(t, f, now, secs)))
			return rc;
		serve_book__view(t->book[f], &sets[(*nr_sets)++]);
	}
	/* the group's share of time on the counters, the same for every event */
	uint64_t val, en = 0, run = 0;
	hpm_sysacct__total(t->a, 0, &val, &en, &run);
	for (size_t c = 0; c < t->nc; c++) {
		for (size_t i = 0; i < t->nr_ev; i++) {
			size_t k = c * t->nr_ev + i;
			cpus->val[k] = (double)t->cpu_acc[k] * ev[i].factor;
			cpus->ratio[k] = en ? (double)run / (double)en : 1;
			cpus->ok[k] = true;
		}
	}
	*lost = t->lost_acc;
	t->prev_ns = now;
	if (renew) {
		hpm_sysacct__free(t->a);
		t->a = NULL;
		/* a failure is retried at the next step; the scrape is served */
		open_acct(t, &bad);
	}
	return 0;
}
