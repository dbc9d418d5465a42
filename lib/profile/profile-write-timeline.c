/* SPDX-License-Identifier: MIT */
/*
 * The writer's TIMELINE records (profile-write-timeline-internal.h, the
 * layout in docs/profile-format.md): held while their chunk fills, then
 * sorted by thread and written at its end.
 *
 * Why held and sorted: a reading among the samples breaks the runs of
 * alike samples that zstd compresses, and the readings of one thread,
 * side by side, differ from each other by little: the time by about an
 * interval, the span's start not at all (it is the previous reading's
 * time), the counts by the change of rate. Times are in a hundredth of
 * the interval (the writer's tl_unit): a reading is placed in its bin
 * closely enough, and its own moment varies by more than that on a busy
 * machine (the scheduler's delays), which finer times would only store.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile/encode-internal.h"
#include "profile/profile-internal.h"
#include "profile/profile-write-timeline-internal.h"

struct tl_held {
	struct hpm_read_rec r;   /* r.values is not used: vals + voff */
	size_t voff;
	size_t seq;              /* the order they came in */
};

int tl_batch__add(struct tl_batch *b, const struct hpm_read_rec *r)
{
	if (b->nr == b->cap) {
		size_t nc = b->cap ? b->cap * 2 : 256;
		struct tl_held *v = realloc(b->v, nc * sizeof(*v));
		if (!v)
			return -ENOMEM;
		b->v = v;
		b->cap = nc;
	}
	if (b->nr_vals + r->nr_values > b->cap_vals) {
		size_t nc = b->cap_vals ? b->cap_vals : 1024;
		while (nc < b->nr_vals + r->nr_values)
			nc *= 2;
		uint64_t *v = realloc(b->vals, nc * sizeof(*v));
		if (!v)
			return -ENOMEM;
		b->vals = v;
		b->cap_vals = nc;
	}
	struct tl_held *h = &b->v[b->nr];
	h->r = *r;
	h->r.values = NULL;
	h->voff = b->nr_vals;
	h->seq = b->nr++;
	if (r->nr_values)
		memcpy(b->vals + b->nr_vals, r->values, r->nr_values * sizeof(*r->values));
	b->nr_vals += r->nr_values;
	b->bytes += 96 + (size_t)r->nr_values * 11;
	return 0;
}

static int cmp_held(const void *pa, const void *pb)
{
	const struct tl_held *a = pa, *b = pb;
#define CMP(f) if (a->f != b->f) return a->f < b->f ? -1 : 1
	CMP(r.pid);
	CMP(r.tid);
	CMP(r.cpu);
	CMP(r.ev);
	CMP(seq);
#undef CMP
	return 0;
}

/* The encoder's state: the chunk's previous TIMELINE record. */
struct tl_enc {
	pid_t pid, tid;
	uint32_t cpu, ev;
	uint64_t unit;           /* of the times, ns */
	uint64_t time, enabled_us;
	bool fresh;
	uint64_t *prev;          /* [nr_ev] each event's last value */
};

/* The shift of a value: its trailing zero bits, but no more than leave
 * HPM_TIMELINE_BITS significant ones. hpmon record rounds a reading to
 * that many bits, so the low bits are 0 and the value is written as the
 * difference of what is left; the cap gives the readings of a steady
 * rate one shift, even those whose last kept bits happen to be 0. */
static unsigned shift_of(uint64_t v)
{
	if (!v)
		return 0;
	unsigned s = (unsigned)__builtin_ctzll(v), bits = 64 - (unsigned)__builtin_clzll(v);
	unsigned most = bits > HPM_TIMELINE_BITS ? bits - HPM_TIMELINE_BITS : 0;
	return s < most ? s : most;
}

static void enc_one(struct tl_enc *e, struct wbuf *b, const struct hpm_read_rec *t,
		    const uint64_t *vals)
{
	unsigned tag = TAG_TIMELINE | (t->final ? TF_FINAL : 0);
	if (!e->fresh && t->pid == e->pid && t->tid == e->tid)
		tag |= TF_SAME_TASK;
	if (!e->fresh && t->cpu == e->cpu && t->ev == e->ev)
		tag |= TF_SAME_CPUEV;
	if (t->running == t->enabled)
		tag |= TF_RUN_ALL;
	put_byte(b, tag);
	if (!(tag & TF_SAME_TASK)) {
		put_var(b, (uint32_t)t->pid);
		put_var(b, (uint32_t)t->tid);
	}
	if (!(tag & TF_SAME_CPUEV)) {
		put_var(b, t->cpu);
		put_var(b, t->ev);
	}
	/* the span: from its start (0, unknown: none) to the reading */
	uint64_t time = t->time / e->unit;
	uint64_t start = t->start && t->start <= t->time ? t->start / e->unit : time;
	put_var(b, zz_enc((int64_t)(time - e->time)));
	put_var(b, zz_enc((int64_t)(start - e->time)));
	e->time = time;
	/* how much of it was counted: nothing to say when all of it was.
	 * Enabled rounds up, so that a group that was enabled says so;
	 * the time it was not running to the nearest */
	if (!(tag & TF_RUN_ALL)) {
		uint64_t en = t->enabled / TL_US + (t->enabled % TL_US != 0);
		uint64_t off = t->running < t->enabled ? t->enabled - t->running : 0;
		off = (off + TL_US / 2) / TL_US;
		put_var(b, zz_enc((int64_t)(en - e->enabled_us)));
		put_var(b, off < en ? off : en);
		e->enabled_us = en;
	}
	put_var(b, t->nr_values);
	for (uint32_t k = 0; k < t->nr_values; k++) {
		uint64_t *prev = &e->prev[t->ev + k];
		unsigned s = shift_of(vals[k]);
		put_var(b, s);
		put_var(b, zz_enc((int64_t)((vals[k] >> s) - (*prev >> s))));
		*prev = vals[k];
	}
	e->pid = t->pid;
	e->tid = t->tid;
	e->cpu = t->cpu;
	e->ev = t->ev;
	e->fresh = false;
}

int tl_batch__write(struct tl_batch *b, struct wbuf *out, uint64_t *prev, uint32_t nr_ev,
		    uint64_t unit)
{
	if (!b->nr)
		return 0;
	if (!reserve(out, b->bytes))
		return -ENOMEM;
	qsort(b->v, b->nr, sizeof(*b->v), cmp_held);
	struct tl_enc e = { .unit = unit ? unit : TL_US, .fresh = true, .prev = prev };
	memset(prev, 0, nr_ev * sizeof(*prev));
	for (size_t i = 0; i < b->nr; i++)
		enc_one(&e, out, &b->v[i].r, b->vals + b->v[i].voff);
	out->nr += (uint32_t)b->nr;
	b->nr = b->nr_vals = b->bytes = 0;
	return 0;
}

void tl_batch__release(struct tl_batch *b)
{
	free(b->v);
	free(b->vals);
	memset(b, 0, sizeof(*b));
}
