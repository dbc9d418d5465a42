/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/count/ owns counting; may use attach, metrics, events, location, core, runtime, sys.
 *
 * Location events (exec:...) in a counting session
 * (lib/count/location-session.c): when and how the session's locations
 * are attached, for each kind of target, on top of lib/attach.
 *
 * This part knows nothing of the session. It decides when locations
 * open (now, on running processes and CPUs; at the command's exec stop,
 * hpm__loc_session_complete()) and refuses the ones that cannot count;
 * the session opens and closes the events on its slots when called back
 * (struct hpm_loc_session_ops), and keeps their file descriptors and
 * errors.
 *
 * Ownership: the locations borrow @list, which must outlive them, and
 * copy @lib_path and @debug_dir. Messages returned are theirs, valid
 * until hpm__loc_session_free().
 */
#ifndef HPM_LOCATION_SESSION_INTERNAL_H
#define HPM_LOCATION_SESSION_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <hpmon/session.h>
#include "attach/attach-internal.h"

struct hpm_loc_session;

struct hpm_loc_session_in {
	const struct hpm_evlist *list;
	const char *lib_path, *debug_dir;
	enum hpm_target_kind target;
	pid_t pid;          /* the command, or the first thread (EXEC, PIDS, TIDS) */
	bool marked;        /* the program marks what is counted: no locations */
	bool stop_at_exec;  /* the owner calls hpm__loc_session_complete() */
};

struct hpm_loc_session_ops {
	/* Open location @idx on every slot, counting, enabled, with the
	 * location's part of the attribute from hpm__loc_session_attr()
	 * (hpm_loc_open_fn's contract: 0, or -errno with the event closed). */
	hpm_loc_open_fn open;
	/* Close whatever is open of event @idx; a non-zero @err becomes its
	 * error unless it has one already. */
	void (*close)(void *owner, size_t idx, int err);
	void *owner;
};

/*
 * Set up the location events of @in: resolve and open them now, or stop
 * the command, which has not exec'd, at its exec. Locations that cannot
 * count are closed with their error through @ops. 0 or -errno; *@out is
 * set even then, for hpm__loc_session_free().
 */
int hpm__loc_session_new(const struct hpm_loc_session_in *in,
			 const struct hpm_loc_session_ops *ops, struct hpm_loc_session **out);
/* Closes the locations (through the ops: a uprobe in use cannot be
 * removed), removes the uprobes, lets a command still stopped go.
 * Accepts NULL. */
void hpm__loc_session_free(struct hpm_loc_session *l);
/* The command exec'd: resolve, open, let it go. 0 or -errno. */
int hpm__loc_session_complete(struct hpm_loc_session *l);

/* Whether the list has location events at all, and whether they wait
 * for the command's exec (hpm__loc_session_complete()). */
bool hpm__loc_session_any(const struct hpm_loc_session *l);
bool hpm__loc_session_pending(const struct hpm_loc_session *l);
/* Put location @idx into @a (only inside ops.open). */
void hpm__loc_session_attr(struct hpm_loc_session *l, size_t idx, struct perf_event_attr *a);
/* Why location @idx cannot count, and how it counts: NULL for others. */
const char *hpm__loc_session_message(const struct hpm_loc_session *l, size_t idx);
const char *hpm__loc_session_how(const struct hpm_loc_session *l, size_t idx);

#endif
