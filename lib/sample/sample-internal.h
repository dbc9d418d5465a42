/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/sample/ owns sampling sessions; may use attach, events, location, symbols, core, sys.
 *
 * A sampling session's state (include/hpmon/record.h): the folder's own
 * header, below every file of lib/sample/ that makes the session up, each
 * one part:
 *
 *   record.c        the session: targets, lifecycle, the reader's drain
 *                   rounds through the time queue (record-order.c)
 *   record-open.c   the events' attributes and opening them: fallbacks,
 *                   ring buffers, the side band, location events
 *   record-parse.c  the kernel's records to struct hpm_prec (untrusted
 *                   bytes: every read is bounded by the record's size)
 *   record-synth.c  comm and mmap records of processes that exist already
 *   record-timeline.c  the timers that read each group per thread
 *                   (timeline_ns), their READ records, the final reads
 *   record-timeline-poll.c  the timeline before Linux 6.12: which mode,
 *                   and the groups read by the reader at each drain
 *
 * The calls run one way, down this list: record.c calls record-parse.c,
 * record-synth.c and the timeline's files; record-open.c calls
 * record-synth.c and the timeline's; record-parse.c calls
 * record-timeline.c, which calls record-timeline-poll.c, which queues
 * into record-order.c. None calls back, and record.c and record-open.c
 * do not call each other. The state is here, not in any one of them.
 *
 * Ownership: a session borrows its event list (and the context in it),
 * which must outlive it; it copies its options but not the strings in
 * them (only the location attachment keeps copies). It owns every file
 * descriptor, mapping and record it hands out: a struct hpm_prec given to
 * a callback points into the session's memory, valid during the call only.
 */
#ifndef HPM_SAMPLE_INTERNAL_H
#define HPM_SAMPLE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include <hpmon/record.h>
#include "attach/attach-internal.h"
#include "sys/perf.h"
#include "sys/ring.h"

struct rec_id {
	uint64_t id;
	uint32_t ev;             /* past nr_ev: timer ev - nr_ev (record-timeline.c) */
	uint32_t slot;           /* thr * nr_cpu + cpu */
};

/* A record made from procfs for processes that exist already. */
struct rec_synth {
	struct hpm_prec p;
	char *str;
};

struct hpm_record {
	struct hpm_evlist *list;
	struct hpm_ctx *ctx;
	struct hpm_record_opts o;
	size_t nr_ev, nr_thr, nr_cpu;
	pid_t *thr;              /* per thread slot: pid/tid, or -1 */
	int *cpu;                /* per CPU slot */
	int *fd;                 /* [(ev * nr_thr + thr) * nr_cpu + cpu] */
	struct perf_event_attr *attr; /* [nr_ev] as opened */
	enum hpm_callchain *cg;  /* [nr_ev] each trigger's call chains: its
				    call-graph= term, else the session's */
	bool *trigger, *user_only;
	/* PERF_FORMAT_LOST (Linux 6.0): each event counts the records it could
	 * not write; -1 until an open says, then 1 or 0 (refused: the LOST
	 * records' count stands in) */
	int format_lost;
	bool group_no_inherit;
	size_t failed;
	struct hpm_loc_attach *loc; /* location events (exec:), or NULL */
	int *sb_fd;              /* [thr * nr_cpu + cpu]: side-band dummies when the
				    first event is a location, else -1 */
	enum hpm_loc_chain *chain_fix; /* [nr_ev] hpm_record__entry_chain() */
	int epfd;
	struct hpm_ring *ring;   /* [nr_cpu] mapped ring buffers */
	int *buf_fd;             /* [nr_cpu] */
	size_t data_len;
	struct rec_id *ids;
	size_t nr_ids;
	struct rec_synth *synth;
	size_t nr_synth, synth_done;
	bool opened, enabled;
	uint64_t rand_state;
	struct hpm_record_stats st; /* lost_samples: the kernel's LOST_SAMPLES
				       records only (hpm_record__stats adds) */
	uint64_t bad_samples;    /* sample records that could not be parsed */
	unsigned char *scratch;  /* one record that wrapped around */
	uint64_t *vals;          /* group values of one sample */
	size_t vals_cap;
	struct hpm_order *order; /* records read, until their time is safe */
	bool disabled;           /* the next drain is the last: flush all */
	bool order_logged;
	/* the timeline (record-timeline.c): a cpu-clock timer in each group */
	bool tl_on;
	size_t nr_tl;            /* groups with a timer */
	uint32_t *tl_leader;     /* [nr_tl] */
	int *tl_fd;              /* [(k * nr_thr + thr) * nr_cpu + cpu] */
	struct perf_event_attr tl_attr;
	uint64_t *tl_exited;     /* [(ev * nr_thr + thr) * nr_cpu + cpu]: the final
				    counts of the threads that ended (READ records) */
	pid_t *tl_last_tid;      /* [same]: the thread whose end was taken last */
	/* HPM_TIMELINE_POLL (record-timeline-poll.c): no timers; the reader
	 * reads the leaders at each drain once tl_next (CLOCK_MONOTONIC) is
	 * past, and every event's time is on CLOCK_MONOTONIC */
	bool tl_poll;
	uint64_t tl_next;
	uint64_t tl_vals[2 + 2 * 1024]; /* one READ record's values */
	hpm_open_fn open_fn;     /* hpm_record__on_open */
	void *open_arg;
};

