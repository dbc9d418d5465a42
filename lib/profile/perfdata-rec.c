/* SPDX-License-Identifier: MIT */
/*
 * perf.data: the records of the data section, handed out as the profile
 * reader's records (perfdata-internal.h). Each record is read through its
 * own size, which is checked against what is left of the section (or of
 * the decompressed buffer) first; a record too short for its fields is
 * damage, and ends the records with a sentence in the status.
 *
 * perf record writes each CPU's buffer in turn, so records are not in time
 * order; the format promises that none is out of order across a
 * FINISHED_ROUND record. So the records of a round are copied aside
 * (PD_ROUND_MAX bytes at most: a longer round is sorted in parts) and
 * handed out sorted by time, those of equal times in the file's order.
 *
 * COMPRESSED records (perf record -z) carry one zstd stream across them
 * all, whose bytes are records again: they are decompressed into a fixed
 * buffer (PD_ZBUF) a piece at a time, and a record cut at the end of a
 * piece is moved to the front and completed by the next one.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "profile/perfdata-internal.h"

/* The user registers hpmon's unwinder reads (symbols/unwind.c), as
 * `hpmon record` asks for them: a sample hands out these, in this order. */
#if defined(__x86_64__)
#define PD_UNWIND_REGS 0xff01ffull /* ax..ip, r8..r15 */
#elif defined(__aarch64__)
#define PD_UNWIND_REGS ((1ull << 33) - 1) /* x0..x30, sp, pc */
#else
#define PD_UNWIND_REGS 0ull
#endif

__attribute__((format(printf, 3, 4)))
static void stop(struct hpm_perfdata *pd, bool truncated, const char *fmt, ...)
{
	va_list ap;
	pd->done = true;
	pd->in_z = false;
	if (truncated)
		pd->st.truncated = true;
	else
		pd->st.corrupt = true;
	va_start(ap, fmt);
	vsnprintf(pd->st.what, sizeof(pd->st.what), fmt, ap);
	va_end(ap);
}

/* More decompressed bytes into zbuf. 1: some came (or input was used),
 * 0: this COMPRESSED record has no more, -1: damaged (stopped). */
static int zfill(struct hpm_perfdata *pd)
{
	if (pd->zin_pos >= pd->zin_len && !pd->zmore)
		return 0;
	if (!pd->zd) {
		pd->zd = ZSTD_createDStream();
		if (!pd->zd || ZSTD_isError(ZSTD_initDStream(pd->zd))) {
			stop(pd, false, "out of memory for compressed records at byte %zu", pd->pos);
			return -1;
		}
	}
	if (!pd->zbuf && !(pd->zbuf = malloc(PD_ZBUF))) {
		stop(pd, false, "out of memory for compressed records at byte %zu", pd->pos);
		return -1;
	}
	size_t rem = pd->zlen - pd->zpos; /* a record cut at the end: at most 64 KiB */
	memmove(pd->zbuf, pd->zbuf + pd->zpos, rem);
	pd->zlen = rem;
	pd->zpos = 0;
	ZSTD_inBuffer in = { pd->zin, pd->zin_len, pd->zin_pos };
	ZSTD_outBuffer out = { pd->zbuf, PD_ZBUF, rem };
	size_t rc = ZSTD_decompressStream(pd->zd, &out, &in);
	if (ZSTD_isError(rc)) {
		stop(pd, false, "a COMPRESSED record before byte %zu does not decompress "
		     "(%zu bytes of it read)", pd->pos, in.pos);
		return -1;
	}
	bool progress = in.pos != pd->zin_pos || out.pos != rem;
	pd->zin_pos = in.pos;
	pd->zmore = out.pos == out.size;
	pd->zlen = out.pos;
	return progress ? 1 : 0;
}

