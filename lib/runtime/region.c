/* SPDX-License-Identifier: MIT */
/*
 * Regions (include/hpmon/region.h), in the measured program.
 *
 * Under `hpmon stat --regions` each thread counts the area's events
 * itself (lib/runtime/thread-counters.c); a region's totals are the
 * differences of those counts between its begin and its end, kept in the
 * thread's slot. The open regions are a stack in the thread's state.
 *
 * A begin does its lookups first and reads the counters last; an end
 * reads them first and does its bookkeeping after, so what a region
 * counts beyond its own code is only the tail of one read and the head of
 * the other. Everything a begin or end writes was touched before the
 * read, so no page fault of the runtime falls inside a region.
 */
#include <errno.h>
#include <string.h>

#include <hpmon/counters.h> /* HPM_REGION_* flags */
#include <hpmon/region.h>
#include "runtime/thread-internal.h"

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

/*
 * The thread ends (@forked false): the regions still open are flagged.
 * The child of a fork (@forked true): the regions its thread had open
 * began in the parent, whose counters their begin values are; dropped.
 */
static void regions_end(struct hpm_mk_tstate *ts, bool forked)
{
	for (unsigned i = 0; !forked && i < ts->depth && ts->slot; i++)
		flag(&ts->slot->region[ts->stack[i].region], HPM_REGION_OPEN_AT_END);
	ts->depth = 0;
}

int hpm_region_begin(const char *name)
{
	struct hpm_mk_header *a = hpm__mk_process_area();
	struct hpm_mk_tstate *ts;

	if (!a || !(a->flags & HPM_MK_F_REGIONS))
		return 0;
	if (!valid_name(name))
		return -EINVAL;
	ts = hpm__mk_thread();
	if (!ts || !ts->slot)
		return 0; /* no slot: hpmon reports the thread as lost */
	ts->regions_end = regions_end;
	if (!ts->ctr.tried)
		hpm__mk_counters_open(&ts->ctr, ts->slot,
				      !(a->flags & HPM_MK_F_MARKED) || ts->marked);
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
	hpm__mk_counters_read(&ts->ctr, ts->slot, o->begin);
	return 0;
}

static void add(uint64_t *dst, uint64_t v)
{
	__atomic_store_n(dst, __atomic_load_n(dst, __ATOMIC_RELAXED) + v, __ATOMIC_RELAXED);
}

int hpm_region_end(const char *name)
{
	struct hpm_mk_count now[HPM_MK_MAX_EVENTS];
	struct hpm_mk_header *a = hpm__mk_process_area();
	struct hpm_mk_tstate *ts;

	if (!a || !(a->flags & HPM_MK_F_REGIONS))
		return 0;
	ts = hpm__mk_thread();
	if (!ts || !ts->slot)
		return 0;
	if (ts->depth)
		hpm__mk_counters_read(&ts->ctr, ts->slot, now);
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
	if (!ts->ctr.es)
		flag(reg, HPM_REGION_NO_COUNTERS);
	for (unsigned k = 0; k < ts->ctr.nr_active; k++) {
		unsigned e = ts->ctr.active[k];
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
