/* SPDX-License-Identifier: MIT */
/*
 * The timeline model (timeline.h): the builder (timeline-build.h) that
 * bins values by time into series keyed by (event, thread), halving its
 * resolution when the data runs past the bin cap and spreading a reading
 * over the span it counted, then the constructor over a profile. The one
 * over stat -I JSON lines is timeline-stat.c.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include <hpmon/profile.h>

#include "report/report.h"
#include "timeline/timeline-build.h"

void tl_say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;
	if (!why || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

int tl_build__init(struct tl_build *b, const struct timeline_opts *o)
{
	memset(b, 0, sizeof(*b));
	if (o)
		b->o = *o;
	if (b->o.max_bins < 2)
		b->o.max_bins = TIMELINE_MAX_BINS;
	if (!b->o.max_threads)
		b->o.max_threads = TIMELINE_MAX_THREADS;
	b->slots_max = TL_SLOT_FIRST + (b->o.no_threads ? 0 : b->o.max_threads);
	b->slot_series = calloc((size_t)TL_MAX_EVENTS * b->slots_max, sizeof(uint32_t));
	b->slot_tid = calloc(b->slots_max, sizeof(pid_t));
	b->slot_comm = calloc(b->slots_max, sizeof(char *));
	if (!b->slot_series || !b->slot_tid || !b->slot_comm)
		return -ENOMEM;
	b->slot_tid[TL_SLOT_ALL] = TL_TID_ALL;
	b->slot_tid[TL_SLOT_OTHER] = TL_TID_OTHER;
	b->nr_slots = TL_SLOT_FIRST;
	return 0;
}

void tl_build__release(struct tl_build *b)
{
	for (size_t i = 0; i < b->nr_ev; i++) {
		free(b->ev_name[i]);
		free(b->ev_unit[i]);
	}
	for (size_t i = 0; i < b->nr_acc; i++) {
		double **arr[6] = {&b->acc[i].sum, &b->acc[i].en, &b->acc[i].run,
				   &b->acc[i].dsum, &b->acc[i].den, &b->acc[i].drun};
		for (int k = 0; k < 6; k++)
			free(*arr[k]);
	}
	for (size_t i = 0; i < b->nr_slots; i++)
		free(b->slot_comm[i]);
	if (b->names)
		for (size_t i = 0; i < TL_NAMES_CAP; i++)
			free(b->names[i].comm);
	free(b->names);
	free(b->acc);
	free(b->acc_ev);
	free(b->acc_slot);
	free(b->slot_series);
	free(b->slot_tid);
	free(b->slot_comm);
}

/* The event named @name (added when new): its index, or -1 when there
 * are TL_MAX_EVENTS already (later names are left out) or no memory. */
long tl_build__event(struct tl_build *b, const char *name, const char *unit, bool metric)
{
	for (size_t i = 0; i < b->nr_ev; i++)
		if (b->ev_metric[i] == metric && !strcmp(b->ev_name[i], name))
			return (long)i;
	if (b->nr_ev == TL_MAX_EVENTS)
		return -1;
	b->ev_name[b->nr_ev] = strdup(name);
	b->ev_unit[b->nr_ev] = strdup(unit ? unit : "");
	if (!b->ev_name[b->nr_ev] || !b->ev_unit[b->nr_ev]) {
		free(b->ev_name[b->nr_ev]);
		free(b->ev_unit[b->nr_ev]);
		return -1;
	}
	b->ev_metric[b->nr_ev] = metric;
	return (long)b->nr_ev++;
}

static size_t name_hash(pid_t tid)
{
	return ((uint32_t)tid * 2654435761u) % TL_NAMES_CAP;
}

/* Remember @comm as @tid's name (the last one wins). Past TL_NAMES_CAP
 * tasks a new task's name is not kept: its label is its tid alone. */
