/* SPDX-License-Identifier: MIT */
/*
 * Event sets (include/hpmon/counters.h): events a program opens on itself
 * or on one target, read without a system call where the kernel allows.
 *
 * The user-space read follows the protocol of the perf mmap page: under
 * its sequence lock, take the kernel's offset and add the hardware
 * counter (rdpmc on x86, mrs PMEVCNTR<n>_EL0 / PMCCNTR_EL0 on arm64),
 * sign-extended from pmc_width bits; advance time enabled and running by
 * the time since the kernel last updated them, from the timestamp counter
 * and time_mult/time_shift/time_offset. An event that is not on a counter
 * right now (index 0: switched out, multiplexed, or a software event), or
 * a kernel that offers no user time, is read with read(2) instead.
 *
 * This is the read side of counters.h, part of libhpmon-rt: it uses only
 * the C library and lib/sys, so the markers runtime
 * (lib/runtime/thread-counters.c) opens its threads' counters from raw
 * attributes without the parser. hpm_eventset__new(), which parses a
 * spec, is libhpmon's (lib/count/eventset.c) and builds on
 * hpm__eventset_open().
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <hpmon/session.h>
#include "runtime/eventset-internal.h"
#include "sys/perf.h"
#include "sys/opts.h"

/* Counts of this many events are read into the stack, more into the heap. */
#define ES_STACK_EVENTS 8

struct es_event {
	int fd;
	char *name;
	struct perf_event_mmap_page *page; /* mapped for self-monitoring, or NULL */
	bool user_only;
	bool last_rdpmc;                   /* the last read used rdpmc */
	struct hpm_es_count base;          /* at start */
};

struct hpm_eventset {
	size_t n;
	struct es_event *ev;
	bool group;          /* ev[0] leads the others: one read(2) reads all */
	bool self;           /* counts the thread that opened it */
	bool started;
	pthread_t owner;     /* rdpmc reads only from the opening thread */
	size_t page_size;
};

size_t hpm_eventset__count(const struct hpm_eventset *es) { return es->n; }

const char *hpm_eventset__name(const struct hpm_eventset *es, size_t i)
{
	return i < es->n ? es->ev[i].name : NULL;
}

bool hpm_eventset__rdpmc(const struct hpm_eventset *es, size_t i)
{
	return i < es->n && es->ev[i].last_rdpmc;
}

bool hpm_eventset__user_only(const struct hpm_eventset *es, size_t i)
{
	return i < es->n && es->ev[i].user_only;
}

void hpm_eventset__free(struct hpm_eventset *es)
{
	if (!es)
		return;
	for (size_t i = 0; i < es->n; i++) {
		struct es_event *e = &es->ev[i];
		if (e->page)
			munmap(e->page, es->page_size);
		if (e->fd >= 0)
			close(e->fd);
		free(e->name);
	}
	free(es->ev);
	free(es);
}

/* Open event @i (leader @group_fd or -1), falling back to user-only as
 * hpmon stat does when paranoia refuses kernel counting. */
static int open_one(struct hpm_eventset *es, size_t i, const struct perf_event_attr *src,
		    pid_t pid, int group_fd, bool inherit, bool may_drop_kernel)
{
	struct perf_event_attr a;
	size_t n = src->size && src->size < sizeof(a) ? src->size : sizeof(a);
	int fd;

	memset(&a, 0, sizeof(a));
	memcpy(&a, src, n);
	a.size = sizeof(a);
	a.disabled = group_fd < 0;
	a.inherit = inherit;
	a.enable_on_exec = 0;
	a.sample_period = 0; /* counting: no overflow handling per event */
	a.freq = 0;
	a.sample_type = 0;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	if (es->group && group_fd < 0)
		a.read_format |= PERF_FORMAT_GROUP;
	unsigned did = 0;
	fd = hpm__perf_open(&a, pid, -1, group_fd, PERF_FLAG_FD_CLOEXEC,
			    may_drop_kernel ? HPM_FALLBACK_USER : 0, &did);
	if (fd >= 0 && (did & HPM_FALLBACK_USER))
		es->ev[i].user_only = true;
	return fd;
}

static void close_all(struct hpm_eventset *es)
{
	for (size_t i = 0; i < es->n; i++) {
		if (es->ev[i].fd >= 0)
			close(es->ev[i].fd);
		es->ev[i].fd = -1;
		es->ev[i].user_only = false;
	}
}

