/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/runtime/ owns what runs in the measured program; may use sys.
 *
 * The markers area: one shared memory file that hpmon creates
 * (lib/count/markers.c, the measuring side) and the measured program maps
 * (lib/runtime/area.c, the program side). hpmon puts the events each
 * thread should count (regions, marked counting) and the initial counter
 * mask in the header; the program's threads each take a slot and keep
 * their software counters, region totals and marked counts in it. hpmon
 * reads the slots at any time (-I) and after the end: a thread's numbers
 * stay when it exits, so nothing has to be sent.
 *
 * The two sides are libhpmon and libhpmon-rt, not necessarily of the same
 * build: the header starts with a magic, a version and the sizes of what
 * follows, and a program that finds anything else ignores the area (and
 * counts privately, as without hpmon).
 *
 * Ownership: the area belongs to hpmon, which creates and frees it; a
 * program maps it once and keeps it mapped to its end. Only the program's
 * threads write their own slot; hpmon only reads. The 64-bit values are
 * written with single relaxed stores, so a reader sees each one either
 * before or after an update, never torn.
 */
#ifndef HPM_AREA_INTERNAL_H
#define HPM_AREA_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include <hpmon/marker.h>

#define HPM_MK_MAGIC 0x31304b4d4d504848ull /* "HHPMMK01" */
#define HPM_MK_VERSION 1
#define HPM_MK_ENV "HPMON_MARKERS"

#define HPM_MK_MAX_COUNTERS 256   /* names[] entries, counter slots */
#define HPM_MK_FIRST_COUNTER 2    /* 0: site not registered, 1: the sink */
#define HPM_MK_SINK 1
#define HPM_MK_MAX_REGIONS 64
#define HPM_MK_MAX_EVENTS 8       /* events a thread counts itself */
#define HPM_MK_MAX_DEPTH 32       /* nested regions open in one thread */
#define HPM_MK_ATTR_SPACE 160     /* perf_event_attr bytes kept per event */
#define HPM_MK_DEFAULT_THREADS 1024

/* header.flags */
#define HPM_MK_F_REGIONS 0x1u  /* threads measure their regions */
#define HPM_MK_F_MARKED 0x2u   /* threads count only while marked */
#define HPM_MK_F_NO_RDPMC 0x4u /* threads read their counters with read(2) */

/* names[].state */
#define HPM_MK_NAME_FREE 0
#define HPM_MK_NAME_READY 2

struct hpm_mk_name {
	char name[HPM_MARKER_NAME_MAX];
	uint32_t state;           /* HPM_MK_NAME_*; READY is stored last */
	uint32_t enabled;         /* initial mask bit (counters) */
	uint64_t reserved;
};

/* An event the program's threads count themselves. */
enum hpm_mk_event_kind {
	HPM_MK_EV_NONE = 0,       /* not countable by the program (exec: ...) */
	HPM_MK_EV_PERF = 1,       /* a perf event: attr below */
	HPM_MK_EV_SW = 2,         /* a software counter: sw_name below */
};

struct hpm_mk_event {
	uint32_t kind;
	uint32_t list_idx;        /* index in hpmon's event list */
	char name[64];            /* as hpmon shows it */
	char sw_name[HPM_MARKER_NAME_MAX];
	uint8_t attr[HPM_MK_ATTR_SPACE]; /* struct perf_event_attr, attr.size bytes */
};

struct hpm_mk_header {
	uint64_t magic;
	uint32_t version;
	uint32_t header_size;     /* sizeof(struct hpm_mk_header) */
	uint64_t total_size;      /* of the whole file */
	uint32_t thread_size;     /* sizeof(struct hpm_mk_thread) */
	uint32_t max_threads;
	uint32_t flags;           /* HPM_MK_F_* */
	uint32_t default_enabled; /* mask bit of counters hpmon did not name */
	uint32_t nr_counters;     /* names taken (atomic; may exceed the max) */
	uint32_t nr_regions;      /* region names taken (atomic) */
	uint32_t nr_threads;      /* slots taken (atomic; may exceed the max) */
	uint32_t nr_events;
	struct hpm_mk_event events[HPM_MK_MAX_EVENTS];
	struct hpm_mk_name counters[HPM_MK_MAX_COUNTERS];
	struct hpm_mk_name regions[HPM_MK_MAX_REGIONS];
} __attribute__((aligned(4096))); /* slots start on a page of their own */

/* value, time enabled, time running: deltas summed, as read_format gives */
struct hpm_mk_count {
	uint64_t value, enabled, running;
};

/* region flags, in struct hpm_mk_region and public as HPM_REGION_* */
struct hpm_mk_region {
	uint64_t calls;           /* completed begin..end pairs */
	uint32_t flags;           /* HPM_REGION_* (include/hpmon/counters.h) */
	uint32_t max_depth;       /* deepest nesting of the region in itself */
	struct hpm_mk_count c[HPM_MK_MAX_EVENTS];
};

/* thread.state */
#define HPM_MK_T_FREE 0
#define HPM_MK_T_ALIVE 1
#define HPM_MK_T_EXITED 2

/* thread.flags */
#define HPM_MK_T_MARKED_AT_END 0x1u /* marked when it ended: last stretch lost */
#define HPM_MK_T_MARKED_NOW 0x2u    /* marked at this moment */

struct hpm_mk_thread {
	int32_t pid, tid;
	uint32_t state;           /* HPM_MK_T_*; ALIVE is stored after pid/tid */
	uint32_t flags;           /* HPM_MK_T_* */
	int32_t open_err;         /* why the thread's counters did not open */
	uint32_t reserved;
	struct hpm_mk_count marked[HPM_MK_MAX_EVENTS]; /* counted while marked */
	uint64_t ctr[HPM_MK_MAX_COUNTERS] __attribute__((aligned(64)));
	struct hpm_mk_region region[HPM_MK_MAX_REGIONS];
} __attribute__((aligned(64)));

static inline struct hpm_mk_thread *hpm__mk_slot(struct hpm_mk_header *h, uint32_t i)
{
	return (struct hpm_mk_thread *)((char *)h + h->header_size + (size_t)i * h->thread_size);
}

/*
 * ---- The area client (lib/runtime/area.c) ----
 * The program's side of the area, and where its counters are named when
 * there is none. libhpmon's measuring side uses hpm__mk_name_index() too:
 * it is listed in lib/libhpmon-rt.map, in its part for libhpmon only.
 */

/* The area this process found (NULL without hpmon): looked for once, in
 * HPMON_MARKERS=<fd>, and kept mapped to the end of the process. */
struct hpm_mk_header *hpm__mk_area(void);
/* The process-wide lock of the runtime (site and name registration). */
void hpm__mk_lock(bool on);
/*
 * Index of @name in the table @names (entries @first .. @max - 1, *nr of
 * them taken), taking a new entry with mask bit @enabled when @add and it
 * is not there. -1 when it is not there (or the table is full).
 */
int hpm__mk_name_index(struct hpm_mk_name *names, uint32_t *nr, uint32_t first,
		       uint32_t max, const char *name, bool add, uint32_t enabled);
/* The counter slot of @name (added if @add), in the area's table or,
 * without an area, in the process's own. Caller holds the lock. */
int hpm__mk_counter_index(const char *name, bool add);
/* The mask bit hpmon gave counter slot @c (1 without an area). */
bool hpm__mk_counter_default(uint32_t c);

#endif
