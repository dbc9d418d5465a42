/* SPDX-License-Identifier: MIT */
/*
 * The markers area: one shared memory file that hpmon creates and the
 * measured program maps (lib/runtime/marker.c, lib/runtime/region.c). hpmon puts the
 * events each thread should count (regions, marked counting) and the
 * initial counter mask in the header; the program's threads each take a
 * slot and keep their software counters, region totals and marked counts
 * in it. hpmon reads the slots at any time (-I) and after the end: a
 * thread's numbers stay when it exits, so nothing has to be sent.
 *
 * Both sides are libhpmon, but not necessarily of the same build: the
 * header starts with a magic, a version and the sizes of what follows, and
 * a program that finds anything else ignores the area (and counts
 * privately, as without hpmon).
 *
 * Only the program's threads write their own slot; hpmon only reads. The
 * 64-bit values are written with single relaxed stores, so a reader sees
 * each one either before or after an update, never torn.
 */
#ifndef HPM_MARKER_INTERNAL_H
#define HPM_MARKER_INTERNAL_H

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
 * ---- The program side (lib/runtime/marker.c, lib/runtime/region.c) ----
 * Per-thread state of the in-program runtime, reached through one TLS
 * pointer. Regions keep their begin values on a stack.
 */
struct hpm_eventset;

struct hpm_mk_open {
	uint32_t region;                   /* index in regions[] */
	uint32_t pad;
	struct hpm_mk_count begin[HPM_MK_MAX_EVENTS];
};

struct hpm_mk_tstate {
	struct hpm_mk_thread *slot;        /* in the area, NULL without one */
	uint64_t *priv;                    /* counters when there is no slot,
					      and the sink while unmarked */
	struct hpm_eventset *es;           /* this thread's own counters */
	bool es_tried;
	bool marked;
	bool need_slot;                    /* forked: take a slot of its own */
	bool ended;                        /* published at its end */
	int8_t es_index[HPM_MK_MAX_EVENTS]; /* area event -> es event, or -1 */
	int16_t sw_counter[HPM_MK_MAX_EVENTS]; /* area event -> counter, or -1 */
	uint8_t active[HPM_MK_MAX_EVENTS];  /* the area events counted, */
	unsigned nr_active;                 /* in order */
	unsigned depth;
	struct hpm_mk_open stack[HPM_MK_MAX_DEPTH];
	struct {
		const char *name;          /* the caller's pointer (a literal) */
		uint32_t idx;
	} cache[16];                       /* region name -> index */
};

/* lib/runtime/marker.c: the area the process found (NULL without hpmon), and the
 * calling thread's state (created on first use; NULL if out of memory). */
struct hpm_mk_header *hpm__mk_area(void);
struct hpm_mk_tstate *hpm__mk_thread(void);
/* The process-wide lock of the runtime (site and name registration). */
void hpm__mk_lock(bool on);
/*
 * Index of @name in the table @names (entries @first .. @max - 1, *nr of
 * them taken), taking a new entry with mask bit @enabled when @add and it
 * is not there. -1 when it is not there (or the table is full).
 */
int hpm__mk_name_index(struct hpm_mk_name *names, uint32_t *nr, uint32_t first,
		       uint32_t max, const char *name, bool add, uint32_t enabled);
/* The counter slot of @name (added if @add), in the area or privately. */
int hpm__mk_counter_index(const char *name, bool add);

/* lib/runtime/region.c: open the thread's counters if the area asks for them;
 * read them into @out[HPM_MK_MAX_EVENTS]; start or stop them (marked);
 * close them (thread exit, fork). */
int hpm__mk_counters_open(struct hpm_mk_tstate *ts, bool enabled);
void hpm__mk_counters_read(struct hpm_mk_tstate *ts, struct hpm_mk_count *out);
void hpm__mk_counters_enable(struct hpm_mk_tstate *ts, bool on);
void hpm__mk_counters_close(struct hpm_mk_tstate *ts);
/* End of a thread (or of the process, for the calling thread): publish
 * what is still open. */
void hpm__mk_regions_thread_end(struct hpm_mk_tstate *ts);
/* A forked child: the regions its thread had open belong to the parent. */
void hpm__mk_regions_forked(struct hpm_mk_tstate *ts);

/* ---- sessions (lib/count/markers.c; lib/count/session.c calls these) ---- */
struct hpm_session;
struct hpm_count;
uint64_t hpm__markers_now_ns(void);
/*
 * Event @idx of session @s, if it is read from the markers area (a sw:
 * counter; any event in marked mode): its count over slots @from..@to
 * into @out, and true. False for events the session reads itself.
 */
bool hpm__markers_session_read(const struct hpm_session *s, size_t idx, size_t from,
			       size_t to, struct hpm_count *out);
/* The same for one task (tracked threads of a launched command). */
bool hpm__markers_session_read_task(const struct hpm_session *s, size_t idx, pid_t pid,
				    pid_t tid, struct hpm_count *out);
const char *hpm__markers_session_message(const struct hpm_session *s, size_t idx);

#endif
