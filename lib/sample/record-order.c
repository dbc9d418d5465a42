/* SPDX-License-Identifier: MIT */
/*
 * Time order across ring buffers (record-order-internal.h).
 *
 * Each CPU's buffer holds that CPU's records, and the reader drains the
 * buffers one after the other, so a sample of CPU 1 would otherwise reach
 * the profile before the COMM or MMAP record of CPU 0 that precedes it in
 * time, and be reported under a thread's old name or outside its mapping.
 * The queue keeps copies of the records and hands them out sorted by time
 * once no buffer can still hold an older one.
 *
 * When is a record safe? A drain round n reads every buffer: for each one
 * it takes the kernel's data_head once and copies what lies before it.
 * The round begins at B(n) and ends at E(n) (CLOCK_MONOTONIC). Let M(n) be
 * the greatest time of all records read in rounds up to n. Each of those
 * records was complete in its buffer before E(n), so the instant it was
 * timestamped, and with it the instant M(n) stands for, lies before E(n).
 *
 * Now take a later round r whose reads began at least @gap after round k
 * ended: B(r) - E(k) >= gap. A record that round r did not read was not
 * yet complete when r took its buffer's head, after B(r). Were its time
 * below M(k), the kernel would have timestamped it before E(k) and
 * published it after B(r): more than @gap later. The kernel takes the
 * timestamp and publishes a record in one stretch with preemption off
 * (perf_prepare_sample ... perf_output_end; interrupts and NMIs that nest
 * in it delay it by microseconds), so with a gap of milliseconds no such
 * record exists. Every record with a time up to M(k) is therefore in the
 * queue by the end of round r, and they can be handed out in order. The
 * records of round r above M(k) wait for a later round.
 *
 * The tool drains on a 100 ms poll timeout or when a buffer is a quarter
 * full, so with a gap of 10 ms a round's records usually go out at the end
 * of the next round: what perf's ordered-events queue does with its
 * FINISHED_ROUND markers. Rounds closer together than the gap wait for one
 * that is far enough back; their marks are merged when they come faster
 * than gap/8, which keeps at most a few marks. Memory: a round reads at
 * most one buffer's worth from each buffer, so the queue holds the records
 * of the rounds of the last gap and one round before; @max_bytes is a
 * backstop beyond which the oldest records go out early (counted).
 *
 * perf's clock must agree between CPUs for any of this to mean something
 * (it does where the TSC is stable; elsewhere skew adds to the gap). At
 * the end of the session (every event disabled) the caller flushes all.
 *
 * Records without a time (0, e.g. when the kernel gave no sample_id
 * trailer) take the time of the record read before them from the same
 * buffer, and so stay right behind it; when that one went out already (or
 * there is none), the time of the last record handed out: they go out
 * next.
 *
 * Each buffer's records come almost in time order (a record whose writer
 * was interrupted can come after the interrupt's): they are kept per
 * buffer, sorted by insertion from the back, which rarely moves anything.
 * Handing out merges the buffers' runs on (time, sequence number) through
 * a small heap of the buffers: equal times keep the order in which they
 * were read. A record lives in its buffer's array;
 * what it points to (chain, values, registers, stack, strings) is copied
 * into one allocation of its own, so plain samples cost no allocation.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sample/record-order-internal.h"

#define ORDER_MARKS 16

struct ord_ent {
	uint64_t time, seq;
	struct hpm_prec p;
	void *mem;               /* the copies, or NULL */
	size_t size;             /* bytes accounted for this record */
};

/* One buffer's records, sorted: v[head .. head + nr). */
struct ord_src {
	struct ord_ent *v;
	size_t head, nr, cap;
	uint64_t last;           /* time of the last record added */
};

struct ord_mark {
	uint64_t max_time;       /* M(n): greatest time read up to the round */
	uint64_t end;            /* E(n) */
	uint64_t first;          /* E of the first round merged into it */
};

struct hpm_order {
	size_t nr_src;
	struct ord_src *src;     /* [nr_src] */
	size_t *heap;            /* [nr_src] sources with records, while flushing */
	uint64_t gap;
	size_t max_bytes;
	uint64_t seq;
	uint64_t max_time;       /* of every record added */
	uint64_t safe;           /* records up to this time may go out */
	uint64_t out_time;       /* of the last record handed out */
	struct ord_mark marks[ORDER_MARKS];
	size_t nr_marks;
	struct hpm_order_stats st;
};

struct hpm_order *hpm__order_new(size_t nr_src, uint64_t gap_ns, size_t max_bytes)
{
	struct hpm_order *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	q->src = calloc(nr_src ? nr_src : 1, sizeof(*q->src));
	q->heap = calloc(nr_src ? nr_src : 1, sizeof(*q->heap));
	if (!q->src || !q->heap) {
		hpm__order_free(q);
		errno = ENOMEM;
		return NULL;
	}
	q->nr_src = nr_src;
	q->gap = gap_ns;
	q->max_bytes = max_bytes;
	return q;
}

