/* SPDX-License-Identifier: MIT */
/*
 * Location events in counting sessions (include/hpmon/session.h). The
 * locations themselves -- mechanism, uprobes, the stop at the command's
 * exec -- are lib/attach/attach.c's; this file opens them on the
 * session's slots, counting, and gives the tracker of tasks an event to
 * read the tasks' lifecycle from when no other event carries it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "attach/attach-internal.h"
#include "location/location-internal.h"

struct hpm_loc_state {
	struct hpm_loc_attach *a;
	bool done;
	int sideband_fd;          /* carries the tasks' lifecycle from the exec on
				     when only locations are counted, or -1 */
};

const char *hpm__loc_session_message(const struct hpm_session *s, size_t idx)
{
	return s->loc ? hpm__loc_attach_message(s->loc->a, idx) : NULL;
}

const char *hpm_session__event_how(const struct hpm_session *s, size_t idx)
{
	return s->loc ? hpm__loc_attach_how(s->loc->a, idx) : NULL;
}

static void fail_event(struct hpm_session *s, size_t i, int err)
{
	s->ev_err[i] = err;
	for (size_t slot = 0; slot < s->nr_slots; slot++) {
		int *f = &s->fd[i * s->nr_slots + slot];
		if (*f >= 0)
			close(*f);
		*f = -1;
	}
}

/* Every location the attachment refused fails in the session too. */
static void sync_errors(struct hpm_session *s)
{
	for (size_t i = 0; i < s->nr_ev; i++) {
		int err = hpm__loc_attach_err(s->loc->a, i);
		if (hpm__loc_attach_is_loc(s->loc->a, i) && err && !s->ev_err[i])
			fail_event(s, i, err);
	}
}

/* Does an event already carry the tasks' lifecycle records? The first
 * event opened does (lib/count/session.c). */
static bool sideband_taken(const struct hpm_session *s)
{
	if (s->loc->sideband_fd >= 0)
		return true;
	for (size_t i = 0; i < s->nr_ev; i++)
		if (s->fd[i * s->nr_slots] >= 0)
			return true;
	return false;
}

/* hpm_loc_open_fn: open location @i on every slot, counting, enabled
 * (the command has exec'd, or the targets are running). */
static int open_location(void *owner, size_t i)
{
	struct hpm_session *s = owner;
	struct perf_event_attr a;

	hpm__session_attr(s, i, !sideband_taken(s), &a);
	a.disabled = 0;
	a.enable_on_exec = 0;
	hpm__loc_attach_attr(s->loc->a, i, &a);
	/* counting, as perf stat does: a period would run the overflow path
	 * at every hit (about 10 % more per hit) */
	a.sample_period = 0;
	for (size_t slot = 0; slot < s->nr_slots; slot++) {
		int fd = hpm__sys_perf_event_open(&a, s->slot_pid[slot], s->slot_cpu[slot], -1,
					      PERF_FLAG_FD_CLOEXEC);
		if (fd == -ESRCH && s->target == HPM_TARGET_PIDS)
			continue;
		if (fd < 0) {
			fail_event(s, i, fd);
			return fd;
		}
		s->fd[i * s->nr_slots + slot] = fd;
		uint64_t id = 0;
		if (ioctl(fd, PERF_EVENT_IOC_ID, &id) == 0)
			s->id[i * s->nr_slots + slot] = id;
		if (s->trk) {
			int rc = hpm_tracker__attach(s->trk, slot, fd);
			if (rc) {
				fail_event(s, i, rc);
				return rc;
			}
		}
	}
	s->ev_err[i] = 0;
	return 0;
}

/*
 * Tracking tasks when no event opened yet: lifecycle records come from
 * the first event opened, and there is none when every event is a
 * location (opened at the exec stop, too late for the exec's own COMM
 * record, and so every task's name) or a software counter (read from the
 * markers area). A dummy, opened now like the events it stands for,
 * carries them instead.
 */
static int track_from_exec(struct hpm_session *s)
{
	struct perf_event_attr a;

	if (!s->trk || s->target != HPM_TARGET_EXEC || sideband_taken(s))
		return 0;
	hpm__session_attr(s, 0, true, &a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.bp_type = 0;
	a.config1 = a.config2 = 0;
	a.sample_period = 0;
	a.disabled = 1;
	a.enable_on_exec = 1;
	int fd = hpm__sys_perf_event_open(&a, s->slot_pid[0], -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return 0; /* names are then unknown, counts still right */
	s->loc->sideband_fd = fd;
	return hpm_tracker__attach(s->trk, 0, fd);
}

int hpm__loc_session_open(struct hpm_session *s)
{
	struct hpm_loc_state *st = calloc(1, sizeof(*st));

	if (!st)
		return -ENOMEM;
	st->sideband_fd = -1;
	s->loc = st;
	st->a = hpm__loc_attach_new(s->list, s->lib_path, s->debug_dir,
				    s->target == HPM_TARGET_CPUS);
	if (!st->a)
		return -errno;
	if (!hpm__loc_attach_any(st->a))
		return track_from_exec(s);
	for (size_t i = 0; i < s->nr_ev; i++) {
		if (!hpm__loc_attach_is_loc(st->a, i))
			continue;
		s->ev_err[i] = 0;
		if (s->marked) {
			/* hpmon's own breakpoints and uprobes, not the program's */
			hpm__loc_attach_refuse(st->a, i, -EOPNOTSUPP, "exec: events count in hpmon, "
					       "not in the program, and cannot be limited to what "
					       "the program marks", true);
			fail_event(s, i, -EOPNOTSUPP);
		}
	}
	switch (s->target) {
	case HPM_TARGET_EXEC:
		/* until its exec: see hpm_session__complete_exec() */
		if (!s->stop_at_exec) {
			for (size_t i = 0; i < s->nr_ev; i++)
				hpm__loc_attach_refuse(st->a, i, -EOPNOTSUPP, "this tool does not stop "
						       "the command at its exec, which locations "
						       "need (hpm_session_opts.stop_at_exec)", false);
		} else if (hpm__loc_attach_seize(st->a, s->slot_pid[0]) == 0) {
			return track_from_exec(s);
		}
		sync_errors(s);
		st->done = true;
		return 0;
	case HPM_TARGET_PIDS:
	case HPM_TARGET_TIDS:
		hpm__loc_attach_open_now(st->a, s->slot_pid[0], open_location, s);
		break;
	case HPM_TARGET_CPUS:
		hpm__loc_attach_open_now(st->a, -1, open_location, s);
		break;
	}
	sync_errors(s);
	st->done = true;
	return 0;
}

int hpm__loc_session_complete(struct hpm_session *s)
{
	struct hpm_loc_state *st = s->loc;

	if (!st || st->done)
		return 0;
	st->done = true;
	int rc = hpm__loc_attach_complete(st->a, open_location, s);
	if (rc)
		return rc;
	sync_errors(s);
	return 0;
}

void hpm__loc_session_free(struct hpm_session *s)
{
	struct hpm_loc_state *st = s->loc;
	if (!st)
		return;
	/* a uprobe in use cannot be removed: close the locations first */
	for (size_t i = 0; i < s->nr_ev; i++)
		if (hpm__loc_attach_is_loc(st->a, i))
			fail_event(s, i, s->ev_err[i]);
	hpm__loc_attach_free(st->a);
	if (st->sideband_fd >= 0)
		close(st->sideband_fd);
	free(st);
	s->loc = NULL;
}
