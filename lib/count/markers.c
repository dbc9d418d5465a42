/* SPDX-License-Identifier: MIT */
/*
 * The markers area, hpmon's side (include/hpmon/counters.h): create the
 * shared file a program under hpmon maps (lib/runtime/area-internal.h),
 * say what its threads count, and read what they published. The lookup in
 * the area's name tables (hpm__mk_name_index) is the runtime's, the same
 * code on both sides.
 *
 * Ownership: a struct hpm_markers owns its memory file and mapping; the
 * names it returns point into the mapping and live as long as it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <hpmon/counters.h>
#include "count/markers-internal.h"
#include "events/evlist-internal.h"
#include "events/pmu-internal.h"
#include "runtime/area-internal.h"
#include "sys/opts.h"

struct hpm_markers {
	int fd;
	struct hpm_mk_header *h;
	size_t len;
	uint32_t max_threads;  /* hpmon's own copy: the program may write h */
};

struct hpm_markers *hpm_markers__new(const struct hpm_markers_opts *opts)
{
	struct hpm_markers_opts o = { .sz = sizeof(o) };
	struct hpm_markers *m;
	size_t len;

	if (!HPM_OPTS_VALID(opts, hpm_markers_opts)) {
		errno = EINVAL;
		return NULL;
	}
	o.max_threads = HPM_OPTS_GET(opts, max_threads, 0u);
	o.regions = HPM_OPTS_GET(opts, regions, false);
	o.marked = HPM_OPTS_GET(opts, marked, false);
	o.no_rdpmc = HPM_OPTS_GET(opts, no_rdpmc, false);
	if (!o.max_threads)
		o.max_threads = HPM_MK_DEFAULT_THREADS;
	if (o.max_threads > 1u << 20) {
		errno = EINVAL;
		return NULL;
	}
	len = sizeof(struct hpm_mk_header) + (size_t)o.max_threads * sizeof(struct hpm_mk_thread);
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	/* inheritable on purpose: the program finds it by its number */
	m->fd = memfd_create("hpmon-markers", 0);
	if (m->fd < 0 || ftruncate(m->fd, (off_t)len) < 0)
		goto fail;
	m->h = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd, 0);
	if (m->h == MAP_FAILED) {
		m->h = NULL;
		goto fail;
	}
	m->len = len;
	m->max_threads = o.max_threads;
	struct hpm_mk_header *h = m->h;
	h->version = HPM_MK_VERSION;
	h->header_size = sizeof(*h);
	h->total_size = len;
	h->thread_size = sizeof(struct hpm_mk_thread);
	h->max_threads = o.max_threads;
	h->flags = (o.regions ? HPM_MK_F_REGIONS : 0) | (o.marked ? HPM_MK_F_MARKED : 0) |
		   (o.no_rdpmc ? HPM_MK_F_NO_RDPMC : 0);
	h->default_enabled = 1;
	h->nr_counters = HPM_MK_FIRST_COUNTER;
	__atomic_store_n(&h->magic, HPM_MK_MAGIC, __ATOMIC_RELEASE);
	return m;
fail:;
	int e = errno;
	hpm_markers__free(m);
	errno = e;
	return NULL;
}

void hpm_markers__free(struct hpm_markers *m)
{
	if (!m)
		return;
	if (m->h)
		munmap(m->h, m->len);
	if (m->fd >= 0)
		close(m->fd);
	free(m);
}

int hpm_markers__fd(const struct hpm_markers *m) { return m->fd; }

int hpm_markers__env(const struct hpm_markers *m, char *buf, size_t len)
{
	return snprintf(buf, len, "%s=%d", HPM_MK_ENV, m->fd);
}

/* arm64 gives user space its counters only for events that ask (the
 * PMU's "rdpmc" format bit, config1:1 on armv8_pmuv3). */
static void want_user_reads(struct hpm_ctx *ctx, const struct hpm_event *ev,
			    struct perf_event_attr *a)
{
	struct hpm_pmu *pmu = malloc(sizeof(*pmu));
	if (!pmu)
		return;
	if (ev->pmu[0] && hpm_pmu__load(ctx, ev->pmu, pmu) == 0)
		hpm_pmu__set_term(pmu, "rdpmc", 1, a);
	free(pmu);
}

