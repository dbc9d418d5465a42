/* SPDX-License-Identifier: MIT */
/*
 * The timeline model (timeline.h): a builder that bins values by time
 * into series keyed by (event, thread), halving its resolution when the
 * data runs past the bin cap, then the constructors over a profile and
 * over stat -I JSON lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hpmon/profile.h>

#include "merge-json.h"
#include "report/report.h"
#include "timeline.h"

#define TL_MAX_EVENTS 1024
#define TL_SLOT_ALL 0
#define TL_SLOT_OTHER 1
#define TL_SLOT_FIRST 2
#define TL_NAMES_CAP 65536   /* task names remembered before a thread shows up */
#define TL_SAMPLE_BIN_NS 1000000ull

struct tl_acc {             /* one series while it is built */
	double *sum, *en, *run; /* [cap_bins]; a metric: run counts its values */
};

struct tl_name {            /* a task's last name, by tid */
	pid_t tid;              /* 0: empty */
	char *comm;
};

struct tl_build {
	struct timeline_opts o;
	uint64_t start_ns, bin_ns;
	bool started;
	size_t nr_bins, cap_bins;
	/* events by name, each with its series per thread slot (index + 1) */
	char *ev_name[TL_MAX_EVENTS];
	char *ev_unit[TL_MAX_EVENTS];
	bool ev_metric[TL_MAX_EVENTS];
	uint32_t *slot_series;  /* [TL_MAX_EVENTS][nr_slots_max] */
	size_t nr_ev;
	/* thread slots: 0 all, 1 other, then threads in order of appearance */
	pid_t *slot_tid;
	char **slot_comm;
	size_t nr_slots, slots_max;
	size_t last_slot;
	/* series */
	struct tl_acc *acc;
	uint32_t *acc_ev, *acc_slot;
	size_t nr_acc, cap_acc;
	struct tl_name *names;  /* open addressing, TL_NAMES_CAP */
	size_t nr_names;
};

