/* SPDX-License-Identifier: MIT */
/*
 * Writing profiles (include/hpmon/profile.h, docs/profile-format.md).
 *
 * Records are encoded into one of two buffers (varints, deltas against
 * the previous record of the same chunk, so each chunk decodes on its
 * own). A full buffer goes to a worker thread that compresses it with zstd
 * and writes it, while the other buffer fills: the recorder's drain loop
 * never waits for the disk unless both buffers are full. TIMELINE records
 * are held and written at the end of their chunk, sorted by thread
 * (profile-write-timeline.c).
 */
#include <errno.h>
#include <stddef.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "profile/encode-internal.h"
#include "profile/profile-internal.h"
#include "profile/profile-write-timeline-internal.h"
#include "sys/opts.h"

/* Encoder state; reset at every chunk. */
struct enc {
	uint64_t time, ip, period;
	pid_t pid, tid;
	uint32_t cpu, ev;
	enum hpm_mode mode;
	bool fresh;
	uint64_t *chain;         /* previous sample's chain */
	uint32_t nr_chain, chain_cap;
	uint64_t *vals;          /* [ev * max_group + k] previous group values */
	uint64_t *tl_vals;       /* [nr_ev] scratch of the TIMELINE encoder */
};

struct hpm_profile_writer {
	int fd;
	int level;
	size_t chunk_bytes;
	uint32_t nr_ev;
	uint64_t *sample_type;   /* [nr_ev] */
	uint32_t *group_size;
	uint32_t max_group;
	struct enc e;
	struct wbuf bufs[2];
	struct wbuf *cur;
	struct tl_batch tl;      /* the current chunk's TIMELINE records */
	uint64_t tl_unit;        /* their time unit, ns */
	/* the worker */
	pthread_t thread;
	bool thread_up;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct wbuf *job;        /* handed to the worker, NULL when idle */
	bool quit;
	int err;                 /* first write or compression error */
	ZSTD_CCtx *cctx;
	unsigned char *zbuf;
	size_t zcap;
	uint64_t bytes, raw_bytes;
};

/* ---- encoding ---- */

static void put_time(struct hpm_profile_writer *w, struct wbuf *b, uint64_t t)
{
	put_var(b, zz_enc((int64_t)(t - w->e.time)));
	w->e.time = t;
}