/* The next record's bytes, from the file or from decompressed data. */
static int next_raw(struct hpm_perfdata *pd, const unsigned char **rec, size_t *size)
{
	for (;;) {
		if (pd->in_z) {
			size_t left = pd->zlen - pd->zpos;
			if (left >= 8) {
				const unsigned char *p = pd->zbuf + pd->zpos;
				uint16_t sz = pd_u16(p + 6);
				if (sz < 8) {
					stop(pd, false, "a compressed record before byte %zu has a size "
					     "of %u bytes", pd->pos, sz);
					return 0;
				}
				if (sz <= left) {
					pd->zpos += sz;
					pd->st.raw_bytes += sz;
					*rec = p;
					*size = sz;
					return 1;
				}
			}
			int k = zfill(pd);
			if (k < 0)
				return 0;
			if (!k)
				pd->in_z = false;
			continue;
		}
		if (pd->done)
			return 0;
		size_t left = pd->end - pd->pos;
		if (!left) {
			if (pd->zlen != pd->zpos)
				stop(pd, false, "the compressed records end inside a record (%zu "
				     "bytes of it)", pd->zlen - pd->zpos);
			pd->done = true;
			return 0;
		}
		const unsigned char *p = pd->data + pd->pos;
		uint16_t sz = left >= 8 ? pd_u16(p + 6) : 0;
		if (left < 8 || sz > left) {
			stop(pd, true, "the data section is cut at byte %zu, inside a record "
			     "(%zu bytes of it)", pd->end, left);
			return 0;
		}
		if (sz < 8) {
			stop(pd, false, "the record at byte %zu has a size of %u bytes", pd->pos, sz);
			return 0;
		}
		uint32_t type = pd_u32(p);
		pd->pos += sz;
		if (type == PD_AUXTRACE) { /* the trace data follows the record */
			uint64_t extra = sz >= 16 ? pd_u64(p + 8) : 0;
			if (extra > pd->end - pd->pos) {
				stop(pd, true, "the data section is cut at byte %zu, inside AUX "
				     "trace data (%" PRIu64 " bytes missing)", pd->end,
				     extra - (pd->end - pd->pos));
				return 0;
			}
			pd->pos += extra;
		}
		pd->st.good_bytes = pd->pos;
		if (type == PD_COMPRESSED) {
			pd->counts[type]++;
			pd->zin = p + 8;
			pd->zin_len = sz - 8u;
			pd->zin_pos = 0;
			pd->zmore = false;
			pd->in_z = true;
			continue;
		}
		pd->st.raw_bytes += sz;
		*rec = p;
		*size = sz;
		return 1;
	}
}

/* ---- records ---- */

/* The fields sample_id_all appends to other records, from the end. */
#define ID_FIELDS (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
		   PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

/* A side-band record's time (0 when it has none); @fixed: the bytes of
 * its own fields, which the trailer may not overlap. */
static uint64_t trailer_time(const struct hpm_perfdata *pd, const unsigned char *rec, size_t size,
			     size_t fixed)
{
	uint64_t st = pd->id_type;
	if (!pd->attrs[0].sample_id_all || !(st & PERF_SAMPLE_TIME))
		return 0;
	size_t n = 8 * (size_t)__builtin_popcountll(st & ID_FIELDS);
	if (size < fixed + n)
		return 0;
	const unsigned char *t = rec + size - n;
	if (st & PERF_SAMPLE_IDENTIFIER) { /* the id says which attribute's layout */
		uint32_t ev = hpm__pd_ev_of(pd, pd_u64(rec + size - 8));
		if (ev != UINT32_MAX && ev != 0) {
			st = pd->attrs[ev].sample_type;
			n = 8 * (size_t)__builtin_popcountll(st & ID_FIELDS);
			if (!(st & PERF_SAMPLE_TIME) || size < fixed + n)
				return 0;
			t = rec + size - n;
		}
	}
	return pd_u64(t + (st & PERF_SAMPLE_TID ? 8 : 0));
}

/* The attribute a sample belongs to, by its id. */
static uint32_t sample_ev(const struct hpm_perfdata *pd, const unsigned char *body, size_t len)
{
	uint64_t st = pd->id_type;
	size_t off;
	if (st & PERF_SAMPLE_IDENTIFIER)
		off = 0;
	else if (pd->meta.nr_events == 1 || !(st & PERF_SAMPLE_ID))
		return 0;
	else
		off = 8 * (size_t)__builtin_popcountll(st & (PERF_SAMPLE_IP | PERF_SAMPLE_TID |
							     PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR));
	if (len < off + 8)
		return UINT32_MAX;
	return hpm__pd_ev_of(pd, pd_u64(body + off));
}