/* perf_event_open of the recording (flags: close on exec) with the
 * fallbacks of @allow, told to the hpm_record__on_open callback. */
static inline int hpm__record_perf_open(const struct hpm_record *r, struct perf_event_attr *a,
					pid_t pid, int cpu, int group_fd, unsigned allow,
					unsigned *did)
{
	int fd = hpm__perf_open(a, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC, allow, did);
	if (r->open_fn)
		r->open_fn(a, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC, fd, r->open_arg);
	return fd;
}

/* Event @ev's file descriptor on thread slot @thr and CPU slot @cpu. */
static inline int *hpm__record_fdp(const struct hpm_record *r, size_t ev, size_t thr, size_t cpu)
{
	return &r->fd[(ev * r->nr_thr + thr) * r->nr_cpu + cpu];
}

/* The event and slot of kernel id @id, or NULL (r->ids is sorted). */
static inline const struct rec_id *hpm__record_lookup(const struct hpm_record *r, uint64_t id)
{
	size_t lo = 0, hi = r->nr_ids;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (r->ids[mid].id == id)
			return &r->ids[mid];
		if (r->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The attribute of event @ev as ids name them: a timer's past nr_ev. */
static inline const struct perf_event_attr *hpm__record_attr_of(const struct hpm_record *r,
								size_t ev)
{
	return ev < r->nr_ev ? &r->attr[ev] : &r->tl_attr;
}

/* record-timeline.c: the timers, opened once the events are (a refusal
 * turns the timeline off, not the session); their ids into r->ids. */
int hpm__record_timeline_open(struct hpm_record *r);
void hpm__record_timeline_close(struct hpm_record *r);
/* A timer's sample (@ev past nr_ev), parsed as a sample into @out, made
 * a READ record in place. 0, or -1 when it is malformed. */
int hpm__record_timeline_tick(struct hpm_record *r, size_t ev, uint64_t enabled,
			      uint64_t running, struct hpm_prec *out);
/* A PERF_RECORD_READ (an inherited thread's end; @time and @id from its
 * trailer) into @out: 0, 1 when
 * it is not one of the session's, -1 when malformed. */
int hpm__record_timeline_exit(struct hpm_record *r, const struct perf_event_header *h,
			      uint64_t time, uint64_t id, struct hpm_prec *out);

/* record-timeline-poll.c: whether the timeline is read by the reader
 * (r->tl_poll), decided before any attribute is made: asked for, or the
 * kernel refuses a timer (before Linux 6.12). */
void hpm__record_timeline_probe(struct hpm_record *r);
/* The clock of every event of a polled timeline, whose readings are
 * timed by the reader's CLOCK_MONOTONIC (the kernel's clock otherwise). */
void hpm__record_timeline_clock(const struct hpm_record *r, struct perf_event_attr *a);
/* Polled: the groups are known (r->tl_leader): the first reading is due
 * one interval from now. */
void hpm__record_timeline_poll_start(struct hpm_record *r);
/* Polled, in a drain round: when a reading is due, read every group
 * leader and queue its READ records (struct hpm_order of record.c). 0
 * or -ENOMEM. */
struct hpm_order;
int hpm__record_timeline_poll(struct hpm_record *r, struct hpm_order *q, uint64_t now);
/* Polled: the last reading of each group, final, to @fn. */
int hpm__record_timeline_poll_final(struct hpm_record *r, hpm_record_fn fn, void *arg);

/* record-parse.c: record @h into @out (which may point into @h). 0; 1
 * for a record that is not passed on; -1 for a malformed one; -ENOMEM. */
int hpm__record_parse(struct hpm_record *r, const struct perf_event_header *h,
		      struct hpm_prec *out);

/* record-synth.c: the comm and mmap records of the target's processes
 * that exist already, from procfs, into r->synth; and their release. */
int hpm__record_synthesize(struct hpm_record *r);
void hpm__record_synth_release(struct hpm_record *r);

#endif
