/* SPDX-License-Identifier: MIT */
/*
 * hpmon record --timeline-interval: the session's READ records (each a
 * thread's counts on one CPU so far) made TIMELINE records (the counts
 * since that thread's previous reading there), so that a thread's
 * records add up to its counts and each is small. A reading that
 * counted nothing new is not written.
 *
 * The previous reading of each (thread, CPU, event) is kept in a hash
 * table; a thread's final reading resets its entries, so that a thread
 * id the system reuses starts from zero.
 *
 * Each reading says when its counts began (hpm_read_rec.start): the
 * time of the thread's previous reading on that CPU, written or not, or
 * for its first the thread's start (its FORK record; a thread that was
 * there from the start: the first record seen); but not before the
 * thread last came to that CPU (its first sample there after samples on
 * another), so that a thread that comes back to a CPU after a while
 * elsewhere does not spread its counts there over its time away. So
 * report can spread the counts over the time they took. A final
 * reading, made when the thread ended or the session did, is dated at
 * the thread's last sample on that CPU when there is one: a thread that
 * ran there only at its start counted there only then.
 *
 * The counts are rounded down to HPM_TIMELINE_BITS significant bits, the
 * rest carried into the thread's next reading there, and its last
 * reading is exact: the sum stays exact, and a reading, which the
 * timer's latency makes tens of microseconds longer or shorter than the
 * interval (a few parts in a thousand), loses at most one part in 2048,
 * and half its size in the profile (docs/profile-format.md).
 *
 * Enabled and running time say how much of the time a group was on a
 * counter (multiplexing). A thread's events are opened once per CPU, and
 * the kernel advances every copy's enabled time while the thread runs,
 * on any CPU, but its running time only on its own: so the enabled time
 * is the thread's (one entry per thread and group, CPU_ANY), the running
 * time the CPU's, and their sums over a thread's readings agree.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record/record-cmd.h"

#define CPU_ANY UINT32_MAX
#define EV_START UINT32_MAX /* with CPU_ANY: the thread's start */
#define EV_RAN UINT32_MAX   /* with a CPU: the thread's samples there */

struct tl_ent {
	pid_t tid;          /* 0: empty */
	uint32_t cpu, ev;
	uint64_t value, enabled, running;
	uint64_t carry;     /* counted, not yet written (the rounding's rest) */
	uint64_t last;      /* the previous reading's time; the thread's start */
	uint64_t first_run, last_run; /* EV_RAN: the first sample of its stay
				 on the CPU, and its last sample there */
	uint32_t cpu_at;    /* EV_START: the CPU of its last sample (+ 1) */
};

struct rec_timeline {
	struct tl_ent *v;
	size_t cap, nr;     /* cap a power of two */
	uint64_t *delta;    /* one record's values */
	size_t delta_cap;
	uint64_t last_time; /* of the last reading: the final ones' */
	uint64_t first_time; /* of the first record seen */
};

struct rec_timeline *rec_timeline__new(void)
{
	return calloc(1, sizeof(struct rec_timeline));
}

void rec_timeline__free(struct rec_timeline *t)
{
	if (!t)
		return;
	free(t->v);
	free(t->delta);
	free(t);
}

static size_t slot_of(pid_t tid, uint32_t cpu, uint32_t ev, size_t cap)
{
	uint64_t h = ((uint64_t)(uint32_t)tid << 32 | cpu) * 0x9e3779b97f4a7c15ull;
	h ^= (uint64_t)ev * 0xc2b2ae3d27d4eb4full;
	return (size_t)(h >> 17) & (cap - 1);
}

static int grow(struct rec_timeline *t)
{
	size_t nc = t->cap ? t->cap * 2 : 1024;
	struct tl_ent *v = calloc(nc, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++) {
		const struct tl_ent *e = &t->v[i];
		if (!e->tid)
			continue;
		size_t s = slot_of(e->tid, e->cpu, e->ev, nc);
		while (v[s].tid)
			s = (s + 1) & (nc - 1);
		v[s] = *e;
	}
	free(t->v);
	t->v = v;
	t->cap = nc;
	return 0;
}

/* The entry of (@tid, @cpu, @ev), made when new (with @make); NULL when
 * there is none, or no memory. Entries move when the table grows. */
static struct tl_ent *entry(struct rec_timeline *t, pid_t tid, uint32_t cpu, uint32_t ev,
			    bool make)
{
	for (int pass = 0; pass < 2; pass++) {
		size_t s = t->cap ? slot_of(tid, cpu, ev, t->cap) : 0;
		for (; t->cap; s = (s + 1) & (t->cap - 1)) {
			struct tl_ent *e = &t->v[s];
			if (e->tid == tid && e->cpu == cpu && e->ev == ev)
				return e;
			if (!e->tid)
				break;
		}
		if (!make)
			return NULL;
		if ((t->nr + 1) * 4 > t->cap * 3) {
			if (grow(t))
				return NULL;
			continue; /* the free slot moved */
		}
		struct tl_ent *e = &t->v[s];
		*e = (struct tl_ent){ .tid = tid, .cpu = cpu, .ev = ev };
		t->nr++;
		return e;
	}
	return NULL;
}

/* @v rounded down to HPM_TIMELINE_BITS significant bits. */
static uint64_t round_bits(uint64_t v)
{
	unsigned bits = v ? 64 - (unsigned)__builtin_clzll(v) : 0;
	unsigned drop = bits > HPM_TIMELINE_BITS ? bits - HPM_TIMELINE_BITS : 0;
	return v >> drop << drop;
}

