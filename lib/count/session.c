/* SPDX-License-Identifier: MIT */
/* Counting sessions: open an event list on a target and read it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "count/session-internal.h"
#include "count/location-session-internal.h"
#include "core/cpus-internal.h"
#include "count/markers-internal.h"
#include "sys/perf.h"
#include "sys/opts.h"

void hpm_count__merge(struct hpm_count *sum, const struct hpm_count *c)
{
	if (c->err && !sum->err)
		sum->err = c->err;
	sum->value += c->value;
	sum->enabled += c->enabled;
	sum->running += c->running;
}

double hpm_count__pct_running(const struct hpm_count *c)
{
	if (!c->enabled || c->running >= c->enabled)
		return 100.0;
	return 100.0 * (double)c->running / (double)c->enabled;
}

static int setup_slots(struct hpm_session *s, const struct hpm_session_opts *o)
{
	pid_t *pids = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	switch (o->target) {
	case HPM_TARGET_EXEC:
		if (o->nr_ids != 1)
			return -EINVAL;
		pids = malloc(sizeof(*pids));
		if (!pids)
			return -ENOMEM;
		pids[0] = o->ids[0];
		n = 1;
		break;
	case HPM_TARGET_PIDS:
		for (size_t i = 0; i < o->nr_ids && !rc; i++)
			rc = hpm__add_threads(s->ctx, o->ids[i], &pids, &n, &cap);
		break;
	case HPM_TARGET_TIDS:
		if (!o->nr_ids)
			return -EINVAL;
		pids = malloc(o->nr_ids * sizeof(*pids));
		if (!pids)
			return -ENOMEM;
		memcpy(pids, o->ids, o->nr_ids * sizeof(*pids));
		n = o->nr_ids;
		break;
	case HPM_TARGET_CPUS: {
		int *cpus = NULL;
		if (o->cpus && o->nr_cpus) {
			cpus = malloc(o->nr_cpus * sizeof(*cpus));
			if (!cpus)
				return -ENOMEM;
			memcpy(cpus, o->cpus, o->nr_cpus * sizeof(*cpus));
			n = o->nr_cpus;
		} else {
			rc = hpm__online_cpus(s->ctx, &cpus, &n);
			if (rc)
				return rc;
		}
		s->slot_cpu = cpus;
		s->slot_pid = malloc(n * sizeof(pid_t));
		if (!s->slot_pid)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++)
			s->slot_pid[i] = -1;
		s->nr_slots = n;
		return 0;
	}
	default:
		return -EINVAL;
	}
	if (rc || !n) {
		free(pids);
		return rc ? rc : -ESRCH;
	}
	s->slot_pid = pids;
	s->slot_cpu = malloc(n * sizeof(int));
	if (!s->slot_cpu)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		s->slot_cpu[i] = -1;
	s->nr_slots = n;
	return 0;
}

struct hpm_session *hpm_session__new(struct hpm_evlist *list,
				     const struct hpm_session_opts *opts)
{
	struct hpm_session *s;
	int rc;

	/* the target (up to nr_cpus) is not optional */
	if (!list || !list->nr || !opts || !HPM_OPTS_VALID(opts, hpm_session_opts) ||
	    !HPM_OPTS_HAS(opts, nr_cpus)) {
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->list = list;
	s->ctx = list->ctx;
	s->sideband_fd = -1;
	s->target = opts->target;
	s->track = HPM_OPTS_GET(opts, track_tasks, false) && opts->target == HPM_TARGET_EXEC;
	/* location events and the markers area (count/location-session.c, markers.c) */
	const char *lib_path = HPM_OPTS_GET(opts, lib_path, NULL);
	const char *debug_dir = HPM_OPTS_GET(opts, debug_dir, NULL);
	if ((lib_path && !(s->lib_path = strdup(lib_path))) ||
	    (debug_dir && !(s->debug_dir = strdup(debug_dir)))) {
		rc = -ENOMEM;
		goto fail;
	}
	s->markers = HPM_OPTS_GET(opts, markers, NULL);
	s->marked = HPM_OPTS_GET(opts, marked, false) && s->markers;
	s->stop_at_exec = HPM_OPTS_GET(opts, stop_at_exec, false);
	s->nr_ev = list->nr;
	rc = setup_slots(s, opts);
	if (rc)
		goto fail;
	s->fd = malloc(s->nr_ev * s->nr_slots * sizeof(int));
	s->id = calloc(s->nr_ev * s->nr_slots, sizeof(uint64_t));
	s->ev_err = calloc(s->nr_ev, sizeof(int));
	s->ev_user_only = calloc(s->nr_ev, sizeof(bool));
	if (!s->fd || !s->id || !s->ev_err || !s->ev_user_only) {
		rc = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < s->nr_ev * s->nr_slots; i++)
		s->fd[i] = -1;
	return s;
fail:
	hpm_session__free(s);
	errno = -rc;
	return NULL;
}

