/* SPDX-License-Identifier: MIT */
/*
 * The kernel's records of a sampling session, to struct hpm_prec
 * (sample/sample-internal.h). The bytes come from a ring buffer the
 * kernel writes: every field is read through a cursor bounded by the
 * record's own size, and a count that does not fit in what is left is
 * a malformed record, never a read past it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sample/sample-internal.h"

#define REC_MAX_CHAIN 1024

/* The event of kernel id @id, or -1. */
static int lookup_ev(const struct hpm_record *r, uint64_t id)
{
	const struct rec_id *e = hpm__record_lookup(r, id);
	return e ? (int)e->ev : -1;
}

/* ---- parsing the kernel's records ---- */

struct cursor {
	const unsigned char *p, *end;
	bool bad;
};

static uint64_t take64(struct cursor *c)
{
	uint64_t v = 0;
	if (c->end - c->p < 8) {
		c->bad = true;
		c->p = c->end;
		return 0;
	}
	memcpy(&v, c->p, 8);
	c->p += 8;
	return v;
}

static void take32x2(struct cursor *c, uint32_t *a, uint32_t *b)
{
	uint64_t v = take64(c);
	*a = (uint32_t)v;
	*b = (uint32_t)(v >> 32);
}

/* Words of one value of a read (PERF_SAMPLE_READ, read(2)): the value,
 * then its id and its lost count when the read format has them. */
static size_t read_stride(const struct perf_event_attr *a)
{
	return 1 + !!(a->read_format & PERF_FORMAT_ID) + !!(a->read_format & PERF_FORMAT_LOST);
}

/* The fields in the order the kernel writes them, each present as the
 * event's sample_type says (an event's record terms change it: time=0
 * drops the time, call-graph= the chain, registers and stack). */
static int parse_sample(struct hpm_record *r, const struct perf_event_header *h,
			struct hpm_prec *out)
{
	struct cursor c = { (const unsigned char *)(h + 1), (const unsigned char *)h + h->size, false };
	struct hpm_sample *s = &out->sample;
	uint32_t a, b;
	int ev = lookup_ev(r, take64(&c));

	if (ev < 0)
		return -1;
	const struct perf_event_attr *at = hpm__record_attr_of(r, (size_t)ev);
	const uint64_t st = at->sample_type;
	uint64_t enabled = 0, running = 0;
	memset(s, 0, sizeof(*s));
	out->type = HPM_PREC_SAMPLE;
	s->ev = (uint32_t)ev;
	s->mode = (enum hpm_mode)(h->misc & PERF_RECORD_MISC_CPUMODE_MASK);
	if (st & PERF_SAMPLE_IP)
		s->ip = take64(&c);
	if (st & PERF_SAMPLE_TID) {
		take32x2(&c, &a, &b);
		s->pid = (pid_t)a;
		s->tid = (pid_t)b;
	}
	if (st & PERF_SAMPLE_TIME)
		s->time = take64(&c);
	if (st & PERF_SAMPLE_CPU) {
		take32x2(&c, &a, &b);
		s->cpu = a;
	}
	s->period = st & PERF_SAMPLE_PERIOD ? take64(&c) : at->sample_period;
	if (st & PERF_SAMPLE_READ) {
		/* a group (the only reads asked for): nr, then nr values */
		size_t stride = read_stride(at);
		uint64_t nr = take64(&c);
		if (at->read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) /* the timers' */
			enabled = take64(&c);
		if (at->read_format & PERF_FORMAT_TOTAL_TIME_RUNNING)
			running = take64(&c);
		/* a group, and a timer's group has the timer too */
		if (nr > r->nr_ev + 1 || (uint64_t)(c.end - c.p) < nr * stride * 8)
			return -1;
		if (nr > r->vals_cap) {
			uint64_t *v = realloc(r->vals, nr * sizeof(*v));
			if (!v)
				return -ENOMEM;
			r->vals = v;
			r->vals_cap = nr;
		}
		for (uint64_t k = 0; k < nr; k++) {
			r->vals[k] = take64(&c);
			c.p += (stride - 1) * 8; /* id, lost: members come in group order */
		}
		s->nr_values = (uint32_t)nr;
		s->values = r->vals;
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr = take64(&c);
		if (nr > REC_MAX_CHAIN || (uint64_t)(c.end - c.p) < nr * 8)
			return -1;
		s->nr_chain = (uint32_t)nr;
		s->chain = (const uint64_t *)(const void *)c.p; /* 8-aligned in place */
		c.p += nr * 8;
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		uint64_t abi = take64(&c);
		s->regs_abi = (uint32_t)abi;
		if (abi) {
			size_t n = (size_t)__builtin_popcountll(at->sample_regs_user);
			if ((size_t)(c.end - c.p) < n * 8)
				return -1;
			s->nr_regs = (uint32_t)n;
			s->regs = (const uint64_t *)(const void *)c.p;
			c.p += n * 8;
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		uint64_t size = take64(&c);
		if (size) {
			if ((uint64_t)(c.end - c.p) < size + 8)
				return -1;
			const unsigned char *data = c.p;
			c.p += size;
			uint64_t dyn = take64(&c);
			s->stack = data;
			s->stack_len = (uint32_t)(dyn < size ? dyn : size);
		}
	}
	if (c.bad)
		return -1;
	return (size_t)ev < r->nr_ev ? 0
				      : hpm__record_timeline_tick(r, (size_t)ev, enabled, running, out);
}

/* The sample_id trailer of a non-sample record: its fields (TID, TIME,
 * ID, STREAM_ID, CPU, IDENTIFIER, those the writing event's sample_type
 * has) end the record, IDENTIFIER last, which says the event and so the
 * layout; the side-band dummy, whose id is not an event's, has TID, TIME,
 * CPU and IDENTIFIER. Time 0 when the record has none. */
static void trailer(const struct hpm_record *r, const struct perf_event_header *h,
		    uint64_t *time, uint64_t *id)
{
	const unsigned char *end = (const unsigned char *)h + h->size;
	uint64_t st = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	size_t back = 8; /* IDENTIFIER */

	*time = 0;
	*id = 0;
	if (h->size < sizeof(*h) + 8)
		return;
	memcpy(id, end - 8, 8);
	int ev = lookup_ev(r, *id);
	if (ev >= 0)
		st = hpm__record_attr_of(r, (size_t)ev)->sample_type;
	if (!(st & PERF_SAMPLE_TIME))
		return;
	back += 8 * (!!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_STREAM_ID) +
		     !!(st & PERF_SAMPLE_ID));
	if (h->size >= sizeof(*h) + back + 8)
		memcpy(time, end - back - 8, 8);
}

