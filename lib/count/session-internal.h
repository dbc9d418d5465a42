/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/count/ owns counting; may use attach, metrics, events, location, core, runtime, sys.
 *
 * The counting session's state (lib/count/session.c), shared with the
 * markers area's measuring side (lib/count/markers.c), which reads the
 * targets and the markers options.
 *
 * Ownership: a session borrows its event list (and the context in it),
 * which must outlive the session, and the markers area of its options.
 * It owns every file descriptor, its task tracker and its location
 * events; the tracker and the locations borrow the session's arrays and
 * never call back into it except through the callbacks it gives them.
 */
#ifndef HPM_SESSION_INTERNAL_H
#define HPM_SESSION_INTERNAL_H

#include <hpmon/session.h>
#include "events/evlist-internal.h"
#include "count/tasks-internal.h"

struct hpm_loc_session; /* count/location-session-internal.h */

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
	hpm_open_fn open_fn;   /* hpm_session__on_open */
	void *open_arg;
	struct hpm_count *task_counts; /* [nr_ev]: an exiting task's, for task_fn */
	int sideband_fd;       /* a dummy carrying the tasks' lifecycle when no
				  event opened before the exec does, or -1 */
	/* Location events (count/location-session-internal.h) and the markers
	 * area the program publishes in (lib/count/markers.c). */
	struct hpm_loc_session *loc;
	char *lib_path, *debug_dir;
	struct hpm_markers *markers;
	bool marked;
	bool stop_at_exec;     /* the tool calls hpm_session__complete_exec */
	uint64_t open_ns;      /* CLOCK_MONOTONIC at open: sw: events' time */
};

#endif