void hpm_session__free(struct hpm_session *s)
{
	if (!s)
		return;
	hpm__loc_session_free(s->loc);
	if (s->sideband_fd >= 0)
		close(s->sideband_fd);
	free(s->lib_path);
	free(s->debug_dir);
	hpm_tracker__free(s->trk);
	free(s->task_counts);
	if (s->fd)
		for (size_t i = 0; i < s->nr_ev * s->nr_slots; i++)
			if (s->fd[i] >= 0)
				close(s->fd[i]);
	free(s->fd);
	free(s->id);
	free(s->ev_err);
	free(s->ev_user_only);
	free(s->slot_pid);
	free(s->slot_cpu);
	free(s);
}

static int *fdp(const struct hpm_session *s, size_t ev, size_t slot)
{
	return &s->fd[ev * s->nr_slots + slot];
}

/* The attr to open event @i with, for this session's target. */
static void session_attr(const struct hpm_session *s, size_t i,
			 bool sideband, struct perf_event_attr *a)
{
	const struct hpm_event *ev = &s->list->ev[i];
	bool leader = ev->leader == i;

	*a = ev->attr;
	a->size = sizeof(*a);
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			 PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
	/* Counting, not sampling: without a period the kernel only adds to the
	 * count at each event, with no overflow handling (a breakpoint hit
	 * costs about a fifth less than with perf's period 1). */
	a->sample_period = 0;
	a->freq = 0;
	/* as perf stat's: a counter's samples, of which it has none, would
	 * carry its id first */
	a->sample_type = PERF_SAMPLE_IDENTIFIER;
	a->disabled = leader;
	a->inherit = s->target != HPM_TARGET_CPUS;
	a->enable_on_exec = leader && s->target == HPM_TARGET_EXEC;
	if (s->track) {
		a->inherit_stat = 1;
		a->sample_id_all = 1;
		a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
		a->watermark = 1;
		a->wakeup_watermark = 64 * 1024; /* wake the reader at 1/8 full */
		/* one event per CPU reports the tasks' lifecycle */
		a->comm = a->task = a->comm_exec = sideband;
	}
}

/* perf_event_open with the fallbacks of @allow, told to the caller's
 * hpm_session__on_open callback: every open the session makes. */
static int perf_open(const struct hpm_session *s, struct perf_event_attr *a, pid_t pid,
		     int cpu, int group_fd, unsigned allow, unsigned *did)
{
	int fd = hpm__perf_open(a, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC, allow, did);
	if (s->open_fn)
		s->open_fn(a, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC, fd, s->open_arg);
	return fd;
}

/* Open event @i on @slot with the fallbacks of @allow; *@did says which
 * were taken. */
static int open_one(struct hpm_session *s, size_t i, size_t slot,
		    struct perf_event_attr *a, unsigned allow, unsigned *did)
{
	const struct hpm_event *ev = &s->list->ev[i];
	int group_fd = -1;

	*did = 0;
	if (ev->leader != i) {
		group_fd = *fdp(s, ev->leader, slot);
		if (group_fd < 0)
			return s->ev_err[ev->leader] ? s->ev_err[ev->leader] : -EINVAL;
	}
	return perf_open(s, a, s->slot_pid[slot], s->slot_cpu[slot], group_fd, allow, did);
}

/* Does event @i count on @slot? A CPU target opens an event only on the
 * CPUs of its PMU (and of its group leader's): cpu_core's, an uncore
 * PMU's cpumask. */
static bool slot_counts(const struct hpm_session *s, size_t i, size_t slot)
{
	const struct hpm_event *ev = &s->list->ev[i];
	int cpu = s->slot_cpu[slot];

	return cpu < 0 || (hpm__cpu_in_list(ev->cpus, cpu) &&
			   hpm__cpu_in_list(s->list->ev[ev->leader].cpus, cpu));
}

/*
 * Open event @i on every slot. A slot whose thread has exited meanwhile
 * (-ESRCH) is skipped for PIDS targets; any other error fails the event.
 * An event on none of a CPU target's CPUs fails with -ENODEV.
 */