static int build_name(struct tl_build *b, pid_t tid, const char *comm)
{
	for (size_t s = TL_SLOT_FIRST; s < b->nr_slots; s++)
		if (b->slot_tid[s] == tid) {
			char *c = strdup(comm);
			if (!c)
				return -ENOMEM;
			free(b->slot_comm[s]);
			b->slot_comm[s] = c;
		}
	if (!b->names && !(b->names = calloc(TL_NAMES_CAP, sizeof(*b->names))))
		return -ENOMEM;
	for (size_t i = name_hash(tid), n = 0; n < TL_NAMES_CAP; i = (i + 1) % TL_NAMES_CAP, n++) {
		struct tl_name *e = &b->names[i];
		if (e->tid && e->tid != tid)
			continue;
		if (!e->tid && b->nr_names >= TL_NAMES_CAP / 2)
			return 0;
		char *c = strdup(comm);
		if (!c)
			return -ENOMEM;
		if (!e->tid)
			b->nr_names++;
		free(e->comm);
		e->tid = tid;
		e->comm = c;
		return 0;
	}
	return 0;
}

static const char *name_of(const struct tl_build *b, pid_t tid)
{
	if (!b->names)
		return NULL;
	for (size_t i = name_hash(tid), n = 0; n < TL_NAMES_CAP; i = (i + 1) % TL_NAMES_CAP, n++) {
		if (!b->names[i].tid)
			return NULL;
		if (b->names[i].tid == tid)
			return b->names[i].comm;
	}
	return NULL;
}

/* The slot of thread @tid: a new one while there is room, else "other". */
size_t tl_build__slot(struct tl_build *b, pid_t tid, const char *comm)
{
	if (b->o.no_threads)
		return TL_SLOT_OTHER;
	if (b->last_slot >= TL_SLOT_FIRST && b->slot_tid[b->last_slot] == tid)
		return b->last_slot;
	for (size_t s = TL_SLOT_FIRST; s < b->nr_slots; s++)
		if (b->slot_tid[s] == tid)
			return b->last_slot = s;
	if (b->nr_slots == b->slots_max)
		return TL_SLOT_OTHER;
	if (!comm)
		comm = name_of(b, tid);
	b->slot_tid[b->nr_slots] = tid;
	b->slot_comm[b->nr_slots] = comm ? strdup(comm) : NULL; /* NULL: the tid alone */
	return b->last_slot = b->nr_slots++;
}

static int grow_bins(struct tl_build *b, size_t need)
{
	if (need <= b->cap_bins)
		return 0;
	size_t nc = b->cap_bins ? b->cap_bins : 64;
	while (nc < need)
		nc *= 2;
	if (nc > b->o.max_bins)
		nc = b->o.max_bins;
	for (size_t i = 0; i < b->nr_acc; i++) {
		double **arr[6] = {&b->acc[i].sum, &b->acc[i].en, &b->acc[i].run,
				   &b->acc[i].dsum, &b->acc[i].den, &b->acc[i].drun};
		for (int k = 0; k < 6; k++) {
			/* the differences have one more: the step after the last bin */
			size_t old = b->cap_bins + (k >= 3), want = nc + (k >= 3);
			double *p = realloc(*arr[k], want * sizeof(double));
			if (!p)
				return -ENOMEM;
			memset(p + old, 0, (want - old) * sizeof(double));
			*arr[k] = p;
		}
	}
	b->cap_bins = nc;
	return 0;
}

/* The spans' whole bins into the sums: before the bins change, and at
 * the end. */
static void build_settle(struct tl_build *b)
{
	if (!b->spread)
		return;
	for (size_t i = 0; i < b->nr_acc; i++) {
		double *to[3] = {b->acc[i].sum, b->acc[i].en, b->acc[i].run};
		double *d[3] = {b->acc[i].dsum, b->acc[i].den, b->acc[i].drun};
		for (int k = 0; k < 3; k++) {
			double run = 0;
			for (size_t j = 0; j < b->nr_bins; j++) {
				run += d[k][j];
				to[k][j] += run;
			}
			memset(d[k], 0, (b->cap_bins + 1) * sizeof(double));
		}
	}
	b->spread = false;
}

/* Past the cap: neighbours merge two by two, and a bin is twice as wide. */
static void halve(struct tl_build *b)
{
	build_settle(b);
	size_t n = (b->nr_bins + 1) / 2;
	for (size_t i = 0; i < b->nr_acc; i++) {
		double *arr[3] = {b->acc[i].sum, b->acc[i].en, b->acc[i].run};
		for (int k = 0; k < 3; k++) {
			for (size_t j = 0; j < n; j++)
				arr[k][j] = arr[k][2 * j] + (2 * j + 1 < b->nr_bins ? arr[k][2 * j + 1] : 0);
			memset(arr[k] + n, 0, (b->cap_bins - n) * sizeof(double));
		}
	}
	b->nr_bins = n;
	b->bin_ns *= 2;
}