/* When the counts of @r's reading began and ended (*@time: when read,
 * moved back for a final one): see the top. */
static uint64_t span_of(struct rec_timeline *t, const struct hpm_read_rec *r, uint64_t last,
			uint64_t *time)
{
	const struct tl_ent *ran = entry(t, r->tid, r->cpu, EV_RAN, false);
	uint64_t start = last;
	if (!start) {
		const struct tl_ent *th = entry(t, r->tid, CPU_ANY, EV_START, false);
		start = th && th->last ? th->last : t->first_time;
	}
	if (ran && ran->first_run > start)
		start = ran->first_run;
	if (!start || start > *time)
		return *time;
	if (r->final && ran && ran->last_run >= start && ran->last_run < *time)
		*time = ran->last_run;
	return start;
}

int rec_timeline__add(struct rec_timeline *t, struct hpm_profile_writer *w,
		      const struct hpm_read_rec *r)
{
	if (r->tid <= 0) /* tid 0 is the table's empty mark; no task of ours has it */
		return 0;
	if (r->nr_values > t->delta_cap) {
		uint64_t *d = realloc(t->delta, r->nr_values * sizeof(*d));
		if (!d)
			return -ENOMEM;
		t->delta = d;
		t->delta_cap = r->nr_values;
	}
	uint64_t time = r->time ? r->time : t->last_time;
	if (time > t->last_time)
		t->last_time = time;
	bool any = false;
	uint64_t den = 0, drun = 0, start = time;
	for (uint32_t k = 0; k < r->nr_values; k++) {
		struct tl_ent *e = entry(t, r->tid, r->cpu, r->ev + k, true);
		if (!e)
			return -ENOMEM;
		/* a count never goes back; if it seems to, it is a new thread */
		uint64_t moved = r->values[k] >= e->value ? r->values[k] - e->value : r->values[k];
		if (r->values[k] < e->value)
			e->carry = 0;
		uint64_t want = moved + e->carry;
		t->delta[k] = r->final ? want : round_bits(want);
		e->carry = want - t->delta[k];
		any |= t->delta[k] != 0;
		if (k == 0) {
			uint64_t last = e->last;
			e->last = r->final ? 0 : time;
			start = span_of(t, r, last, &time); /* looks up, makes no entry */
		}
		if (k == 0 && (r->enabled || r->running)) {
			struct tl_ent *th = entry(t, r->tid, CPU_ANY, r->ev, true);
			if (!th)
				return -ENOMEM;
			/* the entry may have moved: find this one again */
			e = entry(t, r->tid, r->cpu, r->ev, false);
			den = r->enabled >= th->enabled ? r->enabled - th->enabled : 0;
			drun = r->running >= e->running ? r->running - e->running : r->running;
			if (r->enabled > th->enabled)
				th->enabled = r->enabled;
			e->running = r->running;
		}
		e->value = r->values[k];
		if (r->final) { /* the thread is gone: a reused id starts afresh */
			e->value = e->running = e->carry = 0;
			struct tl_ent *th = k ? NULL : entry(t, r->tid, CPU_ANY, r->ev, false);
			if (th)
				th->enabled = 0;
			struct tl_ent *ran = k ? NULL : entry(t, r->tid, r->cpu, EV_RAN, false);
			if (ran)
				ran->first_run = ran->last_run = 0;
		}
	}
	if (!any)
		return 0;
	struct hpm_prec p = { .type = HPM_PREC_TIMELINE };
	p.read = *r;
	p.read.time = time;
	p.read.start = start;
	p.read.enabled = den;
	p.read.running = drun;
	p.read.values = t->delta;
	return hpm_profile_writer__add(w, &p);
}

static int saw(struct rec_timeline *t, pid_t tid, uint32_t cpu, uint64_t time)
{
	if (time > t->last_time)
		t->last_time = time;
	if (time && (!t->first_time || time < t->first_time))
		t->first_time = time;
	if (tid <= 0 || !time)
		return 0;
	struct tl_ent *th = entry(t, tid, CPU_ANY, EV_START, true);
	if (!th)
		return -ENOMEM;
	bool moved = th->cpu_at != cpu + 1;
	th->cpu_at = cpu + 1;
	struct tl_ent *ran = entry(t, tid, cpu, EV_RAN, true); /* th may move */
	if (!ran)
		return -ENOMEM;
	if (moved || !ran->first_run)
		ran->first_run = time; /* a stay on this CPU begins */
	if (time > ran->last_run)
		ran->last_run = time;
	return 0;
}

static int forked(struct rec_timeline *t, pid_t tid, uint64_t time)
{
	saw(t, 0, 0, time);
	if (tid <= 0 || !time)
		return 0;
	struct tl_ent *th = entry(t, tid, CPU_ANY, EV_START, true);
	if (!th)
		return -ENOMEM;
	th->last = time; /* a reused id: the new thread's */
	return 0;
}

int rec_timeline__note(struct rec_timeline *t, const struct hpm_prec *p, bool spans)
{
	if (p->type == HPM_PREC_SAMPLE)
		return saw(t, spans ? p->sample.tid : 0, p->sample.cpu, p->sample.time);
	if (p->type == HPM_PREC_FORK && spans)
		return forked(t, p->task.tid, p->task.time);
	return 0;
}