int hpm_markers__set_events(struct hpm_markers *m, const struct hpm_evlist *list)
{
	struct hpm_mk_header *h = m->h;
	uint32_t n = 0;
	int rc = 0;

	for (size_t i = 0; i < list->nr; i++) {
		const struct hpm_event *ev = &list->ev[i];
		if (hpm__event_is_location(ev))
			continue; /* a location: hpmon's own breakpoint or uprobe */
		if (n == HPM_MK_MAX_EVENTS) {
			rc = -E2BIG;
			break;
		}
		struct hpm_mk_event *e = &h->events[n];
		memset(e, 0, sizeof(*e));
		e->list_idx = (uint32_t)i;
		snprintf(e->name, sizeof(e->name), "%s", ev->name);
		if (hpm__event_is_marker(ev)) {
			e->kind = HPM_MK_EV_SW;
			snprintf(e->sw_name, sizeof(e->sw_name), "%s", ev->name + 3);
		} else {
			struct perf_event_attr a = ev->attr;
			e->kind = HPM_MK_EV_PERF;
			a.size = sizeof(a);
			/* counting the program's own thread, user mode only when
			 * paranoia says so: the program falls back like hpmon */
			want_user_reads(list->ctx, ev, &a);
			memcpy(e->attr, &a, sizeof(a) < HPM_MK_ATTR_SPACE ? sizeof(a)
									 : HPM_MK_ATTR_SPACE);
		}
		n++;
	}
	h->nr_events = n;
	return rc;
}

size_t hpm_markers__nr_events(const struct hpm_markers *m)
{
	uint32_t n = m->h->nr_events;
	return n < HPM_MK_MAX_EVENTS ? n : HPM_MK_MAX_EVENTS;
}

int hpm_markers__event_of(const struct hpm_markers *m, size_t idx)
{
	for (uint32_t e = 0; e < hpm_markers__nr_events(m); e++)
		if (m->h->events[e].list_idx == idx)
			return (int)e;
	return -ENOENT;
}

int hpm_markers__mask(struct hpm_markers *m, const char *name, bool enabled)
{
	struct hpm_mk_header *h = m->h;
	if (!name) {
		h->default_enabled = enabled;
		return 0;
	}
	int c = hpm__mk_name_index(h->counters, &h->nr_counters, HPM_MK_FIRST_COUNTER,
				   HPM_MK_MAX_COUNTERS, name, true, enabled);
	if (c < 0)
		return strlen(name) >= HPM_MARKER_NAME_MAX || !name[0] ? -EINVAL : -ENOSPC;
	h->counters[c].enabled = enabled;
	return 0;
}

/* ---- reading ----
 *
 * The program writes the area, so hpmon reads it as untrusted input:
 * counts of entries are clamped to the tables' sizes and every name is
 * cut at its last byte before it is compared or handed out.
 */

static uint32_t nr_events(const struct hpm_markers *m)
{
	uint32_t n = __atomic_load_n(&m->h->nr_events, __ATOMIC_RELAXED);
	return n < HPM_MK_MAX_EVENTS ? n : HPM_MK_MAX_EVENTS;
}

/* The name of table entry @n if it is complete, else NULL. */
static const char *entry_name(struct hpm_mk_name *n)
{
	if (__atomic_load_n(&n->state, __ATOMIC_ACQUIRE) != HPM_MK_NAME_READY)
		return NULL;
	n->name[HPM_MARKER_NAME_MAX - 1] = '\0';
	return n->name;
}

size_t hpm_markers__nr_threads(const struct hpm_markers *m)
{
	uint32_t n = __atomic_load_n(&m->h->nr_threads, __ATOMIC_ACQUIRE);
	return n < m->max_threads ? n : m->max_threads;
}

uint64_t hpm_markers__lost_threads(const struct hpm_markers *m)
{
	uint32_t n = __atomic_load_n(&m->h->nr_threads, __ATOMIC_ACQUIRE);
	return n > m->max_threads ? n - m->max_threads : 0;
}

/* Slot @t once its owner has filled in pid and tid, else NULL. */
static const struct hpm_mk_thread *slot(const struct hpm_markers *m, size_t t)
{
	if (t >= hpm_markers__nr_threads(m))
		return NULL;
	/* the layout as hpmon made it, whatever the header says now */
	const struct hpm_mk_thread *s = (const void *)((const char *)m->h + sizeof(*m->h) +
						       t * sizeof(struct hpm_mk_thread));
	return __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == HPM_MK_T_FREE ? NULL : s;
}

