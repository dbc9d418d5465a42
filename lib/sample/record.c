/* SPDX-License-Identifier: MIT */
/*
 * Sampling sessions (include/hpmon/record.h).
 *
 * Every event is opened once per CPU (and per thread for PIDS/TIDS
 * targets). On each CPU the first file descriptor owns a ring buffer and
 * the others send their records there (PERF_EVENT_IOC_SET_OUTPUT), as
 * the kernel allows only between events of one CPU. Inherited per-task
 * events can be mapped this way, unlike events opened on "any CPU".
 *
 * The reader copies records out of the buffers and hands them to the
 * caller, who encodes them into the profile's chunks; the kernel keeps
 * writing into the free part meanwhile. The measured program never waits
 * for the reader: a full buffer makes the kernel drop records and count
 * them in LOST records, which are passed on.
 *
 * This file is the session itself: its targets, lifecycle and drain
 * rounds. Opening the events, parsing the records and synthesizing the
 * records of existing processes are the other record-*.c files
 * (sample/sample-internal.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "sample/sample-internal.h"
#include "sample/record-order-internal.h"
#include "core/cpus-internal.h"
#include "events/evlist-internal.h"
#include "sys/opts.h"

#define REC_DEFAULT_PAGES 128
/* Time order across buffers (record-order.c): a round's records go out
 * once a round at least this much older vouches for them; the queue's
 * memory is capped at this many times the buffers' size (at least the
 * minimum), beyond which the oldest records go out early. */
#define REC_ORDER_GAP_NS 10000000ull
#define REC_ORDER_BUF_FACTOR 8
#define REC_ORDER_MIN_BYTES (64u << 20)

static int setup_cpus(struct hpm_record *r)
{
	if (r->o.cpus && r->o.nr_cpus) {
		r->cpu = malloc(r->o.nr_cpus * sizeof(int));
		if (!r->cpu)
			return -ENOMEM;
		memcpy(r->cpu, r->o.cpus, r->o.nr_cpus * sizeof(int));
		r->nr_cpu = r->o.nr_cpus;
		return 0;
	}
	return hpm__online_cpus(r->ctx, &r->cpu, &r->nr_cpu);
}

static int add_tid(struct hpm_record *r, pid_t tid, size_t *cap)
{
	if (r->nr_thr == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		pid_t *v = realloc(r->thr, nc * sizeof(*v));
		if (!v)
			return -ENOMEM;
		r->thr = v;
		*cap = nc;
	}
	r->thr[r->nr_thr++] = tid;
	return 0;
}

static int setup_threads(struct hpm_record *r)
{
	size_t cap = 0;
	int rc = 0;

	switch (r->o.target) {
	case HPM_TARGET_EXEC:
		if (r->o.nr_ids != 1)
			return -EINVAL;
		return add_tid(r, r->o.ids[0], &cap);
	case HPM_TARGET_TIDS:
		for (size_t i = 0; i < r->o.nr_ids && !rc; i++)
			rc = add_tid(r, r->o.ids[i], &cap);
		return rc ? rc : r->nr_thr ? 0 : -EINVAL;
	case HPM_TARGET_CPUS:
		return add_tid(r, -1, &cap);
	case HPM_TARGET_PIDS:
		for (size_t i = 0; i < r->o.nr_ids && !rc; i++)
			rc = hpm__add_threads(r->ctx, r->o.ids[i], &r->thr, &r->nr_thr, &cap);
		return rc ? rc : r->nr_thr ? 0 : -ESRCH;
	}
	return -EINVAL;
}

