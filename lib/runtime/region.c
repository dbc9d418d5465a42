/* SPDX-License-Identifier: MIT */
/*
 * Regions (include/hpmon/region.h) and the threads' own counters, in the
 * measured program.
 *
 * Under `hpmon stat --regions` (or --marked) the area lists the events
 * each thread counts itself. A thread opens them on itself the first time
 * it needs them (hpm__mk_counters_open), as one group, and reads them
 * with rdpmc where it can (lib/count/eventset.c). Software counters named as
 * events (sw:NAME) are read from the thread's own block.
 *
 * A begin does its lookups first and reads the counters last; an end
 * reads them first and does its bookkeeping after, so what a region
 * counts beyond its own code is only the tail of one read and the head of
 * the other. Everything a begin or end writes was touched before the
 * read, so no page fault of the runtime falls inside a region.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <hpmon/region.h>
#include "count/eventset-internal.h"
#include "runtime/marker-internal.h"

/* ---- the thread's counters ---- */

int hpm__mk_counters_open(struct hpm_mk_tstate *ts, bool enabled)
{
	struct hpm_mk_header *a = hpm__mk_area();
	struct perf_event_attr attrs[HPM_MK_MAX_EVENTS];
	const char *names[HPM_MK_MAX_EVENTS];
	size_t n = 0;

	ts->es_tried = true;
	ts->nr_active = 0;
	if (!a || !ts->slot)
		return 0;
	uint32_t nr = a->nr_events < HPM_MK_MAX_EVENTS ? a->nr_events : HPM_MK_MAX_EVENTS;
	for (uint32_t e = 0; e < nr; e++) {
		const struct hpm_mk_event *ev = &a->events[e];
		ts->es_index[e] = -1;
		ts->sw_counter[e] = -1;
		if (ev->kind == HPM_MK_EV_SW) {
			hpm__mk_lock(true);
			int c = hpm__mk_counter_index(ev->sw_name, true);
			hpm__mk_lock(false);
			ts->sw_counter[e] = (int16_t)c;
			if (c >= HPM_MK_FIRST_COUNTER)
				ts->active[ts->nr_active++] = (uint8_t)e;
		} else if (ev->kind == HPM_MK_EV_PERF) {
			const struct perf_event_attr *src = (const void *)ev->attr;
			size_t sz = src->size && src->size <= sizeof(attrs[0]) ? src->size
									: sizeof(attrs[0]);
			memset(&attrs[n], 0, sizeof(attrs[n]));
			memcpy(&attrs[n], ev->attr, sz < HPM_MK_ATTR_SPACE ? sz : HPM_MK_ATTR_SPACE);
			names[n] = ev->name;
			ts->es_index[e] = (int8_t)n++;
		}
	}
	if (!n)
		return 0;
	struct hpm_eventset_opts o = { .sz = sizeof(o),
				       .no_rdpmc = (a->flags & HPM_MK_F_NO_RDPMC) != 0 };
	ts->es = hpm_eventset__new_attrs(attrs, names, n, &o);
	if (!ts->es) {
		int err = -errno;
		ts->slot->open_err = err;
		for (int e = 0; e < HPM_MK_MAX_EVENTS; e++)
			ts->es_index[e] = -1;
		return err;
	}
	for (uint32_t e = 0; e < nr; e++)
		if (ts->es_index[e] >= 0)
			ts->active[ts->nr_active++] = (uint8_t)e;
	if (enabled)
		hpm__eventset_enable(ts->es, true);
	return 0;
}

/* The active events' counts into @out (others untouched). */
void hpm__mk_counters_read(struct hpm_mk_tstate *ts, struct hpm_mk_count *out)
{
	struct hpm_mk_count raw[HPM_MK_MAX_EVENTS];
	bool ok = ts->es && hpm__eventset_read_raw(ts->es, raw) == 0;

	for (unsigned k = 0; k < ts->nr_active; k++) {
		unsigned e = ts->active[k];
		if (ts->es_index[e] >= 0) {
			out[e] = ok ? raw[ts->es_index[e]] : (struct hpm_mk_count){ 0 };
		} else {
			out[e].value = __atomic_load_n(&ts->slot->ctr[ts->sw_counter[e]],
						       __ATOMIC_RELAXED);
			out[e].enabled = out[e].running = 0;
		}
	}
}

void hpm__mk_counters_enable(struct hpm_mk_tstate *ts, bool on)
{
	if (ts->es)
		hpm__eventset_enable(ts->es, on);
}

void hpm__mk_counters_close(struct hpm_mk_tstate *ts)
{
	hpm_eventset__free(ts->es);
	ts->es = NULL;
	ts->es_tried = false;
}

/* ---- regions ---- */

/* Index of region @name, by pointer from the thread's cache, else by
 * text from the area (added when new). -1 when the table is full. */