int hpm_markers__thread(const struct hpm_markers *m, size_t t, struct hpm_markers_thread *out)
{
	const struct hpm_mk_thread *s = slot(m, t);
	memset(out, 0, sizeof(*out));
	if (!s)
		return -ENOENT;
	out->pid = s->pid;
	out->tid = s->tid;
	out->exited = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == HPM_MK_T_EXITED;
	out->marked_at_end = !out->exited && (__atomic_load_n(&s->flags, __ATOMIC_RELAXED) &
					      HPM_MK_T_MARKED_NOW);
	out->counters_err = s->open_err;
	return 0;
}

size_t hpm_markers__nr_counters(const struct hpm_markers *m)
{
	uint32_t n = __atomic_load_n(&m->h->nr_counters, __ATOMIC_ACQUIRE);
	n = n < HPM_MK_MAX_COUNTERS ? n : HPM_MK_MAX_COUNTERS;
	return n > HPM_MK_FIRST_COUNTER ? n - HPM_MK_FIRST_COUNTER : 0;
}

const char *hpm_markers__counter_name(const struct hpm_markers *m, size_t c)
{
	if (c >= hpm_markers__nr_counters(m))
		return NULL;
	return entry_name(&m->h->counters[c + HPM_MK_FIRST_COUNTER]);
}

/* Sum counter @name over thread @t (SIZE_MAX: all), or over the threads
 * with @pid and @tid (0: any). */
static uint64_t sum_counter(const struct hpm_markers *m, const char *name, size_t t,
			    pid_t pid, pid_t tid)
{
	struct hpm_mk_header *h = m->h;
	uint32_t nc = __atomic_load_n(&h->nr_counters, __ATOMIC_ACQUIRE);
	uint64_t sum = 0;

	nc = nc < HPM_MK_MAX_COUNTERS ? nc : HPM_MK_MAX_COUNTERS;
	for (uint32_t c = HPM_MK_FIRST_COUNTER; c < nc; c++) {
		const char *cn = entry_name(&h->counters[c]);
		if (!cn || strcmp(cn, name))
			continue;
		for (size_t k = 0; k < hpm_markers__nr_threads(m); k++) {
			const struct hpm_mk_thread *s = slot(m, k);
			if (!s || (t != SIZE_MAX && k != t) || (tid && s->tid != tid) ||
			    (pid && s->pid != pid))
				continue;
			sum += __atomic_load_n(&s->ctr[c], __ATOMIC_RELAXED);
		}
	}
	return sum;
}

int hpm_markers__counter(const struct hpm_markers *m, const char *name, size_t t,
			 uint64_t *out)
{
	*out = 0;
	if (!name)
		return -EINVAL;
	if (t != SIZE_MAX && t >= hpm_markers__nr_threads(m))
		return -ENOENT;
	*out = sum_counter(m, name, t, 0, 0);
	return 0;
}

uint64_t hpm_markers__counter_tid(const struct hpm_markers *m, const char *name, pid_t pid,
				  pid_t tid)
{
	return name && tid ? sum_counter(m, name, SIZE_MAX, pid, tid) : 0;
}

size_t hpm_markers__nr_regions(const struct hpm_markers *m)
{
	uint32_t n = __atomic_load_n(&m->h->nr_regions, __ATOMIC_ACQUIRE);
	return n < HPM_MK_MAX_REGIONS ? n : HPM_MK_MAX_REGIONS;
}

const char *hpm_markers__region_name(const struct hpm_markers *m, size_t r)
{
	if (r >= hpm_markers__nr_regions(m))
		return NULL;
	return entry_name(&m->h->regions[r]);
}

static void add_region(const struct hpm_markers *m, const struct hpm_mk_region *r,
		       struct hpm_region_stats *out)
{
	out->calls += __atomic_load_n(&r->calls, __ATOMIC_RELAXED);
	out->flags |= __atomic_load_n(&r->flags, __ATOMIC_RELAXED);
	unsigned d = __atomic_load_n(&r->max_depth, __ATOMIC_RELAXED);
	if (d > out->max_depth)
		out->max_depth = d;
	for (uint32_t e = 0; e < nr_events(m); e++) {
		struct hpm_count *c = &out->c[e];
		c->value += __atomic_load_n(&r->c[e].value, __ATOMIC_RELAXED);
		if (m->h->events[e].kind == HPM_MK_EV_SW) {
			/* software counters are never multiplexed */
			c->enabled = c->running = 1;
			continue;
		}
		c->enabled += __atomic_load_n(&r->c[e].enabled, __ATOMIC_RELAXED);
		c->running += __atomic_load_n(&r->c[e].running, __ATOMIC_RELAXED);
	}
}