static int parse_other(struct hpm_record *r, const struct perf_event_header *h,
		       struct hpm_prec *out)
{
	const unsigned char *body = (const unsigned char *)(h + 1);
	size_t blen = h->size - sizeof(*h);
	uint64_t time, id;
	uint32_t w[4];

	trailer(r, h, &time, &id);
	switch (h->type) {
	case PERF_RECORD_MMAP2: {
		struct hpm_mmap_rec *m = &out->mmap;
		const size_t fixed = 8 + 24 + 24 + 8;
		if (blen < fixed + 1 + 32)
			return -1;
		memset(m, 0, sizeof(*m));
		out->type = HPM_PREC_MMAP;
		memcpy(w, body, 8);
		m->pid = (pid_t)w[0];
		m->tid = (pid_t)w[1];
		memcpy(&m->start, body + 8, 8);
		memcpy(&m->len, body + 16, 8);
		memcpy(&m->pgoff, body + 24, 8);
		if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			uint8_t n = body[32];
			m->build_id_len = n > HPM_BUILD_ID_MAX ? HPM_BUILD_ID_MAX : n;
			memcpy(m->build_id, body + 36, m->build_id_len);
		}
		memcpy(&m->prot, body + 56, 4);
		memcpy(&m->flags, body + 60, 4);
		m->filename = (const char *)body + fixed;
		if (!memchr(m->filename, '\0', blen - fixed - 32))
			return -1;
		m->time = time;
		return 0;
	}
	case PERF_RECORD_COMM: {
		struct hpm_comm_rec *cm = &out->comm;
		if (blen < 8 + 1 + 32)
			return -1;
		out->type = HPM_PREC_COMM;
		memcpy(w, body, 8);
		cm->pid = (pid_t)w[0];
		cm->tid = (pid_t)w[1];
		cm->comm = (const char *)body + 8;
		if (!memchr(cm->comm, '\0', blen - 8 - 32))
			return -1;
		cm->exec = h->misc & PERF_RECORD_MISC_COMM_EXEC;
		cm->time = time;
		return 0;
	}
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		struct hpm_task_rec *t = &out->task;
		if (blen < 24)
			return -1;
		out->type = h->type == PERF_RECORD_FORK ? HPM_PREC_FORK : HPM_PREC_EXIT;
		memcpy(w, body, 16);
		t->pid = (pid_t)w[0];
		t->ppid = (pid_t)w[1];
		t->tid = (pid_t)w[2];
		t->ptid = (pid_t)w[3];
		memcpy(&t->time, body + 16, 8);
		return 0;
	}
	case PERF_RECORD_LOST: {
		uint64_t v[2];
		if (blen < 16)
			return -1;
		memcpy(v, body, 16);
		int ev = lookup_ev(r, v[0]);
		out->type = HPM_PREC_LOST;
		out->lost = (struct hpm_lost_rec){ time, ev < 0 ? UINT32_MAX : (uint32_t)ev, v[1] };
		r->st.lost += v[1];
		return 0;
	}
	case PERF_RECORD_LOST_SAMPLES: {
		uint64_t n;
		if (blen < 8)
			return -1;
		memcpy(&n, body, 8);
		int ev = lookup_ev(r, id);
		out->type = HPM_PREC_LOST;
		out->lost = (struct hpm_lost_rec){ time, ev < 0 ? UINT32_MAX : (uint32_t)ev, n };
		r->st.lost_samples += n;
		return 0;
	}
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE: {
		uint64_t v[2];
		if (blen < 16)
			return -1;
		memcpy(v, body, 16);
		int ev = lookup_ev(r, v[1]);
		out->type = h->type == PERF_RECORD_THROTTLE ? HPM_PREC_THROTTLE : HPM_PREC_UNTHROTTLE;
		out->lost = (struct hpm_lost_rec){ v[0], ev < 0 ? UINT32_MAX : (uint32_t)ev, 1 };
		if (h->type == PERF_RECORD_THROTTLE)
			r->st.throttled++;
		return 0;
	}
	case PERF_RECORD_READ:
		return hpm__record_timeline_exit(r, h, time, id, out);
	default:
		return 1; /* not ours to pass on */
	}
}

int hpm__record_parse(struct hpm_record *r, const struct perf_event_header *h,
		      struct hpm_prec *out)
{
	return h->type == PERF_RECORD_SAMPLE ? parse_sample(r, h, out) : parse_other(r, h, out);
}