/* Open every event; *bad is the one that failed. 0 or -errno. */
static int open_all(struct hpm_eventset *es, const struct perf_event_attr *attrs,
		    const bool *drop_kernel, pid_t pid, bool inherit, size_t *bad)
{
	for (size_t i = 0; i < es->n; i++) {
		int lead = es->group && i ? es->ev[0].fd : -1;
		int fd = open_one(es, i, &attrs[i], pid, lead, inherit,
				  drop_kernel ? drop_kernel[i] : true);
		if (fd < 0) {
			*bad = i;
			close_all(es);
			return fd;
		}
		es->ev[i].fd = fd;
	}
	return 0;
}

struct hpm_eventset *hpm__eventset_open(const struct perf_event_attr *attrs,
					const char *const *names, const bool *drop_kernel,
					size_t n, const struct hpm_eventset_opts *opts,
					size_t *bad, int *errp)
{
	struct hpm_eventset_opts o = { .sz = sizeof(o) };
	struct hpm_eventset *es;
	long page = sysconf(_SC_PAGESIZE);
	int rc;

	*bad = 0;
	if (!HPM_OPTS_VALID(opts, hpm_eventset_opts)) {
		*errp = -EINVAL;
		return NULL;
	}
	o.pid = HPM_OPTS_GET(opts, pid, 0);
	o.inherit = HPM_OPTS_GET(opts, inherit, false);
	o.no_rdpmc = HPM_OPTS_GET(opts, no_rdpmc, false);
	o.no_group = HPM_OPTS_GET(opts, no_group, false);
	if (!n || !attrs) {
		*errp = -EINVAL;
		return NULL;
	}
	es = calloc(1, sizeof(*es));
	if (!es || !(es->ev = calloc(n, sizeof(*es->ev)))) {
		free(es);
		*errp = -ENOMEM;
		return NULL;
	}
	es->n = n;
	es->page_size = page > 0 ? (size_t)page : 4096;
	es->self = o.pid == 0 && !o.inherit;
	es->owner = pthread_self();
	for (size_t i = 0; i < n; i++) {
		es->ev[i].fd = -1;
		char tmp[32];
		if (!names || !names[i])
			snprintf(tmp, sizeof(tmp), "event%zu", i);
		es->ev[i].name = strdup(names && names[i] ? names[i] : tmp);
		if (!es->ev[i].name) {
			hpm_eventset__free(es);
			*errp = -ENOMEM;
			return NULL;
		}
	}
	/* One group when the kernel takes it: a single read(2) then reads
	 * every event, and they are scheduled together. */
	es->group = !o.no_group && n > 1;
	rc = open_all(es, attrs, drop_kernel, o.pid, o.inherit, bad);
	if (rc && es->group && rc != -EACCES && rc != -ESRCH && rc != -EMFILE) {
		es->group = false;
		rc = open_all(es, attrs, drop_kernel, o.pid, o.inherit, bad);
	}
	if (rc) {
		hpm_eventset__free(es);
		*errp = rc;
		return NULL;
	}
	if (es->self && !o.no_rdpmc) {
		for (size_t i = 0; i < n; i++) {
			void *m = mmap(NULL, es->page_size, PROT_READ, MAP_SHARED, es->ev[i].fd, 0);
			es->ev[i].page = m == MAP_FAILED ? NULL : m;
		}
	}
	return es;
}

struct hpm_eventset *hpm_eventset__new_attrs(const struct perf_event_attr *attrs,
					     const char *const *names, size_t n,
					     const struct hpm_eventset_opts *opts)
{
	size_t bad;
	int err = 0;
	struct hpm_eventset *es = hpm__eventset_open(attrs, names, NULL, n, opts, &bad, &err);
	if (!es)
		errno = -err;
	return es;
}

/* ---- reading ---- */

#if defined(__x86_64__) || defined(__i386__)
static inline uint64_t read_pmc(uint32_t counter)
{
	uint32_t lo, hi;
	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
	return (uint64_t)hi << 32 | lo;
}

