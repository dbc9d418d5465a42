/* SPDX-License-Identifier: MIT */
/*
 * Location events in sessions (include/hpmon/session.h): which mechanism
 * counts each one, uprobes defined in tracefs, and the stop at the
 * command's exec that lets breakpoints go to the addresses the program is
 * loaded at. lib/location.c parses and resolves; the mechanisms and the
 * stop are described there.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>
#include <elf.h>

#include <linux/hw_breakpoint.h>

#include "location-internal.h"

/* ---- what this machine and caller allow ---- */

static void bp_probe_target(void) {}

unsigned hpm__loc_bp_slots(void)
{
	int fds[32];
	unsigned n = 0;

	for (; n < 32; n++) {
		struct perf_event_attr a = {
			.size = sizeof(a), .type = PERF_TYPE_BREAKPOINT, .bp_type = HW_BREAKPOINT_X,
			.bp_addr = (uint64_t)(uintptr_t)bp_probe_target, .bp_len = sizeof(long),
			.sample_period = 1, .disabled = 1, .exclude_kernel = 1, .exclude_hv = 1,
		};
		long fd = syscall(__NR_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			break;
		fds[n] = (int)fd;
	}
	for (unsigned i = 0; i < n; i++)
		close(fds[i]);
	return n;
}

/* The tracefs file uprobes are defined in, if there is one (or tracefs
 * is there but closed to the caller: only root may look inside). */
static bool uprobe_events_path(const struct hpm_ctx *ctx, char *path, size_t len)
{
	const char *root = hpm_ctx__tracefs_root(ctx);
	if (root)
		return hpm__path(path, len, root, "uprobe_events") == 0 &&
		       (access(path, F_OK) == 0 || errno == EACCES);
	/* the context found no tracefs: maybe one the caller may not enter */
	return hpm__path(path, len, ctx->sysfs, "kernel/tracing/uprobe_events") == 0 &&
	       access(path, F_OK) && errno == EACCES;
}

bool hpm__loc_uprobes_available(const struct hpm_ctx *ctx)
{
	char path[PATH_MAX];
	return uprobe_events_path(ctx, path, sizeof(path));
}

bool hpm__loc_uprobes_allowed(const struct hpm_ctx *ctx)
{
	char path[PATH_MAX];
	return uprobe_events_path(ctx, path, sizeof(path)) && access(path, W_OK) == 0;
}

/* ---- planning: which mechanism for each location ---- */

struct loc_ev {
	bool is_loc;
	struct hpm_location loc;
	struct hpm_loc_result res;
	enum hpm_loc_mech mech;   /* chosen; AUTO until planned */
	bool resolved;
	int err;                  /* cannot be counted: why */
	char msg[320];            /* why it failed */
	char how[320];            /* how it is counted */
	char probe[64];           /* the tracefs uprobe "GROUP/EVENT", or "" */
};

struct hpm_loc_state {
	struct loc_ev *ev;        /* [nr_ev] */
	bool any;                 /* the list has location events */
	bool seized;              /* the command is traced until its exec */
	bool done;
	int sideband_fd;          /* carries the tasks' lifecycle from the exec on
				     when only locations are counted, or -1 */
};

/*
 * Choose each location's mechanism, in list order: breakpoints while the
 * thread's slots last (mem: events take theirs first), uprobes for
 * returns, beyond the slots and system-wide (@cpus). A location that
 * cannot be counted gets its error and message and drops out; the
 * first such is *@bad, and its error is returned.
 */
static int plan(const struct hpm_ctx *ctx, const struct hpm_evlist *list, struct loc_ev *v,
		bool cpus, size_t *bad)
{
	unsigned slots = hpm__loc_bp_slots(), used = 0;
	bool uprobes = hpm__loc_uprobes_allowed(ctx);
	bool have_uprobes = hpm__loc_uprobes_available(ctx);
	static const char need_priv[] =
		"uprobes need root (hpmon defines them in tracefs, whose uprobe_events only "
		"root may write)";
	int first = 0;

	for (size_t i = 0; i < list->nr; i++)
		if (list->ev[i].attr.type == PERF_TYPE_BREAKPOINT && !v[i].is_loc)
			used++; /* mem: events take slots too */
	for (size_t i = 0; i < list->nr; i++) {
		struct loc_ev *e = &v[i];
		enum hpm_loc_mech m = e->loc.mech;
		int err = 0;

		if (!e->is_loc || e->err || e->mech)
			continue;
		if (m == HPM_LOC_BP && e->loc.ret) {
			snprintf(e->msg, sizeof(e->msg),
				 "a breakpoint cannot count a function's returns (they have no "
				 "one address): drop ':bp' to count them with a uprobe");
			err = -EINVAL;
		} else if (m == HPM_LOC_BP && cpus) {
			snprintf(e->msg, sizeof(e->msg),
				 "breakpoints count the threads of a process, not CPUs: use "
				 "':uprobe' with -a");
			err = -EINVAL;
		} else {
			if (m == HPM_LOC_AUTO)
				m = e->loc.ret || cpus || used >= slots ? HPM_LOC_UPROBE : HPM_LOC_BP;
			if (m == HPM_LOC_BP && used >= slots) {
				snprintf(e->msg, sizeof(e->msg),
					 "no hardware breakpoint left: this CPU gives each thread "
					 "%u and the events before this one take them; count the "
					 "rest with ':uprobe' (%s)", slots, need_priv);
				err = -ENOSPC;
			} else if (m == HPM_LOC_BP) {
				used++;
			} else if (!have_uprobes) {
				snprintf(e->msg, sizeof(e->msg),
					 "no uprobes here: tracefs is not mounted or the kernel lacks "
					 "CONFIG_UPROBE_EVENTS%s", e->loc.ret ? "" : "; use ':bp'");
				err = -ENODEV;
			} else if (!uprobes) {
				if (e->loc.mech == HPM_LOC_AUTO && e->loc.ret)
					snprintf(e->msg, sizeof(e->msg),
						 "counting returns needs a uprobe, and %s", need_priv);
				else if (e->loc.mech == HPM_LOC_AUTO)
					snprintf(e->msg, sizeof(e->msg),
						 "no hardware breakpoint left (%u per thread) and %s",
						 slots, need_priv);
				else
					snprintf(e->msg, sizeof(e->msg), "%s; use ':bp' (%u per thread)",
						 need_priv, slots);
				err = -EACCES;
			}
		}
		if (err) {
			e->err = err;
			if (!first) {
				first = err;
				*bad = i;
			}
			continue;
		}
		e->mech = m;
	}
	return first;
}

/* Parse every location event of @list into @v. */
static int parse_all(const struct hpm_evlist *list, struct loc_ev *v, bool *any)
{
	*any = false;
	for (size_t i = 0; i < list->nr; i++) {
		const struct hpm_event *ev = &list->ev[i];
		size_t pos;
		if (!hpm__event_is_location(ev))
			continue;
		v[i].is_loc = *any = true;
		int rc = hpm__loc_parse(ev->name, strlen(ev->name), &v[i].loc, &pos, v[i].msg,
					sizeof(v[i].msg));
		if (rc)
			return rc; /* evparse checked it: not reached */
	}
	return 0;
}

static void fill_err(struct hpm_parse_error *err, int rc, const char *name, const char *msg)
{
	if (!err)
		return;
	memset(err, 0, sizeof(*err));
	err->err = rc;
	snprintf(err->token, sizeof(err->token), "%s", name);
	snprintf(err->msg, sizeof(err->msg), "%s: %s", name, msg);
}

int hpm_evlist__check_locations(const struct hpm_evlist *list, const char *program,
				const char *lib_path, struct hpm_parse_error *err)
{
	struct loc_ev *v = calloc(list->nr ? list->nr : 1, sizeof(*v));
	struct hpm_loc_env env = { .program = program, .lib_path = lib_path };
	size_t bad = 0;
	bool any;
	int rc;

	if (!v)
		return -ENOMEM;
	rc = parse_all(list, v, &any);
	for (size_t i = 0; !rc && any && i < list->nr; i++) {
		if (!v[i].is_loc)
			continue;
		bad = i;
		rc = v[i].err = hpm__loc_resolve(&v[i].loc, &env, &v[i].res, v[i].msg,
						 sizeof(v[i].msg));
	}
	if (!rc && any)
		rc = plan(list->ctx, list, v, false, &bad);
	if (rc)
		fill_err(err, rc, list->ev[bad].name, v[bad].msg);
	free(v);
	return rc;
}

/* ---- sessions ---- */

static struct loc_ev *lev(const struct hpm_session *s, size_t i)
{
	return s->loc && i < s->nr_ev ? &s->loc->ev[i] : NULL;
}

const char *hpm__loc_session_message(const struct hpm_session *s, size_t idx)
{
	const struct loc_ev *e = lev(s, idx);
	return e && e->is_loc && e->msg[0] ? e->msg : NULL;
}

const char *hpm_session__event_how(const struct hpm_session *s, size_t idx)
{
	const struct loc_ev *e = lev(s, idx);
	return e && e->is_loc && e->how[0] ? e->how : NULL;
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

/*
 * Uprobes are defined in tracefs (as `perf probe` does) and counted as
 * tracepoints. Not through the uprobe PMU: an inherited event of that PMU
 * is set up again for every new thread and process, in the context of the
 * task that forks, which reads the file's path from the attribute's
 * pointer -- into its own memory, where it is not: clone() fails with
 * EFAULT (and without CAP_PERFMON, EACCES). Tracepoints inherit cleanly.
 *
 * The definition is named after the session, "hpmon_PID/sADDR_IDX", and
 * removed when the session ends.
 */
static int uprobe_write(const struct hpm_ctx *ctx, const char *line)
{
	char path[PATH_MAX];
	if (!uprobe_events_path(ctx, path, sizeof(path)))
		return -ENODEV;
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, line, strlen(line));
	int rc = n < 0 ? -errno : 0;
	close(fd);
	return rc;
}

static void uprobe_remove(struct hpm_session *s, size_t i)
{
	struct loc_ev *e = &s->loc->ev[i];
	char line[96];
	if (!e->probe[0])
		return;
	snprintf(line, sizeof(line), "-:%s\n", e->probe);
	uprobe_write(s->ctx, line);
	e->probe[0] = '\0';
}

static int uprobe_define(struct hpm_session *s, size_t i, uint64_t *id)
{
	struct loc_ev *e = &s->loc->ev[i];
	char line[PATH_MAX + 128], path[PATH_MAX];
	long v;
	int rc;

	if (strpbrk(e->res.path, " \t\n")) {
		snprintf(e->msg, sizeof(e->msg), "a uprobe cannot name a file with blanks in its "
			 "path (%s): use ':bp'", e->res.path);
		return -EINVAL;
	}
	snprintf(e->probe, sizeof(e->probe), "hpmon_%d/s%llx_%zu", (int)getpid(),
		 (unsigned long long)(uintptr_t)s, i);
	snprintf(line, sizeof(line), "%c:%s %s:0x%llx\n", e->loc.ret ? 'r' : 'p', e->probe,
		 e->res.path, (unsigned long long)e->res.offset);
	rc = uprobe_write(s->ctx, line);
	if (rc == -EEXIST) {
		/* left over by a session of a dead hpmon with our pid */
		char del[96];
		snprintf(del, sizeof(del), "-:%s\n", e->probe);
		uprobe_write(s->ctx, del);
		rc = uprobe_write(s->ctx, line);
	}
	if (rc) {
		e->probe[0] = '\0';
		snprintf(e->msg, sizeof(e->msg), "cannot define a uprobe at %s (%s:0x%llx): %s%s",
			 e->res.where, e->res.path, (unsigned long long)e->res.offset,
			 strerror(-rc), rc == -EACCES || rc == -EPERM ? " (uprobes need root)" : "");
		return rc;
	}
	if (hpm__path(path, sizeof(path), hpm_ctx__tracefs_root(s->ctx), "events/%s/id",
		      e->probe) || hpm__read_long(path, &v) || v < 0) {
		uprobe_remove(s, i);
		snprintf(e->msg, sizeof(e->msg), "the uprobe at %s has no tracepoint id",
			 e->res.where);
		return -ENOENT;
	}
	*id = (uint64_t)v;
	return 0;
}

/* Open resolved location @i on every slot, at runtime address @rt (for
 * breakpoints). @after_exec: the command already exec'd (no
 * enable_on_exec). */
static int open_location(struct hpm_session *s, size_t i, uint64_t rt, bool after_exec,
			 bool sideband)
{
	struct loc_ev *e = &s->loc->ev[i];
	struct perf_event_attr a;

	hpm__session_attr(s, i, sideband, &a);
	if (after_exec) {
		a.disabled = 0;
		a.enable_on_exec = 0;
	}
	if (e->mech == HPM_LOC_UPROBE) {
		uint64_t id;
		int rc = uprobe_define(s, i, &id);
		if (rc) {
			fail_event(s, i, e->err = rc);
			return rc;
		}
		a.type = PERF_TYPE_TRACEPOINT;
		a.config = id;
		a.config1 = a.config2 = 0; /* they overlay bp_addr and bp_len */
		a.bp_type = 0;
		a.sample_period = 0; /* counting: no overflow handling per hit */
		a.exclude_kernel = 0;
		a.exclude_hv = 0;
		snprintf(e->how, sizeof(e->how), "uprobe%s at %s:0x%llx (%s)",
			 e->loc.ret ? " on return" : "", e->res.path,
			 (unsigned long long)e->res.offset, e->res.where);
	} else {
		a.type = PERF_TYPE_BREAKPOINT;
		a.bp_type = HW_BREAKPOINT_X;
		a.bp_addr = rt;
		/* the program's code runs in user mode: counting it needs no
		 * more than perf_event_paranoid 2 allows */
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		a.bp_len = sizeof(long);
#if defined(__aarch64__)
		a.bp_len = 4;
#endif
		/* counting, as perf stat does: a period would run the overflow
		 * path at every hit (about 10 % more per hit) */
		a.sample_period = 0;
		snprintf(e->how, sizeof(e->how), "breakpoint at 0x%llx (%s)",
			 (unsigned long long)rt, e->res.where);
	}
	for (size_t slot = 0; slot < s->nr_slots; slot++) {
		long fd = syscall(__NR_perf_event_open, &a, s->slot_pid[slot], s->slot_cpu[slot],
				  -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0 && errno == ESRCH && s->target == HPM_TARGET_PIDS)
			continue;
		if (fd < 0) {
			int err = -errno;
			if (err == -ENOSPC)
				snprintf(e->msg, sizeof(e->msg),
					 "no free hardware breakpoint for %s (%u per thread here, "
					 "some held by others?): use ':uprobe'", e->res.where,
					 hpm__loc_bp_slots());
			else if (err == -EACCES || err == -EPERM)
				snprintf(e->msg, sizeof(e->msg), "%s: permission denied%s",
					 e->res.where,
					 e->mech == HPM_LOC_UPROBE ? " (uprobes need root)" : "");
			else
				snprintf(e->msg, sizeof(e->msg), "cannot count %s: %s", e->res.where,
					 strerror(-err));
			e->how[0] = '\0';
			fail_event(s, i, err);
			return err;
		}
		s->fd[i * s->nr_slots + slot] = (int)fd;
		uint64_t id = 0;
		if (ioctl((int)fd, PERF_EVENT_IOC_ID, &id) == 0)
			s->id[i * s->nr_slots + slot] = id;
		if (s->trk) {
			int rc = hpm_tracker__attach(s->trk, slot, (int)fd);
			if (rc) {
				fail_event(s, i, rc);
				return rc;
			}
		}
	}
	s->ev_err[i] = 0;
	return 0;
}

/* Does an event already carry the tasks' lifecycle records? The first
 * event opened does (lib/session.c). */
static bool sideband_taken(const struct hpm_session *s)
{
	if (s->loc->sideband_fd >= 0)
		return true;
	for (size_t i = 0; i < s->nr_ev; i++)
		if (s->fd[i * s->nr_slots] >= 0)
			return true;
	return false;
}

/* Resolve, plan, and open every location against @env; @pid for runtime
 * addresses (-1: none). Breakpoints in objects not mapped yet are left,
 * and *@later says so. */
static void open_all(struct hpm_session *s, const struct hpm_loc_env *env, pid_t pid,
		     bool after_exec, bool *later)
{
	struct hpm_loc_state *st = s->loc;
	size_t bad = 0;

	*later = false;
	for (size_t i = 0; i < s->nr_ev; i++) {
		struct loc_ev *e = &st->ev[i];
		if (!e->is_loc || e->resolved || e->err)
			continue;
		e->resolved = true;
		e->err = hpm__loc_resolve(&e->loc, env, &e->res, e->msg, sizeof(e->msg));
	}
	plan(s->ctx, s->list, st->ev, s->target == HPM_TARGET_CPUS, &bad);
	for (size_t i = 0; i < s->nr_ev; i++) {
		struct loc_ev *e = &st->ev[i];
		uint64_t rt = 0;
		if (!e->is_loc || s->fd[i * s->nr_slots] >= 0 || s->ev_err[i])
			continue;
		if (e->err) {
			fail_event(s, i, e->err);
			continue;
		}
		if (e->mech == HPM_LOC_BP) {
			if (pid <= 0 && e->res.dyn) {
				snprintf(e->msg, sizeof(e->msg), "%s is position independent: a "
					 "breakpoint needs the process (use ':uprobe')", e->res.where);
				fail_event(s, i, e->err = -EINVAL);
				continue;
			}
			if (pid > 0 && hpm__loc_runtime_addr(&e->res, s->ctx->procfs, pid, &rt)) {
				*later = true; /* a library not mapped yet */
				continue;
			}
		}
		open_location(s, i, rt, after_exec, !sideband_taken(s));
	}
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
	long fd = syscall(__NR_perf_event_open, &a, s->slot_pid[0], -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return 0; /* names are then unknown, counts still right */
	s->loc->sideband_fd = (int)fd;
	return hpm_tracker__attach(s->trk, 0, (int)fd);
}

int hpm__loc_session_open(struct hpm_session *s)
{
	struct hpm_loc_state *st = calloc(1, sizeof(*st));
	char exe[PATH_MAX], link[64];
	bool later;

	if (!st)
		return -ENOMEM;
	st->sideband_fd = -1;
	s->loc = st;
	st->ev = calloc(s->nr_ev, sizeof(*st->ev));
	if (!st->ev)
		return -ENOMEM;
	parse_all(s->list, st->ev, &st->any);
	if (!st->any)
		return track_from_exec(s);
	for (size_t i = 0; i < s->nr_ev; i++) {
		struct loc_ev *e = &st->ev[i];
		if (!e->is_loc)
			continue;
		s->ev_err[i] = 0;
		if (s->marked) {
			/* hpmon's own breakpoints and uprobes, not the program's */
			snprintf(e->msg, sizeof(e->msg), "exec: events count in hpmon, not in the "
				 "program, and cannot be limited to what the program marks");
			fail_event(s, i, e->err = -EOPNOTSUPP);
			e->is_loc = false;
		}
	}
	struct hpm_loc_env env = { .lib_path = s->lib_path, .debug_dir = s->debug_dir };
	switch (s->target) {
	case HPM_TARGET_EXEC:
		/* until its exec: see hpm_session__complete_exec() */
		if (!s->stop_at_exec || ptrace(PTRACE_SEIZE, s->slot_pid[0], 0,
					       PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL) < 0) {
			int err = s->stop_at_exec ? -errno : -EOPNOTSUPP;
			for (size_t i = 0; i < s->nr_ev; i++)
				if (st->ev[i].is_loc) {
					if (!s->stop_at_exec)
						snprintf(st->ev[i].msg, sizeof(st->ev[i].msg),
							 "this tool does not stop the command at its "
							 "exec, which locations need "
							 "(hpm_session_opts.stop_at_exec)");
					else
						snprintf(st->ev[i].msg, sizeof(st->ev[i].msg),
							 "cannot stop the command at its exec to "
							 "place the location (ptrace: %s; see "
							 "kernel.yama.ptrace_scope)", strerror(-err));
					fail_event(s, i, err);
				}
			st->done = true;
			return 0;
		}
		st->seized = true;
		return track_from_exec(s);
	case HPM_TARGET_PIDS:
	case HPM_TARGET_TIDS:
		/* running processes: the first one's program and mappings */
		snprintf(link, sizeof(link), "%s/%d/exe", s->ctx->procfs, (int)s->slot_pid[0]);
		ssize_t n = readlink(link, exe, sizeof(exe) - 1);
		if (n > 0) {
			exe[n] = '\0';
			env.program = exe;
		}
		open_all(s, &env, s->slot_pid[0], true, &later);
		break;
	case HPM_TARGET_CPUS:
		/* no program: every location names its object */
		for (size_t i = 0; i < s->nr_ev; i++)
			if (st->ev[i].is_loc && !st->ev[i].loc.object[0]) {
				snprintf(st->ev[i].msg, sizeof(st->ev[i].msg),
					 "system-wide there is no program: name the object, "
					 "exec:/path/to/prog:FUNC");
				st->ev[i].err = -EINVAL;
			}
		env.program = "/proc/self/exe"; /* only for libraries named by path */
		open_all(s, &env, -1, true, &later);
		break;
	}
	for (size_t i = 0; i < s->nr_ev; i++)
		if (st->ev[i].is_loc && !s->ev_err[i] && s->fd[i * s->nr_slots] < 0 &&
		    !st->ev[i].msg[0]) {
			snprintf(st->ev[i].msg, sizeof(st->ev[i].msg), "%s is not mapped in "
				 "process %d", st->ev[i].res.where, (int)s->slot_pid[0]);
			fail_event(s, i, -ENOENT);
		}
	st->done = true;
	return 0;
}

/* Wait for the traced command's next stop; leave an exit to the tool.
 * Returns the wait status, or -ESRCH when it ended. */
static int wait_stop(pid_t pid)
{
	for (;;) {
		siginfo_t si;
		int st;
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WSTOPPED | WNOWAIT | __WALL) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (si.si_code == CLD_EXITED || si.si_code == CLD_KILLED || si.si_code == CLD_DUMPED)
			return -ESRCH;
		if (waitpid(pid, &st, __WALL) < 0)
			return -errno;
		if (WIFSTOPPED(st))
			return st;
	}
}

/* Resume after a stop that is not ours: pass a signal on. */
static void pass_on(pid_t pid, int st)
{
	int sig = WSTOPSIG(st);
	bool event = (st >> 16) != 0;
	ptrace(PTRACE_CONT, pid, 0, event || sig == SIGTRAP ? 0 : sig);
}

#if defined(__x86_64__)
#define TRAP_INSN 0xccull      /* int3 */
#define TRAP_MASK 0xffull
#define TRAP_PC_AFTER 1        /* the pc stands after int3 */
#elif defined(__aarch64__)
#define TRAP_INSN 0xd4200000ull /* brk #0 */
#define TRAP_MASK 0xffffffffull
#define TRAP_PC_AFTER 0
#endif

#ifdef TRAP_INSN
static uint64_t auxv_entry(const char *procfs, pid_t pid)
{
	char path[PATH_MAX];
	uint64_t v[2], entry = 0;
	snprintf(path, sizeof(path), "%s/%d/auxv", procfs, (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	while (read(fd, v, sizeof(v)) == (ssize_t)sizeof(v) && v[0] != AT_NULL)
		if (v[0] == AT_ENTRY)
			entry = v[1];
	close(fd);
	return entry;
}

static int get_pc(pid_t pid, uint64_t *pc, bool set)
{
	struct user_regs_struct r; /* <sys/user.h>: rip on x86-64, pc on arm64 */
	struct iovec io = { .iov_base = &r, .iov_len = sizeof(r) };
	if (ptrace(PTRACE_GETREGSET, pid, (void *)NT_PRSTATUS, &io) < 0)
		return -errno;
#if defined(__x86_64__)
	uint64_t *p = (uint64_t *)&r.rip;
#else
	uint64_t *p = (uint64_t *)&r.pc;
#endif
	if (!set) {
		*pc = *p;
		return 0;
	}
	*p = *pc;
	return ptrace(PTRACE_SETREGSET, pid, (void *)NT_PRSTATUS, &io) < 0 ? -errno : 0;
}

/* Run the stopped command on to its entry point: its libraries are
 * mapped then. 0, or -errno (the command stays stopped where it is). */
static int run_to_entry(pid_t pid, const char *procfs)
{
	uint64_t entry = auxv_entry(procfs, pid), pc = 0;
	errno = 0;
	long word = ptrace(PTRACE_PEEKTEXT, pid, (void *)(uintptr_t)entry, 0);
	if (!entry || errno)
		return -EIO;
	long trap = (long)(((uint64_t)word & ~TRAP_MASK) | TRAP_INSN);
	if (ptrace(PTRACE_POKETEXT, pid, (void *)(uintptr_t)entry, (void *)trap) < 0)
		return -errno;
	ptrace(PTRACE_CONT, pid, 0, 0);
	for (;;) {
		int st = wait_stop(pid);
		if (st < 0)
			return st;
		if (WSTOPSIG(st) == SIGTRAP && (st >> 16) == 0 && get_pc(pid, &pc, false) == 0 &&
		    pc == entry + TRAP_PC_AFTER)
			break;
		pass_on(pid, st);
	}
	ptrace(PTRACE_POKETEXT, pid, (void *)(uintptr_t)entry, (void *)word);
	pc = entry;
	return get_pc(pid, &pc, true);
}
#endif

int hpm__loc_session_complete(struct hpm_session *s)
{
	struct hpm_loc_state *st = s->loc;
	pid_t pid = s->slot_pid[0];
	char link[64], exe[PATH_MAX];
	bool later = false;
	int status, rc = 0;

	if (!st || !st->seized || st->done)
		return 0;
	st->done = true;
	/* wait for the exec (a signal before it is passed on) */
	for (;;) {
		status = wait_stop(pid);
		if (status < 0) {
			st->seized = false;
			return status;
		}
		if ((status >> 8) == (SIGTRAP | (PTRACE_EVENT_EXEC << 8)))
			break;
		pass_on(pid, status);
	}
	snprintf(link, sizeof(link), "%s/%d/exe", s->ctx->procfs, (int)pid);
	ssize_t n = readlink(link, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	struct hpm_loc_env env = { .program = n > 0 ? exe : NULL, .lib_path = s->lib_path,
				   .debug_dir = s->debug_dir };
	open_all(s, &env, pid, true, &later);
	if (later) {
		/* breakpoints in libraries: on to the entry point, where they are
		 * mapped */
#ifdef TRAP_INSN
		rc = run_to_entry(pid, s->ctx->procfs);
#else
		rc = -EOPNOTSUPP;
#endif
		if (rc == -ESRCH) {
			st->seized = false;
			return rc;
		}
		if (!rc)
			open_all(s, &env, pid, true, &later);
	}
	for (size_t i = 0; i < s->nr_ev; i++) {
		struct loc_ev *e = &st->ev[i];
		if (e->is_loc && !s->ev_err[i] && s->fd[i * s->nr_slots] < 0) {
			snprintf(e->msg, sizeof(e->msg), "%s is not loaded by the time the program "
				 "starts (a library it loads later?): use ':uprobe'", e->res.where);
			fail_event(s, i, -ENOENT);
		}
	}
	ptrace(PTRACE_DETACH, pid, 0, 0);
	st->seized = false;
	return 0;
}

void hpm__loc_session_free(struct hpm_session *s)
{
	struct hpm_loc_state *st = s->loc;
	if (!st)
		return;
	if (st->seized) {
		/* never completed: let the command go as it is */
		pid_t pid = s->slot_pid[0];
		if (ptrace(PTRACE_INTERRUPT, pid, 0, 0) == 0 && wait_stop(pid) >= 0)
			ptrace(PTRACE_DETACH, pid, 0, 0);
	}
	for (size_t i = 0; i < s->nr_ev; i++)
		if (st->ev[i].probe[0]) {
			/* a probe in use cannot be removed: close its events first */
			fail_event(s, i, s->ev_err[i]);
			uprobe_remove(s, i);
		}
	if (st->sideband_fd >= 0)
		close(st->sideband_fd);
	free(st->ev);
	free(st);
	s->loc = NULL;
}