/* The series of event @ev and slot @slot, made when new: its index, or
 * -1 without memory. */
long tl_build__series(struct tl_build *b, size_t ev, size_t slot)
{
	uint32_t *at = &b->slot_series[ev * b->slots_max + slot];
	if (*at)
		return (long)*at - 1;
	if (b->nr_acc == b->cap_acc) {
		size_t nc = b->cap_acc ? b->cap_acc * 2 : 16;
		struct tl_acc *a = realloc(b->acc, nc * sizeof(*a));
		if (!a)
			return -1;
		b->acc = a;
		uint32_t *e = realloc(b->acc_ev, nc * sizeof(*e));
		if (!e)
			return -1;
		b->acc_ev = e;
		uint32_t *s = realloc(b->acc_slot, nc * sizeof(*s));
		if (!s)
			return -1;
		b->acc_slot = s;
		b->cap_acc = nc;
	}
	struct tl_acc *a = &b->acc[b->nr_acc];
	double **arr[6] = {&a->sum, &a->en, &a->run, &a->dsum, &a->den, &a->drun};
	bool ok = true;
	a->total = 0;
	for (int k = 0; k < 6; k++)
		ok &= !!(*arr[k] = calloc((b->cap_bins ? b->cap_bins : 1) + (k >= 3), sizeof(double)));
	if (!ok) {
		for (int k = 0; k < 6; k++)
			free(*arr[k]);
		return -1;
	}
	b->acc_ev[b->nr_acc] = (uint32_t)ev;
	b->acc_slot[b->nr_acc] = (uint32_t)slot;
	*at = (uint32_t)++b->nr_acc;
	return (long)b->nr_acc - 1;
}

/* The bin of time @t (before the start: the first), halving as needed. */
long tl_build__bin(struct tl_build *b, uint64_t t)
{
	if (!b->started) {
		b->started = true;
		b->start_ns = t;
	}
	uint64_t off = t > b->start_ns ? t - b->start_ns : 0;
	uint64_t i;
	while ((i = off / b->bin_ns) >= b->o.max_bins)
		halve(b);
	if (grow_bins(b, (size_t)i + 1))
		return -1;
	if (i >= b->nr_bins)
		b->nr_bins = (size_t)i + 1;
	return (long)i;
}

/* Add @v (with @en and @run ns of enabled and running time; a metric:
 * one value) at time @t to event @ev of slot @slot and of "all". */
int tl_build__add(struct tl_build *b, size_t ev, size_t slot, uint64_t t, double v, double en,
		     double run, bool also_all)
{
	long bin = tl_build__bin(b, t);
	if (bin < 0)
		return -ENOMEM;
	size_t slots[2] = {slot, TL_SLOT_ALL};
	for (int k = 0; k < (also_all && slot != TL_SLOT_ALL ? 2 : 1); k++) {
		long s = tl_build__series(b, ev, slots[k]);
		if (s < 0)
			return -ENOMEM;
		b->acc[s].sum[bin] += v;
		b->acc[s].total += v;
		if (b->ev_metric[ev]) {
			b->acc[s].run[bin] += 1;
		} else {
			b->acc[s].en[bin] += en;
			b->acc[s].run[bin] += run;
		}
	}
	return 0;
}

/* Add @v (with @en and @run ns of enabled and running time) counted from
 * @from to @to evenly over the bins that span covers, to event @ev of
 * slot @slot and of "all": a rate, not a burst at its end. What began
 * before the first bin counts in it. */
