/* SPDX-License-Identifier: MIT */
/*
 * hpmon record --timeline-interval: the session's READ records (each a
 * thread's counts on one CPU so far) made TIMELINE records (the counts
 * since that thread's previous reading there), so that a thread's
 * records add up to its counts and each is small. A reading that
 * counted nothing new is not written (with rec_timeline__mark_idle, the
 * first and the last of a quiet spell are: readings at every interval,
 * hpmon's own before Linux 6.12, then show where the counting stopped
 * and where it started again, not only the reading after).
 *
 * The previous reading of each (thread, CPU, event) is kept in a hash
 * table; a thread's final reading resets its entries, so that a thread
 * id the system reuses starts from zero.
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

#include "record-cmd.h"

#define CPU_ANY UINT32_MAX

struct tl_ent {
	pid_t tid;          /* 0: empty */
	uint32_t cpu, ev;
	uint64_t value, enabled, running;
	bool moved;         /* idle_marks: the last reading written counted */
	uint64_t idle_time; /* idle_marks: the last one that did not, not written */
};

struct rec_timeline {
	struct tl_ent *v;
	size_t cap, nr;     /* cap a power of two */
	uint64_t *delta;    /* one record's values */
	size_t delta_cap;
	uint64_t *zeros;    /* [delta_cap] */
	uint64_t last_time; /* of the last reading: the final ones' */
	bool idle_marks;    /* rec_timeline__mark_idle */
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
	free(t->zeros);
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
		uint64_t *z = calloc(r->nr_values, sizeof(*z));
		if (!z)
			return -ENOMEM;
		free(t->zeros);
		t->zeros = z;
		t->delta_cap = r->nr_values;
	}
	bool any = false;
	uint64_t den = 0, drun = 0;
	for (uint32_t k = 0; k < r->nr_values; k++) {
		struct tl_ent *e = entry(t, r->tid, r->cpu, r->ev + k, true);
		if (!e)
			return -ENOMEM;
		/* a count never goes back; if it seems to, it is a new thread */
		t->delta[k] = r->values[k] >= e->value ? r->values[k] - e->value : r->values[k];
		any |= t->delta[k] != 0;
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
			e->value = e->running = 0;
			struct tl_ent *th = k ? NULL : entry(t, r->tid, CPU_ANY, r->ev, false);
			if (th)
				th->enabled = 0;
		}
	}
	uint64_t time = r->time ? r->time : t->last_time;
	if (time > t->last_time)
		t->last_time = time;
	struct hpm_prec p = { .type = HPM_PREC_TIMELINE };
	struct tl_ent *e0 = t->idle_marks ? entry(t, r->tid, r->cpu, r->ev, false) : NULL;
	if (e0 && !any && !e0->moved) {
		e0->idle_time = time; /* quiet on: written if it is the last one */
		return 0;
	}
	if (e0 && any && e0->idle_time) {
		/* the quiet spell's last reading: the counts start again after it */
		p.read = *r;
		p.read.time = e0->idle_time;
		p.read.final = false;
		p.read.enabled = p.read.running = 0;
		p.read.values = t->zeros;
		int rc = hpm_profile_writer__add(w, &p);
		if (rc)
			return rc;
	}
	if (e0) { /* a quiet spell's first reading is written: where it stopped */
		e0->moved = any;
		e0->idle_time = 0;
	}
	if (!any && !e0)
		return 0;
	p.read = *r;
	p.read.time = time;
	p.read.enabled = den;
	p.read.running = drun;
	p.read.values = t->delta;
	return hpm_profile_writer__add(w, &p);
}

void rec_timeline__mark_idle(struct rec_timeline *t)
{
	t->idle_marks = true;
}

void rec_timeline__saw(struct rec_timeline *t, uint64_t time)
{
	if (time > t->last_time)
		t->last_time = time;
}