static int enc_sample(struct hpm_profile_writer *w, struct wbuf *b, const struct hpm_sample *s)
{
	struct enc *e = &w->e;
	unsigned tag = TAG_SAMPLE;

	if (s->ev >= w->nr_ev)
		return -EINVAL;
	uint64_t st = w->sample_type[s->ev];
	size_t need = 64 + (size_t)s->nr_values * 10 + (size_t)s->nr_chain * 10 +
		      (size_t)s->nr_regs * 10 + s->stack_len;
	if (!reserve(b, need))
		return -ENOMEM;
	if (e->fresh || s->pid != e->pid || s->tid != e->tid)
		tag |= SF_TASK;
	if (e->fresh || s->cpu != e->cpu || s->ev != e->ev)
		tag |= SF_CPUEV;
	if (e->fresh || s->period != e->period)
		tag |= SF_PERIOD;
	if (e->fresh || s->mode != e->mode)
		tag |= SF_MODE;
	e->fresh = false;
	put_byte(b, tag);
	if (tag & SF_TASK) {
		put_var(b, (uint32_t)s->pid);
		put_var(b, (uint32_t)s->tid);
	}
	if (tag & SF_CPUEV) {
		put_var(b, s->cpu);
		put_var(b, s->ev);
	}
	if (tag & SF_PERIOD)
		put_var(b, s->period);
	if (tag & SF_MODE)
		put_byte(b, s->mode);
	e->pid = s->pid;
	e->tid = s->tid;
	e->cpu = s->cpu;
	e->ev = s->ev;
	e->period = s->period;
	e->mode = s->mode;
	put_time(w, b, s->time);
	put_var(b, zz_enc((int64_t)(s->ip - e->ip)));
	e->ip = s->ip;
	if (st & PERF_SAMPLE_READ) {
		uint32_t n = s->nr_values < w->max_group ? s->nr_values : w->max_group;
		uint64_t *prev = &e->vals[(size_t)s->ev * w->max_group];
		put_var(b, n);
		for (uint32_t k = 0; k < n; k++) {
			put_var(b, zz_enc((int64_t)(s->values[k] - prev[k])));
			prev[k] = s->values[k];
		}
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		uint32_t n = s->nr_chain, keep = 0;
		/* callers are shared with the previous sample: keep the common
		 * tail, write the new frames as deltas */
		while (keep < n && keep < e->nr_chain &&
		       s->chain[n - 1 - keep] == e->chain[e->nr_chain - 1 - keep])
			keep++;
		put_var(b, n);
		put_var(b, keep);
		uint64_t prev = s->ip;
		for (uint32_t k = 0; k < n - keep; k++) {
			put_var(b, zz_enc((int64_t)(s->chain[k] - prev)));
			prev = s->chain[k];
		}
		if (n > e->chain_cap) {
			uint64_t *v = realloc(e->chain, n * sizeof(*v));
			if (!v)
				return -ENOMEM;
			e->chain = v;
			e->chain_cap = n;
		}
		if (n)
			memcpy(e->chain, s->chain, n * sizeof(*s->chain));
		e->nr_chain = n;
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		put_var(b, s->regs_abi);
		put_var(b, s->nr_regs);
		for (uint32_t k = 0; k < s->nr_regs; k++)
			put_var(b, s->regs[k]);
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		put_var(b, s->stack_len);
		put_bytes(b, s->stack, s->stack_len);
	}
	return 0;
}

static int encode(struct hpm_profile_writer *w, struct wbuf *b, const struct hpm_prec *r)
{
	switch (r->type) {
	case HPM_PREC_SAMPLE:
		return enc_sample(w, b, &r->sample);
	case HPM_PREC_MMAP: {
		const struct hpm_mmap_rec *m = &r->mmap;
		if (!reserve(b, 96 + HPM_BUILD_ID_MAX + PROF_MAX_STR))
			return -ENOMEM;
		put_byte(b, TAG_MMAP);
		put_var(b, (uint32_t)m->pid);
		put_var(b, (uint32_t)m->tid);
		put_time(w, b, m->time);
		put_var(b, m->start);
		put_var(b, m->len);
		put_var(b, m->pgoff);
		put_var(b, m->prot);
		put_var(b, m->flags);
		uint8_t n = m->build_id_len > HPM_BUILD_ID_MAX ? HPM_BUILD_ID_MAX : m->build_id_len;
		put_byte(b, n);
		put_bytes(b, m->build_id, n);
		put_str(b, m->filename, PROF_MAX_STR);
		return 0;
	}
	case HPM_PREC_COMM:
		if (!reserve(b, 48 + PROF_MAX_STR))
			return -ENOMEM;
		put_byte(b, TAG_COMM | (r->comm.exec ? CF_EXEC : 0));
		put_var(b, (uint32_t)r->comm.pid);
		put_var(b, (uint32_t)r->comm.tid);
		put_time(w, b, r->comm.time);
		put_str(b, r->comm.comm, PROF_MAX_STR);
		return 0;
	case HPM_PREC_FORK:
	case HPM_PREC_EXIT:
		if (!reserve(b, 64))
			return -ENOMEM;
		put_byte(b, r->type == HPM_PREC_FORK ? TAG_FORK : TAG_EXIT);
		put_var(b, (uint32_t)r->task.pid);
		put_var(b, (uint32_t)r->task.ppid);
		put_var(b, (uint32_t)r->task.tid);
		put_var(b, (uint32_t)r->task.ptid);
		put_time(w, b, r->task.time);
		return 0;
	case HPM_PREC_LOST:
	case HPM_PREC_THROTTLE:
	case HPM_PREC_UNTHROTTLE:
		if (!reserve(b, 48))
			return -ENOMEM;
		put_byte(b, r->type == HPM_PREC_LOST ? TAG_LOST :
			    r->type == HPM_PREC_THROTTLE ? TAG_THROTTLE : TAG_UNTHROTTLE);
		put_time(w, b, r->lost.time);
		put_var(b, r->lost.ev == UINT32_MAX ? 0 : (uint64_t)r->lost.ev + 1);
		put_var(b, r->lost.count);
		return 0;
	case HPM_PREC_RANK:
		/* no time: the record declares, and leaves the time deltas be */
		if (r->rank.rank > PROF_MAX_RANK || !reserve(b, 48 + PROF_MAX_STR))
			return r->rank.rank > PROF_MAX_RANK ? -EINVAL : -ENOMEM;
		put_byte(b, TAG_RANK | (r->rank.task ? RF_TASK : 0));
		if (r->rank.task) {
			put_var(b, (uint32_t)r->rank.pid);
			put_var(b, r->rank.rank);
			put_var(b, (uint32_t)r->rank.orig_pid);
		} else {
			put_var(b, r->rank.rank);
			put_str(b, r->rank.host ? r->rank.host : "", PROF_MAX_STR);
		}
		return 0;
	case HPM_PREC_TIMELINE: /* held: tl_batch__add, written at the chunk's end */
	case HPM_PREC_READ:
		break; /* a session's: the recorder makes TIMELINE records of them */
	}
	return -EINVAL;
}

