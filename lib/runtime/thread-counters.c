/* SPDX-License-Identifier: MIT */
/*
 * A thread's own counters (lib/runtime/thread-counters-internal.h).
 *
 * Under `hpmon stat --regions` (or --marked) the area lists the events
 * each thread counts itself. A thread opens them on itself the first time
 * it needs them, as one event set (lib/runtime/eventset.c), read with
 * rdpmc where it can. Software counters named as events (sw:NAME) are
 * read from the thread's own slot.
 */
#include <errno.h>
#include <string.h>

#include "runtime/eventset-internal.h"
#include "runtime/thread-counters-internal.h"

void hpm__mk_counters_init(struct hpm_mk_counters *c)
{
	memset(c, 0, sizeof(*c));
	for (int e = 0; e < HPM_MK_MAX_EVENTS; e++) {
		c->es_index[e] = -1;
		c->sw_counter[e] = -1;
	}
}

/* Area event @e, a sw: counter: its slot, active when it has one. */
static void add_sw(struct hpm_mk_counters *c, uint32_t e, const struct hpm_mk_event *ev)
{
	hpm__mk_lock(true);
	int i = hpm__mk_counter_index(ev->sw_name, true);
	hpm__mk_lock(false);
	c->sw_counter[e] = (int16_t)i;
	if (i >= HPM_MK_FIRST_COUNTER)
		c->active[c->nr_active++] = (uint8_t)e;
}

/* The attribute of area event @ev, as much of it as this build knows. */
static void copy_attr(struct perf_event_attr *dst, const struct hpm_mk_event *ev)
{
	const struct perf_event_attr *src = (const void *)ev->attr;
	size_t sz = src->size && src->size <= sizeof(*dst) ? src->size : sizeof(*dst);

	memset(dst, 0, sizeof(*dst));
	memcpy(dst, ev->attr, sz < HPM_MK_ATTR_SPACE ? sz : HPM_MK_ATTR_SPACE);
}

int hpm__mk_counters_open(struct hpm_mk_counters *c, struct hpm_mk_thread *slot, bool enabled)
{
	struct hpm_mk_header *a = hpm__mk_area();
	struct perf_event_attr attrs[HPM_MK_MAX_EVENTS];
	const char *names[HPM_MK_MAX_EVENTS];
	size_t n = 0;

	c->tried = true;
	c->nr_active = 0;
	if (!a || !slot)
		return 0;
	uint32_t nr = a->nr_events < HPM_MK_MAX_EVENTS ? a->nr_events : HPM_MK_MAX_EVENTS;
	for (uint32_t e = 0; e < nr; e++) {
		const struct hpm_mk_event *ev = &a->events[e];
		c->es_index[e] = -1;
		c->sw_counter[e] = -1;
		if (ev->kind == HPM_MK_EV_SW) {
			add_sw(c, e, ev);
		} else if (ev->kind == HPM_MK_EV_PERF) {
			copy_attr(&attrs[n], ev);
			names[n] = ev->name;
			c->es_index[e] = (int8_t)n++;
		}
	}
	if (!n)
		return 0;
	struct hpm_eventset_opts o = { .sz = sizeof(o),
				       .no_rdpmc = (a->flags & HPM_MK_F_NO_RDPMC) != 0 };
	c->es = hpm_eventset__new_attrs(attrs, names, n, &o);
	if (!c->es) {
		int err = -errno;
		slot->open_err = err;
		for (int e = 0; e < HPM_MK_MAX_EVENTS; e++)
			c->es_index[e] = -1;
		return err;
	}
	for (uint32_t e = 0; e < nr; e++)
		if (c->es_index[e] >= 0)
			c->active[c->nr_active++] = (uint8_t)e;
	if (enabled)
		hpm__eventset_enable(c->es, true);
	return 0;
}

void hpm__mk_counters_read(const struct hpm_mk_counters *c, const struct hpm_mk_thread *slot,
			   struct hpm_mk_count *out)
{
	struct hpm_es_count raw[HPM_MK_MAX_EVENTS];
	bool ok = c->es && hpm__eventset_read_raw(c->es, raw) == 0;

	for (unsigned k = 0; k < c->nr_active; k++) {
		unsigned e = c->active[k];
		if (c->es_index[e] >= 0) {
			const struct hpm_es_count *r = &raw[c->es_index[e]];
			out[e] = ok ? (struct hpm_mk_count){ r->value, r->enabled, r->running }
				    : (struct hpm_mk_count){ 0 };
		} else {
			out[e].value = __atomic_load_n(&slot->ctr[c->sw_counter[e]],
						       __ATOMIC_RELAXED);
			out[e].enabled = out[e].running = 0;
		}
	}
}

void hpm__mk_counters_enable(struct hpm_mk_counters *c, bool on)
{
	if (c->es)
		hpm__eventset_enable(c->es, on);
}

void hpm__mk_counters_publish_marked(const struct hpm_mk_counters *c, struct hpm_mk_thread *slot)
{
	struct hpm_mk_count now[HPM_MK_MAX_EVENTS];

	if (!slot || !c->es)
		return;
	hpm__mk_counters_read(c, slot, now);
	for (int e = 0; e < HPM_MK_MAX_EVENTS; e++) {
		if (c->es_index[e] < 0)
			continue;
		struct hpm_mk_count *d = &slot->marked[e];
		__atomic_store_n(&d->value, now[e].value, __ATOMIC_RELAXED);
		__atomic_store_n(&d->enabled, now[e].enabled, __ATOMIC_RELAXED);
		__atomic_store_n(&d->running, now[e].running, __ATOMIC_RELAXED);
	}
}

void hpm__mk_counters_close(struct hpm_mk_counters *c)
{
	hpm_eventset__free(c->es);
	c->es = NULL;
	c->tried = false;
}