static void read_values(struct hpm_perfdata *pd, struct pd_cur *c, uint64_t rf, struct hpm_sample *s)
{
	unsigned per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
	uint64_t nr = 1;
	if (rf & PERF_FORMAT_GROUP)
		nr = pd_take64(c);
	if (!(rf & PERF_FORMAT_GROUP)) {
		s->values = pd->values;
		s->nr_values = 1;
		pd->values[0] = pd_take64(c);
		pd_take(c, 8 * (uint64_t)(!!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
				      !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING) + per - 1));
		return;
	}
	pd_take(c, 8 * (uint64_t)(!!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			      !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING)));
	if (c->bad || nr > (uint64_t)(c->end - c->p) / (8 * per)) {
		c->bad = true;
		return;
	}
	s->nr_values = nr < pd->meta.nr_events ? (uint32_t)nr : pd->meta.nr_events;
	s->values = pd->values;
	for (uint64_t k = 0; k < nr; k++) { /* leader first, as the attributes are listed */
		uint64_t v = pd_take64(c);
		if (k < s->nr_values)
			pd->values[k] = v;
		pd_take(c, 8 * (uint64_t)(per - 1));
	}
}

/* The registers hpmon's unwinder reads, picked out of the file's set. */
static void pick_regs(struct hpm_perfdata *pd, uint64_t mask, const unsigned char *r,
		      struct hpm_sample *s)
{
	if (!PD_UNWIND_REGS || (mask & PD_UNWIND_REGS) != PD_UNWIND_REGS)
		return;
	uint32_t n = 0;
	for (unsigned b = 0; b < 64; b++)
		if (PD_UNWIND_REGS & (1ull << b))
			pd->regs[n++] = pd_u64(r + 8 * __builtin_popcountll(mask & ((1ull << b) - 1)));
	s->nr_regs = n;
	s->regs = pd->regs;
}

static int dec_sample(struct hpm_perfdata *pd, const unsigned char *rec, size_t size,
		      struct hpm_prec *r)
{
	uint32_t ev = sample_ev(pd, rec + 8, size - 8);
	if (ev == UINT32_MAX)
		return 0; /* an id of no attribute: counted, not used */
	const struct perf_event_attr *a = &pd->attrs[ev];
	uint64_t st = a->sample_type;
	struct pd_cur c = { rec + 8, rec + size, false };
	struct hpm_sample *s = &r->sample;