static int build_add_span(struct tl_build *b, size_t ev, size_t slot, uint64_t from, uint64_t to,
			  double v, double en, double run)
{
	long last = tl_build__bin(b, to); /* first: it may widen the bins */
	if (last < 0)
		return -ENOMEM;
	if (from < b->start_ns)
		from = b->start_ns;
	if (from >= to)
		return tl_build__add(b, ev, slot, to, v, en, run, true);
	size_t first = (size_t)((from - b->start_ns) / b->bin_ns);
	double span = (double)(to - from), w = (double)b->bin_ns;
	/* the share of the first and the last bin, and of each between */
	double head = ((double)b->start_ns + (double)(first + 1) * w - (double)from) / span;
	double tail = ((double)to - ((double)b->start_ns + (double)last * w)) / span;
	double whole = w / span;
	if (first == (size_t)last)
		head = 1, tail = 0;
	size_t slots[2] = {slot, TL_SLOT_ALL};
	for (int k = 0; k < (slot != TL_SLOT_ALL ? 2 : 1); k++) {
		long s = tl_build__series(b, ev, slots[k]);
		if (s < 0)
			return -ENOMEM;
		struct tl_acc *a = &b->acc[s];
		a->total += v;
		a->sum[first] += v * head;
		a->en[first] += en * head;
		a->run[first] += run * head;
		if (first == (size_t)last)
			continue;
		a->sum[last] += v * tail;
		a->en[last] += en * tail;
		a->run[last] += run * tail;
		if (first + 1 < (size_t)last) {
			a->dsum[first + 1] += v * whole;
			a->dsum[last] -= v * whole;
			a->den[first + 1] += en * whole;
			a->den[last] -= en * whole;
			a->drun[first + 1] += run * whole;
			a->drun[last] -= run * whole;
			b->spread = true;
		}
	}
	return 0;
}

static char *thread_label(const struct tl_build *b, size_t slot)
{
	char buf[64];
	if (slot == TL_SLOT_ALL)
		return strdup("all");
	if (slot == TL_SLOT_OTHER)
		return strdup("[other threads]");
	if (b->slot_comm[slot]) {
		size_t n = strlen(b->slot_comm[slot]) + 24;
		char *s = malloc(n);
		if (s)
			snprintf(s, n, "%s/%d", b->slot_comm[slot], (int)b->slot_tid[slot]);
		return s;
	}
	snprintf(buf, sizeof(buf), "%d", (int)b->slot_tid[slot]);
	return strdup(buf);
}

static int fill_series(const struct tl_build *b, size_t i, struct timeline_series *s, size_t nr)
{
	const struct tl_acc *a = &b->acc[i];
	size_t ev = b->acc_ev[i], slot = b->acc_slot[i];
	size_t with = 0;
	s->tid = b->slot_tid[slot];
	s->thread = thread_label(b, slot);
	s->event = strdup(b->ev_name[ev]);
	s->unit = strdup(b->ev_unit[ev]);
	s->metric = b->ev_metric[ev];
	s->count = calloc(nr ? nr : 1, sizeof(double));
	s->coverage = calloc(nr ? nr : 1, sizeof(double));
	if (!s->thread || !s->event || !s->unit || !s->count || !s->coverage)
		return -ENOMEM;
	s->min = INFINITY;
	s->max = -INFINITY;
	for (size_t j = 0; j < nr; j++) {
		if (s->metric) {
			s->count[j] = a->run[j] > 0 ? a->sum[j] / a->run[j] : 0;
			s->coverage[j] = a->run[j] > 0;
			if (a->run[j] > 0) {
				s->total += s->count[j];
				with++;
			}
		} else {
			/* a spread count's differences may leave a rounding
			 * error's worth below 0 where nothing was counted */
			s->count[j] = a->sum[j] > 0 ? a->sum[j] : 0;
			s->coverage[j] = a->en[j] > 0 && a->run[j] < a->en[j] ? a->run[j] / a->en[j] : 1;
		}
		if (!s->metric || a->run[j] > 0) {
			if (s->count[j] < s->min)
				s->min = s->count[j];
			if (s->count[j] > s->max)
				s->max = s->count[j];
		}
	}
	if (s->metric)
		s->total = with ? s->total / (double)with : 0;
	else
		s->total = a->total;
	if (s->min > s->max)
		s->min = s->max = 0;
	return 0;
}

/* The finished timeline: per event, "all" first, then the threads in the
 * order they appeared, "[other threads]" last. */
