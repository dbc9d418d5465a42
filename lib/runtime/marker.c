/* SPDX-License-Identifier: MIT */
/*
 * The markers runtime in the measured program (include/hpmon/marker.h):
 * software counters, their mask, and the mark. lib/runtime/region.c adds regions
 * and the threads' own hardware counters.
 *
 * The fast path of HPM_ADD is in the header: the thread's counter block
 * (one TLS pointer) indexed by the site's slot. Everything else happens
 * once per thread or per site, here, under one process-wide lock:
 *
 *  - the first call of the process looks for hpmon's area
 *    (HPMON_MARKERS=<fd> in the environment, see lib/runtime/marker-internal.h);
 *  - the first increment of a thread gives it a slot in the area (or a
 *    private block without one), a TLS state, and a key whose destructor
 *    publishes what is open when the thread ends;
 *  - the first increment of a site finds or adds its name in the area's
 *    table and points the site at the counter, or at the sink (slot 1)
 *    while the counter is masked.
 *
 * The mask lives in the sites (which slot they increment), so a masked
 * increment costs what any increment costs. The mark (--marked) moves the
 * thread's block pointer between its slot and a private sink, and
 * switches the thread's own perf events (lib/runtime/region.c).
 *
 * This is the one part of libhpmon with process-wide state and an
 * environment variable: it runs inside the program, on the program's
 * behalf, and has no context object to be given.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/marker-internal.h"

__thread uint64_t *hpm__marker_ctr;

static __thread struct hpm_mk_tstate *mk_ts;

static struct {
	pthread_once_t once;
	pthread_mutex_t lock;
	pthread_key_t key;
	bool have_key;
	struct hpm_mk_header *area;
	size_t area_len;
	struct hpm_marker_site *sites;          /* registered sites */
	bool all_on;                             /* hpm_counters_enable */
	uint8_t known[HPM_MK_MAX_COUNTERS];      /* enabled[] initialised */
	uint8_t enabled[HPM_MK_MAX_COUNTERS];    /* hpm_counter_enable */
	struct hpm_mk_name names[HPM_MK_MAX_COUNTERS]; /* without an area */
	uint32_t nr_names;
} mk = {
	.once = PTHREAD_ONCE_INIT,
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.all_on = true,
	.nr_names = HPM_MK_FIRST_COUNTER,
};

void hpm__mk_lock(bool on)
{
	if (on)
		pthread_mutex_lock(&mk.lock);
	else
		pthread_mutex_unlock(&mk.lock);
}

static pid_t mk_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* ---- the area ---- */

/* hpmon's area from HPMON_MARKERS=<fd>, if it is one this runtime reads. */
static void attach_area(void)
{
	const char *env = getenv(HPM_MK_ENV);
	struct hpm_mk_header *h;
	struct stat st;
	char *end;
	long fd;

	if (!env || !*env)
		return;
	fd = strtol(env, &end, 10);
	if (*end || fd < 0 || fd > 1 << 20 || fstat((int)fd, &st) || !S_ISREG(st.st_mode) ||
	    (size_t)st.st_size < sizeof(*h))
		return;
	h = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
	if (h == MAP_FAILED)
		return;
	if (h->magic != HPM_MK_MAGIC || h->version != HPM_MK_VERSION ||
	    h->header_size != sizeof(*h) || h->thread_size != sizeof(struct hpm_mk_thread) ||
	    h->total_size != (uint64_t)st.st_size ||
	    h->total_size < h->header_size + (uint64_t)h->max_threads * h->thread_size) {
		munmap(h, (size_t)st.st_size);
		return;
	}
	mk.area = h;
	mk.area_len = (size_t)st.st_size;
}

static void thread_end(void *arg);
static void fork_child(void);
static void process_end(void);

static void mk_init(void)
{
	attach_area();
	mk.have_key = pthread_key_create(&mk.key, thread_end) == 0;
	pthread_atfork(NULL, NULL, fork_child);
	atexit(process_end);
}

