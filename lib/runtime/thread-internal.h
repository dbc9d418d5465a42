/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/runtime/ owns what runs in the measured program; may use sys.
 *
 * A thread of the measured program, as the runtime sees it
 * (lib/runtime/thread.c): its slot in the markers area, where its
 * increments go, its own counters, its mark and its open regions; and the
 * process-wide hooks (thread end, fork, exit) that publish them.
 *
 * Ownership: the state is the thread's, reached through one TLS pointer,
 * created on its first use and freed when the thread ends; nobody else
 * frees it. Its slot is in the area, which outlives every thread.
 */
#ifndef HPM_THREAD_INTERNAL_H
#define HPM_THREAD_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/area-internal.h"
#include "runtime/thread-counters-internal.h"

/* A region open in the thread: where, and the counts at its begin. */
struct hpm_mk_open {
	uint32_t region;                   /* index in regions[] */
	uint32_t pad;
	struct hpm_mk_count begin[HPM_MK_MAX_EVENTS];
};

struct hpm_mk_tstate;
/* What the thread's open regions become when it ends (@forked false) or
 * when it is the child of a fork (@forked true): region.c's. */
typedef void (*hpm_mk_regions_end_fn)(struct hpm_mk_tstate *ts, bool forked);

struct hpm_mk_tstate {
	struct hpm_mk_thread *slot;        /* in the area, NULL without one */
	uint64_t *priv;                    /* counters when there is no slot,
					      and the sink while unmarked */
	struct hpm_mk_counters ctr;        /* this thread's own counters */
	bool marked;
	bool need_slot;                    /* forked: take a slot of its own */
	bool ended;                        /* published at its end */
	/* ---- regions (lib/runtime/region.c) ---- */
	hpm_mk_regions_end_fn regions_end; /* set by the thread's first begin */
	unsigned depth;
	struct hpm_mk_open stack[HPM_MK_MAX_DEPTH];
	struct {
		const char *name;          /* the caller's pointer (a literal) */
		uint32_t idx;
	} cache[16];                       /* region name -> index */
};

/*
 * The area (NULL without hpmon), with the process-wide hooks of the
 * runtime installed: every public call starts here.
 */
struct hpm_mk_header *hpm__mk_process_area(void);
/* The calling thread's state (created on first use, given a slot when
 * there is an area; NULL if out of memory). */
struct hpm_mk_tstate *hpm__mk_thread(void);
/* Point the thread's increments (hpm__marker_ctr) at its slot, or at its
 * private block when it has none or is unmarked under --marked. */
void hpm__mk_thread_route(struct hpm_mk_tstate *ts);

#endif