struct timeline *tl_build__finish(struct tl_build *b, enum timeline_source src)
{
	build_settle(b);
	struct timeline *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->source = src;
	t->start_ns = b->start_ns;
	t->bin_ns = b->bin_ns;
	t->nr_bins = b->nr_bins;
	t->series = calloc(b->nr_acc ? b->nr_acc : 1, sizeof(*t->series));
	if (!t->series)
		goto nomem;
	/* polled, one process: its lane is the "all" lane again */
	bool all_only = src == TL_SRC_POLLED && b->nr_slots == TL_SLOT_FIRST + 1;
	for (size_t ev = 0; ev < b->nr_ev; ev++) {
		bool any = false;
		for (size_t k = 0; k < b->nr_slots; k++) {
			/* all, the threads, other */
			size_t slot = k == 0 ? TL_SLOT_ALL : k + 1 < b->nr_slots ? k + 1 : TL_SLOT_OTHER;
			uint32_t at = b->slot_series[ev * b->slots_max + slot];
			if (!at || (all_only && slot != TL_SLOT_ALL))
				continue;
			any = true;
			if (fill_series(b, at - 1, &t->series[t->nr_series++], b->nr_bins))
				goto nomem;
		}
		t->nr_events += any;
	}
	return t;
nomem:
	timeline__free(t);
	errno = ENOMEM;
	return NULL;
}

void timeline__free(struct timeline *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nr_series; i++) {
		free(t->series[i].thread);
		free(t->series[i].event);
		free(t->series[i].unit);
		free(t->series[i].count);
		free(t->series[i].coverage);
	}
	free(t->series);
	free(t);
}

/* ---- profiles ---- */

/*
 * The slot of thread @tid of process @pid, named as report names it
 * (addrspace__comm_of): by the thread's own name (its COMM record, or the
 * one it inherited at its FORK), else by its process's: a thread that
 * never renamed itself has no COMM record of its own.
 */
static size_t profile_slot(struct tl_build *b, pid_t tid, pid_t pid)
{
	if (b->last_slot >= TL_SLOT_FIRST && b->slot_tid[b->last_slot] == tid)
		return b->last_slot;
	const char *comm = name_of(b, tid);
	return tl_build__slot(b, tid, comm ? comm : name_of(b, pid));
}

/* FORK: a new task is named as the one that made it, until a COMM record
 * of its own says otherwise. */
static int profile_fork(struct tl_build *b, const struct hpm_task_rec *t)
{
	const char *parent = name_of(b, t->ptid);
	if (!parent || name_of(b, t->tid))
		return 0;
	char *c = strdup(parent); /* build_name may move the table's names */
	if (!c)
		return -ENOMEM;
	int rc = build_name(b, t->tid, c);
	free(c);
	return rc;
}

static int profile_sample(struct tl_build *b, const struct hpm_profile_meta *m,
			  const struct hpm_sample *s, const long *evs)
{
	if (!s->time || s->ev >= m->nr_events || evs[s->ev] < 0)
		return 0;
	size_t slot = profile_slot(b, s->tid, s->pid);
	return tl_build__add(b, (size_t)evs[s->ev], slot, s->time, (double)s->period, 0, 0, true);
}

/* A software event or a tracepoint takes no counter: a group of them
 * alone is never multiplexed (as stat judges it, stat-run.c), whatever
 * its enabled and running times say. */
static bool never_multiplexed(const struct hpm_profile_meta *m, const struct hpm_read_rec *t)
{
	for (uint32_t k = 0; k < t->nr_values && t->ev + k < m->nr_events; k++) {
		uint32_t type = m->events[t->ev + k].type;
		if (type != PERF_TYPE_SOFTWARE && type != PERF_TYPE_TRACEPOINT)
			return false;
	}
	return true;
}

/* A TIMELINE record: each event's count since the thread's previous
 * one, spread over its span (a profile of minor version 1 has none: at
 * the reading's time). */
static int profile_read(struct tl_build *b, const struct hpm_profile_meta *m,
			const struct hpm_read_rec *t, const long *evs)
{
	size_t slot = profile_slot(b, t->tid, t->pid);
	uint64_t from = t->start ? t->start : t->time;
	/* enabled and running both 0: counted all the time, never scaled */
	bool whole = never_multiplexed(m, t);
	double en = whole ? 0 : (double)t->enabled, run = whole ? 0 : (double)t->running;
	for (uint32_t k = 0; k < t->nr_values && t->ev + k < m->nr_events; k++) {
		long ev = evs[t->ev + k];
		int rc = ev < 0 ? 0 : build_add_span(b, (size_t)ev, slot, from, t->time,
						    (double)t->values[k], en, run);
		if (rc)
			return rc;
	}
	return 0;
}