struct hpm_mk_header *hpm__mk_area(void)
{
	pthread_once(&mk.once, mk_init);
	return mk.area;
}

int hpm__mk_name_index(struct hpm_mk_name *names, uint32_t *nr, uint32_t first,
		       uint32_t max, const char *name, bool add, uint32_t enabled)
{
	uint32_t n = __atomic_load_n(nr, __ATOMIC_ACQUIRE);
	size_t len = strlen(name);

	if (!len || len >= HPM_MARKER_NAME_MAX)
		return -1;
	for (uint32_t i = first; i < n && i < max; i++)
		if (__atomic_load_n(&names[i].state, __ATOMIC_ACQUIRE) == HPM_MK_NAME_READY &&
		    !strcmp(names[i].name, name))
			return (int)i;
	if (!add)
		return -1;
	/* Processes sharing the area may add the same name at once: then it
	 * has two entries, and readers sum them. */
	uint32_t i = __atomic_fetch_add(nr, 1, __ATOMIC_ACQ_REL);
	if (i >= max)
		return -1;
	memcpy(names[i].name, name, len + 1);
	names[i].enabled = enabled;
	__atomic_store_n(&names[i].state, HPM_MK_NAME_READY, __ATOMIC_RELEASE);
	return (int)i;
}

/* Caller holds the lock. */
int hpm__mk_counter_index(const char *name, bool add)
{
	struct hpm_mk_header *a = mk.area;
	int i;

	if (a)
		i = hpm__mk_name_index(a->counters, &a->nr_counters, HPM_MK_FIRST_COUNTER,
				       HPM_MK_MAX_COUNTERS, name, add, a->default_enabled);
	else
		i = hpm__mk_name_index(mk.names, &mk.nr_names, HPM_MK_FIRST_COUNTER,
				       HPM_MK_MAX_COUNTERS, name, add, 1);
	if (i >= 0 && !mk.known[i]) {
		/* the mask hpmon set for this name, until the program changes it */
		mk.enabled[i] = (a ? a->counters[i].enabled : 1) != 0;
		mk.known[i] = 1;
	}
	return i;
}

/* The slot a site of counter @c increments. Caller holds the lock. */
static uint32_t site_target(uint32_t c)
{
	return c >= HPM_MK_FIRST_COUNTER && mk.all_on && mk.enabled[c] ? c : HPM_MK_SINK;
}

static void retarget_sites(void)
{
	for (struct hpm_marker_site *s = mk.sites; s; s = s->next)
		__atomic_store_n(&s->idx, site_target(s->counter), __ATOMIC_RELAXED);
}

/* ---- threads ---- */

/* Where the thread's increments go: its slot, or its private block when
 * it has no slot or is unmarked under --marked. */
static void route(struct hpm_mk_tstate *ts)
{
	const struct hpm_mk_header *a = mk.area;
	bool to_slot = ts->slot && (!(a->flags & HPM_MK_F_MARKED) || ts->marked);
	hpm__marker_ctr = to_slot ? ts->slot->ctr : ts->priv;
}

static void take_slot(struct hpm_mk_tstate *ts)
{
	struct hpm_mk_header *a = mk.area;

	ts->need_slot = false;
	ts->slot = NULL;
	if (!a)
		return;
	uint32_t i = __atomic_fetch_add(&a->nr_threads, 1, __ATOMIC_ACQ_REL);
	if (i >= a->max_threads)
		return; /* counted privately; hpmon reports the lost thread */
	struct hpm_mk_thread *t = hpm__mk_slot(a, i);
	t->pid = (int32_t)getpid();
	t->tid = (int32_t)mk_gettid();
	__atomic_store_n(&t->state, HPM_MK_T_ALIVE, __ATOMIC_RELEASE);
	ts->slot = t;
}