	memset(s, 0, sizeof(*s));
	r->type = HPM_PREC_SAMPLE;
	s->ev = ev;
	s->mode = (enum hpm_mode)(pd_u16(rec + 4) & PERF_RECORD_MISC_CPUMODE_MASK);
	s->period = a->freq ? 1 : a->sample_period;
	if (st & PERF_SAMPLE_IDENTIFIER)
		s->id = pd_take64(&c);
	if (st & PERF_SAMPLE_IP)
		s->ip = pd_take64(&c);
	if (st & PERF_SAMPLE_TID) {
		const unsigned char *t = pd_take(&c, 8);
		if (t) {
			s->pid = (pid_t)pd_u32(t);
			s->tid = (pid_t)pd_u32(t + 4);
		}
	}
	if (st & PERF_SAMPLE_TIME)
		s->time = pd_take64(&c);
	if (st & PERF_SAMPLE_ADDR)
		pd_take64(&c);
	if (st & PERF_SAMPLE_ID)
		s->id = pd_take64(&c);
	if (st & PERF_SAMPLE_STREAM_ID)
		pd_take64(&c);
	if (st & PERF_SAMPLE_CPU) {
		const unsigned char *t = pd_take(&c, 8);
		s->cpu = t ? pd_u32(t) : 0;
	}
	if (st & PERF_SAMPLE_PERIOD)
		s->period = pd_take64(&c);
	if (st & PERF_SAMPLE_READ)
		read_values(pd, &c, a->read_format, s);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr = pd_take64(&c);
		const unsigned char *ips = nr <= (uint64_t)(c.end - c.p) / 8 ? pd_take(&c, nr * 8) : NULL;
		if (!ips) {
			c.bad = true;
		} else if (!(pd->skip & HPM_PROFILE_SKIP_CHAINS)) {
			s->nr_chain = nr < PD_MAX_CHAIN ? (uint32_t)nr : PD_MAX_CHAIN;
			memcpy(pd->chain, ips, s->nr_chain * 8u);
			s->chain = pd->chain;
		}
	}
	if (st & PERF_SAMPLE_RAW) {
		const unsigned char *n = pd_take(&c, 4);
		if (n)
			pd_take(&c, pd_u32(n));
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		uint64_t nr = pd_take64(&c);
		if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			pd_take64(&c);
		if (nr > (uint64_t)(c.end - c.p) / 24)
			c.bad = true;
		else
			pd_take(&c, nr * 24);
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		uint64_t abi = pd_take64(&c);
		uint64_t n = abi ? (uint64_t)__builtin_popcountll(a->sample_regs_user) : 0;
		const unsigned char *regs = pd_take(&c, 8 * n);
		if (regs && n && !(pd->skip & HPM_PROFILE_SKIP_STACKS)) {
			s->regs_abi = (uint32_t)abi;
			pick_regs(pd, a->sample_regs_user, regs, s);
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		uint64_t n = pd_take64(&c);
		const unsigned char *stk = n <= (uint64_t)(c.end - c.p) ? pd_take(&c, n) : NULL;
		uint64_t dyn = n ? pd_take64(&c) : 0;
		if (n && !stk)
			c.bad = true;
		if (stk && !c.bad && s->nr_regs && !(pd->skip & HPM_PROFILE_SKIP_STACKS)) {
			uint64_t k = dyn < n ? dyn : n;
			if (k > PD_MAX_STACK)
				k = PD_MAX_STACK;
			if (!pd->stack && !(pd->stack = malloc(PD_MAX_STACK)))
				return -ENOMEM;
			memcpy(pd->stack, stk, k);
			s->stack = pd->stack;
			s->stack_len = (uint32_t)k;
		}
	}
	if (c.bad) {
		stop(pd, false, "a SAMPLE record before byte %zu is shorter than its fields "
		     "(%zu bytes)", pd->pos, size);
		pd->ei = pd->nr_ents; /* nothing after a damaged record is trusted */
		return 0;
	}
	if (s->time) {
		if (!pd->first_time || s->time < pd->first_time)
			pd->first_time = s->time;
		if (s->time > pd->last_time)
			pd->last_time = s->time;
	}
	pd->st.totals.samples++;
	return 1;
}

/* A NUL-terminated string of at most @max bytes into pd->str. */
static const char *take_str(struct hpm_perfdata *pd, const unsigned char *p, size_t max)
{
	size_t k = strnlen((const char *)p, max);
	if (k > PD_MAX_STR)
		k = PD_MAX_STR;
	memcpy(pd->str, p, k);
	pd->str[k] = '\0';
	return pd->str;
}

static int dec_mmap(struct hpm_perfdata *pd, const unsigned char *rec, size_t size, uint32_t type,
		    struct hpm_prec *r)
{
	uint16_t misc = pd_u16(rec + 4);
	size_t fixed = type == PERF_RECORD_MMAP2 ? 72 : 40; /* where the file name starts */
	struct hpm_mmap_rec *m = &r->mmap;
	unsigned mode = misc & PERF_RECORD_MISC_CPUMODE_MASK;