static int region_index(struct hpm_mk_tstate *ts, struct hpm_mk_header *a, const char *name)
{
	unsigned h = (unsigned)(((uintptr_t)name >> 4) & 15);

	if (ts->cache[h].name == name)
		return (int)ts->cache[h].idx;
	hpm__mk_lock(true);
	int r = hpm__mk_name_index(a->regions, &a->nr_regions, 0, HPM_MK_MAX_REGIONS, name,
				   true, 1);
	hpm__mk_lock(false);
	if (r >= 0) {
		ts->cache[h].name = name;
		ts->cache[h].idx = (uint32_t)r;
	}
	return r;
}

static bool valid_name(const char *name)
{
	return name && name[0] && strnlen(name, HPM_MARKER_NAME_MAX) < HPM_MARKER_NAME_MAX;
}

/* The region's flags, set from the thread that owns the slot. */
static void flag(struct hpm_mk_region *r, uint32_t f)
{
	__atomic_or_fetch(&r->flags, f, __ATOMIC_RELAXED);
}

int hpm_region_begin(const char *name)
{
	struct hpm_mk_header *a = hpm__mk_area();
	struct hpm_mk_tstate *ts;

	if (!a || !(a->flags & HPM_MK_F_REGIONS))
		return 0;
	if (!valid_name(name))
		return -EINVAL;
	ts = hpm__mk_thread();
	if (!ts || !ts->slot)
		return 0; /* no slot: hpmon reports the thread as lost */
	if (!ts->es_tried)
		hpm__mk_counters_open(ts, !(a->flags & HPM_MK_F_MARKED) || ts->marked);
	int r = region_index(ts, a, name);
	if (r < 0)
		return -ENOSPC;
	struct hpm_mk_region *reg = &ts->slot->region[r];
	if (ts->depth >= HPM_MK_MAX_DEPTH) {
		flag(reg, HPM_REGION_TOO_DEEP);
		return -ENOSPC;
	}
	uint32_t self = 1, max = __atomic_load_n(&reg->max_depth, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < ts->depth; i++)
		self += ts->stack[i].region == (uint32_t)r;
	/* this store also touches the totals' page before the read */
	__atomic_store_n(&reg->max_depth, self > max ? self : max, __ATOMIC_RELAXED);
	struct hpm_mk_open *o = &ts->stack[ts->depth++];
	o->region = (uint32_t)r;
	hpm__mk_counters_read(ts, o->begin);
	return 0;
}

static void add(uint64_t *dst, uint64_t v)
{
	__atomic_store_n(dst, __atomic_load_n(dst, __ATOMIC_RELAXED) + v, __ATOMIC_RELAXED);
}

int hpm_region_end(const char *name)
{
	struct hpm_mk_count now[HPM_MK_MAX_EVENTS];
	struct hpm_mk_header *a = hpm__mk_area();
	struct hpm_mk_tstate *ts;

	if (!a || !(a->flags & HPM_MK_F_REGIONS))
		return 0;
	ts = hpm__mk_thread();
	if (!ts || !ts->slot)
		return 0;
	if (ts->depth)
		hpm__mk_counters_read(ts, now);
	if (!valid_name(name))
		return -EINVAL;
	int r = region_index(ts, a, name);
	if (r < 0)
		return -ENOSPC;
	struct hpm_mk_region *reg = &ts->slot->region[r];
	unsigned i = ts->depth;
	while (i > 0 && ts->stack[i - 1].region != (uint32_t)r)
		i--;
	if (i == 0) {
		flag(reg, HPM_REGION_UNMATCHED);
		return -ENOENT;
	}
	struct hpm_mk_open *o = &ts->stack[i - 1];
	if (!ts->es)
		flag(reg, HPM_REGION_NO_COUNTERS);
	for (unsigned k = 0; k < ts->nr_active; k++) {
		unsigned e = ts->active[k];
		add(&reg->c[e].value, now[e].value - o->begin[e].value);
		add(&reg->c[e].enabled, now[e].enabled - o->begin[e].enabled);
		add(&reg->c[e].running, now[e].running - o->begin[e].running);
	}
	add(&reg->calls, 1);
	/* ends may come in any order: close the gap */
	memmove(o, o + 1, (ts->depth - i) * sizeof(*o));
	ts->depth--;
	return 0;
}

void hpm__mk_regions_thread_end(struct hpm_mk_tstate *ts)
{
	for (unsigned i = 0; i < ts->depth && ts->slot; i++)
		flag(&ts->slot->region[ts->stack[i].region], HPM_REGION_OPEN_AT_END);
	ts->depth = 0;
}

void hpm__mk_regions_forked(struct hpm_mk_tstate *ts)
{
	/* the open regions' begin values are the parent's counters */
	ts->depth = 0;
}