static inline uint64_t read_timestamp(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}
#define HPM_HAVE_RDPMC 1
#elif defined(__aarch64__)
/* PMEVCNTR<n>_EL0 must be named in the instruction: one case each. */
#define HPM_PMEV(n)                                                        \
	case n:                                                            \
		__asm__ volatile("mrs %0, pmevcntr" #n "_el0" : "=r"(v)); \
		break
static inline uint64_t read_pmc(uint32_t counter)
{
	uint64_t v = 0;
	switch (counter) {
	HPM_PMEV(0); HPM_PMEV(1); HPM_PMEV(2); HPM_PMEV(3); HPM_PMEV(4);
	HPM_PMEV(5); HPM_PMEV(6); HPM_PMEV(7); HPM_PMEV(8); HPM_PMEV(9);
	HPM_PMEV(10); HPM_PMEV(11); HPM_PMEV(12); HPM_PMEV(13); HPM_PMEV(14);
	HPM_PMEV(15); HPM_PMEV(16); HPM_PMEV(17); HPM_PMEV(18); HPM_PMEV(19);
	HPM_PMEV(20); HPM_PMEV(21); HPM_PMEV(22); HPM_PMEV(23); HPM_PMEV(24);
	HPM_PMEV(25); HPM_PMEV(26); HPM_PMEV(27); HPM_PMEV(28); HPM_PMEV(29);
	HPM_PMEV(30);
	case 31: /* the kernel's user index of the cycle counter */
		__asm__ volatile("mrs %0, pmccntr_el0" : "=r"(v));
		break;
	}
	return v;
}
#undef HPM_PMEV

static inline uint64_t read_timestamp(void)
{
	uint64_t v;
	__asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
}
#define HPM_HAVE_RDPMC 1
#else
#define HPM_HAVE_RDPMC 0
#endif

#define es_barrier() __asm__ volatile("" ::: "memory")

/* The user-space read of one event (see the top). false: use read(2). */
static bool mmap_read(const struct perf_event_mmap_page *page, struct hpm_es_count *out)
{
#if HPM_HAVE_RDPMC
	const volatile struct perf_event_mmap_page *pc = page;
	uint64_t count, enabled, running, cyc, pmc, time_offset, time_cycles, time_mask;
	uint32_t seq, idx, time_mult, time_shift;
	uint16_t width;
	bool time_short;

	do {
		seq = pc->lock;
		es_barrier();
		if (!pc->cap_user_rdpmc || !pc->cap_user_time)
			return false;
		idx = pc->index;
		if (!idx)
			return false; /* not on a counter now */
		enabled = pc->time_enabled;
		running = pc->time_running;
		count = pc->offset;
		width = pc->pmc_width;
		time_offset = pc->time_offset;
		time_mult = pc->time_mult;
		time_shift = pc->time_shift;
		time_short = pc->cap_user_time_short;
		time_cycles = pc->time_cycles;
		time_mask = pc->time_mask;
		cyc = read_timestamp();
		pmc = read_pmc(idx - 1);
		es_barrier();
	} while (pc->lock != seq);

	if (width && width < 64) {
		pmc <<= 64 - width;
		pmc = (uint64_t)((int64_t)pmc >> (64 - width));
	}
	count += pmc;
	if (time_short)
		cyc = time_cycles + ((cyc - time_cycles) & time_mask);
	uint64_t quot = time_shift < 64 ? cyc >> time_shift : 0;
	uint64_t rem = time_shift < 64 ? cyc & (((uint64_t)1 << time_shift) - 1) : cyc;
	uint64_t delta = time_offset + quot * time_mult + ((rem * time_mult) >> time_shift);
	out->value = count;
	out->enabled = enabled + delta;
	out->running = running + delta;
	return true;
#else
	(void)page;
	(void)out;
	return false;
#endif
}

static int read_group(struct hpm_eventset *es, struct hpm_es_count *out)
{
	uint64_t buf[3 + ES_STACK_EVENTS * 4];
	uint64_t *v = buf;
	size_t want = (3 + es->n) * sizeof(uint64_t);
	ssize_t got;

	if (want > sizeof(buf) && !(v = malloc(want)))
		return -ENOMEM;
	got = read(es->ev[0].fd, v, want);
	int rc = got < 0 ? -errno : (size_t)got != want || v[0] != es->n ? -EIO : 0;
	for (size_t i = 0; !rc && i < es->n; i++) {
		out[i].value = v[3 + i];
		out[i].enabled = v[1];
		out[i].running = v[2];
	}
	if (v != buf)
		free(v);
	return rc;
}

static int read_one(int fd, struct hpm_es_count *out)
{
	uint64_t v[3];
	ssize_t got = read(fd, v, sizeof(v));
	if (got < 0)
		return -errno;
	if (got != (ssize_t)sizeof(v))
		return -EIO;
	out->value = v[0];
	out->enabled = v[1];
	out->running = v[2];
	return 0;
}

int hpm__eventset_read_raw(struct hpm_eventset *es, struct hpm_es_count *out)
{
	if (es->n == 1 && !es->ev[0].page)
		return read_one(es->ev[0].fd, out); /* the common read(2)-only case */

	bool user = es->self && es->ev[0].page && pthread_equal(es->owner, pthread_self());
	size_t i = 0;

	/* every event from user space, or else one read(2) for the group */
	for (; user && i < es->n; i++)
		if (!es->ev[i].page || !mmap_read(es->ev[i].page, &out[i]))
			break;
	for (size_t k = 0; k < es->n; k++)
		es->ev[k].last_rdpmc = user && i == es->n;
	if (user && i == es->n)
		return 0;
	if (es->group)
		return read_group(es, out);
	for (i = 0; i < es->n; i++) {
		int rc = read_one(es->ev[i].fd, &out[i]);
		if (rc)
			return rc;
	}
	return 0;
}

int hpm__eventset_enable(struct hpm_eventset *es, bool on)
{
	unsigned long req = on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE;
	if (es->group)
		return ioctl(es->ev[0].fd, req, PERF_IOC_FLAG_GROUP) < 0 ? -errno : 0;
	for (size_t i = 0; i < es->n; i++)
		if (ioctl(es->ev[i].fd, req, 0) < 0)
			return -errno;
	return 0;
}

int hpm_eventset__start(struct hpm_eventset *es)
{
	struct hpm_es_count tmp[ES_STACK_EVENTS], *now = tmp;
	int rc = hpm__eventset_enable(es, true);

	if (rc)
		return rc;
	if (es->n > ES_STACK_EVENTS && !(now = calloc(es->n, sizeof(*now))))
		return -ENOMEM;
	rc = hpm__eventset_read_raw(es, now);
	for (size_t i = 0; !rc && i < es->n; i++)
		es->ev[i].base = now[i];
	if (now != tmp)
		free(now);
	es->started = rc == 0;
	return rc;
}

int hpm_eventset__stop(struct hpm_eventset *es)
{
	return hpm__eventset_enable(es, false);
}

int hpm_eventset__read(struct hpm_eventset *es, struct hpm_count *out)
{
	struct hpm_es_count tmp[ES_STACK_EVENTS], *now = tmp;
	int rc;

	if (!es->started)
		return -HPM_ERR_NOT_OPEN;
	if (es->n == 1 && !es->ev[0].page) {
		/* one event, read(2) only: as close to a bare read(2) as can be */
		uint64_t v[3];
		const struct hpm_es_count *b = &es->ev[0].base;
		ssize_t got = read(es->ev[0].fd, v, sizeof(v));
		if (got != (ssize_t)sizeof(v))
			return got < 0 ? -errno : -EIO;
		out->value = v[0] - b->value;
		out->enabled = v[1] - b->enabled;
		out->running = v[2] - b->running;
		out->err = 0;
		return 0;
	}
	if (es->n > ES_STACK_EVENTS && !(now = calloc(es->n, sizeof(*now))))
		return -ENOMEM;
	rc = hpm__eventset_read_raw(es, now);
	for (size_t i = 0; !rc && i < es->n; i++) {
		const struct hpm_es_count *b = &es->ev[i].base;
		out[i].value = now[i].value - b->value;
		out[i].enabled = now[i].enabled - b->enabled;
		out[i].running = now[i].running - b->running;
		out[i].err = 0;
	}
	if (now != tmp)
		free(now);
	return rc;
}

/* hpm_count__scaled (include/hpmon/session.h) is the runtime's: a program
 * that reads an event set with -lhpmon-rt alone scales its counts too. */
double hpm_count__scaled(const struct hpm_count *c)
{
	if (!c->running)
		return 0.0;
	if (c->running >= c->enabled)
		return (double)c->value;
	return (double)c->value * (double)c->enabled / (double)c->running;
}
