/* SPDX-License-Identifier: MIT */
/*
 * `hpmon report --trace-event`: the Trace Event Format's JSON object form
 * (docs/formats.md), which Perfetto's UI and chrome://tracing load.
 * Samples are instant events on their thread's track, each with its call
 * stack (an "sf" into "stackFrames"); the counts per 10 ms of each event,
 * summed from the samples' periods (or from the counts read from a group
 * at the leader's samples), are counter events per process; the names of
 * processes and threads are metadata events; LOST records are global
 * instant events. Events are written as the samples come (a sample whose
 * mapping came late comes late: viewers sort by time); times are
 * microseconds from the 10 ms boundary before the file's first sample.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export/export-internal.h"
#include "output/json.h"

#define TRACE_INTERVAL_NS 10000000ull /* the counters' interval: 10 ms */

static void count_add(struct export *x, struct rep *r, pid_t pid, uint32_t ev, uint64_t t,
		      double v)
{
	uint64_t k[3] = { (uint32_t)pid, ev, t / TRACE_INTERVAL_NS };
	long i = htab__get(x->h_cnt, k);
	if (i < 0) {
		if (!rep_reserve(r, 2 * (sizeof(k) + sizeof(double)) + 3 * (8 * 3 + 4))) {
			x->uncounted++; /* the samples still say it */
			return;
		}
		/* cvals grows with ckeys, entry for entry */
		size_t cap = x->cap_cnt;
		if (!x_grow((void **)&x->ckeys, &cap, 3 * (x->nr_cnt + 1), sizeof(uint64_t)))
			return;
		if (cap != x->cap_cnt) {
			double *nv = realloc(x->cvals, cap / 3 * sizeof(double));
			if (!nv)
				return;
			x->cvals = nv;
			x->cap_cnt = cap;
		}
		if (htab__put(x->h_cnt, k, x->nr_cnt))
			return;
		memcpy(&x->ckeys[3 * x->nr_cnt], k, sizeof(k));
		x->cvals[x->nr_cnt] = 0;
		i = (long)x->nr_cnt++;
	}
	x->cvals[i] += v;
}

/* microseconds since @t0 */
static double us(uint64_t t, uint64_t t0)
{
	return t >= t0 ? (double)(t - t0) / 1000.0 : -(double)(t0 - t) / 1000.0;
}

/* The start of the file, at the first sample or LOST record: times count
 * from the 10 ms boundary before the file's first sample (@t without one). */
static void start(struct export *x, struct rep *r, uint64_t t)
{
	if (x->started)
		return;
	x->started = true;
	/* one writer: the stream stays locked until trace_write (each of the
	 * JSON writer's character writes would take the lock again) */
	flockfile(x->f);
	x->locked = true;
	x->t0 = (r->first_time ? r->first_time : t) / TRACE_INTERVAL_NS * TRACE_INTERVAL_NS;
	json_init(&x->j, x->f, false);
	json_obj_open(&x->j, NULL);
	json_arr_open(&x->j, "traceEvents");
}

void trace_sample(struct export *x, struct rep *r, const struct rep_xsample *xs, uint32_t node,
		  uint32_t thread)
{
	const struct hpm_sample *s = xs->s;
	const struct xthread *t = &x->threads[thread];
	struct json *j = &x->j;

	count_add(x, r, t->pid, s->ev, s->time, (double)s->period);
	for (uint32_t e = 0; xs->delta && e < r->nr_ev; e++)
		if (e != s->ev && xs->delta[e] > 0)
			count_add(x, r, t->pid, e, s->time, xs->delta[e]);
	start(x, r, s->time);
	if (s->time > x->t_end)
		x->t_end = s->time;
	json_obj_open(j, NULL);
	json_str(j, "name", r->meta.events[s->ev].name);
	json_str(j, "cat", "sample");
	json_str(j, "ph", "i");
	json_str(j, "s", "t");
	json_dbl(j, "ts", us(s->time, x->t0));
	json_i64(j, "pid", t->pid);
	json_i64(j, "tid", t->tid);
	if (node) /* 0: no frame (past the memory cap) */
		json_u64(j, "sf", node);
	json_obj_open(j, "args");
	if (node)
		json_str(j, "leaf", x_sym_name(r, x->nodes[node - 1].id));
	json_u64(j, "cpu", s->cpu);
	json_u64(j, "period", s->period);
	json_obj_close(j);
	json_obj_close(j);
}

static void lost_mark(struct json *j, const char *what, double ts, uint64_t n, const char *ev)
{
	json_obj_open(j, NULL);
	json_str(j, "name", what);
	json_str(j, "cat", "lost");
	json_str(j, "ph", "i");
	json_str(j, "s", "g");
	json_dbl(j, "ts", ts);
	json_i64(j, "pid", 0);
	json_i64(j, "tid", 0);
	json_obj_open(j, "args");
	json_u64(j, "count", n);
	json_str(j, "event", ev);
	json_obj_close(j);
	json_obj_close(j);
}

void trace_lost(struct export *x, struct rep *r, const struct hpm_lost_rec *l)
{
	start(x, r, l->time);
	lost_mark(&x->j, "lost records", us(l->time, x->t0), l->count,
		  l->ev < r->nr_ev ? r->meta.events[l->ev].name : NULL);
}

static void name_event(struct json *j, const char *what, pid_t pid, pid_t tid, const char *name)
{
	json_obj_open(j, NULL);
	json_str(j, "name", what);
	json_str(j, "ph", "M");
	json_i64(j, "pid", pid);
	json_i64(j, "tid", tid);
	json_obj_open(j, "args");
	json_str(j, "name", name);
	json_obj_close(j);
	json_obj_close(j);
}

