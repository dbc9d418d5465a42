/* SPDX-License-Identifier: MIT */
/*
 * Reading counters from C: event sets a program opens on itself (libcpc's
 * bind / take_sample / release, PAPI's start / read / stop), and the
 * markers area through which a program under hpmon publishes its software
 * counters, regions and marked counts.
 *
 * ---- Event sets ----
 *
 *   struct hpm_ctx *ctx = hpm_ctx__new(NULL);
 *   struct hpm_eventset *es = hpm_eventset__new(ctx, "instructions:u,page-faults",
 *                                               NULL, &err);
 *   hpm_eventset__start(es);
 *   work();
 *   struct hpm_count c[2];
 *   hpm_eventset__read(es, c);          // counts since start, any time
 *   hpm_eventset__stop(es);
 *   hpm_eventset__free(es);
 *
 * A set counts the calling thread (or another thread or process; see the
 * options). Reads of the calling thread's own hardware counters use the
 * perf mmap page and rdpmc when the kernel allows user-space reads
 * (cap_user_rdpmc, and on arm64 kernel.perf_user_access=1): no system
 * call. Everything else is read with read(2), all events of a group at
 * once. Counts are 64 bits and come with the time each event was enabled
 * and running, so hpm_count__scaled() corrects for multiplexing.
 *
 * Two libraries (docs/api.md): the read side of event sets
 * (hpm_eventset__new_attrs and every hpm_eventset__ call but
 * hpm_eventset__new) is in libhpmon-rt (-lhpmon-rt, libc only);
 * hpm_eventset__new, which parses a spec, and the markers area are in
 * libhpmon (-lhpmon, pkg-config libhpmon, which brings libhpmon-rt along).
 *
 * Ownership: a set owns its file descriptors, mappings and copies of the
 * event names; its creator frees it with hpm_eventset__free().
 * hpm_eventset__new borrows @ctx for the call only. A markers area owns
 * its memory file and is freed by its creator (hpm_markers__free()),
 * after any session that reads it; the event list given to
 * hpm_markers__set_events() is read during the call only; names returned
 * by the readers live as long as the area.
 */
#ifndef HPMON_COUNTERS_H
#define HPMON_COUNTERS_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/perf_event.h>
#include <hpmon/event.h>
#include <hpmon/session.h>