void hpm__order_free(struct hpm_order *q)
{
	if (!q)
		return;
	for (size_t c = 0; q->src && c < q->nr_src; c++) {
		struct ord_src *b = &q->src[c];
		for (size_t i = 0; i < b->nr; i++)
			free(b->v[b->head + i].mem);
		free(b->v);
	}
	free(q->src);
	free(q->heap);
	free(q);
}

void hpm__order_stats(const struct hpm_order *q, struct hpm_order_stats *out)
{
	*out = q->st;
}

/* ---- copies ---- */

static uint64_t rec_time(const struct hpm_prec *p)
{
	switch (p->type) {
	case HPM_PREC_SAMPLE:
		return p->sample.time;
	case HPM_PREC_MMAP:
		return p->mmap.time;
	case HPM_PREC_COMM:
		return p->comm.time;
	case HPM_PREC_FORK:
	case HPM_PREC_EXIT:
		return p->task.time;
	case HPM_PREC_LOST:
	case HPM_PREC_THROTTLE:
	case HPM_PREC_UNTHROTTLE:
		return p->lost.time;
	case HPM_PREC_RANK: /* hpmon merge's, never a recorder's */
		break;
	case HPM_PREC_READ:
	case HPM_PREC_TIMELINE:
		return p->read.time;
	}
	return 0;
}

static size_t round8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* Bytes of the copies behind a record (each part 8-aligned). The counts
 * are bounded by the parser (chains, registers, 64 KiB of stack). */
static size_t payload_len(const struct hpm_prec *p)
{
	const struct hpm_sample *s = &p->sample;

	switch (p->type) {
	case HPM_PREC_SAMPLE:
		return ((size_t)(s->values ? s->nr_values : 0) + (s->chain ? s->nr_chain : 0) +
			(s->regs ? s->nr_regs : 0)) * 8 + round8(s->stack ? s->stack_len : 0);
	case HPM_PREC_MMAP:
		return p->mmap.filename ? round8(strlen(p->mmap.filename) + 1) : 0;
	case HPM_PREC_COMM:
		return p->comm.comm ? round8(strlen(p->comm.comm) + 1) : 0;
	case HPM_PREC_READ:
	case HPM_PREC_TIMELINE:
		return (size_t)(p->read.values ? p->read.nr_values : 0) * 8;
	default:
		return 0;
	}
}

/* Copy @n bytes from @src to *@at (when there is something) and return
 * where the copy is; *@at moves past it. */
static const void *copy_part(unsigned char **at, const void *src, size_t n)
{
	void *dst = *at;

	if (!src || !n)
		return src;
	memcpy(dst, src, n);
	*at += round8(n);
	return dst;
}

/* Fill @e with @p and copies of what it points to. 0 or -ENOMEM. */
static int copy_rec(struct ord_ent *e, const struct hpm_prec *p)
{
	size_t len = payload_len(p);
	unsigned char *at;

	e->p = *p;
	e->mem = NULL;
	e->size = sizeof(*e) + len;
	if (!len)
		return 0;
	if (!(e->mem = malloc(len)))
		return -ENOMEM;
	at = e->mem;
	switch (p->type) {
	case HPM_PREC_SAMPLE: {
		struct hpm_sample *s = &e->p.sample;
		s->values = copy_part(&at, s->values, (size_t)s->nr_values * 8);
		s->chain = copy_part(&at, s->chain, (size_t)s->nr_chain * 8);
		s->regs = copy_part(&at, s->regs, (size_t)s->nr_regs * 8);
		s->stack = copy_part(&at, s->stack, s->stack_len);
		break;
	}
	case HPM_PREC_MMAP:
		if (p->mmap.filename)
			e->p.mmap.filename = copy_part(&at, p->mmap.filename,
						       strlen(p->mmap.filename) + 1);
		break;
	case HPM_PREC_COMM:
		if (p->comm.comm)
			e->p.comm.comm = copy_part(&at, p->comm.comm, strlen(p->comm.comm) + 1);
		break;
	case HPM_PREC_READ:
	case HPM_PREC_TIMELINE:
		e->p.read.values = copy_part(&at, p->read.values, (size_t)p->read.nr_values * 8);
		break;
	default:
		break;
	}
	return 0;
}

/* ---- rounds ---- */

