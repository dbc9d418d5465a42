/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/count/ owns counting; may use attach, metrics, events, location, core, runtime, sys.
 *
 * The task tracker of a counting session on a launched command
 * (lib/count/tasks.c): the kernel's fork, comm, exit and READ records,
 * turned into the tasks' lifecycle and each task's own final counts.
 *
 * The tracker knows nothing of the session: it gets plain inputs (the
 * targets, the events' kernel ids and errors) and reports lifecycle
 * events through a callback, in time order, an exit once that task's
 * counts are in. Its owner attaches each event's file descriptor to the
 * tracker's buffers, drains them when hpm_tracker__fd() is readable, and
 * computes what the tracker cannot know (the counts of the command's
 * first task, which gets no READ record).
 *
 * Ownership: hpm_tracker__new() borrows every array of struct
 * hpm_tracker_in, which must outlive the tracker (the owner may fill
 * the ids and errors in as its events open). The tracker owns its
 * buffers and dummy events; tasks it returns are its own, valid until
 * the next drain or hpm_tracker__free().
 */
#ifndef HPM_TASKS_INTERNAL_H
#define HPM_TASKS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <hpmon/session.h>

/* Values as read with TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING | ID. */
struct hpm_read_one {
	uint64_t value, enabled, running, id;
};

/* Add @src into @dst the way a session adds up its slots: with
 * @max_enabled (one task's event opened once per CPU, whose parts share
 * their enabled time) the enabled time is the largest part's, not the sum. */
void hpm__count_add(struct hpm_count *dst, const struct hpm_count *src, bool max_enabled);

struct hpm_tracker;

struct hpm_tracker_in {
	size_t nr_ev, nr_slots;
	const pid_t *slot_pid;  /* [nr_slots]: the command's pid in slot 0 */
	const int *slot_cpu;    /* [nr_slots]: cpu, or -1 */
	const uint64_t *id;     /* [ev * nr_slots + slot]: kernel ids of open events */
	const int *ev_err;      /* [nr_ev]: non-zero for an event not counted */
	bool max_enabled;       /* as hpm__count_add() */
};

/*
 * A lifecycle event of task @task (its index, as hpm_tracker__task()),
 * with @snap the task as it was then. Fork and exec come in time order
 * with the rest; an exit once the task's READ records are all in (or,
 * at hpm_tracker__flush(), with what can be known).
 */
typedef void (*hpm_tracker_fn)(enum hpm_task_event what, size_t task,
			       const struct hpm_task *snap, uint64_t time, void *arg);

/* A tracker for @in, its buffers mapped. 0 or -errno; *@out is set even
 * then, for hpm_tracker__free(). */
int hpm_tracker__new(const struct hpm_tracker_in *in, struct hpm_tracker **out);
/* Closes the buffers and dummies. Accepts NULL. */
void hpm_tracker__free(struct hpm_tracker *t);
/* Report lifecycle events to @fn (NULL: to no one; nothing is queued). */
void hpm_tracker__on_task(struct hpm_tracker *t, hpm_tracker_fn fn, void *arg);
/* Send event fd @fd's records to slot @slot's buffer (@fd < 0: nothing). */
int hpm_tracker__attach(struct hpm_tracker *t, size_t slot, int fd);
/* An epoll fd that is readable when any slot's buffer has records. */
int hpm_tracker__fd(const struct hpm_tracker *t);
/* Read every buffer and report what is complete: the number of records
 * handled, or -errno. */
int hpm_tracker__drain(struct hpm_tracker *t);
/*
 * The last drain, once the command has ended and its events are disabled
 * (nothing writes into the buffers any more): drain, then read what the
 * kernel wrote past a stalled data_head (see lib/count/tasks.c). Once;
 * later calls only drain. The number of records handled, or -errno.
 */
int hpm_tracker__recover(struct hpm_tracker *t);
/* Report every exit still waiting for its READ records. */
void hpm_tracker__flush(struct hpm_tracker *t);
uint64_t hpm_tracker__lost(const struct hpm_tracker *t);
size_t hpm_tracker__nr_tasks(const struct hpm_tracker *t);
const struct hpm_task *hpm_tracker__task(const struct hpm_tracker *t, size_t i);
/* Final own counts of task @i for event @ev, or out->err -EAGAIN if not known. */
int hpm_tracker__task_count(const struct hpm_tracker *t, size_t i, size_t ev,
			    struct hpm_count *out);
/* How many tasks have no READ record for @ev; *which is one of them. */
size_t hpm_tracker__nr_missing(const struct hpm_tracker *t, size_t ev, size_t *which);
/* Sum of the READ-record counts of every task. */
void hpm_tracker__exited_sum(const struct hpm_tracker *t, size_t ev, struct hpm_count *out);

#endif