struct hpm_record *hpm_record__new(struct hpm_evlist *list,
				   const struct hpm_record_opts *opts)
{
	struct hpm_record *r;
	int rc;

	/* the target and the sampling (up to mmap_pages) are not optional */
	if (!list || !list->nr || !opts || !HPM_OPTS_VALID(opts, hpm_record_opts) ||
	    !HPM_OPTS_HAS(opts, mmap_pages) || opts->callchain > HPM_CALLCHAIN_DWARF) {
		errno = EINVAL;
		return NULL;
	}
	if (opts->mmap_pages & (opts->mmap_pages - 1)) {
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->epfd = -1;
	r->list = list;
	r->ctx = list->ctx;
	hpm__opts_copy(&r->o, sizeof(r->o), opts);
	if (!r->o.mmap_pages)
		r->o.mmap_pages = REC_DEFAULT_PAGES;
	if (!r->o.stack_bytes)
		r->o.stack_bytes = 8192;
	r->o.stack_bytes = (r->o.stack_bytes > 65528 ? 65528 : r->o.stack_bytes) & ~7u;
	r->rand_state = opts->seed ? opts->seed : 0x9e3779b97f4a7c15ull;
	r->nr_ev = list->nr;
	if ((rc = setup_cpus(r)) || (rc = setup_threads(r)))
		goto fail;
	for (size_t i = 0; i < r->nr_ev; i++)
		if (hpm__event_is_location(&list->ev[i]) && !r->loc) {
			r->loc = hpm__loc_attach_new(list, r->o.lib_path, r->o.debug_dir,
						     r->o.target == HPM_TARGET_CPUS);
			if (!r->loc) {
				rc = -errno;
				goto fail;
			}
		}
	/* the options' strings are the caller's: only the attachment keeps them */
	r->o.lib_path = r->o.debug_dir = NULL;
	r->fd = malloc(r->nr_ev * r->nr_thr * r->nr_cpu * sizeof(int));
	r->attr = calloc(r->nr_ev, sizeof(*r->attr));
	r->cg = calloc(r->nr_ev, sizeof(*r->cg));
	r->format_lost = -1;
	r->trigger = calloc(r->nr_ev, sizeof(bool));
	r->user_only = calloc(r->nr_ev, sizeof(bool));
	r->ring = calloc(r->nr_cpu, sizeof(*r->ring));
	r->scratch = malloc(HPM_RING_RECORD_MAX);
	r->buf_fd = malloc(r->nr_cpu * sizeof(int));
	r->sb_fd = malloc(r->nr_thr * r->nr_cpu * sizeof(int));
	r->chain_fix = calloc(r->nr_ev, sizeof(*r->chain_fix));
	/* no fd yet, also for hpm_record__free() if an allocation failed */
	for (size_t i = 0; r->fd && i < r->nr_ev * r->nr_thr * r->nr_cpu; i++)
		r->fd[i] = -1;
	for (size_t c = 0; r->buf_fd && c < r->nr_cpu; c++)
		r->buf_fd[c] = -1;
	for (size_t k = 0; r->sb_fd && k < r->nr_thr * r->nr_cpu; k++)
		r->sb_fd[k] = -1;
	if (!r->fd || !r->attr || !r->cg || !r->trigger || !r->user_only || !r->ring || !r->scratch ||
	    !r->buf_fd ||
	    !r->sb_fd || !r->chain_fix) {
		rc = -ENOMEM;
		goto fail;
	}
	return r;
fail:
	hpm_record__free(r);
	errno = -rc;
	return NULL;
}

void hpm_record__free(struct hpm_record *r)
{
	if (!r)
		return;
	for (size_t c = 0; r->ring && c < r->nr_cpu; c++)
		hpm_ring__unmap(&r->ring[c]);
	if (r->fd)
		for (size_t i = 0; i < r->nr_ev * r->nr_thr * r->nr_cpu; i++)
			if (r->fd[i] >= 0)
				close(r->fd[i]);
	for (size_t k = 0; r->sb_fd && k < r->nr_thr * r->nr_cpu; k++)
		if (r->sb_fd[k] >= 0)
			close(r->sb_fd[k]);
	hpm__record_timeline_close(r);
	/* after the events: a uprobe in use cannot be removed */
	hpm__loc_attach_free(r->loc);
	free(r->sb_fd);
	free(r->chain_fix);
	if (r->epfd >= 0)
		close(r->epfd);
	hpm__record_synth_release(r);
	free(r->ring);
	free(r->buf_fd);
	free(r->fd);
	free(r->attr);
	free(r->cg);
	free(r->trigger);
	free(r->user_only);
	free(r->thr);
	free(r->cpu);
	free(r->ids);
	free(r->scratch);
	free(r->vals);
	hpm__order_free(r->order);
	free(r);
}

size_t hpm_record__failed_event(const struct hpm_record *r) { return r->failed; }

const char *hpm_record__event_message(const struct hpm_record *r, size_t idx)
{
	if (idx < r->nr_ev && !strcmp(r->list->ev[idx].call_graph, "lbr"))
		return "call-graph=lbr needs the branch records of Intel's LBR, which hpmon does "
		       "not record: write call-graph=fp (frame pointers) or call-graph=dwarf "
		       "(stack copies)";
	return hpm__loc_attach_message(r->loc, idx);
}

const char *hpm_record__event_how(const struct hpm_record *r, size_t idx)
{
	return hpm__loc_attach_how(r->loc, idx);
}

bool hpm_record__entry_chain(const struct hpm_record *r, const struct hpm_sample *s,
			     struct hpm_sample *out, uint64_t *buf, size_t cap)
{
	enum hpm_loc_chain how = s->ev < r->nr_ev ? r->chain_fix[s->ev] : HPM_LOC_CHAIN_AS_IS;
	uint64_t ret;
	size_t u = 0;

	if (how == HPM_LOC_CHAIN_AS_IS)
		return false;
	*out = *s;
	out->regs_abi = out->nr_regs = 0;
	out->regs = NULL;
	out->stack_len = 0;
	out->stack = NULL;
#if defined(__x86_64__)
	if (s->stack_len < sizeof(ret))
		return true;
	memcpy(&ret, s->stack, sizeof(ret));
#elif defined(__aarch64__)
	if (s->nr_regs < 1)
		return true;
	ret = s->regs[0];
#else
	return true;
#endif
	/* the user part: PERF_CONTEXT_USER, the sampled address, its callers */
	while (u < s->nr_chain && s->chain[u] != (uint64_t)PERF_CONTEXT_USER)
		u++;
	if (u + 1 >= s->nr_chain || s->chain[u + 1] != s->ip || s->nr_chain + 1 > cap)
		return true;
	if (how == HPM_LOC_CHAIN_ADD_MISSING && u + 2 < s->nr_chain && s->chain[u + 2] == ret)
		return true;
	memcpy(buf, s->chain, (u + 2) * sizeof(*buf));
	buf[u + 2] = ret;
	memcpy(buf + u + 3, s->chain + u + 2, (s->nr_chain - u - 2) * sizeof(*buf));
	out->chain = buf;
	out->nr_chain = s->nr_chain + 1;
	return true;
}

static int ioctl_leaders(struct hpm_record *r, unsigned long req)
{
	int err = 0;
	for (size_t i = 0; i < r->nr_ev; i++) {
		if (r->list->ev[i].leader != i)
			continue;
		for (size_t k = 0; k < r->nr_thr * r->nr_cpu; k++) {
			int f = r->fd[i * r->nr_thr * r->nr_cpu + k];
			if (f >= 0 && ioctl(f, req, 0) < 0 && !err)
				err = -errno;
		}
	}
	return err;
}

int hpm_record__enable(struct hpm_record *r)
{
	r->enabled = true;
	r->disabled = false;
	return ioctl_leaders(r, PERF_EVENT_IOC_ENABLE);
}

int hpm_record__disable(struct hpm_record *r)
{
	r->disabled = true; /* nothing comes after what is in the buffers now */
	return ioctl_leaders(r, PERF_EVENT_IOC_DISABLE);
}

bool hpm_record__trigger(const struct hpm_record *r, size_t idx)
{
	return idx < r->nr_ev && r->trigger[idx];
}

bool hpm_record__user_only(const struct hpm_record *r, size_t idx)
{
	return idx < r->nr_ev && r->user_only[idx];
}

const struct perf_event_attr *hpm_record__attr(const struct hpm_record *r, size_t idx)
{
	return idx < r->nr_ev ? &r->attr[idx] : NULL;
}

enum hpm_callchain hpm_record__callchain(const struct hpm_record *r, size_t idx)
{
	return idx < r->nr_ev ? r->cg[idx] : HPM_CALLCHAIN_NONE;
}

bool hpm_record__group_no_inherit(const struct hpm_record *r) { return r->group_no_inherit; }
int hpm_record__poll_fd(const struct hpm_record *r) { return r->epfd; }

void hpm_record__on_open(struct hpm_record *r, hpm_open_fn fn, void *arg)
{
	r->open_fn = fn;
	r->open_arg = arg;
}

/* The records event @i could not write (PERF_FORMAT_LOST), summed over
 * its file descriptors: its samples lost to full buffers (and, for the
 * event that carries the side band, its mmap and comm records). Inherited
 * copies count into the event hpmon opened, as the kernel sends their
 * output there. */
static uint64_t event_lost(const struct hpm_record *r, size_t i)
{
	const struct perf_event_attr *a = &r->attr[i];
	size_t stride = 1 + !!(a->read_format & PERF_FORMAT_ID) + 1;
	/* a group has every event at most, and the timeline's timer */
	size_t words = a->read_format & PERF_FORMAT_GROUP ? 1 + (r->nr_ev + 1) * stride : stride;
	uint64_t *v = calloc(words, sizeof(*v)), sum = 0;

	if (!v)
		return 0;
	for (size_t k = 0; k < r->nr_thr * r->nr_cpu; k++) {
		int f = r->fd[i * r->nr_thr * r->nr_cpu + k];
		ssize_t n = f >= 0 ? read(f, v, words * sizeof(*v)) : -1;
		/* the leader's own lost count: its value's last word */
		size_t at = a->read_format & PERF_FORMAT_GROUP ? stride : stride - 1;
		if (n >= (ssize_t)((at + 1) * sizeof(*v)))
			sum += v[at];
	}
	free(v);
	return sum;
}

void hpm_record__stats(const struct hpm_record *r, struct hpm_record_stats *out)
{
	*out = r->st;
	out->lost_samples += r->bad_samples;
	if (r->format_lost != 1) {
		out->lost_samples += r->st.lost; /* before Linux 6.0: records lost */
		return;
	}
	for (size_t i = 0; i < r->nr_ev; i++)
		if (r->trigger[i])
			out->lost_samples += event_lost(r, i);
}

static uint64_t next_rand(struct hpm_record *r)
{
	uint64_t x = r->rand_state; /* xorshift64 */
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return r->rand_state = x;
}

/* --random-period: a new period for every trigger, +-1/8 of its base. */
static void jitter_periods(struct hpm_record *r)
{
	for (size_t i = 0; i < r->nr_ev; i++) {
		const struct perf_event_attr *a = &r->attr[i];
		if (!r->trigger[i] || a->freq || !(a->sample_type & PERF_SAMPLE_PERIOD) ||
		    a->sample_period < 16)
			continue;
		uint64_t span = a->sample_period / 4;
		uint64_t p = a->sample_period - span / 2 + next_rand(r) % (span + 1);
		for (size_t k = 0; k < r->nr_thr * r->nr_cpu; k++) {
			int f = r->fd[i * r->nr_thr * r->nr_cpu + k];
			if (f >= 0)
				ioctl(f, PERF_EVENT_IOC_PERIOD, &p);
		}
	}
}

/* Queue every record of buffer @c up to the head read on entry (what the
 * kernel adds meanwhile waits for the next round: record-order.c relies
 * on one head per buffer and round). Returns the number queued or a
 * negative errno (the record that could not be queued is lost). */
static int drain_buffer(struct hpm_record *r, size_t c)
{
	struct hpm_ring *ring = &r->ring[c];
	const struct perf_event_header *h;
	int n = 0, err = 0, rc = 0;

	hpm_ring__read_init(ring);
	while (!err && !(rc = hpm_ring__next(ring, r->scratch, HPM_RING_RECORD_MAX, &h))) {
		struct hpm_prec p;
		int k = hpm__record_parse(r, h, &p);
		if (k == -ENOMEM || (!k && (k = hpm__order_add(r->order, c, &p)) < 0))
			err = k; /* this record is lost */
		else if (k < 0) {
			r->st.bad++;
			r->bad_samples += h->type == PERF_RECORD_SAMPLE;
		}
		else if (k == 0)
			n++;
		hpm_ring__consume(ring);
	}
	if (!err && rc < 0) {
		r->st.bad++;
		hpm_ring__discard(ring); /* cannot resynchronise within a buffer */
	}
	hpm_ring__read_done(ring);
	return err ? err : n;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The caller's callback, behind the queue. */
struct emit {
	struct hpm_record *r;
	hpm_record_fn fn;
	void *arg;
};

static int emit_rec(const struct hpm_prec *p, void *arg)
{
	struct emit *e = arg;
	if (p->type == HPM_PREC_SAMPLE)
		e->r->st.samples++;
	return e->fn(p, e->arg);
}

static int start_order(struct hpm_record *r)
{
	size_t cap = REC_ORDER_MIN_BYTES;
	if (r->data_len && r->nr_cpu <= SIZE_MAX / REC_ORDER_BUF_FACTOR / r->data_len &&
	    REC_ORDER_BUF_FACTOR * r->nr_cpu * r->data_len > cap)
		cap = REC_ORDER_BUF_FACTOR * r->nr_cpu * r->data_len;
	r->order = hpm__order_new(r->nr_cpu, REC_ORDER_GAP_NS, cap);
	return r->order ? 0 : -ENOMEM;
}

/* A drain round: the records of processes that existed before (they
 * describe the start, so they go first), then every buffer into the time
 * queue, then out of it what no buffer can still precede (all of it once
 * the events are disabled). */
int hpm_record__drain(struct hpm_record *r, hpm_record_fn fn, void *arg)
{
	struct emit em = { r, fn, arg };
	int total = 0, rc = 0;

	if (!r->opened)
		return -HPM_ERR_NOT_OPEN;
	if (!r->order && (rc = start_order(r)))
		return rc;
	for (; r->synth_done < r->nr_synth; r->synth_done++) {
		rc = fn(&r->synth[r->synth_done].p, arg);
		if (rc < 0)
			return rc;
		total++;
	}
	hpm__order_begin(r->order, mono_ns());
	if (r->tl_poll && (rc = hpm__record_timeline_poll(r, r->order, mono_ns())) < 0)
		return rc; /* before Linux 6.12: the groups read here when due */
	for (size_t c = 0; c < r->nr_cpu; c++) {
		if (r->ring[c].base && (rc = drain_buffer(r, c)) < 0)
			return rc; /* a buffer not read: nothing is known safe */
	}
	hpm__order_end(r->order, mono_ns());
	rc = hpm__order_flush(r->order, r->disabled, emit_rec, &em);
	if (rc < 0)
		return rc;
	total += rc;
	if (r->disabled && !r->order_logged) {
		struct hpm_order_stats os;
		hpm__order_stats(r->order, &os);
		if (os.early || os.late)
			hpm__log(r->ctx, HPM_LOG_WARN, "time order: %llu records handed out "
				 "before they were known to be safe (the queue was full), %llu "
				 "read after a later record had been handed out",
				 (unsigned long long)os.early, (unsigned long long)os.late);
		r->order_logged = true;
	}
	if (r->o.random_period)
		jitter_periods(r);
	return total;
}
