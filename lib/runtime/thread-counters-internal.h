/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/runtime/ owns what runs in the measured program; may use sys.
 *
 * A thread's own counters, in the measured program
 * (lib/runtime/thread-counters.c): the events the markers area asks each
 * thread to count itself (regions, marked counting), opened by the thread
 * on itself as one event set, and the software counters named as events
 * (sw:NAME), read from the thread's slot.
 *
 * Ownership: struct hpm_mk_counters lives in the thread's state
 * (lib/runtime/thread-internal.h) and owns its event set; the slot given
 * to each call is the thread's, in the area, which outlives it.
 */
#ifndef HPM_THREAD_COUNTERS_INTERNAL_H
#define HPM_THREAD_COUNTERS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/area-internal.h"

struct hpm_eventset;

struct hpm_mk_counters {
	struct hpm_eventset *es;            /* the perf events, or NULL */
	bool tried;                         /* opened, or tried to */
	int8_t es_index[HPM_MK_MAX_EVENTS]; /* area event -> es event, or -1 */
	int16_t sw_counter[HPM_MK_MAX_EVENTS]; /* area event -> counter, or -1 */
	uint8_t active[HPM_MK_MAX_EVENTS];  /* the area events counted, */
	unsigned nr_active;                 /* in order */
};

/* A thread's counters before they are opened. */
void hpm__mk_counters_init(struct hpm_mk_counters *c);
/*
 * Open the events of the area on the calling thread, enabled or not, for
 * the thread of slot @slot (NULL: nothing to count). A refusal is kept in
 * the slot (open_err) for hpmon to report. 0 or -errno.
 */
int hpm__mk_counters_open(struct hpm_mk_counters *c, struct hpm_mk_thread *slot,
			  bool enabled);
/* The active events' absolute counts into @out[HPM_MK_MAX_EVENTS] (the
 * others untouched). */
void hpm__mk_counters_read(const struct hpm_mk_counters *c, const struct hpm_mk_thread *slot,
			   struct hpm_mk_count *out);
/* Start or stop the perf events (marked counting). */
void hpm__mk_counters_enable(struct hpm_mk_counters *c, bool on);
/* Publish the totals of the perf events as the slot's marked counts
 * (under --marked they count only while the thread is marked). */
void hpm__mk_counters_publish_marked(const struct hpm_mk_counters *c,
				     struct hpm_mk_thread *slot);
/* Close them (thread exit, fork); they may be opened again. */
void hpm__mk_counters_close(struct hpm_mk_counters *c);

#endif