#ifdef __cplusplus
extern "C" {
#endif

struct hpm_eventset_opts {
	size_t sz;          /* sizeof(struct hpm_eventset_opts) */
	pid_t pid;          /* 0: the calling thread; else that thread or
			       process (reads then use read(2)) */
	bool inherit;       /* count threads and processes created later too
			       (read(2) only: the kernel sums them) */
	bool no_rdpmc;      /* never read with rdpmc */
	bool no_group;      /* open each event alone (each multiplexes on its
			       own); default: one group when the kernel takes
			       it, else each alone */
};

struct hpm_eventset;

/*
 * Parse @spec (perf's syntax, see <hpmon/event.h>) and open its events,
 * disabled. NULL and errno on failure; @err (if not NULL) then says which
 * event and why: a parse error as hpm_evlist__parse() reports it, or the
 * kernel's refusal to open one event (err->err = -errno, err->token its
 * name, err->msg the cause: on a machine with no hardware PMU, a
 * hardware event's ENOENT says so rather than "No such file or
 * directory"). Events that need a target program (exec:) or hpmon (sw:) are
 * refused (-EINVAL). A user+kernel event that perf_event_paranoid refuses
 * is opened user-only, as hpmon stat does.
 */
HPM_API struct hpm_eventset *hpm_eventset__new(struct hpm_ctx *ctx, const char *spec,
					       const struct hpm_eventset_opts *opts,
					       struct hpm_parse_error *err);
/*
 * The same from @n resolved attributes (no parsing, no context): the path
 * the markers runtime uses. @names may be NULL. NULL and errno.
 */
HPM_API struct hpm_eventset *hpm_eventset__new_attrs(const struct perf_event_attr *attrs,
						     const char *const *names, size_t n,
						     const struct hpm_eventset_opts *opts);
HPM_API void hpm_eventset__free(struct hpm_eventset *es);

HPM_API size_t hpm_eventset__count(const struct hpm_eventset *es);
HPM_API const char *hpm_eventset__name(const struct hpm_eventset *es, size_t i);
/* Whether the last read of event @i used rdpmc (rather than read(2): a
 * software event, an event switched out or multiplexed at that moment, a
 * kernel that forbids user-space reads, another thread reading). */
HPM_API bool hpm_eventset__rdpmc(const struct hpm_eventset *es, size_t i);
/* Whether event @i was opened user-only because paranoia refused more. */
HPM_API bool hpm_eventset__user_only(const struct hpm_eventset *es, size_t i);

/* Enable the events; counts start from 0. 0 or -errno. */
HPM_API int hpm_eventset__start(struct hpm_eventset *es);
/* Disable them; their counts stay readable. 0 or -errno. */
HPM_API int hpm_eventset__stop(struct hpm_eventset *es);
/*
 * Counts since the last start, one per event into @out[count]: value,
 * time enabled and running in ns. Works while running and after stop.
 * 0 or -errno (-HPM_ERR_NOT_OPEN before the first start).
 */
HPM_API int hpm_eventset__read(struct hpm_eventset *es, struct hpm_count *out);

/* ---- The markers area (the measuring side) ---- */

/* How many events the program's threads count themselves (regions,
 * marked counting); later events of the list are not counted there. */
#define HPM_MARKERS_MAX_EVENTS 8

/* Region flags (struct hpm_region_stats.flags). */
#define HPM_REGION_UNMATCHED 0x1u  /* an end without a begin in the thread:
				      it began in another thread, or never */
#define HPM_REGION_OPEN_AT_END 0x2u /* still open when the thread ended */
#define HPM_REGION_TOO_DEEP 0x4u   /* a begin beyond 32 open regions, ignored */
#define HPM_REGION_NO_COUNTERS 0x8u /* the thread could not open its counters:
				       calls are counted, events are not */

struct hpm_markers_opts {
	size_t sz;             /* sizeof(struct hpm_markers_opts) */
	unsigned max_threads;  /* slots for threads (default 1024); later
				  threads count privately and are reported
				  lost (hpm_markers__lost_threads) */
	bool regions;          /* threads measure their regions */
	bool marked;           /* threads count only while marked */
	bool no_rdpmc;         /* threads read their counters with read(2) */
};

struct hpm_markers;

/*
 * Create the area (a memory file) for a program about to be started. Its
 * file descriptor is inheritable; put hpm_markers__env() into the
 * program's environment, then start it. NULL and errno.
 */
HPM_API struct hpm_markers *hpm_markers__new(const struct hpm_markers_opts *opts);
HPM_API void hpm_markers__free(struct hpm_markers *m);
HPM_API int hpm_markers__fd(const struct hpm_markers *m);
/* "HPMON_MARKERS=<fd>" into @buf: snprintf's return. */
HPM_API int hpm_markers__env(const struct hpm_markers *m, char *buf, size_t len);

/*
 * The events of @list that the program's threads count themselves, in
 * list order: perf events by their attributes, sw: counters by name;
 * exec: events cannot be counted by the program and are skipped. Call
 * before the program starts. 0, or -E2BIG when more than
 * HPM_MARKERS_MAX_EVENTS qualify (the first ones are kept).
 */
HPM_API int hpm_markers__set_events(struct hpm_markers *m, const struct hpm_evlist *list);
/* How many events the program counts (the "program events" below). */
HPM_API size_t hpm_markers__nr_events(const struct hpm_markers *m);
/* The program event that list event @idx became, or -ENOENT. */
HPM_API int hpm_markers__event_of(const struct hpm_markers *m, size_t idx);

/*
 * The mask the program starts with: counter @name enabled or not. With
 * @name NULL, the default for every counter not named. 0, or -ENOSPC
 * (table full), -EINVAL (name too long).
 */
HPM_API int hpm_markers__mask(struct hpm_markers *m, const char *name, bool enabled);

/* ---- reading (any time; final once the program has ended) ---- */

struct hpm_markers_thread {
	pid_t pid, tid;
	bool exited;
	bool marked_at_end;    /* ended while marked: its last stretch of
				  marked counting is lost */
	int counters_err;      /* why its own counters did not open, or 0 */
};

HPM_API size_t hpm_markers__nr_threads(const struct hpm_markers *m);
HPM_API int hpm_markers__thread(const struct hpm_markers *m, size_t t,
				struct hpm_markers_thread *out);
/* Threads that got no slot (more than max_threads). */
HPM_API uint64_t hpm_markers__lost_threads(const struct hpm_markers *m);

/* Counters the program registered: their number and names. */
HPM_API size_t hpm_markers__nr_counters(const struct hpm_markers *m);
HPM_API const char *hpm_markers__counter_name(const struct hpm_markers *m, size_t c);
/*
 * Counter @name summed over thread @t, or over every thread with @t ==
 * SIZE_MAX. 0 and *out = 0 when the program has no such counter (yet).
 */
HPM_API int hpm_markers__counter(const struct hpm_markers *m, const char *name, size_t t,
				 uint64_t *out);
/* Counter @name of every thread with thread id @tid (and process @pid). */
HPM_API uint64_t hpm_markers__counter_tid(const struct hpm_markers *m, const char *name,
					  pid_t pid, pid_t tid);

struct hpm_region_stats {
	uint64_t calls;        /* completed begin..end pairs */
	unsigned flags;        /* HPM_REGION_* */
	unsigned max_depth;    /* deepest recursion of the region in itself */
	/* per program event (hpm_markers__nr_events): value, enabled, running */
	struct hpm_count c[HPM_MARKERS_MAX_EVENTS];
};

HPM_API size_t hpm_markers__nr_regions(const struct hpm_markers *m);
HPM_API const char *hpm_markers__region_name(const struct hpm_markers *m, size_t r);
/* Region @r in thread @t (SIZE_MAX: summed over threads, flags or'ed). */
HPM_API int hpm_markers__region(const struct hpm_markers *m, size_t r, size_t t,
				struct hpm_region_stats *out);

/*
 * Marked counting: program event @e counted while thread @t was marked
 * (SIZE_MAX: every thread). Published when the thread unmarks itself and
 * when it ends.
 */
HPM_API int hpm_markers__marked(const struct hpm_markers *m, size_t e, size_t t,
				struct hpm_count *out);
/* The same for every thread with thread id @tid (and process @pid). */
HPM_API int hpm_markers__marked_tid(const struct hpm_markers *m, size_t e, pid_t pid,
				    pid_t tid, struct hpm_count *out);

#ifdef __cplusplus
}
#endif
#endif