static struct hpm_mk_tstate *thread_new(void)
{
	/* malloc + memset, not calloc: every page of the state is touched
	 * now, so no page fault lands later inside a measured region */
	struct hpm_mk_tstate *ts = malloc(sizeof(*ts));
	if (!ts)
		return NULL;
	memset(ts, 0, sizeof(*ts));
	ts->priv = malloc(HPM_MK_MAX_COUNTERS * sizeof(uint64_t));
	if (!ts->priv) {
		free(ts);
		return NULL;
	}
	memset(ts->priv, 0, HPM_MK_MAX_COUNTERS * sizeof(uint64_t));
	for (int e = 0; e < HPM_MK_MAX_EVENTS; e++) {
		ts->es_index[e] = -1;
		ts->sw_counter[e] = -1;
	}
	take_slot(ts);
	if (mk.have_key)
		pthread_setspecific(mk.key, ts);
	return ts;
}

struct hpm_mk_tstate *hpm__mk_thread(void)
{
	struct hpm_mk_tstate *ts = mk_ts;

	if (ts && !ts->need_slot)
		return ts;
	hpm__mk_area();
	if (!ts) {
		ts = mk_ts = thread_new();
		if (!ts)
			return NULL;
	} else {
		take_slot(ts);
	}
	route(ts);
	/* a thread forked marked counts from the start */
	if (mk.area && ts->slot && ts->marked && (mk.area->flags & HPM_MK_F_MARKED)) {
		hpm__mk_counters_open(ts, true);
		__atomic_or_fetch(&ts->slot->flags, HPM_MK_T_MARKED_NOW, __ATOMIC_RELAXED);
	}
	return ts;
}

/* Publish the thread's marked counts (its counters count only while
 * marked, so their totals are the marked counts). */
static void publish_marked(struct hpm_mk_tstate *ts)
{
	struct hpm_mk_count now[HPM_MK_MAX_EVENTS];

	if (!ts->slot || !ts->es)
		return;
	hpm__mk_counters_read(ts, now);
	for (int e = 0; e < HPM_MK_MAX_EVENTS; e++) {
		if (ts->es_index[e] < 0)
			continue;
		struct hpm_mk_count *d = &ts->slot->marked[e];
		__atomic_store_n(&d->value, now[e].value, __ATOMIC_RELAXED);
		__atomic_store_n(&d->enabled, now[e].enabled, __ATOMIC_RELAXED);
		__atomic_store_n(&d->running, now[e].running, __ATOMIC_RELAXED);
	}
}

/* The thread (or, at exit, the process's last thread) ends: publish. */
static void finish_thread(struct hpm_mk_tstate *ts)
{
	struct hpm_mk_header *a = mk.area;

	if (ts->ended)
		return;
	ts->ended = true;
	if (!a || !ts->slot)
		return;
	if ((a->flags & HPM_MK_F_MARKED) && ts->marked) {
		hpm__mk_counters_enable(ts, false);
		publish_marked(ts);
	}
	hpm__mk_regions_thread_end(ts);
	__atomic_and_fetch(&ts->slot->flags, ~HPM_MK_T_MARKED_NOW, __ATOMIC_RELAXED);
	__atomic_store_n(&ts->slot->state, HPM_MK_T_EXITED, __ATOMIC_RELEASE);
}

static void thread_end(void *arg)
{
	struct hpm_mk_tstate *ts = arg;

	finish_thread(ts);
	hpm__mk_counters_close(ts);
	if (mk_ts == ts) {
		/* a destructor that counts after this starts over */
		mk_ts = NULL;
		hpm__marker_ctr = NULL;
	}
	free(ts->priv);
	free(ts);
}

/* exit(): the threads still running end without their destructors; the
 * calling one publishes here. Counting may go on in later exit handlers:
 * increments still land in the slot. */
static void process_end(void)
{
	if (mk_ts)
		finish_thread(mk_ts);
}

/* A forked child: its one thread gets a slot and counters of its own. */
static void fork_child(void)
{
	struct hpm_mk_tstate *ts = mk_ts;

	if (!ts)
		return;
	hpm__mk_counters_close(ts);
	hpm__mk_regions_forked(ts);
	ts->ended = false;
	ts->need_slot = true;
	ts->slot = NULL;
	hpm__marker_ctr = NULL; /* the next increment takes the slot */
	if (ts->marked && mk.area && (mk.area->flags & HPM_MK_F_MARKED))
		hpm__mk_thread(); /* marked: count from the first instruction */
}

