/* SPDX-License-Identifier: MIT */
/*
 * Software counters, their mask, and the mark, in the measured program
 * (include/hpmon/marker.h).
 *
 * The fast path of HPM_ADD is in the header: the thread's counter block
 * (one TLS pointer, lib/runtime/thread.c) indexed by the site's slot.
 * Everything else happens once per thread or per site, under the
 * runtime's one process-wide lock: the first increment of a site finds or
 * adds its name in the area's table (lib/runtime/area.c) and points the
 * site at the counter, or at the sink (slot 1) while the counter is
 * masked.
 *
 * The mask lives in the sites (which slot they increment), so a masked
 * increment costs what any increment costs. The mark (--marked) moves the
 * thread's block pointer between its slot and a private sink, and
 * switches the thread's own perf events (lib/runtime/thread-counters.c).
 *
 * Ownership: sites are the program's (static, one per HPM_ADD); the
 * runtime keeps a list of them and never frees them.
 */
#include <errno.h>
#include <string.h>

#include "runtime/thread-internal.h"

/* Under the runtime's lock (hpm__mk_lock). */
static struct {
	struct hpm_marker_site *sites;           /* registered sites */
	bool all_on;                             /* hpm_counters_enable */
	uint8_t known[HPM_MK_MAX_COUNTERS];      /* enabled[] initialised */
	uint8_t enabled[HPM_MK_MAX_COUNTERS];    /* hpm_counter_enable */
} mk = {
	.all_on = true,
};

/* The counter slot of @name (added if @add), with its mask bit known.
 * Caller holds the lock. */
static int counter_index(const char *name, bool add)
{
	int i = hpm__mk_counter_index(name, add);

	if (i >= 0 && !mk.known[i]) {
		/* the mask hpmon set for this name, until the program changes it */
		mk.enabled[i] = hpm__mk_counter_default((uint32_t)i);
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

/* ---- the public calls ---- */

void hpm__marker_slow(struct hpm_marker_site *site, uint64_t n)
{
	struct hpm_mk_tstate *ts = hpm__mk_thread();

	if (!ts)
		return;
	if (!__atomic_load_n(&site->idx, __ATOMIC_RELAXED)) {
		hpm__mk_lock(true);
		if (!site->idx) {
			int c = counter_index(site->name, true);
			site->counter = c < 0 ? HPM_MK_SINK : (uint32_t)c;
			site->next = mk.sites;
			mk.sites = site;
			__atomic_store_n(&site->idx, site_target(site->counter), __ATOMIC_RELAXED);
		}
		hpm__mk_lock(false);
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
	hpm__mk_lock(true);
	c = counter_index(name, false);
	hpm__mk_lock(false);
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
	hpm__mk_process_area();
	hpm__mk_lock(true);
	c = counter_index(name, true);
	if (c >= HPM_MK_FIRST_COUNTER) {
		mk.enabled[c] = on;
		retarget_sites();
	}
	hpm__mk_lock(false);
	return c < HPM_MK_FIRST_COUNTER ? -ENOSPC : 0;
}

void hpm_counters_enable(bool on)
{
	hpm__mk_process_area();
	hpm__mk_lock(true);
	mk.all_on = on;
	retarget_sites();
	hpm__mk_lock(false);
}

void hpm_mark(bool on)
{
	struct hpm_mk_tstate *ts = hpm__mk_thread();
	struct hpm_mk_header *a = hpm__mk_area();

	if (!ts || ts->marked == on)
		return;
	if (!a || !ts->slot || !(a->flags & HPM_MK_F_MARKED)) {
		ts->marked = on;
		return;
	}
	if (on) {
		/* set everything up, then start counting as the last step */
		if (!ts->ctr.tried)
			hpm__mk_counters_open(&ts->ctr, ts->slot, false);
		ts->marked = true;
		hpm__mk_thread_route(ts);
		__atomic_or_fetch(&ts->slot->flags, HPM_MK_T_MARKED_NOW, __ATOMIC_RELAXED);
		hpm__mk_counters_enable(&ts->ctr, true);
	} else {
		/* stop counting first */
		hpm__mk_counters_enable(&ts->ctr, false);
		ts->marked = false;
		hpm__mk_thread_route(ts);
		hpm__mk_counters_publish_marked(&ts->ctr, ts->slot);
		__atomic_and_fetch(&ts->slot->flags, ~HPM_MK_T_MARKED_NOW, __ATOMIC_RELAXED);
	}
}

bool hpm_marked(void)
{
	struct hpm_mk_tstate *ts = hpm__mk_thread();
	return ts && ts->marked;
}