int hpm_markers__region(const struct hpm_markers *m, size_t r, size_t t,
			struct hpm_region_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (r >= hpm_markers__nr_regions(m))
		return -ENOENT;
	if (t != SIZE_MAX && t >= hpm_markers__nr_threads(m))
		return -ENOENT;
	/* the same name may have two entries (two processes added it at
	 * once): each counts for the name (list each name once) */
	const char *name = hpm_markers__region_name(m, r);
	for (size_t k = 0; k < hpm_markers__nr_threads(m); k++) {
		const struct hpm_mk_thread *s = slot(m, k);
		if (!s || (t != SIZE_MAX && k != t))
			continue;
		for (size_t q = 0; q < hpm_markers__nr_regions(m); q++) {
			const char *qn = hpm_markers__region_name(m, q);
			if (q == r || (name && qn && !strcmp(qn, name)))
				add_region(m, &s->region[q], out);
		}
	}
	return 0;
}

static int sum_marked(const struct hpm_markers *m, size_t e, size_t t, pid_t pid, pid_t tid,
		      struct hpm_count *out)
{
	memset(out, 0, sizeof(*out));
	if (e >= nr_events(m))
		return -ENOENT;
	for (size_t k = 0; k < hpm_markers__nr_threads(m); k++) {
		const struct hpm_mk_thread *s = slot(m, k);
		if (!s || (t != SIZE_MAX && k != t) || (tid && s->tid != tid) ||
		    (pid && s->pid != pid))
			continue;
		if (m->h->events[e].kind == HPM_MK_EV_SW)
			continue; /* sw counters count only while marked themselves */
		out->value += __atomic_load_n(&s->marked[e].value, __ATOMIC_RELAXED);
		out->enabled += __atomic_load_n(&s->marked[e].enabled, __ATOMIC_RELAXED);
		out->running += __atomic_load_n(&s->marked[e].running, __ATOMIC_RELAXED);
	}
	return 0;
}

int hpm_markers__marked(const struct hpm_markers *m, size_t e, size_t t, struct hpm_count *out)
{
	if (t != SIZE_MAX && t >= hpm_markers__nr_threads(m)) {
		memset(out, 0, sizeof(*out));
		return -ENOENT;
	}
	return sum_marked(m, e, t, 0, 0, out);
}

int hpm_markers__marked_tid(const struct hpm_markers *m, size_t e, pid_t pid, pid_t tid,
			    struct hpm_count *out)
{
	return sum_marked(m, e, SIZE_MAX, pid, tid, out);
}

/* ---- what a counting session reads here ---- */

uint64_t hpm__markers_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool hpm__markers_read_event(const struct hpm_markers *m, bool marked,
			     const struct hpm_event *ev, size_t idx, uint64_t since_ns,
			     pid_t pid, pid_t tid, struct hpm_count *out)
{
	bool sw = hpm__event_is_marker(ev);

	if (!m || (!sw && !marked))
		return false;
	memset(out, 0, sizeof(*out));
	if (sw) {
		out->value = tid || pid ? hpm_markers__counter_tid(m, ev->name + 3, pid, tid)
					: sum_counter(m, ev->name + 3, SIZE_MAX, 0, 0);
		/* never multiplexed: counting all along */
		out->enabled = out->running = hpm__markers_now_ns() - since_ns + 1;
		return true;
	}
	int e = hpm_markers__event_of(m, idx);
	if (e < 0) {
		out->err = -EOPNOTSUPP;
		return true;
	}
	sum_marked(m, (size_t)e, SIZE_MAX, pid, tid, out);
	return true;
}

const char *hpm__markers_message(const struct hpm_markers *m, bool marked,
				 const struct hpm_event *ev)
{
	if (hpm__event_is_marker(ev) && !m)
		return "software counters are published by the program through hpmon's markers "
		       "area, which this session has none of (hpmon stat -e sw:NAME -- PROG)";
	if (marked && hpm__event_is_location(ev))
		return "exec: events count in hpmon, not in the program, and cannot be limited "
		       "to what the program marks";
	return NULL;
}