	if (size < fixed)
		return -1;
	memset(m, 0, sizeof(*m));
	m->pid = (pid_t)pd_u32(rec + 8);
	m->tid = (pid_t)pd_u32(rec + 12);
	m->start = pd_u64(rec + 16);
	m->len = pd_u64(rec + 24);
	m->pgoff = pd_u64(rec + 32);
	/* the kernel's image and modules: hpmon places kernel samples by kallsyms */
	if (m->pid == -1 || mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_GUEST_KERNEL)
		return 0;
	if (type == PERF_RECORD_MMAP2) {
		m->prot = pd_u32(rec + 64);
		m->flags = pd_u32(rec + 68);
		if (!(m->prot & PROT_EXEC))
			return 0; /* data: not code */
		if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			m->build_id_len = rec[40] <= HPM_BUILD_ID_MAX ? rec[40] : HPM_BUILD_ID_MAX;
			memcpy(m->build_id, rec + 44, m->build_id_len);
		}
	} else {
		if (misc & PERF_RECORD_MISC_MMAP_DATA)
			return 0;
		m->prot = PROT_READ | PROT_EXEC;
		m->flags = MAP_PRIVATE;
	}
	m->time = trailer_time(pd, rec, size, fixed);
	m->filename = take_str(pd, rec + fixed, size - fixed);
	if (!m->build_id_len) {
		const struct pd_bid *b = hpm__pd_bid_of(pd, m->filename);
		if (b) {
			m->build_id_len = b->len;
			memcpy(m->build_id, b->bid, b->len);
		}
	}
	r->type = HPM_PREC_MMAP;
	return 1;
}

static int dec_id_index(struct hpm_perfdata *pd, const unsigned char *rec, size_t size)
{
	uint64_t nr = size >= 16 ? pd_u64(rec + 8) : 0;
	if (size < 16 || nr > (size - 16) / 32)
		return -1;
	bool added = false;
	for (uint64_t i = 0; i < nr; i++) {
		const unsigned char *e = rec + 16 + 32 * i;
		uint64_t id = pd_u64(e), idx = pd_u64(e + 8);
		if (idx < pd->meta.nr_events && hpm__pd_ev_of(pd, id) == UINT32_MAX) {
			if (pd->nr_ids >= pd->size / 8) /* no more ids than the file has words */
				break;
			if (hpm__pd_add_id(pd, id, (uint32_t)idx))
				return -ENOMEM;
			added = true;
		}
	}
	if (added)
		hpm__pd_sort_ids(pd);
	return 0;
}

/* EVENT_UPDATE: (type, id, data); a NAME names the id's event. */
static int dec_event_update(struct hpm_perfdata *pd, const unsigned char *rec, size_t size)
{
	if (size < 24)
		return -1;
	if (pd_u64(rec + 8) != 2 /* PERF_EVENT_UPDATE__NAME */)
		return 0;
	uint32_t ev = hpm__pd_ev_of(pd, pd_u64(rec + 16));
	const char *name = take_str(pd, rec + 24, size - 24);
	if (ev == UINT32_MAX || !name[0] || !strcmp(name, pd->events[ev].name))
		return 0; /* perf repeats EVENT_DESC's names: those change nothing */
	return hpm__pd_rename(pd, ev, name) ? -ENOMEM : 0;
}

/* One record: 1 handed out in *r, 0 read (or skipped), -1 damaged,
 * -ENOMEM. */