/* When @r happened (a reading: when its span began); 0 when not known. */
static uint64_t record_time(const struct hpm_prec *r)
{
	switch (r->type) {
	case HPM_PREC_SAMPLE: return r->sample.time;
	case HPM_PREC_MMAP: return r->mmap.time;
	case HPM_PREC_COMM: return r->comm.time;
	case HPM_PREC_FORK:
	case HPM_PREC_EXIT: return r->task.time;
	case HPM_PREC_TIMELINE: return r->read.start ? r->read.start : r->read.time;
	default: return 0;
	}
}

struct timeline *timeline__from_profile(struct hpm_profile *p, const struct timeline_opts *o,
					char *why, size_t len)
{
	const struct hpm_profile_meta *m = hpm_profile__meta(p);
	/* a writer without the field (sz) wrote no timeline */
	bool records = m->sz >= offsetof(struct hpm_profile_meta, timeline_ns) +
				sizeof(m->timeline_ns) && m->timeline_ns;
	struct tl_build b;
	struct timeline *t = NULL;
	struct hpm_prec r;
	long *evs = NULL;
	int rc;

	if (tl_build__init(&b, o))
		goto nomem;
	b.bin_ns = records ? m->timeline_ns : TL_SAMPLE_BIN_NS;
	evs = calloc(m->nr_events ? m->nr_events : 1, sizeof(long));
	if (!evs)
		goto nomem;
	/* from samples, the events that sample: a group member's period
	 * means nothing; from TIMELINE records, every event */
	for (uint32_t i = 0; i < m->nr_events; i++) {
		evs[i] = -1;
		if ((records || m->events[i].trigger) &&
		    (evs[i] = tl_build__event(&b, m->events[i].name, "", false)) < 0)
			goto nomem;
	}
	hpm_profile__skip(p, HPM_PROFILE_SKIP_CHAINS | HPM_PROFILE_SKIP_STACKS);
	while ((rc = hpm_profile__next(p, &r)) > 0) {
		/* bin 0 at the first record with a time (a writer puts a chunk's
		 * readings after its samples, and a span begins before its
		 * reading) */
		uint64_t at = record_time(&r);
		if (!b.started && at) {
			b.started = true;
			b.start_ns = at;
		}
		if (r.type == HPM_PREC_SAMPLE && !records)
			rc = profile_sample(&b, m, &r.sample, evs);
		else if (r.type == HPM_PREC_TIMELINE && records)
			rc = profile_read(&b, m, &r.read, evs);
		else if (r.type == HPM_PREC_COMM)
			rc = build_name(&b, r.comm.tid, r.comm.comm);
		else if (r.type == HPM_PREC_FORK)
			rc = profile_fork(&b, &r.task);
		else
			rc = 0;
		if (rc)
			goto nomem;
	}
	if (rc < 0)
		goto nomem;
	bool polled = m->sz >= offsetof(struct hpm_profile_meta, timeline_mode) +
			       sizeof(m->timeline_mode) &&
		      m->timeline_mode == HPM_PROFILE_TL_PROCESS;
	t = tl_build__finish(&b, !records ? TL_SRC_SAMPLES : polled ? TL_SRC_POLLED
								    : TL_SRC_RECORDS);
	if (!t)
		goto nomem;
	if (records)
		t->interval_ns = m->timeline_ns;
	free(evs);
	tl_build__release(&b);
	return t;
nomem:
	free(evs);
	tl_build__release(&b);
	tl_say(why, len, "out of memory");
	errno = ENOMEM;
	return NULL;
}

struct timeline *timeline__from_rep(const struct rep *r, const struct timeline_opts *o,
				    char *why, size_t len)
{
	struct hpm_profile *p;
	int rc = hpm_profile__open(r->o.input, &p);
	if (rc) {
		tl_say(why, len, "cannot read '%s' again: %s", r->o.input, hpm_strerror(rc));
		errno = -rc;
		return NULL;
	}
	struct timeline *t = timeline__from_profile(p, o, why, len);
	int e = errno;
	hpm_profile__free(p);
	errno = e;
	return t;
}