static int open_event(struct hpm_session *s, size_t i, bool sideband)
{
	struct perf_event_attr a;
	size_t opened = 0;
	unsigned allow = 0;
	int err = 0;

	session_attr(s, i, sideband, &a);
	/* Host only is perf's default, not the user's choice: PMUs that cannot
	 * tell guest from host refuse it. Kernel counting that paranoid
	 * forbids becomes user only, as perf does, unless the user chose. */
	if (!s->list->ev[i].explicit_gh)
		allow |= HPM_FALLBACK_GUEST;
	if (!s->list->ev[i].explicit_priv)
		allow |= HPM_FALLBACK_USER;
	for (size_t slot = 0; slot < s->nr_slots; slot++) {
		if (!slot_counts(s, i, slot))
			continue;
		unsigned did;
		int fd = open_one(s, i, slot, &a, allow, &did);
		if (did & HPM_FALLBACK_USER)
			s->ev_user_only[i] = true; /* @a stays so for the other slots */
		if (fd == -ESRCH && s->target == HPM_TARGET_PIDS)
			continue;
		if (fd < 0) {
			err = fd;
			break;
		}
		*fdp(s, i, slot) = fd;
		opened++;
	}
	if (!err && !opened)
		err = s->target == HPM_TARGET_CPUS ? -ENODEV : -ESRCH;
	if (err) {
		for (size_t slot = 0; slot < s->nr_slots; slot++) {
			int *f = fdp(s, i, slot);
			if (*f >= 0)
				close(*f);
			*f = -1;
		}
		s->ev_user_only[i] = false;
		return err;
	}
	for (size_t slot = 0; slot < s->nr_slots; slot++) {
		int f = *fdp(s, i, slot);
		uint64_t id = 0;
		if (f >= 0 && ioctl(f, PERF_EVENT_IOC_ID, &id) == 0)
			s->id[i * s->nr_slots + slot] = id;
	}
	return 0;
}

/* ---- tasks of a launched command (count/tasks-internal.h) ---- */

/* hpm_tracker_fn: a task's lifecycle event, to the caller's hpm_task_fn;
 * an exit with the task's final counts. */
static void on_tracked(enum hpm_task_event what, size_t task, const struct hpm_task *snap,
		       uint64_t time, void *arg)
{
	struct hpm_session *s = arg;

	if (what != HPM_TASK_EXIT) {
		s->task_fn(what, snap, time, NULL, s->task_arg);
		return;
	}
	for (size_t ev = 0; ev < s->nr_ev; ev++)
		hpm_session__read_task(s, ev, task, &s->task_counts[ev]);
	s->task_fn(HPM_TASK_EXIT, snap, time, s->task_counts, s->task_arg);
}

static int start_tracker(struct hpm_session *s)
{
	const struct hpm_tracker_in in = {
		.nr_ev = s->nr_ev, .nr_slots = s->nr_slots,
		.slot_pid = s->slot_pid, .slot_cpu = s->slot_cpu,
		.id = s->id, .ev_err = s->ev_err, .max_enabled = s->percpu_task,
	};

	s->task_counts = calloc(s->nr_ev, sizeof(*s->task_counts));
	if (!s->task_counts)
		return -ENOMEM;
	int rc = hpm_tracker__new(&in, &s->trk);
	if (!rc && s->task_fn)
		hpm_tracker__on_task(s->trk, on_tracked, s);
	return rc;
}

/* ---- location events (count/location-session-internal.h) ---- */

/* Does an event already carry the tasks' lifecycle records? The first
 * event opened does. */
static bool sideband_taken(const struct hpm_session *s)
{
	if (s->sideband_fd >= 0)
		return true;
	for (size_t i = 0; i < s->nr_ev; i++)
		if (*fdp(s, i, 0) >= 0)
			return true;
	return false;
}

/* Close what is open of event @i; @err, if any, becomes its error
 * unless it has one. */
static void close_event(void *owner, size_t i, int err)
{
	struct hpm_session *s = owner;

	if (err && !s->ev_err[i])
		s->ev_err[i] = err;
	for (size_t slot = 0; slot < s->nr_slots; slot++) {
		int *f = fdp(s, i, slot);
		if (*f >= 0)
			close(*f);
		*f = -1;
	}
}

/* hpm_loc_open_fn: open location @i on every slot, counting, enabled
 * (the command has exec'd, or the targets are running). */