static int decode(struct hpm_perfdata *pd, const unsigned char *rec, size_t size, struct hpm_prec *r)
{
	uint32_t type = pd_u32(rec);
	uint16_t misc = pd_u16(rec + 4);

	if (type < PD_NR_TYPES)
		pd->counts[type]++;
	else
		pd->other++;
	switch (type) {
	case PERF_RECORD_SAMPLE:
		return dec_sample(pd, rec, size, r);
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return dec_mmap(pd, rec, size, type, r);
	case PERF_RECORD_COMM:
		if (size < 16)
			return -1;
		r->type = HPM_PREC_COMM;
		r->comm.pid = (pid_t)pd_u32(rec + 8);
		r->comm.tid = (pid_t)pd_u32(rec + 12);
		r->comm.exec = misc & PERF_RECORD_MISC_COMM_EXEC;
		r->comm.time = trailer_time(pd, rec, size, 24);
		r->comm.comm = take_str(pd, rec + 16, size - 16 < 16 ? size - 16 : 16);
		return 1;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (size < 32)
			return -1;
		r->type = type == PERF_RECORD_FORK ? HPM_PREC_FORK : HPM_PREC_EXIT;
		r->task = (struct hpm_task_rec){ (pid_t)pd_u32(rec + 8), (pid_t)pd_u32(rec + 12),
						 (pid_t)pd_u32(rec + 16), (pid_t)pd_u32(rec + 20),
						 pd_u64(rec + 24) };
		return 1;
	case PERF_RECORD_LOST:
		if (size < 24)
			return -1;
		r->type = HPM_PREC_LOST;
		r->lost = (struct hpm_lost_rec){ trailer_time(pd, rec, size, 24),
						 hpm__pd_ev_of(pd, pd_u64(rec + 8)), pd_u64(rec + 16) };
		pd->st.totals.lost += r->lost.count;
		return 1;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		if (size < 32)
			return -1;
		r->type = type == PERF_RECORD_THROTTLE ? HPM_PREC_THROTTLE : HPM_PREC_UNTHROTTLE;
		r->lost = (struct hpm_lost_rec){ pd_u64(rec + 8), hpm__pd_ev_of(pd, pd_u64(rec + 16)), 1 };
		if (type == PERF_RECORD_THROTTLE)
			pd->st.totals.throttled++;
		return 1;
	case PERF_RECORD_LOST_SAMPLES:
		if (size < 16)
			return -1;
		pd->st.totals.lost_samples += pd_u64(rec + 8);
		return 0;
	case PD_ID_INDEX:
		return dec_id_index(pd, rec, size);
	case PD_EVENT_UPDATE:
		return dec_event_update(pd, rec, size);
	case PD_THREAD_MAP: /* nr, then (pid, comm[16]) each: checked, not needed */
		return size >= 16 && pd_u64(rec + 8) <= (size - 16) / 24 ? 0 : -1;
	case PD_CPU_MAP:
		return size >= 10 ? 0 : -1;
	case PD_TIME_CONV:
		return size >= 32 ? 0 : -1;
	case PD_HEADER_BUILD_ID:
		return size >= 36 ? 0 : -1;
	case PD_AUXTRACE_INFO:
		pd->auxtrace++;
		return 0;
	default:
		return 0; /* FINISHED_ROUND, FINISHED_INIT, and what is skipped */
	}
}

/* The time of a record, for the order of its round; 0 when it has none
 * (perf's own records, and those made before the recording started). */
static uint64_t rec_time(const struct hpm_perfdata *pd, const unsigned char *rec, size_t size)
{
	uint32_t type = pd_u32(rec);
	switch (type) {
	case PERF_RECORD_SAMPLE: {
		uint32_t ev = sample_ev(pd, rec + 8, size - 8);
		if (ev == UINT32_MAX)
			return 0;
		uint64_t st = pd->attrs[ev].sample_type;
		size_t off = 8 + 8 * (size_t)__builtin_popcountll(st & (PERF_SAMPLE_IDENTIFIER |
			PERF_SAMPLE_IP | PERF_SAMPLE_TID));
		return (st & PERF_SAMPLE_TIME) && size >= off + 8 ? pd_u64(rec + off) : 0;
	}
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		return size >= 32 ? pd_u64(rec + 24) : 0;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		return size >= 16 ? pd_u64(rec + 8) : 0;
	default:
		return type < PD_HEADER_ATTR ? trailer_time(pd, rec, size, 8) : 0;
	}
}