/* Room for one more record at the back of @b. */
static int src_reserve(struct ord_src *b)
{
	if (b->head + b->nr < b->cap)
		return 0;
	if (b->head && b->head >= b->nr) { /* half of it or more went out: move down */
		memmove(b->v, b->v + b->head, b->nr * sizeof(*b->v));
		b->head = 0;
		return 0;
	}
	size_t nc = b->cap ? b->cap * 2 : 256;
	struct ord_ent *v = realloc(b->v, nc * sizeof(*v));
	if (!v)
		return -ENOMEM;
	b->v = v;
	b->cap = nc;
	return 0;
}

int hpm__order_add(struct hpm_order *q, size_t src, const struct hpm_prec *rec)
{
	uint64_t t;
	struct ord_src *b;
	int rc;

	if (src >= q->nr_src)
		return -EINVAL;
	b = &q->src[src];
	t = rec_time(rec);
	if (!t) /* behind its buffer's previous record, or next if that went out */
		t = b->last > q->out_time ? b->last : q->out_time;
	if ((rc = src_reserve(b)))
		return rc;
	/* the place from the back: after every record of a time up to t */
	size_t i = b->head + b->nr;
	while (i > b->head && b->v[i - 1].time > t)
		i--;
	struct ord_ent *e = &b->v[i];
	if (i < b->head + b->nr)
		memmove(e + 1, e, (b->head + b->nr - i) * sizeof(*e));
	if ((rc = copy_rec(e, rec))) {
		memmove(e, e + 1, (b->head + b->nr - i) * sizeof(*e));
		return rc;
	}
	e->time = t;
	e->seq = q->seq++;
	b->nr++;
	b->last = t;
	if (t > q->max_time)
		q->max_time = t;
	if (t < q->out_time)
		q->st.late++;
	q->st.queued++;
	q->st.bytes += e->size;
	if (q->st.bytes > q->st.max_bytes)
		q->st.max_bytes = q->st.bytes;
	return 0;
}

void hpm__order_begin(struct hpm_order *q, uint64_t now)
{
	size_t k = 0;

	/* marks are in the order of their rounds, so both fields grow */
	while (k < q->nr_marks && now >= q->marks[k].end && now - q->marks[k].end >= q->gap) {
		if (q->marks[k].max_time > q->safe)
			q->safe = q->marks[k].max_time;
		k++;
	}
	if (k) {
		memmove(q->marks, q->marks + k, (q->nr_marks - k) * sizeof(q->marks[0]));
		q->nr_marks -= k;
	}
}

void hpm__order_end(struct hpm_order *q, uint64_t now)
{
	struct ord_mark *last = q->nr_marks ? &q->marks[q->nr_marks - 1] : NULL;

	/* Merging into the last mark only postpones it: a later end with a
	 * greater time is vouched for by the same argument, just later. A
	 * mark takes the rounds of gap/8 (so there are at most about nine),
	 * never more, or rounds in quick succession would postpone it for
	 * ever. */
	if (last && (q->nr_marks == ORDER_MARKS || now - last->first < q->gap / 8)) {
		last->max_time = q->max_time;
		last->end = now;
		return;
	}
	q->marks[q->nr_marks++] = (struct ord_mark){ q->max_time, now, now };
}

/* ---- handing out: a merge of the buffers' runs ---- */

static const struct ord_ent *front(const struct hpm_order *q, size_t c)
{
	return &q->src[c].v[q->src[c].head];
}

static bool before(const struct hpm_order *q, size_t a, size_t b)
{
	const struct ord_ent *x = front(q, a), *y = front(q, b);
	return x->time < y->time || (x->time == y->time && x->seq < y->seq);
}

/* The heap of buffers by their first record: restore it below @i. */
static void sift_down(const struct hpm_order *q, size_t *h, size_t n, size_t i)
{
	size_t x = h[i];

	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && before(q, h[c + 1], h[c]))
			c++;
		if (!before(q, h[c], x))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
}

int hpm__order_flush(struct hpm_order *q, bool all, hpm_record_fn fn, void *arg)
{
	size_t *h = q->heap, n = 0;
	int done = 0;

	for (size_t c = 0; c < q->nr_src; c++)
		if (q->src[c].nr)
			h[n++] = c;
	for (size_t i = n / 2; i-- > 0;)
		sift_down(q, h, n, i);
	while (n) {
		struct ord_src *b = &q->src[h[0]];
		/* the slot stays put until the next add: no copy */
		const struct ord_ent *e = &b->v[b->head];
		if (!all && e->time > q->safe) {
			if (q->st.bytes <= q->max_bytes)
				break;
			q->st.early++;
		}
		b->head++;
		if (!--b->nr) {
			b->head = 0;
			h[0] = h[--n];
		}
		if (n)
			sift_down(q, h, n, 0);
		q->st.queued--;
		q->st.bytes -= e->size;
		if (e->time > q->out_time)
			q->out_time = e->time;
		int rc = fn(&e->p, arg);
		free(e->mem);
		if (rc < 0)
			return rc;
		done++;
	}
	return done;
}