static int cmp_pid(const void *a, const void *b, void *arg)
{
	const struct xthread *t = arg;
	const struct xthread *p = &t[*(const size_t *)a], *q = &t[*(const size_t *)b];
	if (p->pid != q->pid)
		return p->pid < q->pid ? -1 : 1;
	return (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

/* A process is named as its main thread, else as its first thread seen. */
static int names(struct json *j, struct export *x, struct rep *r)
{
	size_t *ord = malloc((x->nr_threads + 1) * sizeof(*ord));
	if (!ord)
		return -ENOMEM;
	for (size_t i = 0; i < x->nr_threads; i++)
		ord[i] = i;
	qsort_r(ord, x->nr_threads, sizeof(*ord), cmp_pid, x->threads);
	for (size_t i = 0, end; i < x->nr_threads; i = end) {
		const struct xthread *t = &x->threads[ord[i]];
		uint32_t comm = t->comm;
		for (end = i; end < x->nr_threads && x->threads[ord[end]].pid == t->pid; end++)
			if (x->threads[ord[end]].tid == t->pid)
				comm = x->threads[ord[end]].comm;
		name_event(j, "process_name", t->pid, t->pid,
			   ord[i] + 1 == x->capped_thread ? "[memory cap]" : rep_str(r, comm));
		for (size_t k = i; k < end; k++)
			name_event(j, "thread_name", t->pid, x->threads[ord[k]].tid,
				   x_thread_name(x, r, (uint32_t)ord[k]));
	}
	free(ord);
	return 0;
}

static int cmp_cnt(const void *a, const void *b, void *arg)
{
	const uint64_t *keys = arg;
	const uint64_t *p = &keys[3 * *(const size_t *)a], *q = &keys[3 * *(const size_t *)b];
	for (int i = 0; i < 3; i++)
		if (p[i] != q[i])
			return p[i] < q[i] ? -1 : 1;
	return 0;
}

static void counter(struct json *j, struct rep *r, pid_t pid, uint32_t ev, uint64_t slot,
		    double v, uint64_t t0)
{
	char name[256];
	snprintf(name, sizeof(name), "%s per 10 ms", r->meta.events[ev].name);
	json_obj_open(j, NULL);
	json_str(j, "name", name);
	json_str(j, "ph", "C");
	json_dbl(j, "ts", us(slot * TRACE_INTERVAL_NS, t0));
	json_i64(j, "pid", pid);
	json_i64(j, "tid", pid);
	json_obj_open(j, "args");
	json_dbl(j, x_unit(r, ev), v);
	json_obj_close(j);
	json_obj_close(j);
}

/* Each series in time; an interval without samples after one with them
 * gets a 0, so the track falls where the samples stop. */
static int counters(struct json *j, struct export *x, struct rep *r, uint64_t t0)
{
	size_t *ord = malloc((x->nr_cnt + 1) * sizeof(*ord));
	if (!ord)
		return -ENOMEM;
	for (size_t i = 0; i < x->nr_cnt; i++)
		ord[i] = i;
	qsort_r(ord, x->nr_cnt, sizeof(*ord), cmp_cnt, x->ckeys);
	for (size_t i = 0; i < x->nr_cnt; i++) {
		const uint64_t *k = &x->ckeys[3 * ord[i]];
		counter(j, r, (pid_t)k[0], (uint32_t)k[1], k[2], x->cvals[ord[i]], t0);
		const uint64_t *n = i + 1 < x->nr_cnt ? &x->ckeys[3 * ord[i + 1]] : NULL;
		if (!n || n[0] != k[0] || n[1] != k[1] || n[2] != k[2] + 1)
			counter(j, r, (pid_t)k[0], (uint32_t)k[1], k[2] + 1, 0, t0);
	}
	free(ord);
	return 0;
}

static void frames(struct json *j, struct export *x, struct rep *r)
{
	char id[24];
	json_obj_open(j, "stackFrames");
	for (size_t i = 0; i < x->nr_nodes; i++) {
		const struct xnode *n = &x->nodes[i];
		snprintf(id, sizeof(id), "%zu", i + 1);
		json_obj_open(j, id);
		json_str(j, "name", x_sym_name(r, n->id));
		json_str(j, "category", r->dsos[r->syms[n->id].dso].base);
		if (n->parent) {
			snprintf(id, sizeof(id), "%u", n->parent);
			json_str(j, "parent", id);
		}
		json_obj_close(j);
	}
	json_obj_close(j);
}

int trace_write(struct export *x, struct rep *r)
{
	struct json *j = &x->j;

	start(x, r, 0);
	if (names(j, x, r) || counters(j, x, r, x->t0)) {
		fprintf(stderr, "hpmon report: out of memory writing the trace\n");
		return -ENOMEM;
	}
	if (r->lost_samples) /* the kernel's count (LOST_SAMPLES), known at the end only */
		lost_mark(j, "lost samples", us(x->t_end, x->t0), r->lost_samples, NULL);
	json_arr_close(j);
	frames(j, x, r);
	json_str(j, "displayTimeUnit", "ns");
	json_obj_open(j, "otherData");
	json_str(j, "producer", "hpmon report --trace-event");
	json_str(j, "command", r->meta.command);
	json_str(j, "host", r->meta.host);
	json_u64(j, "clock_origin_ns", x->t0);
	json_obj_close(j);
	json_obj_close(j);
	json_end(j);
	funlockfile(x->f);
	x->locked = false;
	return 0;
}