static void say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;
	if (!why || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

static int build_init(struct tl_build *b, const struct timeline_opts *o)
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

static void build_release(struct tl_build *b)
{
	for (size_t i = 0; i < b->nr_ev; i++) {
		free(b->ev_name[i]);
		free(b->ev_unit[i]);
	}
	for (size_t i = 0; i < b->nr_acc; i++) {
		free(b->acc[i].sum);
		free(b->acc[i].en);
		free(b->acc[i].run);
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
static long build_event(struct tl_build *b, const char *name, const char *unit, bool metric)
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
static size_t build_slot(struct tl_build *b, pid_t tid, const char *comm)
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
		double **arr[3] = {&b->acc[i].sum, &b->acc[i].en, &b->acc[i].run};
		for (int k = 0; k < 3; k++) {
			double *p = realloc(*arr[k], nc * sizeof(double));
			if (!p)
				return -ENOMEM;
			memset(p + b->cap_bins, 0, (nc - b->cap_bins) * sizeof(double));
			*arr[k] = p;
		}
	}
	b->cap_bins = nc;
	return 0;
}

/* Past the cap: neighbours merge two by two, and a bin is twice as wide. */
static void halve(struct tl_build *b)
{
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
static long build_series(struct tl_build *b, size_t ev, size_t slot)
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
	a->sum = calloc(b->cap_bins ? b->cap_bins : 1, sizeof(double));
	a->en = calloc(b->cap_bins ? b->cap_bins : 1, sizeof(double));
	a->run = calloc(b->cap_bins ? b->cap_bins : 1, sizeof(double));
	if (!a->sum || !a->en || !a->run) {
		free(a->sum);
		free(a->en);
		free(a->run);
		return -1;
	}
	b->acc_ev[b->nr_acc] = (uint32_t)ev;
	b->acc_slot[b->nr_acc] = (uint32_t)slot;
	*at = (uint32_t)++b->nr_acc;
	return (long)b->nr_acc - 1;
}

/* The bin of time @t (before the start: the first), halving as needed. */
static long build_bin(struct tl_build *b, uint64_t t)
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
static int build_add(struct tl_build *b, size_t ev, size_t slot, uint64_t t, double v, double en,
		     double run, bool also_all)
{
	long bin = build_bin(b, t);
	if (bin < 0)
		return -ENOMEM;
	size_t slots[2] = {slot, TL_SLOT_ALL};
	for (int k = 0; k < (also_all && slot != TL_SLOT_ALL ? 2 : 1); k++) {
		long s = build_series(b, ev, slots[k]);
		if (s < 0)
			return -ENOMEM;
		b->acc[s].sum[bin] += v;
		if (b->ev_metric[ev]) {
			b->acc[s].run[bin] += 1;
		} else {
			b->acc[s].en[bin] += en;
			b->acc[s].run[bin] += run;
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
			s->count[j] = a->sum[j];
			s->coverage[j] = a->en[j] > 0 ? a->run[j] / a->en[j] : 1;
			s->total += a->sum[j];
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
	if (s->min > s->max)
		s->min = s->max = 0;
	return 0;
}

/* The finished timeline: per event, "all" first, then the threads in the
 * order they appeared, "[other threads]" last. */
static struct timeline *build_finish(struct tl_build *b, enum timeline_source src)
{
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
	for (size_t ev = 0; ev < b->nr_ev; ev++) {
		bool any = false;
		for (size_t k = 0; k < b->nr_slots; k++) {
			/* all, the threads, other */
			size_t slot = k == 0 ? TL_SLOT_ALL : k + 1 < b->nr_slots ? k + 1 : TL_SLOT_OTHER;
			uint32_t at = b->slot_series[ev * b->slots_max + slot];
			if (!at)
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

static int profile_sample(struct tl_build *b, const struct hpm_profile_meta *m,
			  const struct hpm_sample *s, const long *evs)
{
	if (!s->time || s->ev >= m->nr_events || evs[s->ev] < 0)
		return 0;
	size_t slot = build_slot(b, s->tid, NULL);
	return build_add(b, (size_t)evs[s->ev], slot, s->time, (double)s->period, 0, 0, true);
}

/* A TIMELINE record: each event's count since the thread's previous one. */
static int profile_read(struct tl_build *b, const struct hpm_profile_meta *m,
			const struct hpm_read_rec *t, const long *evs)
{
	size_t slot = build_slot(b, t->tid, NULL);
	for (uint32_t k = 0; k < t->nr_values && t->ev + k < m->nr_events; k++) {
		long ev = evs[t->ev + k];
		int rc = ev < 0 ? 0 : build_add(b, (size_t)ev, slot, t->time, (double)t->values[k],
					       (double)t->enabled, (double)t->running, true);
		if (rc)
			return rc;
	}
	return 0;
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

	if (build_init(&b, o))
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
		    (evs[i] = build_event(&b, m->events[i].name, "", false)) < 0)
			goto nomem;
	}
	hpm_profile__skip(p, HPM_PROFILE_SKIP_CHAINS | HPM_PROFILE_SKIP_STACKS);
	while ((rc = hpm_profile__next(p, &r)) > 0) {
		if (r.type == HPM_PREC_SAMPLE && !records)
			rc = profile_sample(&b, m, &r.sample, evs);
		else if (r.type == HPM_PREC_TIMELINE && records)
			rc = profile_read(&b, m, &r.read, evs);
		else if (r.type == HPM_PREC_COMM)
			rc = build_name(&b, r.comm.tid, r.comm.comm);
		else
			rc = 0;
		if (rc)
			goto nomem;
	}
	if (rc < 0)
		goto nomem;
	t = build_finish(&b, records ? TL_SRC_RECORDS : TL_SRC_SAMPLES);
	if (!t)
		goto nomem;
	free(evs);
	build_release(&b);
	return t;
nomem:
	free(evs);
	build_release(&b);
	say(why, len, "out of memory");
	errno = ENOMEM;
	return NULL;
}

struct timeline *timeline__from_rep(const struct rep *r, const struct timeline_opts *o,
				    char *why, size_t len)
{
	struct hpm_profile *p;
	int rc = hpm_profile__open(r->o.input, &p);
	if (rc) {
		say(why, len, "cannot read '%s' again: %s", r->o.input, hpm_strerror(rc));
		errno = -rc;
		return NULL;
	}
	struct timeline *t = timeline__from_profile(p, o, why, len);
	int e = errno;
	hpm_profile__free(p);
	errno = e;
	return t;
}

/* ---- stat -I JSON lines ---- */

bool timeline__is_stat_json(const void *head, size_t n)
{
	const unsigned char *c = head;
	size_t i = 0;
	while (i < n && (c[i] == ' ' || c[i] == '\t' || c[i] == '\n' || c[i] == '\r'))
		i++;
	return i < n && c[i] == '{';
}

/* The next line of @f into *@buf, without its newline: 1, 0 at the end,
 * -E2BIG past @max bytes, -errno on a read error. */
static int read_line(FILE *f, char **buf, size_t *cap, size_t *n, size_t max)
{
	*n = 0;
	int c;
	while ((c = getc(f)) != EOF && c != '\n') {
		if (*n + 1 >= *cap) {
			if (*cap > max)
				return -E2BIG;
			size_t nc = *cap ? *cap * 2 : 4096;
			char *p = realloc(*buf, nc);
			if (!p)
				return -ENOMEM;
			*buf = p;
			*cap = nc;
		}
		(*buf)[(*n)++] = (char)c;
	}
	if (ferror(f))
		return -EIO;
	if (c == EOF && !*n)
		return 0;
	return 1;
}

static double num_or(const struct mj *o, const char *key, double dflt)
{
	const double *v = mj_num(o, key);
	return v ? *v : dflt;
}

/* One interval's "events" and "metrics" of thread @slot at @t. */
static int stat_values(struct tl_build *b, const struct mj *row, size_t slot, uint64_t t,
		       bool also_all, unsigned *gen, unsigned *seen)
{
	const struct mj *evs = mj_get(row, "events"), *ms = mj_get(row, "metrics");
	++*gen;
	for (size_t i = 0; evs && evs->type == MJ_ARR && i < evs->n; i++) {
		const struct mj *e = evs->kids[i];
		const char *name = mj_str(e, "name");
		if (!name)
			continue;
		long ev = build_event(b, name, mj_str(e, "unit"), false);
		if (ev < 0 || seen[ev] == *gen) /* a metric's event listed again */
			continue;
		seen[ev] = *gen;
		const double *c = mj_num(e, "count");
		double en = num_or(e, "enabled_ns", 0), run = num_or(e, "running_ns", 0);
		if (!c) /* not counted in this interval: no time ran */
			run = 0;
		int rc = build_add(b, (size_t)ev, slot, t, c ? *c : 0, en, run, also_all);
		if (rc)
			return rc;
	}
	for (size_t i = 0; ms && ms->type == MJ_ARR && i < ms->n; i++) {
		const struct mj *e = ms->kids[i];
		const char *name = mj_str(e, "name");
		const double *v = mj_num(e, "value");
		if (!name)
			continue;
		long ev = build_event(b, name, mj_str(e, "unit"), true);
		if (ev < 0)
			continue;
		if (!v) { /* null: the bin exists, with no value */
			if (build_bin(b, t) < 0 || build_series(b, (size_t)ev, slot) < 0)
				return -ENOMEM;
			continue;
		}
		int rc = build_add(b, (size_t)ev, slot, t, *v, 0, 0, also_all);
		if (rc)
			return rc;
	}
	return 0;
}

static int stat_line(struct tl_build *b, const struct mj *o, unsigned *gen, unsigned *seen)
{
	const double *tn = mj_num(o, "time_ns");
	if (!tn) /* the summary */
		return 0;
	double span = num_or(o, "span_ns", 0), iv = num_or(o, "interval_ns", 0);
	if (!b->bin_ns)
		b->bin_ns = iv >= 1 && iv < 1e15 ? (uint64_t)iv : 100000000ull;
	b->started = true; /* stat's clock starts at 0 */
	double at = *tn - span;
	uint64_t t = at > 0 && at < 1.8e19 ? (uint64_t)at : 0;
	int rc = stat_values(b, o, TL_SLOT_ALL, t, false, gen, seen);
	const struct mj *th = mj_get(o, "threads");
	for (size_t i = 0; !rc && th && th->type == MJ_ARR && i < th->n; i++) {
		const struct mj *row = th->kids[i];
		double tid = num_or(row, "tid", 0);
		if (!(tid > 0 && tid < 1e9))
			continue;
		size_t slot = build_slot(b, (pid_t)tid, mj_str(row, "comm"));
		rc = stat_values(b, row, slot, t, false, gen, seen);
	}
	return rc;
}

struct timeline *timeline__from_stat_json(const char *path, const struct timeline_opts *o,
					  char *why, size_t len)
{
	struct tl_build b;
	struct timeline *t = NULL;
	char *line = NULL;
	size_t cap = 0, n, lineno = 0, objs = 0;
	unsigned gen = 0, *seen = NULL;
	struct stat sb;
	FILE *f = NULL;
	int e = 0, rc;

	if (build_init(&b, o) || !(seen = calloc(TL_MAX_EVENTS, sizeof(*seen)))) {
		e = ENOMEM;
		goto out;
	}
	/* without blocking: a FIFO must not hang the open; a regular file only */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &sb)) {
		e = errno;
		say(why, len, "cannot read '%s': %s", path, strerror(e));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	if (!S_ISREG(sb.st_mode) || !(f = fdopen(fd, "r"))) {
		e = S_ISREG(sb.st_mode) ? errno : EINVAL;
		say(why, len, "cannot read '%s': %s", path,
		    e == EINVAL ? "not a regular file" : strerror(e));
		close(fd);
		goto out;
	}
	while ((rc = read_line(f, &line, &cap, &n, MJ_MAX_TEXT)) > 0) {
		char jwhy[120];
		lineno++;
		size_t k = 0;
		while (k < n && (line[k] == ' ' || line[k] == '\t' || line[k] == '\r'))
			k++;
		if (k == n)
			continue;
		struct mj *j = mj_parse(line, n, jwhy, sizeof(jwhy));
		if (!j || j->type != MJ_OBJ) {
			e = j ? EBADMSG : errno;
			say(why, len, "'%s', line %zu: %s", path, lineno,
			    j ? "not a JSON object" : e == EBADMSG ? jwhy : strerror(e));
			mj_free(j);
			goto out;
		}
		objs++;
		rc = stat_line(&b, j, &gen, seen);
		mj_free(j);
		if (rc) {
			e = -rc;
			say(why, len, "out of memory");
			goto out;
		}
	}
	if (rc < 0) {
		e = -rc;
		if (rc == -E2BIG)
			say(why, len, "'%s', line %zu: longer than %u MiB, which no stat file writes",
			    path, lineno + 1, MJ_MAX_TEXT >> 20);
		else
			say(why, len, "cannot read '%s' (line %zu): %s", path, lineno + 1, strerror(-rc));
		goto out;
	}
	if (!objs) {
		e = EBADMSG;
		say(why, len, "'%s' is empty: no interval of stat -I", path);
		goto out;
	}
	if (!b.bin_ns) {
		e = EBADMSG;
		say(why, len, "'%s' holds no intervals: write it with hpmon stat -I MS --json -o FILE",
		    path);
		goto out;
	}
	t = build_finish(&b, TL_SRC_STAT);
	if (!t) {
		e = ENOMEM;
		say(why, len, "out of memory");
	}
out:
	if (f)
		fclose(f);
	free(line);
	free(seen);
	build_release(&b);
	if (!t)
		errno = e ? e : EINVAL;
	return t;
}
