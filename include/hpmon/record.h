/* SPDX-License-Identifier: MIT */
/*
 * Sampling sessions: statistical profiling on counter overflow.
 *
 * The events of a list are opened for sampling on a target (a command
 * about to exec, existing processes or threads, or CPUs), one per CPU, each
 * CPU's events writing into one ring buffer. Every event triggers samples
 * on its own, except the members of a group: the leader triggers and the
 * members are read at each of its samples (PERF_SAMPLE_READ), so that
 * ratios such as cycles per instruction can be attributed to functions.
 *
 * The first event of each CPU also carries the side band: mmap records
 * (with build-ids where the kernel gives them), comm/exec, fork and exit.
 * The kernel adds lost and throttle records; they are handed out like the
 * others, never dropped.
 *
 * Lifecycle: hpm_record__new -> hpm_record__open -> (enable) ->
 * hpm_record__drain ... -> hpm_record__disable -> hpm_record__drain ->
 * hpm_record__free.
 *
 * Ownership: a sampling session borrows its event list, so the list (and
 * its context) must outlive it; of its options it copies the CPUs and
 * paths at hpm_record__new() and reads the ids until hpm_record__open()
 * returns. It owns what it returns: attributes and messages until it is
 * freed, and a record handed to a drain callback only during the call
 * (it may point into a ring buffer).
 */
#ifndef HPMON_RECORD_H
#define HPMON_RECORD_H

#include <hpmon/event.h>
#include <hpmon/profile.h>
#include <hpmon/session.h>

