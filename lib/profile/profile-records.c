/* SPDX-License-Identifier: MIT */
/*
 * Reading profiles: the records of a chunk (docs/profile-format.md), one
 * at a time (hpm_profile__next) or a run of repeated samples at once
 * (hpm_profile__repeats). profile-read.c loads the chunks.
 *
 * The input is untrusted: every length is checked against what is left,
 * every count against a fixed limit; a damaged record ends the records,
 * and the status says where.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "profile/perfdata-internal.h"
#include "profile/profile-reader-internal.h"

/* ---- records ---- */

static uint64_t get_time(struct hpm_profile *p, struct cur *c)
{
	p->d.time += (uint64_t)zz_dec(get_var(c));
	return p->d.time;
}

static int dec_sample(struct hpm_profile *p, struct cur *c, unsigned tag, struct hpm_sample *s)
{
	struct dec *d = &p->d;

	if (tag & SF_TASK) {
		d->pid = (pid_t)get_var(c);
		d->tid = (pid_t)get_var(c);
	}
	if (tag & SF_CPUEV) {
		d->cpu = (uint32_t)get_var(c);
		d->ev = (uint32_t)get_var(c);
		if (d->ev >= p->meta.nr_events)
			return -1;
	}
	if (tag & SF_PERIOD)
		d->period = get_var(c);
	if (tag & SF_MODE)
		d->mode = (enum hpm_mode)get_byte(c);
	/* field by field: a memset of the whole sample costs more than the
	 * rest of a small sample's decoding */
	s->nr_values = 0;
	s->values = NULL;
	s->nr_chain = 0;
	s->chain = NULL;
	s->regs_abi = 0;
	s->nr_regs = 0;
	s->regs = NULL;
	s->stack_len = 0;
	s->stack = NULL;
	s->pid = d->pid;
	s->tid = d->tid;
	s->cpu = d->cpu;
	s->ev = d->ev;
	s->period = d->period;
	s->mode = d->mode;
	s->time = get_time(p, c);
	d->ip += (uint64_t)zz_dec(get_var(c));
	s->ip = d->ip;
	uint64_t st = p->events[d->ev].sample_type;
	if (st & PERF_SAMPLE_READ) {
		uint64_t n = get_var(c);
		uint64_t *prev = &d->vals[(size_t)d->ev * p->max_group];
		if (n > p->max_group)
			return -1;
		for (uint64_t k = 0; k < n; k++) {
			prev[k] += (uint64_t)zz_dec(get_var(c));
			p->vals_out[k] = prev[k];
		}
		s->nr_values = (uint32_t)n;
		s->values = p->vals_out;
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		uint64_t n = get_var(c), keep = get_var(c);
		if (n > PROF_MAX_CHAIN || keep > n || keep > d->nr_chain)
			return -1;
		if (p->skip & HPM_PROFILE_SKIP_CHAINS) {
			skip_vars(c, n - keep);
			d->nr_chain = (uint32_t)n; /* what the next sample may keep */
			goto regs;
		}
		if (keep == n && n == d->nr_chain) {
			/* the previous sample's chain whole: handed out as it
			 * is (it stays until the next sample's is decoded) */
			s->nr_chain = (uint32_t)n;
			s->chain = d->chain;
			goto regs;
		}
		uint64_t prev = s->ip, *out = p->chain;
		for (uint64_t k = 0; k < n - keep; k++) {
			prev += (uint64_t)zz_dec(get_var(c));
			out[k] = prev;
		}
		if (keep)
			memcpy(out + n - keep, d->chain + d->nr_chain - keep, keep * sizeof(uint64_t));
		/* this chain is the next sample's previous one: swap, not copy */
		p->chain = d->chain;
		d->chain = out;
		d->nr_chain = (uint32_t)n;
		s->nr_chain = (uint32_t)n;
		s->chain = out;
	}
regs:
	if (st & PERF_SAMPLE_REGS_USER) {
		uint32_t abi = (uint32_t)get_var(c);
		uint64_t n = get_var(c);
		if (n > PROF_MAX_REGS)
			return -1;
		if (p->skip & HPM_PROFILE_SKIP_STACKS) {
			for (uint64_t k = 0; k < n; k++)
				skip_var(c);
		} else {
			for (uint64_t k = 0; k < n; k++)
				p->regs[k] = get_var(c);
			s->regs_abi = abi;
			s->nr_regs = (uint32_t)n;
			s->regs = p->regs;
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		uint64_t n = get_var(c);
		const unsigned char *b;
		if (n > PROF_MAX_STACK || !(b = get_bytes(c, n)))
			return -1;
		if (!(p->skip & HPM_PROFILE_SKIP_STACKS)) {
			s->stack_len = (uint32_t)n;
			s->stack = b;
		}
	}
	return c->bad ? -1 : 0;
}

/* TIMELINE, in either encoding: minor 1's (10: times in ns, each the
 * chunk's time delta, no span) or minor 2's (12: times in the header's
 * unit, their own deltas, the span's start; enabled and running in us). */
static int dec_timeline(struct hpm_profile *p, struct cur *c, unsigned tag,
			struct hpm_read_rec *t)
{
	struct dec *d = &p->d;
	bool v2 = (tag & 0xf) == TAG_TIMELINE;

	t->final = tag & TF_FINAL;
	if (!(tag & TF_SAME_TASK)) {
		d->tl_pid = (pid_t)get_var(c);
		d->tl_tid = (pid_t)get_var(c);
	}
	if (!(tag & TF_SAME_CPUEV)) {
		d->tl_cpu = (uint32_t)get_var(c);
		uint64_t ev = get_var(c);
		if (ev >= p->meta.nr_events)
			return -1;
		d->tl_ev = (uint32_t)ev;
	}
	t->pid = d->tl_pid;
	t->tid = d->tl_tid;
	t->cpu = d->tl_cpu;
	t->ev = d->tl_ev;
	t->start = 0;
	if (v2) {
		uint64_t prev = d->tl_time;
		d->tl_time += (uint64_t)zz_dec(get_var(c));
		uint64_t start = prev + (uint64_t)zz_dec(get_var(c));
		if (start > d->tl_time)
			return -1; /* a span ends at its reading */
		t->time = d->tl_time * p->tl_unit;
		t->start = start * p->tl_unit;
	} else {
		t->time = get_time(p, c);
	}
	t->enabled = t->running = 0; /* TF_RUN_ALL: counted all the time */
	if (!(tag & TF_RUN_ALL) && v2) {
		d->tl_enabled_us += (uint64_t)zz_dec(get_var(c));
		uint64_t off = get_var(c);
		if (off > d->tl_enabled_us)
			return -1;
		t->enabled = d->tl_enabled_us * TL_US;
		t->running = (d->tl_enabled_us - off) * TL_US;
	} else if (!(tag & TF_RUN_ALL)) {
		d->tl_enabled += (uint64_t)zz_dec(get_var(c));
		t->enabled = d->tl_enabled;
		t->running = t->enabled - (uint64_t)zz_dec(get_var(c));
	}
	uint64_t n = get_var(c);
	/* events of one group: at most the largest group, within the header */
	if (t->ev >= p->meta.nr_events || n > p->max_group || n > p->meta.nr_events - t->ev)
		return -1;
	for (uint64_t k = 0; k < n; k++) {
		uint64_t *prev = &d->tl_vals[t->ev + k];
		if (v2) {
			/* the value's shift, then what is left of it as a difference */
			uint64_t s = get_var(c);
			if (s > 63)
				return -1;
			uint64_t m = (*prev >> s) + (uint64_t)zz_dec(get_var(c));
			if ((m << s) >> s != m)
				return -1;
			*prev = m << s;
		} else {
			*prev += (uint64_t)zz_dec(get_var(c));
		}
		p->vals_out[k] = *prev;
	}
	t->nr_values = (uint32_t)n;
	t->values = p->vals_out;
	return 0;
}

static int dec_record(struct hpm_profile *p, struct cur *c, struct hpm_prec *r)
{
	unsigned tag = get_byte(c);

	switch (tag & 0xf) {
	case TAG_SAMPLE:
		r->type = HPM_PREC_SAMPLE;
		return dec_sample(p, c, tag, &r->sample);
	case TAG_MMAP: {
		struct hpm_mmap_rec *m = &r->mmap;
		r->type = HPM_PREC_MMAP;
		memset(m, 0, sizeof(*m));
		m->pid = (pid_t)get_var(c);
		m->tid = (pid_t)get_var(c);
		m->time = get_time(p, c);
		m->start = get_var(c);
		m->len = get_var(c);
		m->pgoff = get_var(c);
		m->prot = (uint32_t)get_var(c);
		m->flags = (uint32_t)get_var(c);
		unsigned n = get_byte(c);
		const unsigned char *b;
		if (n > HPM_BUILD_ID_MAX || !(b = get_bytes(c, n)))
			return -1;
		m->build_id_len = (uint8_t)n;
		memcpy(m->build_id, b, n);
		get_str(c, p->str);
		m->filename = p->str;
		return c->bad ? -1 : 0;
	}
	case TAG_COMM:
		r->type = HPM_PREC_COMM;
		r->comm.exec = tag & CF_EXEC;
		r->comm.pid = (pid_t)get_var(c);
		r->comm.tid = (pid_t)get_var(c);
		r->comm.time = get_time(p, c);
		get_str(c, p->str);
		r->comm.comm = p->str;
		return c->bad ? -1 : 0;
	case TAG_FORK:
	case TAG_EXIT:
		r->type = (tag & 0xf) == TAG_FORK ? HPM_PREC_FORK : HPM_PREC_EXIT;
		r->task.pid = (pid_t)get_var(c);
		r->task.ppid = (pid_t)get_var(c);
		r->task.tid = (pid_t)get_var(c);
		r->task.ptid = (pid_t)get_var(c);
		r->task.time = get_time(p, c);
		return c->bad ? -1 : 0;
	case TAG_LOST:
	case TAG_THROTTLE:
	case TAG_UNTHROTTLE: {
		r->type = (tag & 0xf) == TAG_LOST ? HPM_PREC_LOST :
			  (tag & 0xf) == TAG_THROTTLE ? HPM_PREC_THROTTLE : HPM_PREC_UNTHROTTLE;
		r->lost.time = get_time(p, c);
		uint64_t ev = get_var(c);
		r->lost.ev = ev == 0 || ev > p->meta.nr_events ? UINT32_MAX : (uint32_t)(ev - 1);
		r->lost.count = get_var(c);
		return c->bad ? -1 : 0;
	}
	case TAG_RANK: {
		struct hpm_rank_rec *k = &r->rank;
		uint64_t rank;
		r->type = HPM_PREC_RANK;
		memset(k, 0, sizeof(*k));
		k->task = tag & RF_TASK;
		if (k->task) {
			k->pid = (pid_t)get_var(c);
			rank = get_var(c);
			k->orig_pid = (pid_t)get_var(c);
			k->host = "";
		} else {
			rank = get_var(c);
			get_str(c, p->str);
			k->host = p->str;
		}
		k->rank = (uint32_t)rank;
		return c->bad || rank > PROF_MAX_RANK ? -1 : 0;
	}
	case TAG_TIMELINE1:
	case TAG_TIMELINE:
		r->type = HPM_PREC_TIMELINE;
		return dec_timeline(p, c, tag, &r->read) || c->bad ? -1 : 0;
	default:
		return -1;
	}
}

/* The records of the chunk up to @rpos are read. */
static void consumed(struct hpm_profile *p, size_t rpos)
{
	p->rpos = rpos;
	if (--p->left == 0 && p->rpos != p->raw_len) {
		/* more bytes than records: the rest is not trusted */
		profile__stop(p, false, "chunk %" PRIu64 " has %" PRIu64 " bytes after its last record",
		              p->st.chunks, p->raw_len - p->rpos);
	}
}

int hpm_profile__next(struct hpm_profile *p, struct hpm_prec *r)
{
	p->after_sample = false;
	if (p->pd)
		return hpm__perfdata_next(p->pd, r);
	if (!p->left && !profile__next_chunk(p))
		return 0;
	struct cur c = { p->raw + p->rpos, p->raw + p->raw_len, false };
	if (dec_record(p, &c, r)) {
		profile__stop(p, false, "a record of chunk %" PRIu64 " is damaged (at byte %" PRIu64
		              " of the chunk's data)", p->st.chunks, p->rpos);
		p->left = 0;
		return 0;
	}
	p->after_sample = r->type == HPM_PREC_SAMPLE;
	consumed(p, (size_t)(c.p - p->raw));
	return 1;
}

/*
 * The fields after a repeated sample's address, as dec_sample reads them
 * (@st its event's sample_type): true when they repeat the previous
 * sample's, or are skipped. No group counts (they change at every
 * sample); a call chain wholly kept from the previous sample's, unless
 * chains are skipped; registers and stacks only skipped.
 */
static bool repeat_tail(struct hpm_profile *p, struct cur *c, uint64_t st)
{
	if (st & PERF_SAMPLE_CALLCHAIN) {
		uint64_t n = get_var(c), keep = get_var(c);
		if (n > PROF_MAX_CHAIN || keep > n || keep > p->d.nr_chain)
			return false;
		if (p->skip & HPM_PROFILE_SKIP_CHAINS) {
			skip_vars(c, n - keep);
			p->d.nr_chain = (uint32_t)n;
		} else if (n != keep || n != p->d.nr_chain) {
			return false;
		}
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		skip_var(c);
		uint64_t n = get_var(c);
		if (n > PROF_MAX_REGS)
			return false;
		for (uint64_t k = 0; k < n; k++)
			skip_var(c);
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		uint64_t n = get_var(c);
		if (n > PROF_MAX_STACK || !get_bytes(c, n))
			return false;
	}
	return !c->bad;
}

uint32_t hpm_profile__repeats(struct hpm_profile *p, uint64_t until, uint32_t max)
{
	/* a perf.data file's samples are read one at a time (p->pd) */
	if (p->pd || !p->after_sample || p->done)
		return 0;
	uint64_t st = p->events[p->d.ev].sample_type;
	if ((st & PERF_SAMPLE_READ) ||
	    ((st & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)) &&
	     !(p->skip & HPM_PROFILE_SKIP_STACKS)))
		return 0;
	const bool tail = st & (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
				PERF_SAMPLE_STACK_USER);
	/* the state in locals while the loop runs: the records are bytes,
	 * which may alias anything, so fields of @p would be read again
	 * after every store */
	const unsigned char *q = p->raw + p->rpos, *end = p->raw + p->raw_len;
	uint64_t time = p->d.time;
	uint32_t n = 0, left = p->left;
	/* within the chunk: each record a sample with nothing changed (no
	 * flag), a time not before the last, an address delta of 0 */
	while (n < max && left) {
		struct cur c = { q, end, false };
		if (get_byte(&c) != TAG_SAMPLE)
			break;
		uint64_t dt = get_var(&c);
		if (c.bad || (dt & 1) || time + (dt >> 1) >= until || time + (dt >> 1) < time ||
		    get_byte(&c) != 0 || c.bad)
			break;
		if (tail) {
			uint32_t nr_chain = p->d.nr_chain;
			if (!repeat_tail(p, &c, st)) {
				p->d.nr_chain = nr_chain; /* a failed record is read again by next */
				break;
			}
		}
		time += dt >> 1;
		q = c.p;
		left--;
		n++;
	}
	if (n) {
		p->d.time = time;
		p->left = left + 1;
		consumed(p, (size_t)(q - p->raw)); /* with the check at the chunk's end */
	}
	return n;
}