/* ---- the public calls ---- */

void hpm__marker_slow(struct hpm_marker_site *site, uint64_t n)
{
	struct hpm_mk_tstate *ts = hpm__mk_thread();

	if (!ts)
		return;
	if (!__atomic_load_n(&site->idx, __ATOMIC_RELAXED)) {
		pthread_mutex_lock(&mk.lock);
		if (!site->idx) {
			int c = hpm__mk_counter_index(site->name, true);
			site->counter = c < 0 ? HPM_MK_SINK : (uint32_t)c;
			site->next = mk.sites;
			mk.sites = site;
			__atomic_store_n(&site->idx, site_target(site->counter), __ATOMIC_RELAXED);
		}
		pthread_mutex_unlock(&mk.lock);
	}
	uint64_t *c = hpm__marker_ctr;
	uint32_t i = __atomic_load_n(&site->idx, __ATOMIC_RELAXED);
	if (c && i)
		__atomic_store_n(&c[i], __atomic_load_n(&c[i], __ATOMIC_RELAXED) + n,
				 __ATOMIC_RELAXED);
}

uint64_t hpm_counter_get(const char *name)
{
	struct hpm_mk_tstate *ts = hpm__mk_thread();
	int c;

	if (!ts || !name)
		return 0;
	pthread_mutex_lock(&mk.lock);
	c = hpm__mk_counter_index(name, false);
	pthread_mutex_unlock(&mk.lock);
	if (c < HPM_MK_FIRST_COUNTER)
		return 0;
	const uint64_t *v = ts->slot ? ts->slot->ctr : ts->priv;
	return __atomic_load_n(&v[c], __ATOMIC_RELAXED);
}

int hpm_counter_enable(const char *name, bool on)
{
	size_t len = name ? strlen(name) : 0;
	int c;

	if (!len || len >= HPM_MARKER_NAME_MAX)
		return -EINVAL;
	hpm__mk_area();
	pthread_mutex_lock(&mk.lock);
	c = hpm__mk_counter_index(name, true);
	if (c >= HPM_MK_FIRST_COUNTER) {
		mk.enabled[c] = on;
		retarget_sites();
	}
	pthread_mutex_unlock(&mk.lock);
	return c < HPM_MK_FIRST_COUNTER ? -ENOSPC : 0;
}

void hpm_counters_enable(bool on)
{
	hpm__mk_area();
	pthread_mutex_lock(&mk.lock);
	mk.all_on = on;
	retarget_sites();
	pthread_mutex_unlock(&mk.lock);
}

void hpm_mark(bool on)
{
	struct hpm_mk_tstate *ts = hpm__mk_thread();
	struct hpm_mk_header *a = mk.area;

	if (!ts || ts->marked == on)
		return;
	if (!a || !ts->slot || !(a->flags & HPM_MK_F_MARKED)) {
		ts->marked = on;
		return;
	}
	if (on) {
		/* set everything up, then start counting as the last step */
		if (!ts->es_tried)
			hpm__mk_counters_open(ts, false);
		ts->marked = true;
		route(ts);
		__atomic_or_fetch(&ts->slot->flags, HPM_MK_T_MARKED_NOW, __ATOMIC_RELAXED);
		hpm__mk_counters_enable(ts, true);
	} else {
		/* stop counting first */
		hpm__mk_counters_enable(ts, false);
		ts->marked = false;
		route(ts);
		publish_marked(ts);
		__atomic_and_fetch(&ts->slot->flags, ~HPM_MK_T_MARKED_NOW, __ATOMIC_RELAXED);
	}
}

bool hpm_marked(void)
{
	struct hpm_mk_tstate *ts = hpm__mk_thread();
	return ts && ts->marked;
}