static void reset_enc(struct hpm_profile_writer *w)
{
	struct enc *e = &w->e;
	memset(e->vals, 0, (size_t)w->nr_ev * w->max_group * sizeof(*e->vals));
	e->time = e->ip = e->period = 0;
	e->pid = e->tid = 0;
	e->cpu = e->ev = 0;
	e->mode = HPM_MODE_UNKNOWN;
	e->nr_chain = 0;
	e->fresh = true;
}

/* ---- writing chunks ---- */

static int write_all(int fd, const void *p, size_t n)
{
	const unsigned char *c = p;
	while (n) {
		ssize_t k = write(fd, c, n);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Compress and write one chunk (the worker, or close() for the end). */
static int write_chunk(struct hpm_profile_writer *w, const struct wbuf *b)
{
	unsigned char hdr[CHUNK_HDR_SIZE];
	size_t bound = ZSTD_compressBound(b->len);
	const unsigned char *payload = b->p;
	size_t plen = b->len;
	int codec = CODEC_NONE;

	if (b->len > CHUNK_RAW_MAX)
		return -EFBIG;
	if (bound > w->zcap) {
		unsigned char *v = realloc(w->zbuf, bound);
		if (!v)
			return -ENOMEM;
		w->zbuf = v;
		w->zcap = bound;
	}
	if (b->len) {
		size_t z = ZSTD_compressCCtx(w->cctx, w->zbuf, w->zcap, b->p, b->len, w->level);
		if (!ZSTD_isError(z) && z < b->len) {
			payload = w->zbuf;
			plen = z;
			codec = CODEC_ZSTD;
		}
	}
	put_le32(hdr, CHUNK_MAGIC);
	hdr[4] = (unsigned char)b->kind;
	hdr[5] = (unsigned char)codec;
	put_le16(hdr + 6, 0);
	put_le32(hdr + 8, (uint32_t)b->len);
	put_le32(hdr + 12, (uint32_t)plen);
	put_le32(hdr + 16, b->nr);
	put_le32(hdr + 20, prof_sum(payload, plen));
	int rc = write_all(w->fd, hdr, sizeof(hdr));
	if (!rc)
		rc = write_all(w->fd, payload, plen);
	if (!rc) {
		w->bytes += sizeof(hdr) + plen;
		w->raw_bytes += b->len;
	}
	return rc;
}

static void *worker(void *arg)
{
	struct hpm_profile_writer *w = arg;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->job && !w->quit)
			pthread_cond_wait(&w->cv, &w->mu);
		if (!w->job)
			break;
		struct wbuf *b = w->job;
		pthread_mutex_unlock(&w->mu);
		int rc = write_chunk(w, b);
		b->len = 0;
		b->nr = 0;
		pthread_mutex_lock(&w->mu);
		if (rc && !w->err)
			w->err = rc;
		w->job = NULL;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* Wait until the worker is idle; returns the first error so far. */
static int wait_idle(struct hpm_profile_writer *w)
{
	pthread_mutex_lock(&w->mu);
	while (w->job)
		pthread_cond_wait(&w->cv, &w->mu);
	int rc = w->err;
	pthread_mutex_unlock(&w->mu);
	return rc;
}

/* Hand the current buffer to the worker and start filling the other. */
static int submit(struct hpm_profile_writer *w)
{
	struct wbuf *b = w->cur;
	int rc;

	if (w->tl.nr && !b->err && (rc = tl_batch__write(&w->tl, b, w->e.tl_vals, w->nr_ev, w->tl_unit)))
		return rc;
	if (!b->nr)
		return 0;
	if (b->err)
		return -ENOMEM;
	if ((rc = wait_idle(w)))
		return rc;
	pthread_mutex_lock(&w->mu);
	w->job = b;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	w->cur = b == &w->bufs[0] ? &w->bufs[1] : &w->bufs[0];
	reset_enc(w);
	return 0;
}

/* ---- the header ---- */

static void meta_num(struct wbuf *b, unsigned key, uint64_t v)
{
	put_var(b, (uint64_t)key << 1);
	put_var(b, v);
}

static void meta_str(struct wbuf *b, unsigned key, const char *s)
{
	put_var(b, (uint64_t)key << 1 | 1);
	put_str(b, s ? s : "", PROF_MAX_STR);
}

static int write_header(struct hpm_profile_writer *w, const struct hpm_profile_meta *m)
{
	struct wbuf b = { 0 };
	unsigned char hdr[PROF_HDR_SIZE];
	int rc;

	if (!reserve(&b, 7 * (PROF_MAX_STR + 12) + 96 + (size_t)m->nr_events * (PROF_MAX_STR + 160)))
		return -ENOMEM;
	meta_str(&b, MK_COMMAND, m->command);
	meta_str(&b, MK_HOST, m->host);
	meta_str(&b, MK_ARCH, m->arch);
	meta_str(&b, MK_CPU_MODEL, m->cpu_model);
	meta_str(&b, MK_KERNEL, m->kernel);
	meta_num(&b, MK_START, m->start_unix_ns);
	meta_num(&b, MK_CALLCHAIN, m->callchain);
	meta_num(&b, MK_PAGE_SIZE, m->page_size);
	/* a writer built before the job fields passes a smaller sz */
	if (m->sz >= offsetof(struct hpm_profile_meta, job) + sizeof(m->job)) {
		if (m->has_rank)
			meta_num(&b, MK_RANK, m->rank);
		if (m->job_size)
			meta_num(&b, MK_JOB_SIZE, m->job_size);
		if (m->job && m->job[0])
			meta_str(&b, MK_JOB, m->job);
	}
	if (m->sz >= offsetof(struct hpm_profile_meta, merged) + sizeof(m->merged) && m->merged)
		meta_num(&b, MK_MERGED, 1);
	bool timeline = m->sz >= offsetof(struct hpm_profile_meta, timeline_ns) +
				 sizeof(m->timeline_ns) && m->timeline_ns;
	if (timeline) {
		meta_num(&b, MK_TIMELINE, m->timeline_ns);
		meta_num(&b, MK_TIMELINE_UNIT, w->tl_unit);
		if (m->sz >= offsetof(struct hpm_profile_meta, timeline_mode) +
			     sizeof(m->timeline_mode) && m->timeline_mode)
			meta_num(&b, MK_TIMELINE_MODE, m->timeline_mode);
	}
	for (uint32_t i = 0; i < m->nr_events; i++) {
		const struct hpm_profile_event *e = &m->events[i];
		meta_str(&b, MK_EV_NAME, e->name);
		meta_num(&b, MK_EV_TYPE, e->type);
		meta_num(&b, MK_EV_CONFIG, e->config);
		meta_num(&b, MK_EV_CONFIG1, e->config1);
		meta_num(&b, MK_EV_CONFIG2, e->config2);
		meta_num(&b, MK_EV_PERIOD, e->period);
		meta_num(&b, MK_EV_FREQ, e->freq);
		meta_num(&b, MK_EV_TRIGGER, e->trigger);
		meta_num(&b, MK_EV_USER_ONLY, e->user_only);
		meta_num(&b, MK_EV_SAMPLE_TYPE, e->sample_type);
		meta_num(&b, MK_EV_LEADER, e->leader);
		meta_num(&b, MK_EV_GROUP_SIZE, e->group_size);
	}
	memcpy(hdr, PROF_MAGIC, 8);
	put_le16(hdr + 8, PROF_MAJOR);
	/* a reader of minor 0 does not know TIMELINE records, one of minor
	 * 1 not their encoding since minor 2: only a file that holds them
	 * says minor 2 */
	put_le16(hdr + 10, timeline ? PROF_MINOR_TIMELINE : PROF_MINOR);
	put_le32(hdr + 12, (uint32_t)b.len);
	put_le32(hdr + 16, prof_sum(b.p, b.len));
	put_le32(hdr + 20, 0);
	rc = write_all(w->fd, hdr, sizeof(hdr));
	if (!rc)
		rc = write_all(w->fd, b.p, b.len);
	w->bytes += sizeof(hdr) + b.len;
	free(b.p);
	return rc;
}

struct hpm_profile_writer *hpm_profile_writer__new(int fd, const struct hpm_profile_meta *meta,
						   const struct hpm_profile_writer_opts *opts)
{
	struct hpm_profile_writer *w;
	int rc = -ENOMEM;

	/* the meta data is the profile's content, not options: the caller
	 * fills all of it */
	if (fd < 0 || !meta || meta->sz < offsetof(struct hpm_profile_meta, has_rank) || !meta->nr_events ||
	    meta->nr_events > PROF_MAX_EVENTS || !HPM_OPTS_VALID(opts, hpm_profile_writer_opts)) {
		errno = EINVAL;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->fd = fd;
	w->level = HPM_OPTS_GET(opts, level, 0) ? opts->level : 3;
	w->chunk_bytes = HPM_OPTS_GET(opts, chunk_bytes, 0) ? opts->chunk_bytes : 1u << 20;
	if (w->chunk_bytes > CHUNK_RAW_MAX / 2)
		w->chunk_bytes = CHUNK_RAW_MAX / 2;
	w->nr_ev = meta->nr_events;
	/* a hundredth of the interval, in whole microseconds: where a reading
	 * falls within its bin, closely enough; finer would store the
	 * scheduler's noise (docs/profile-format.md) */
	w->tl_unit = TL_US;
	if (meta->sz >= offsetof(struct hpm_profile_meta, timeline_ns) + sizeof(meta->timeline_ns) &&
	    meta->timeline_ns / 100 > TL_US)
		w->tl_unit = meta->timeline_ns / 100 / TL_US * TL_US;
	if (w->tl_unit > TL_UNIT_MAX)
		w->tl_unit = TL_UNIT_MAX;
	w->sample_type = calloc(w->nr_ev, sizeof(*w->sample_type));
	w->group_size = calloc(w->nr_ev, sizeof(*w->group_size));
	if (!w->sample_type || !w->group_size)
		goto fail;
	w->max_group = 1;
	for (uint32_t i = 0; i < w->nr_ev; i++) {
		w->sample_type[i] = meta->events[i].sample_type;
		w->group_size[i] = meta->events[i].group_size;
		if (w->group_size[i] > w->max_group)
			w->max_group = w->group_size[i];
	}
	w->e.vals = calloc((size_t)w->nr_ev * w->max_group, sizeof(*w->e.vals));
	w->e.tl_vals = calloc(w->nr_ev, sizeof(*w->e.tl_vals));
	w->cctx = ZSTD_createCCtx();
	if (!w->e.vals || !w->e.tl_vals || !w->cctx)
		goto fail;
	reset_enc(w);
	w->cur = &w->bufs[0];
	w->bufs[0].kind = w->bufs[1].kind = CHUNK_DATA;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	if ((rc = write_header(w, meta)))
		goto fail_sync;
	if ((rc = -pthread_create(&w->thread, NULL, worker, w)))
		goto fail_sync;
	w->thread_up = true;
	return w;
fail_sync:
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
fail:
	ZSTD_freeCCtx(w->cctx);
	free(w->e.vals);
	free(w->e.tl_vals);
	free(w->sample_type);
	free(w->group_size);
	free(w);
	errno = -rc;
	return NULL;
}

int hpm_profile_writer__add(struct hpm_profile_writer *w, const struct hpm_prec *r)
{
	size_t before = w->cur->len;
	int rc;

	if (r->type == HPM_PREC_TIMELINE) {
		const struct hpm_read_rec *t = &r->read;
		if (t->ev >= w->nr_ev || t->nr_values > w->nr_ev - t->ev ||
		    t->nr_values > w->max_group)
			return -EINVAL;
		if ((rc = tl_batch__add(&w->tl, t)))
			return rc;
	} else {
		if ((rc = encode(w, w->cur, r))) {
			w->cur->len = before;
			return rc;
		}
		w->cur->nr++;
	}
	/* the held readings count: a chunk stays within its size */
	if (w->cur->len + w->tl.bytes >= w->chunk_bytes)
		return submit(w);
	return 0;
}

int hpm_profile_writer__flush(struct hpm_profile_writer *w)
{
	int rc = submit(w);
	int rc2 = wait_idle(w);
	return rc ? rc : rc2;
}

uint64_t hpm_profile_writer__bytes(const struct hpm_profile_writer *w)
{
	return w->bytes;
}

static void stop_worker(struct hpm_profile_writer *w)
{
	if (!w->thread_up)
		return;
	pthread_mutex_lock(&w->mu);
	w->quit = true;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);
	w->thread_up = false;
}

int hpm_profile_writer__close(struct hpm_profile_writer *w,
			      const struct hpm_profile_totals *t)
{
	struct hpm_profile_totals zero = { .exit_status = -1 };
	struct wbuf end = { .kind = CHUNK_END };
	int rc = hpm_profile_writer__flush(w);

	stop_worker(w);
	if (!t)
		t = &zero;
	if (!rc && !reserve(&end, 80))
		rc = -ENOMEM;
	if (!rc) {
		put_byte(&end, TAG_TOTALS);
		put_var(&end, t->samples);
		put_var(&end, t->lost);
		put_var(&end, t->lost_samples);
		put_var(&end, t->throttled);
		put_var(&end, t->duration_ns);
		put_var(&end, zz_enc(t->exit_status));
		end.nr = 1;
		rc = write_chunk(w, &end);
	}
	free(end.p);
	if (close(w->fd) && !rc)
		rc = -errno;
	w->fd = -1;
	hpm_profile_writer__free(w);
	return rc;
}

void hpm_profile_writer__free(struct hpm_profile_writer *w)
{
	if (!w)
		return;
	stop_worker(w);
	if (w->fd >= 0)
		close(w->fd);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	ZSTD_freeCCtx(w->cctx);
	free(w->bufs[0].p);
	free(w->bufs[1].p);
	free(w->zbuf);
	free(w->e.chain);
	free(w->e.vals);
	free(w->e.tl_vals);
	tl_batch__release(&w->tl);
	free(w->sample_type);
	free(w->group_size);
	free(w);
}