static int ent_cmp(const void *a, const void *b)
{
	const struct pd_ent *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The next round's records copied aside and sorted. 1 when the round
 * read holds records (it may be empty), 0 at the end, -ENOMEM. */
static int fill_round(struct hpm_perfdata *pd)
{
	const unsigned char *rec;
	size_t size;
	bool any = false;

	pd->nr_ents = pd->ei = pd->rlen = 0;
	while (next_raw(pd, &rec, &size)) {
		any = true;
		if (pd_u32(rec) == PD_FINISHED_ROUND) {
			pd->counts[PD_FINISHED_ROUND]++;
			pd->st.chunks++;
			break;
		}
		if (pd->rlen + size > pd->rcap) {
			size_t nc = pd->rcap ? pd->rcap * 2 : 256 << 10;
			unsigned char *v = realloc(pd->rbuf, nc);
			if (!v)
				return -ENOMEM;
			pd->rbuf = v;
			pd->rcap = nc;
		}
		if (pd->nr_ents == pd->cap_ents) {
			size_t nc = pd->cap_ents ? pd->cap_ents * 2 : 4096;
			struct pd_ent *v = realloc(pd->ents, nc * sizeof(*v));
			if (!v)
				return -ENOMEM;
			pd->ents = v;
			pd->cap_ents = nc;
		}
		memcpy(pd->rbuf + pd->rlen, rec, size);
		pd->ents[pd->nr_ents] = (struct pd_ent){ rec_time(pd, rec, size), pd->nr_ents,
							 pd->rlen, (uint32_t)size };
		pd->nr_ents++;
		pd->rlen += size;
		if (pd->rlen >= PD_ROUND_MAX)
			break;
	}
	if (pd->nr_ents > 1)
		qsort(pd->ents, pd->nr_ents, sizeof(*pd->ents), ent_cmp);
	return any;
}

int hpm__perfdata_next(struct hpm_perfdata *pd, struct hpm_prec *r)
{
	for (;;) {
		if (pd->ei == pd->nr_ents) {
			int k = fill_round(pd);
			if (k < 0)
				return k;
			if (!k)
				break;
			continue;
		}
		const struct pd_ent *e = &pd->ents[pd->ei++];
		const unsigned char *rec = pd->rbuf + e->off;
		pd->st.chunks++; /* for perf.data: records read in full */
		int rc = decode(pd, rec, e->len, r);
		if (rc == 1)
			return 1;
		if (rc == -ENOMEM)
			return rc;
		if (rc < 0) {
			const char *n = hpm__perfdata_type_name(pd_u32(rec));
			stop(pd, false, "a %s record (type %u) before byte %zu is too short for "
			     "its fields (%u bytes)", n ? n : "?", pd_u32(rec), pd->pos, e->len);
			pd->ei = pd->nr_ents; /* nothing after a damaged record is trusted */
		}
	}
	if (!pd->st.truncated && !pd->st.corrupt)
		pd->st.complete = true;
	else if (pd->st.truncated && !pd->st.what[0])
		snprintf(pd->st.what, sizeof(pd->st.what),
			 "perf record did not finish this file (its header gives no data size): "
			 "the records up to its end are read");
	pd->st.totals.duration_ns = pd->last_time - pd->first_time;
	pd->st.totals.exit_status = -1;
	return 0;
}

/* The types the reader reads (uses, or checks and needs nothing of). */
static bool pd_used(uint32_t type)
{
	switch (type) {
	case PERF_RECORD_SAMPLE: case PERF_RECORD_MMAP: case PERF_RECORD_MMAP2:
	case PERF_RECORD_COMM: case PERF_RECORD_FORK: case PERF_RECORD_EXIT:
	case PERF_RECORD_LOST: case PERF_RECORD_LOST_SAMPLES: case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE: case PD_FINISHED_ROUND: case PD_FINISHED_INIT:
	case PD_COMPRESSED: case PD_ID_INDEX: case PD_THREAD_MAP: case PD_CPU_MAP:
	case PD_EVENT_UPDATE: case PD_TIME_CONV: case PD_HEADER_BUILD_ID:
		return true;
	default:
		return false;
	}
}

size_t hpm__perfdata_rectypes(const struct hpm_perfdata *pd, struct hpm_profile_rectype *out,
			      size_t max)
{
	size_t n = 0;
	for (uint32_t t = 0; t <= PD_NR_TYPES; t++) {
		uint64_t c = t < PD_NR_TYPES ? pd->counts[t] : pd->other;
		if (!c)
			continue;
		if (n < max) {
			const char *name = t < PD_NR_TYPES ? hpm__perfdata_type_name(t) : NULL;
			out[n] = (struct hpm_profile_rectype){ t < PD_NR_TYPES ? t : UINT32_MAX,
							       name ? name : "?", c, pd_used(t) };
		}
		n++;
	}
	return n;
}