#ifdef __cplusplus
extern "C" {
#endif

enum hpm_callchain {
	HPM_CALLCHAIN_NONE = 0,
	HPM_CALLCHAIN_FP = 1,    /* the kernel walks frame pointers */
	HPM_CALLCHAIN_DWARF = 2, /* user registers + a copy of the user stack */
};

struct hpm_record_opts {
	size_t sz;                 /* sizeof(struct hpm_record_opts) */
	enum hpm_target_kind target;
	const pid_t *ids;          /* EXEC: exactly one pid; PIDS/TIDS: the ids */
	size_t nr_ids;
	const int *cpus;           /* NULL: every online CPU */
	size_t nr_cpus;
	/* Sampling rate of the events whose specification set none
	 * (period= or freq= terms, which win, as perf's): a fixed period if
	 * @period, else @freq samples a second if @freq, else
	 * hpm_record__default_period(). */
	uint64_t period;
	uint64_t freq;
	/* Change every trigger's period at each drain by a random amount
	 * within +-1/8, so that samples cannot lock onto a loop (applies to
	 * the events hpmon opened, not to their inherited copies). */
	bool random_period;
	uint64_t seed;
	/* Call chains of the events whose specification does not say
	 * (call-graph=fp|dwarf|no terms win, stack-size= sets an event's
	 * copy; call-graph=lbr is refused, -EOPNOTSUPP). DWARF samples carry
	 * the kernel's chain of their kernel part (PERF_SAMPLE_CALLCHAIN with
	 * exclude_callchain_user), the user registers and a copy of the user
	 * stack, as perf's dwarf mode. A time=0 term drops the event's time
	 * stamps (its samples have time 0). */
	enum hpm_callchain callchain;
	uint32_t stack_bytes;      /* DWARF: user stack copied per sample
				      (default 8192, at most 65528) */
	uint32_t mmap_pages;       /* data pages per CPU buffer, a power of
				      two (default 128: 512 KiB) */
	/* Location events (exec:..., docs/location-events.md) sample every
	 * execution of their place. For an EXEC target they need the caller
	 * to set @stop_at_exec and call hpm_record__complete_exec() once the
	 * child is let go (as hpm_session_opts.stop_at_exec); without it
	 * they are refused (-EOPNOTSUPP). @lib_path and @debug_dir as in
	 * struct hpm_session_opts. */
	bool stop_at_exec;
	const char *lib_path;
	const char *debug_dir;
	/* Read every group's counts per thread every @timeline_ns of the
	 * thread's running time, and at its end (0: never): READ records
	 * (struct hpm_read_rec). Each group gets a cpu-clock member that
	 * samples at that period and reads the group (PERF_SAMPLE_READ with
	 * inherit, Linux 6.12), and every event reports each inherited
	 * thread's final counts at its exit (inherit_stat). Not for CPUS
	 * targets, nor location events; hpm_record__timeline() says whether
	 * it could be set up. Before Linux 6.12, which refuses those timers,
	 * the session reads the groups itself instead (HPM_TIMELINE_POLL):
	 * every @timeline_ns of wall time, at hpm_record__drain(). */
	uint64_t timeline_ns;
	/* With @timeline_ns: read the groups as before Linux 6.12
	 * (HPM_TIMELINE_POLL) whatever the kernel could do. */
	bool timeline_poll;
};

struct hpm_record;

/*
 * The default period of @ev when sampled: a prime, so that samples do not
 * correlate with loops whose trip counts are round numbers. 1000003 for
 * hardware events, 100003 for cache, raw and PMU events, 250007 ns (about
 * 4 kHz) for cpu-clock and task-clock, 1 for breakpoints, tracepoints and
 * other software events (every occurrence).
 */
HPM_API uint64_t hpm_record__default_period(const struct hpm_event *ev);

/* NULL and errno on failure (EINVAL for malformed options). */
HPM_API struct hpm_record *hpm_record__new(struct hpm_evlist *list,
					   const struct hpm_record_opts *opts);
HPM_API void hpm_record__free(struct hpm_record *r);

/*
 * Open every event on every CPU of the target and map the buffers. Fails
 * on the first event the kernel refuses, with its -errno, and
 * hpm_record__failed_event() says which. EXEC targets start at the
 * child's exec; the others at hpm_record__enable(). Existing processes
 * (PIDS, TIDS, CPUS) get comm and mmap records made from procfs first.
 */
HPM_API int hpm_record__open(struct hpm_record *r);
HPM_API size_t hpm_record__failed_event(const struct hpm_record *r);
/*
 * For an EXEC target with location events and @stop_at_exec: after the
 * child was let go to exec, wait for its exec (it stops there), resolve
 * the locations against the program it runs, open them, and let it go.
 * 0; -ESRCH when the child ended before its exec; else the error of the
 * first location that cannot sample (hpm_record__failed_event() says
 * which and hpm_record__event_message() why); the child then runs on,
 * for the caller to end. A no-op without location events.
 */
HPM_API int hpm_record__complete_exec(struct hpm_record *r);
/* Why location event @idx cannot sample ("no function 'foo' in ..."),
 * or NULL; how it samples once open ("uprobe at /usr/bin/prog:0x1139
 * (hpm_work+0x0 in prog)"), or NULL. */
HPM_API const char *hpm_record__event_message(const struct hpm_record *r, size_t idx);
HPM_API const char *hpm_record__event_how(const struct hpm_record *r, size_t idx);
HPM_API int hpm_record__enable(struct hpm_record *r);
HPM_API int hpm_record__disable(struct hpm_record *r);

/* The event list's index of event @idx and what it was opened with. */
HPM_API bool hpm_record__trigger(const struct hpm_record *r, size_t idx);
HPM_API bool hpm_record__user_only(const struct hpm_record *r, size_t idx);
HPM_API const struct perf_event_attr *hpm_record__attr(const struct hpm_record *r,
						       size_t idx);
/* The call chains event @idx records: its call-graph= term (fp, dwarf,
 * no) or else the session's @callchain; HPM_CALLCHAIN_NONE for a group
 * member, which never samples. Valid once hpm_record__open() ran. */
HPM_API enum hpm_callchain hpm_record__callchain(const struct hpm_record *r, size_t idx);
/* True when group reads could not follow inherited tasks (kernels before
 * 6.12 refuse inherit with PERF_SAMPLE_READ): the group then counts the
 * target's first thread only. */
HPM_API bool hpm_record__group_no_inherit(const struct hpm_record *r);

/* Whether the session reads the groups at an interval (timeline_ns):
 * false when not asked, for CPUS targets, or when no group could be
 * read (location events only, or the kernel refused the events). */
HPM_API bool hpm_record__timeline(const struct hpm_record *r);

/* How the timeline is read (docs/hpmon-record.md, "Timeline"). */
enum hpm_timeline_mode {
	HPM_TIMELINE_OFF = 0,
	/* Linux 6.12: a cpu-clock member per group samples every timeline_ns
	 * of each thread's running time and reads the thread's own counts;
	 * each thread's last counts at its exit. READ records per thread. */
	HPM_TIMELINE_TIMERS = 1,
	/* Before 6.12 (no PERF_SAMPLE_READ with inherit), or timeline_poll:
	 * hpm_record__drain() reads every group leader every timeline_ns of
	 * wall time (CLOCK_MONOTONIC; every record's time is then on that
	 * clock too), which sums the counts of all the threads and processes
	 * a target's thread started. READ records whose pid and tid are the
	 * target thread's (for a command: the command's pid), one per CPU
	 * the group is open on; the last at hpm_record__read_final(). No
	 * per-thread counts, no enabled and running times, and no readings
	 * while the reader does not run. */
	HPM_TIMELINE_POLL = 2,
};
HPM_API enum hpm_timeline_mode hpm_record__timeline_mode(const struct hpm_record *r);
/* HPM_TIMELINE_POLL: when the next reading is due, CLOCK_MONOTONIC ns
 * (a reader drains by then: the readings are taken in its drain); 0 in
 * the other modes. */
HPM_API uint64_t hpm_record__timeline_due(const struct hpm_record *r);
/* Poll this for POLLIN: a buffer passed its watermark. */
HPM_API int hpm_record__poll_fd(const struct hpm_record *r);
/* Called after each perf_event_open(2) the recording makes (events,
 * side-band dummies, timeline timers), as hpm_session__on_open: for
 * hpmon record -vv. Set it before hpm_record__open(). */
HPM_API void hpm_record__on_open(struct hpm_record *r, hpm_open_fn fn, void *arg);

typedef int (*hpm_record_fn)(const struct hpm_prec *rec, void *arg);
/*
 * Read every waiting record of every buffer and hand records to @fn in
 * time order, merged across the buffers: first the records made from
 * procfs (they describe the start), then those that no buffer can still
 * precede; the rest wait for a later drain (usually the next one; a
 * drain that comes within 10 ms of the previous one may hand out nothing
 * new). The first drain after hpm_record__disable() hands out all that
 * is left. Records without a time stay behind the record their buffer
 * gave before them. Stops and returns @fn's value if it is negative
 * (the records not handed out stay queued); else returns the number of
 * records handed out.
 */
HPM_API int hpm_record__drain(struct hpm_record *r, hpm_record_fn fn, void *arg);
/*
 * With the timeline, once the last drain after hpm_record__disable() is
 * done and the command has ended: hand @fn the final READ records of the
 * threads hpmon opened the events on (an EXEC target's first thread:
 * the threads it started report their own at their exit; with
 * HPM_TIMELINE_POLL the last reading of every target thread, for every
 * target kind). Their time is 0 (the caller knows the last). 0 or
 * @fn's negative return; with HPM_TIMELINE_TIMERS a no-op for other
 * targets (their threads may still run).
 */
HPM_API int hpm_record__read_final(struct hpm_record *r, hpm_record_fn fn, void *arg);

/*
 * Complete the frame-pointer call chain of a sample of a location at a
 * function's first instruction (exec:FUNC with -g): the function has not
 * saved its frame yet, so the kernel's walk starts at the caller's frame
 * and misses the caller. Such samples also carry the return address (the
 * word at the stack pointer on x86-64, the link register on arm64); this
 * puts it into the chain after the sampled address, in @buf (@cap
 * entries), and drops the copy. Returns true with *@out the sample to
 * keep, false (and *@out untouched) for samples that need nothing.
 */
HPM_API bool hpm_record__entry_chain(const struct hpm_record *r, const struct hpm_sample *s,
				     struct hpm_sample *out, uint64_t *buf, size_t cap);

/*
 * What a session handed out and lost. @lost_samples counts the samples
 * that never reached the caller: those each event could not write into a
 * full buffer (the kernel counts them per event, PERF_FORMAT_LOST, read
 * when the stats are asked for: ask after the last drain; for the event
 * that carries the side band they include the few mmap and comm records
 * it lost), those the kernel dropped before the buffer
 * (PERF_RECORD_LOST_SAMPLES), and sample records the reader could not
 * parse. Before Linux 6.0, which has no per-event count, the records of
 * the LOST records stand in for the first part (nearly all samples when a
 * buffer overflows). Their share is lost / (lost + samples), as perf's.
 */
struct hpm_record_stats {
	uint64_t samples;        /* sample records handed out */
	uint64_t lost;           /* records the kernel dropped, as its LOST
				    records say (samples and others) */
	uint64_t lost_samples;   /* samples lost: see above */
	uint64_t throttled;      /* THROTTLE records */
	uint64_t bad;            /* records that could not be parsed */
};
HPM_API void hpm_record__stats(const struct hpm_record *r,
			       struct hpm_record_stats *out);

#ifdef __cplusplus
}
#endif
#endif