static int open_location(void *owner, size_t i)
{
	struct hpm_session *s = owner;
	struct perf_event_attr a;

	session_attr(s, i, !sideband_taken(s), &a);
	a.disabled = 0;
	a.enable_on_exec = 0;
	hpm__loc_session_attr(s->loc, i, &a);
	/* counting, as perf stat does: a period would run the overflow path
	 * at every hit (about 10 % more per hit) */
	a.sample_period = 0;
	for (size_t slot = 0; slot < s->nr_slots; slot++) {
		int fd = perf_open(s, &a, s->slot_pid[slot], s->slot_cpu[slot], -1, 0, NULL);
		if (fd == -ESRCH && s->target == HPM_TARGET_PIDS)
			continue;
		if (fd < 0) {
			close_event(s, i, fd);
			return fd;
		}
		*fdp(s, i, slot) = fd;
		uint64_t id = 0;
		if (ioctl(fd, PERF_EVENT_IOC_ID, &id) == 0)
			s->id[i * s->nr_slots + slot] = id;
		int rc = s->trk ? hpm_tracker__attach(s->trk, slot, fd) : 0;
		if (rc) {
			close_event(s, i, rc);
			return rc;
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
	session_attr(s, 0, true, &a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.bp_type = 0;
	a.config1 = a.config2 = 0;
	a.sample_period = 0;
	a.disabled = 1;
	a.enable_on_exec = 1;
	int fd = perf_open(s, &a, s->slot_pid[0], -1, -1, 0, NULL);
	if (fd < 0)
		return 0; /* names are then unknown, counts still right */
	s->sideband_fd = fd;
	return hpm_tracker__attach(s->trk, 0, fd);
}

/* Location events open now, or at the command's exec stop; until then
 * (or without any) a dummy may carry the tasks' lifecycle. */
static int open_locations(struct hpm_session *s)
{
	const struct hpm_loc_session_in in = {
		.list = s->list, .lib_path = s->lib_path, .debug_dir = s->debug_dir,
		.target = s->target, .pid = s->slot_pid[0], .marked = s->marked,
		.stop_at_exec = s->stop_at_exec,
	};
	const struct hpm_loc_session_ops ops = {
		.open = open_location, .close = close_event, .owner = s,
	};
	int rc = hpm__loc_session_new(&in, &ops, &s->loc);

	if (rc)
		return rc;
	if (!hpm__loc_session_any(s->loc) || hpm__loc_session_pending(s->loc))
		return track_from_exec(s);
	return 0;
}

int hpm_session__open(struct hpm_session *s)
{
	int first_err = 0;
	size_t nr_open = 0;

	if (s->opened)
		return -EBUSY;
	if (s->track) {
		int rc = start_tracker(s);
		if (rc)
			return rc;
	}
	s->open_ns = hpm__markers_now_ns();
	for (size_t i = 0; i < s->nr_ev; i++) {
		/* locations open once the program is known (lib/location/location.c);
		 * sw: counters are read from the markers area */
		if (hpm__event_is_location(&s->list->ev[i]))
			continue;
		if (hpm__event_is_marker(&s->list->ev[i])) {
			s->ev_err[i] = s->markers ? 0 : -ENODATA;
			continue;
		}
		int rc = open_event(s, i, nr_open == 0);
		s->ev_err[i] = rc;
		if (rc) {
			if (!first_err)
				first_err = rc;
			continue;
		}
		nr_open++;
		for (size_t slot = 0; s->track && slot < s->nr_slots; slot++) {
			rc = hpm_tracker__attach(s->trk, slot, *fdp(s, i, slot));
			if (rc)
				return rc;
		}
	}
	s->opened = true;
	int lrc = open_locations(s);
	if (lrc)
		return lrc;
	return nr_open ? 0 : first_err;
}

int hpm_session__complete_exec(struct hpm_session *s)
{
	return hpm__loc_session_complete(s->loc);
}

const char *hpm_session__event_message(const struct hpm_session *s, size_t idx)
{
	if (idx >= s->nr_ev)
		return NULL;
	const char *m = hpm__loc_session_message(s->loc, idx);
	return m ? m : hpm__markers_message(s->markers, s->marked, &s->list->ev[idx]);
}

const char *hpm_session__event_how(const struct hpm_session *s, size_t idx)
{
	return hpm__loc_session_how(s->loc, idx);
}

static int ioctl_all(struct hpm_session *s, unsigned long req)
{
	int err = 0;
	for (size_t i = 0; i < s->nr_ev; i++) {
		if (s->list->ev[i].leader != i)
			continue; /* members follow their leader */
		for (size_t slot = 0; slot < s->nr_slots; slot++) {
			int f = *fdp(s, i, slot);
			if (f >= 0 && ioctl(f, req, 0) < 0 && !err)
				err = -errno;
		}
	}
	return err;
}

int hpm_session__enable(struct hpm_session *s) { return ioctl_all(s, PERF_EVENT_IOC_ENABLE); }
int hpm_session__disable(struct hpm_session *s)
{
	s->disabled = true;
	return ioctl_all(s, PERF_EVENT_IOC_DISABLE);
}

int hpm_session__set_group_enabled(struct hpm_session *s, size_t leader, bool on)
{
	int err = 0;
	if (!s || leader >= s->nr_ev || s->list->ev[leader].leader != leader)
		return -EINVAL;
	/* the whole group, members too (their enabled time stops with the
	 * leader's), and through the kernel every inherited copy */
	for (size_t slot = 0; slot < s->nr_slots; slot++) {
		int f = *fdp(s, leader, slot);
		if (f >= 0 && ioctl(f, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE,
				    PERF_IOC_FLAG_GROUP) < 0 && !err)
			err = -errno;
	}
	return err;
}

int hpm_session__event_error(const struct hpm_session *s, size_t idx)
{
	return idx < s->nr_ev ? s->ev_err[idx] : -EINVAL;
}

bool hpm_session__event_user_only(const struct hpm_session *s, size_t idx)
{
	return idx < s->nr_ev && s->ev_user_only[idx];
}

static int read_fd(const struct hpm_session *s, int fd, struct hpm_count *c)
{
	struct hpm_read_one r;
	ssize_t n = read(fd, &r, sizeof(r));
	if (n < 0)
		return -errno;
	if (n != (ssize_t)sizeof(r))
		return -EIO;
	struct hpm_count one = { .value = r.value, .enabled = r.enabled,
				 .running = r.running };
	hpm__count_add(c, &one, s->percpu_task);
	return 0;
}

/*
 * Event @idx over slots @from..@to, when the markers area counts it (a
 * sw: counter; any event in marked mode): into @out, and true. One slot
 * is a thread (-p/-t), or a CPU, where the program's own counts are all
 * on the first.
 */
static bool markers_read(const struct hpm_session *s, size_t idx, size_t from, size_t to,
			 struct hpm_count *out)
{
	const struct hpm_event *ev = &s->list->ev[idx];
	pid_t tid = 0;

	if (from > 0 || to < s->nr_slots) {
		if (s->target == HPM_TARGET_PIDS || s->target == HPM_TARGET_TIDS)
			tid = s->slot_pid[from];
		else if (from > 0 && s->markers && (s->marked || hpm__event_is_marker(ev))) {
			memset(out, 0, sizeof(*out));
			return true;
		}
	}
	return hpm__markers_read_event(s->markers, s->marked, ev, idx, s->open_ns, 0, tid, out);
}

static int read_slots(struct hpm_session *s, size_t idx, size_t from, size_t to,
		      struct hpm_count *out)
{
	memset(out, 0, sizeof(*out));
	if (idx >= s->nr_ev)
		return -EINVAL;
	if (!s->opened)
		return -HPM_ERR_NOT_OPEN;
	if (s->ev_err[idx]) {
		out->err = s->ev_err[idx];
		return 0;
	}
	if (markers_read(s, idx, from, to, out))
		return 0; /* sw: counters, marked counts */
	for (size_t slot = from; slot < to; slot++) {
		int f = *fdp(s, idx, slot);
		if (f < 0)
			continue;
		int rc = read_fd(s, f, out);
		if (rc)
			return rc;
	}
	return 0;
}

int hpm_session__read(struct hpm_session *s, size_t idx, struct hpm_count *out)
{
	return read_slots(s, idx, 0, s->nr_slots, out);
}

size_t hpm_session__nr_cpus(const struct hpm_session *s)
{
	return s->target == HPM_TARGET_CPUS ? s->nr_slots : 0;
}

int hpm_session__cpu(const struct hpm_session *s, size_t cpu_idx)
{
	return s->target == HPM_TARGET_CPUS && cpu_idx < s->nr_slots ? s->slot_cpu[cpu_idx] : -1;
}

int hpm_session__read_cpu(struct hpm_session *s, size_t idx, size_t cpu_idx,
			  struct hpm_count *out)
{
	if (s->target != HPM_TARGET_CPUS || cpu_idx >= s->nr_slots)
		return -EINVAL;
	return read_slots(s, idx, cpu_idx, cpu_idx + 1, out);
}

size_t hpm_session__nr_threads(const struct hpm_session *s)
{
	return s->target == HPM_TARGET_PIDS || s->target == HPM_TARGET_TIDS ? s->nr_slots : 0;
}

pid_t hpm_session__thread(const struct hpm_session *s, size_t t)
{
	return t < hpm_session__nr_threads(s) ? s->slot_pid[t] : -1;
}

int hpm_session__read_thread(struct hpm_session *s, size_t idx, size_t t,
			     struct hpm_count *out)
{
	if (t >= hpm_session__nr_threads(s))
		return -EINVAL;
	return read_slots(s, idx, t, t + 1, out);
}

void hpm_session__on_open(struct hpm_session *s, hpm_open_fn fn, void *arg)
{
	s->open_fn = fn;
	s->open_arg = arg;
}

int hpm_session__attr(const struct hpm_session *s, size_t idx, struct perf_event_attr *out)
{
	if (idx >= s->nr_ev)
		return -EINVAL;
	session_attr(s, idx, false, out);
	return 0;
}

void hpm_session__on_task(struct hpm_session *s, hpm_task_fn fn, void *arg)
{
	s->task_fn = fn;
	s->task_arg = arg;
	if (s->trk)
		hpm_tracker__on_task(s->trk, fn ? on_tracked : NULL, s);
}

int hpm_session__poll_fd(const struct hpm_session *s)
{
	return s->trk ? hpm_tracker__fd(s->trk) : -1;
}

int hpm_session__drain(struct hpm_session *s)
{
	if (!s->trk)
		return 0;
	if (!s->disabled)
		return hpm_tracker__drain(s->trk);
	/* counting is over: read what a stalled buffer holds, then report
	 * every exit, with what is known */
	int rc = hpm_tracker__recover(s->trk);
	hpm_tracker__flush(s->trk);
	return rc;
}

uint64_t hpm_session__lost(const struct hpm_session *s)
{
	return s->trk ? hpm_tracker__lost(s->trk) : 0;
}

size_t hpm_session__nr_tasks(const struct hpm_session *s)
{
	return s->trk ? hpm_tracker__nr_tasks(s->trk) : 0;
}

const struct hpm_task *hpm_session__task(const struct hpm_session *s, size_t t)
{
	return s->trk ? hpm_tracker__task(s->trk, t) : NULL;
}

int hpm_session__read_task(struct hpm_session *s, size_t idx, size_t t,
			   struct hpm_count *out)
{
	memset(out, 0, sizeof(*out));
	if (!s->trk || idx >= s->nr_ev || t >= hpm_tracker__nr_tasks(s->trk))
		return -EINVAL;
	if (s->ev_err[idx]) {
		out->err = s->ev_err[idx];
		return 0;
	}
	const struct hpm_task *task = hpm_tracker__task(s->trk, t);
	if (task->tid && hpm__markers_read_event(s->markers, s->marked, &s->list->ev[idx], idx,
						 s->open_ns, task->pid, task->tid, out))
		return 0; /* sw: counters, marked counts: the thread's own */
	size_t which = 0;
	int rc = hpm_tracker__task_count(s->trk, t, idx, out);
	if (rc || !out->err)
		return rc;
	/* No READ record: exact only if this is the one task without one
	 * (the holder of the original events, see lib/count/tasks.c). */
	if (hpm_tracker__nr_missing(s->trk, idx, &which) != 1 || which != t)
		return 0; /* out->err = -EAGAIN */
	struct hpm_count total, reads;
	rc = hpm_session__read(s, idx, &total);
	if (rc)
		return rc;
	hpm_tracker__exited_sum(s->trk, idx, &reads);
	memset(out, 0, sizeof(*out));
	out->value = total.value >= reads.value ? total.value - reads.value : 0;
	out->running = total.running >= reads.running ? total.running - reads.running : 0;
	/* its share of enabled time: the total's multiplexing ratio */
	out->enabled = total.running ? (uint64_t)((double)out->running *
				       (double)total.enabled / (double)total.running)
				     : 0;
	if (out->enabled < out->running)
		out->enabled = out->running;
	return 0;
}
