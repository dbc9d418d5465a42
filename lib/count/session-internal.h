/* SPDX-License-Identifier: MIT */
#ifndef HPM_SESSION_INTERNAL_H
#define HPM_SESSION_INTERNAL_H

#include <hpmon/session.h>
#include "events/evlist-internal.h"
#include "sys/perf.h"

/* Values as read with TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING | ID. */
struct hpm_read_one {
	uint64_t value, enabled, running, id;
};

struct hpm_tracker; /* lib/count/tasks.c: side-band records of a launched command */

struct hpm_session {
	struct hpm_evlist *list;
	struct hpm_ctx *ctx;
	enum hpm_target_kind target;
	bool track;
	size_t nr_ev;
	size_t nr_slots;      /* targets per event: 1, threads or CPUs */
	pid_t *slot_pid;      /* per slot: pid to open on, or -1 */
	int *slot_cpu;        /* per slot: cpu, or -1 */
	int *fd;              /* [ev * nr_slots + slot], -1 when not open */
	uint64_t *id;         /* [ev * nr_slots + slot] kernel ids, for READ records */
	/* Events opened once per CPU on one task: the parts share their
	 * enabled time, so it is the maximum, not the sum. (No target does
	 * this now; kept in hpm__count_add for per-CPU task counting.) */
	bool percpu_task;
	int *ev_err;
	bool *ev_user_only;
	bool opened;
	bool disabled;         /* counting over: drain flushes pending exits */
	struct hpm_tracker *trk;
	hpm_task_fn task_fn;
	void *task_arg;
	/* Location events (lib/location/location.c) and the markers area the program
	 * publishes in (lib/count/markers.c). */
	struct hpm_loc_state *loc;
	char *lib_path, *debug_dir;
	struct hpm_markers *markers;
	bool marked;
	bool stop_at_exec;     /* the tool calls hpm_session__complete_exec */
	uint64_t open_ns;      /* CLOCK_MONOTONIC at open: sw: events' time */
};

/* The attr session.c opens event @i with (location events start here). */
void hpm__session_attr(const struct hpm_session *s, size_t i, bool sideband,
		       struct perf_event_attr *a);

/* lib/count/tasks.c */
int hpm_tracker__new(struct hpm_session *s, struct hpm_tracker **out);
/* Send event fd @fd's records to slot @slot's buffer. */
int hpm_tracker__attach(struct hpm_tracker *t, size_t slot, int fd);
void hpm_tracker__free(struct hpm_tracker *t);
/* An epoll fd that is readable when any slot's buffer has records. */
int hpm_tracker__fd(const struct hpm_tracker *t);
int hpm_tracker__drain(struct hpm_session *s, struct hpm_tracker *t);
uint64_t hpm_tracker__lost(const struct hpm_tracker *t);
size_t hpm_tracker__nr_tasks(const struct hpm_tracker *t);
const struct hpm_task *hpm_tracker__task(const struct hpm_tracker *t, size_t i);
/* Final own counts of task @i for event @ev, or -EAGAIN if not known. */
int hpm_tracker__task_count(const struct hpm_tracker *t, size_t i, size_t ev,
			    struct hpm_count *out);
/* Add @src into @dst the way the session aggregates slots. */
void hpm__count_add(const struct hpm_session *s, struct hpm_count *dst,
		    const struct hpm_count *src);
/* How many tasks have no READ record for @ev; *which is one of them. */
size_t hpm_tracker__nr_missing(const struct hpm_tracker *t, size_t ev,
			       size_t *which);
/* Report every exit still waiting for its READ records. */
void hpm_tracker__flush(struct hpm_session *s, struct hpm_tracker *t);
/* Sum of the READ-record counts of every task. */
void hpm_tracker__exited_sum(const struct hpm_tracker *t, size_t ev,
			     struct hpm_count *out);


#endif
