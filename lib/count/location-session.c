/* SPDX-License-Identifier: MIT */
/*
 * Location events in counting sessions (count/location-session-internal.h).
 * The locations themselves -- mechanism, uprobes, the stop at the
 * command's exec -- are lib/attach/attach.c's; this file decides, by the
 * kind of target, when they open, and refuses what cannot count. The
 * session opens and closes the events on its slots when called back.
 */
#include <errno.h>
#include <stdlib.h>

#include "count/location-session-internal.h"

struct hpm_loc_session {
	struct hpm_loc_attach *a;
	struct hpm_loc_session_ops ops;
	size_t nr_ev;
	bool done;                /* opened, or refused: nothing waits for the exec */
};

bool hpm__loc_session_any(const struct hpm_loc_session *l)
{
	return l && hpm__loc_attach_any(l->a);
}

bool hpm__loc_session_pending(const struct hpm_loc_session *l)
{
	return hpm__loc_session_any(l) && !l->done;
}

void hpm__loc_session_attr(struct hpm_loc_session *l, size_t idx, struct perf_event_attr *a)
{
	hpm__loc_attach_attr(l->a, idx, a);
}

const char *hpm__loc_session_message(const struct hpm_loc_session *l, size_t idx)
{
	return l ? hpm__loc_attach_message(l->a, idx) : NULL;
}

const char *hpm__loc_session_how(const struct hpm_loc_session *l, size_t idx)
{
	return l ? hpm__loc_attach_how(l->a, idx) : NULL;
}

/* Every location the attachment refused fails in the session too. */
static void sync_errors(struct hpm_loc_session *l)
{
	for (size_t i = 0; i < l->nr_ev; i++) {
		int err = hpm__loc_attach_err(l->a, i);
		if (hpm__loc_attach_is_loc(l->a, i) && err)
			l->ops.close(l->ops.owner, i, err);
	}
}

/* A program that marks what is counted counts in itself: hpmon's own
 * breakpoints and uprobes cannot be limited to the marked parts. */
static void refuse_marked(struct hpm_loc_session *l)
{
	for (size_t i = 0; i < l->nr_ev; i++) {
		if (!hpm__loc_attach_is_loc(l->a, i))
			continue;
		hpm__loc_attach_refuse(l->a, i, -EOPNOTSUPP, "exec: events count in hpmon, "
				       "not in the program, and cannot be limited to what "
				       "the program marks", true);
		l->ops.close(l->ops.owner, i, -EOPNOTSUPP);
	}
}

/* A command: stop it at its exec, where hpm__loc_session_complete()
 * opens the locations. 0 with the locations pending, else 1 with every
 * one refused. */
static int wait_exec(struct hpm_loc_session *l, const struct hpm_loc_session_in *in)
{
	if (!in->stop_at_exec) {
		for (size_t i = 0; i < l->nr_ev; i++)
			hpm__loc_attach_refuse(l->a, i, -EOPNOTSUPP, "this tool does not stop "
					       "the command at its exec, which locations "
					       "need (hpm_session_opts.stop_at_exec)", false);
		return 1;
	}
	return hpm__loc_attach_seize(l->a, in->pid) == 0 ? 0 : 1;
}

int hpm__loc_session_new(const struct hpm_loc_session_in *in,
			 const struct hpm_loc_session_ops *ops, struct hpm_loc_session **out)
{
	struct hpm_loc_session *l = calloc(1, sizeof(*l));

	*out = l;
	if (!l)
		return -ENOMEM;
	l->ops = *ops;
	l->nr_ev = in->list->nr;
	l->a = hpm__loc_attach_new(in->list, in->lib_path, in->debug_dir,
				   in->target == HPM_TARGET_CPUS);
	if (!l->a)
		return -errno;
	if (!hpm__loc_attach_any(l->a))
		return 0;
	if (in->marked)
		refuse_marked(l);
	switch (in->target) {
	case HPM_TARGET_EXEC:
		if (wait_exec(l, in) == 0)
			return 0; /* pending */
		break;
	case HPM_TARGET_PIDS:
	case HPM_TARGET_TIDS:
		hpm__loc_attach_open_now(l->a, in->pid, ops->open, ops->owner);
		break;
	case HPM_TARGET_CPUS:
		hpm__loc_attach_open_now(l->a, -1, ops->open, ops->owner);
		break;
	}
	sync_errors(l);
	l->done = true;
	return 0;
}

int hpm__loc_session_complete(struct hpm_loc_session *l)
{
	if (!l || l->done)
		return 0;
	l->done = true;
	int rc = hpm__loc_attach_complete(l->a, l->ops.open, l->ops.owner);
	if (rc)
		return rc;
	sync_errors(l);
	return 0;
}

void hpm__loc_session_free(struct hpm_loc_session *l)
{
	if (!l)
		return;
	/* a uprobe in use cannot be removed: close the locations first */
	for (size_t i = 0; l->a && i < l->nr_ev; i++)
		if (hpm__loc_attach_is_loc(l->a, i))
			l->ops.close(l->ops.owner, i, 0);
	hpm__loc_attach_free(l->a);
	free(l);
}
