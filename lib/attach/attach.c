/* SPDX-License-Identifier: MIT */
/*
 * Attaching location events to a target (attach/attach-internal.h): which
 * mechanism counts each one, uprobes defined in tracefs, the stop at the
 * command's exec that lets breakpoints go to the addresses the program is
 * loaded at, and the location's part of a perf_event_attr. Used by
 * counting sessions (lib/count/location-session.c) and sampling sessions
 * (lib/sample/record.c); lib/location/location.c parses and resolves.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>
#include <elf.h>

#include <linux/hw_breakpoint.h>

#include <hpmon/session.h>
#include "attach/attach-internal.h"
#include "core/breakpoints-internal.h"
#include "core/tracefs-internal.h"
#include "location/location-internal.h"
#include "sys/perf.h"

/* ---- what this machine and caller allow ---- */

/* Breakpoints on code open here but never count: measured once per
 * context (core/breakpoints.c). */
static bool bp_silent(const struct hpm_ctx *ctx)
{
	return hpm__ctx_breakpoints(ctx, HPM_BP_EXEC)->fires == HPM_NO;
}

/* The tracefs file uprobes are defined in, if there is one (or tracefs
 * is there but closed to the caller: only root may look inside). Asking
 * mounts tracefs when the context may (hpm_ctx_opts.mount_tracefs). */
static bool uprobe_events_path(const struct hpm_ctx *ctx, char *path, size_t len)
{
	const char *root = hpm__ctx_tracefs(ctx);
	if (root)
		return hpm__path(path, len, root, "uprobe_events") == 0 &&
		       (access(path, F_OK) == 0 || errno == EACCES);
	return hpm__ctx_tracefs_err(ctx) == -EACCES &&
	       hpm__path(path, len, ctx->tracefs_closed, "uprobe_events") == 0;
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
	bool bp_silent;           /* a uprobe because breakpoints do not fire */
	bool resolved;
	bool opened;
	uint64_t rt;              /* a breakpoint's runtime address */
	uint64_t tp_id;           /* a uprobe's tracepoint id */
	int err;                  /* cannot be counted: why */
	char msg[320];            /* why it failed */
	char how[320];            /* how it is counted */
	char probe[64];           /* the tracefs uprobe "GROUP/EVENT", or "" */
};

struct hpm_loc_attach {
	const struct hpm_evlist *list;
	struct hpm_ctx *ctx;
	size_t nr;
	struct loc_ev *ev;        /* [nr] */
	bool any;                 /* the list has location events */
	bool cpus;                /* system-wide */
	char *lib_path, *debug_dir;
	pid_t pid;                /* the command stopped at its exec */
	bool seized;
	bool swept;               /* uprobes of dead hpmons removed */
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
	unsigned slots = hpm__bp_slots(), used = 0;
	/* asked only for a location that needs a uprobe: asking may mount
	 * tracefs */
	int uprobes = -1, have_uprobes = -1;
	static const char need_priv[] =
		"uprobes need root (hpmon defines them in tracefs, whose uprobe_events only "
		"root may write)";
	int first = 0;
	char why[200];

	for (size_t i = 0; i < list->nr; i++)
		if (list->ev[i].attr.type == PERF_TYPE_BREAKPOINT && !v[i].is_loc &&
		    !hpm__event_is_location(&list->ev[i]))
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
		} else if (m == HPM_LOC_BP && bp_silent(ctx)) {
			hpm__bp_why(hpm__ctx_breakpoints(ctx, HPM_BP_EXEC), why, sizeof(why));
			snprintf(e->msg, sizeof(e->msg), "%s: write ':uprobe' instead of ':bp' "
				 "(or leave the mechanism out) to count it with a uprobe", why);
			err = -EOPNOTSUPP;
		} else {
			if (m == HPM_LOC_AUTO) {
				m = e->loc.ret || cpus || used >= slots ? HPM_LOC_UPROBE : HPM_LOC_BP;
				if (m == HPM_LOC_BP && bp_silent(ctx)) {
					m = HPM_LOC_UPROBE;
					e->bp_silent = true;
				}
			}
			if (m == HPM_LOC_UPROBE && have_uprobes < 0) {
				have_uprobes = hpm__loc_uprobes_available(ctx);
				uprobes = have_uprobes && hpm__loc_uprobes_allowed(ctx);
			}
			if (m == HPM_LOC_BP && used >= slots) {
				snprintf(e->msg, sizeof(e->msg),
					 "no hardware breakpoint left: this CPU gives each thread "
					 "%u and the events before this one take them; count the "
					 "rest with ':uprobe' (%s)", slots, need_priv);
				err = -ENOSPC;
			} else if (m == HPM_LOC_BP) {
				used++;
			} else if (!have_uprobes) {
				/* ':bp' is advice only where a breakpoint can count it */
				bool bp_ok = !e->loc.ret && !cpus && !bp_silent(ctx);
				why[0] = '\0';
				if (e->bp_silent)
					hpm__bp_why(hpm__ctx_breakpoints(ctx, HPM_BP_EXEC), why,
						    sizeof(why));
				if (!hpm_ctx__tracefs_root(ctx))
					snprintf(e->msg, sizeof(e->msg),
						 "%s%sno uprobes: tracefs is not mounted, and only root "
						 "may mount it (hpmon run as root mounts it itself): "
						 "mount -t tracefs nodev /sys/kernel/tracing%s", why,
						 why[0] ? ", and " : "", bp_ok ? ", or use ':bp'" : "");
				else
					snprintf(e->msg, sizeof(e->msg),
						 "%s%sno uprobes here: the kernel lacks "
						 "CONFIG_UPROBE_EVENTS%s", why, why[0] ? ", and " : "",
						 bp_ok ? "; use ':bp'" : "");
				err = -ENODEV;
			} else if (!uprobes) {
				if (e->bp_silent) {
					hpm__bp_why(hpm__ctx_breakpoints(ctx, HPM_BP_EXEC), why,
						    sizeof(why));
					snprintf(e->msg, sizeof(e->msg), "%s, and %s", why, need_priv);
				} else if (e->loc.mech == HPM_LOC_AUTO && e->loc.ret)
					snprintf(e->msg, sizeof(e->msg),
						 "counting returns needs a uprobe, and %s", need_priv);
				else if (e->loc.mech == HPM_LOC_AUTO)
					snprintf(e->msg, sizeof(e->msg),
						 "no hardware breakpoint left (%u per thread) and %s",
						 slots, need_priv);
				else if (bp_silent(ctx)) {
					hpm__bp_why(hpm__ctx_breakpoints(ctx, HPM_BP_EXEC), why,
						    sizeof(why));
					snprintf(e->msg, sizeof(e->msg), "%s; and %s", need_priv, why);
				} else
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

/* ---- the attachment ---- */

struct hpm_loc_attach *hpm__loc_attach_new(const struct hpm_evlist *list, const char *lib_path,
					   const char *debug_dir, bool cpus)
{
	struct hpm_loc_attach *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->list = list;
	a->ctx = list->ctx;
	a->nr = list->nr;
	a->cpus = cpus;
	a->pid = -1;
	a->ev = calloc(a->nr ? a->nr : 1, sizeof(*a->ev));
	if (!a->ev || (lib_path && !(a->lib_path = strdup(lib_path))) ||
	    (debug_dir && !(a->debug_dir = strdup(debug_dir)))) {
		hpm__loc_attach_free(a);
		errno = ENOMEM;
		return NULL;
	}
	parse_all(list, a->ev, &a->any);
	return a;
}

static struct loc_ev *lev(const struct hpm_loc_attach *a, size_t i)
{
	return a && i < a->nr && a->ev[i].is_loc ? &a->ev[i] : NULL;
}

bool hpm__loc_attach_any(const struct hpm_loc_attach *a) { return a && a->any; }
bool hpm__loc_attach_is_loc(const struct hpm_loc_attach *a, size_t idx)
{
	return lev(a, idx) != NULL;
}

int hpm__loc_attach_err(const struct hpm_loc_attach *a, size_t idx)
{
	return a && idx < a->nr ? a->ev[idx].err : 0;
}

const char *hpm__loc_attach_message(const struct hpm_loc_attach *a, size_t idx)
{
	const struct loc_ev *e = lev(a, idx);
	return e && e->msg[0] ? e->msg : NULL;
}

const char *hpm__loc_attach_how(const struct hpm_loc_attach *a, size_t idx)
{
	const struct loc_ev *e = lev(a, idx);
	return e && e->how[0] ? e->how : NULL;
}

void hpm__loc_attach_refuse(struct hpm_loc_attach *a, size_t idx, int err, const char *msg,
			    bool drop)
{
	struct loc_ev *e = lev(a, idx);
	if (!e)
		return;
	e->err = err;
	snprintf(e->msg, sizeof(e->msg), "%s", msg);
	e->how[0] = '\0';
	if (drop)
		e->is_loc = false;
}

enum hpm_loc_chain hpm__loc_attach_chain(const struct hpm_loc_attach *a, size_t idx)
{
	const struct loc_ev *e = lev(a, idx);
	if (!e || e->err || !e->resolved || e->loc.ret || !e->res.entry)
		return HPM_LOC_CHAIN_AS_IS;
	return e->mech == HPM_LOC_UPROBE ? HPM_LOC_CHAIN_ADD_MISSING : HPM_LOC_CHAIN_ADD_CALLER;
}

/*
 * Uprobes are defined in tracefs (as `perf probe` does) and counted as
 * tracepoints. Not through the uprobe PMU: an inherited event of that PMU
 * is set up again for every new thread and process, in the context of the
 * task that forks, which reads the file's path from the attribute's
 * pointer -- into its own memory, where it is not: clone() fails with
 * EFAULT (and without CAP_PERFMON, EACCES). Tracepoints inherit cleanly.
 *
 * The definition is named after the attachment, "hpmon_PID/sADDR_IDX",
 * so that sessions running at the same time never share one, and removed
 * when it ends.
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

static void uprobe_remove(struct hpm_loc_attach *a, struct loc_ev *e)
{
	char line[96];
	if (!e->probe[0])
		return;
	snprintf(line, sizeof(line), "-:%s\n", e->probe);
	uprobe_write(a->ctx, line);
	e->probe[0] = '\0';
}

static int remove_leftover(void *arg, const char *probe, int pid, const char *target)
{
	const struct hpm_ctx *ctx = arg;
	char line[96];
	int n = snprintf(line, sizeof(line), "-:%s\n", probe);

	if (n > 0 && (size_t)n < sizeof(line) && uprobe_write(ctx, line) == 0)
		hpm__log(ctx, HPM_LOG_INFO, "removed uprobe %s at %s, left by hpmon process %d, "
			 "which no longer runs", probe, target, pid);
	return 0;
}

int hpm__uprobes_sweep(const struct hpm_ctx *ctx)
{
	return hpm__uprobe_leftovers(ctx, remove_leftover, (void *)ctx);
}

static int uprobe_define(struct hpm_loc_attach *a, size_t i)
{
	struct loc_ev *e = &a->ev[i];
	char line[PATH_MAX + 128], path[PATH_MAX];
	long v;
	int rc;

	if (strpbrk(e->res.path, " \t\n")) {
		snprintf(e->msg, sizeof(e->msg), "a uprobe cannot name a file with blanks in its "
			 "path (%s): use ':bp'", e->res.path);
		return -EINVAL;
	}
	if (!a->swept) {
		/* the first uprobe of this attachment: clear those of killed
		 * hpmons first (in use, the kernel refuses: EBUSY) */
		a->swept = true;
		hpm__uprobes_sweep(a->ctx);
	}
	snprintf(e->probe, sizeof(e->probe), "hpmon_%d/s%llx_%zu", (int)getpid(),
		 (unsigned long long)(uintptr_t)a, i);
	snprintf(line, sizeof(line), "%c:%s %s:0x%llx\n", e->loc.ret ? 'r' : 'p', e->probe,
		 e->res.path, (unsigned long long)e->res.offset);
	rc = uprobe_write(a->ctx, line);
	if (rc == -EEXIST) {
		/* left over by a session of a dead hpmon with our pid */
		char del[96];
		snprintf(del, sizeof(del), "-:%s\n", e->probe);
		uprobe_write(a->ctx, del);
		rc = uprobe_write(a->ctx, line);
	}
	if (rc) {
		e->probe[0] = '\0';
		snprintf(e->msg, sizeof(e->msg), "cannot define a uprobe at %s (%s:0x%llx): %s%s",
			 e->res.where, e->res.path, (unsigned long long)e->res.offset,
			 strerror(-rc), rc == -EACCES || rc == -EPERM ? " (uprobes need root)" : "");
		return rc;
	}
	if (hpm__path(path, sizeof(path), hpm_ctx__tracefs_root(a->ctx), "events/%s/id",
		      e->probe) || hpm__read_long(path, &v) || v < 0) {
		uprobe_remove(a, e);
		snprintf(e->msg, sizeof(e->msg), "the uprobe at %s has no tracepoint id",
			 e->res.where);
		return -ENOENT;
	}
	e->tp_id = (uint64_t)v;
	return 0;
}

void hpm__loc_attach_attr(struct hpm_loc_attach *a, size_t idx, struct perf_event_attr *attr)
{
	struct loc_ev *e = &a->ev[idx];

	if (e->mech == HPM_LOC_UPROBE) {
		attr->type = PERF_TYPE_TRACEPOINT;
		attr->config = e->tp_id;
		attr->config1 = attr->config2 = 0; /* they overlay bp_addr and bp_len */
		attr->bp_type = 0;
		attr->exclude_kernel = 0;
		attr->exclude_hv = 0;
		snprintf(e->how, sizeof(e->how), "uprobe%s at %s:0x%llx (%s)",
			 e->loc.ret ? " on return" : "", e->res.path,
			 (unsigned long long)e->res.offset, e->res.where);
		return;
	}
	attr->type = PERF_TYPE_BREAKPOINT;
	attr->config = 0;
	attr->bp_type = HW_BREAKPOINT_X;
	attr->bp_addr = e->rt;
	/* the program's code runs in user mode: counting it needs no more
	 * than perf_event_paranoid 2 allows */
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	attr->bp_len = sizeof(long);
#if defined(__aarch64__)
	attr->bp_len = 4;
#endif
	snprintf(e->how, sizeof(e->how), "breakpoint at 0x%llx (%s)", (unsigned long long)e->rt,
		 e->res.where);
}

/* Refuse location @idx, which the owner could not open (@err). */
static void open_failed(struct hpm_loc_attach *a, size_t idx, int err)
{
	struct loc_ev *e = &a->ev[idx];

	e->err = err;
	e->how[0] = '\0';
	if (err == -ENOSPC)
		snprintf(e->msg, sizeof(e->msg), "no free hardware breakpoint for %s (%u per "
			 "thread here, some held by others?): use ':uprobe'", e->res.where,
			 hpm__bp_slots());
	else if (err == -EACCES || err == -EPERM)
		snprintf(e->msg, sizeof(e->msg), "%s: permission denied%s", e->res.where,
			 e->mech == HPM_LOC_UPROBE ? " (uprobes need root)" : "");
	else
		snprintf(e->msg, sizeof(e->msg), "cannot count %s: %s", e->res.where,
			 strerror(-err));
}

/*
 * Resolve the locations not resolved yet against @env, plan them, and
 * open every one that can be: breakpoints need their runtime address in
 * @pid (-1: none); those in objects not mapped yet are left for later,
 * and *@later says so.
 */
static void open_pass(struct hpm_loc_attach *a, const struct hpm_loc_env *env, pid_t pid,
		      hpm_loc_open_fn open, void *owner, bool *later)
{
	size_t bad = 0;

	*later = false;
	for (size_t i = 0; i < a->nr; i++) {
		struct loc_ev *e = &a->ev[i];
		if (!e->is_loc || e->resolved || e->err)
			continue;
		e->resolved = true;
		e->err = hpm__loc_resolve(&e->loc, env, &e->res, e->msg, sizeof(e->msg));
	}
	plan(a->ctx, a->list, a->ev, a->cpus, &bad);
	for (size_t i = 0; i < a->nr; i++) {
		struct loc_ev *e = &a->ev[i];
		if (!e->is_loc || e->opened || e->err)
			continue;
		if (e->mech == HPM_LOC_BP) {
			if (pid <= 0 && e->res.dyn) {
				snprintf(e->msg, sizeof(e->msg), "%s is position independent: a "
					 "breakpoint needs the process (use ':uprobe')", e->res.where);
				e->err = -EINVAL;
				continue;
			}
			if (pid > 0 && hpm__loc_runtime_addr(&e->res, a->ctx->procfs, pid, &e->rt)) {
				*later = true; /* a library not mapped yet */
				continue;
			}
		} else {
			int rc = uprobe_define(a, i);
			if (rc) {
				e->err = rc;
				continue;
			}
		}
		int rc = open(owner, i);
		if (rc) {
			open_failed(a, i, rc);
			continue;
		}
		e->opened = true;
	}
}

/* Locations that are neither open nor refused once every pass is done:
 * their object is not mapped in @pid, which is running (@attached) or
 * was run on to its entry point. */
static void refuse_unopened(struct hpm_loc_attach *a, pid_t pid, bool attached)
{
	for (size_t i = 0; i < a->nr; i++) {
		struct loc_ev *e = &a->ev[i];
		if (!e->is_loc || e->opened || e->err)
			continue;
		if (attached)
			snprintf(e->msg, sizeof(e->msg), "%s is not mapped in process %d",
				 e->res.where, (int)pid);
		else
			snprintf(e->msg, sizeof(e->msg), "%s is not loaded by the time the program "
				 "starts (a library it loads later?): use ':uprobe'", e->res.where);
		e->err = -ENOENT;
	}
}

void hpm__loc_attach_open_now(struct hpm_loc_attach *a, pid_t pid, hpm_loc_open_fn open,
			      void *owner)
{
	struct hpm_loc_env env = { .lib_path = a->lib_path, .debug_dir = a->debug_dir };
	char exe[PATH_MAX], link[64];
	bool later;

	if (pid > 0) {
		/* running processes: the first one's program and mappings */
		snprintf(link, sizeof(link), "%s/%d/exe", a->ctx->procfs, (int)pid);
		ssize_t n = readlink(link, exe, sizeof(exe) - 1);
		if (n > 0) {
			exe[n] = '\0';
			env.program = exe;
		}
	} else {
		/* no program: every location names its object */
		for (size_t i = 0; i < a->nr; i++) {
			struct loc_ev *e = &a->ev[i];
			if (e->is_loc && !e->err && !e->loc.object[0]) {
				snprintf(e->msg, sizeof(e->msg), "system-wide there is no program: "
					 "name the object, exec:/path/to/prog:FUNC");
				e->err = -EINVAL;
			}
		}
		env.program = "/proc/self/exe"; /* only for libraries named by path */
	}
	open_pass(a, &env, pid, open, owner, &later);
	refuse_unopened(a, pid, true);
}

/* ---- stopping the command at its exec ---- */

int hpm__loc_attach_seize(struct hpm_loc_attach *a, pid_t pid)
{
	if (ptrace(PTRACE_SEIZE, pid, 0, PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL) == 0) {
		a->pid = pid;
		a->seized = true;
		return 0;
	}
	int err = -errno;
	for (size_t i = 0; i < a->nr; i++) {
		struct loc_ev *e = &a->ev[i];
		if (!e->is_loc || e->err)
			continue;
		snprintf(e->msg, sizeof(e->msg), "cannot stop the command at its exec to place "
			 "the location (ptrace: %s; see kernel.yama.ptrace_scope)", strerror(-err));
		e->err = err;
	}
	return err;
}

/* Wait for the traced command's next stop; leave an exit to the owner.
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
#else
static int run_to_entry(pid_t pid, const char *procfs)
{
	(void)pid;
	(void)procfs;
	return -EOPNOTSUPP;
}
#endif

int hpm__loc_attach_complete(struct hpm_loc_attach *a, hpm_loc_open_fn open, void *owner)
{
	pid_t pid = a->pid;
	char link[64], exe[PATH_MAX];
	bool later = false;
	int status;

	if (!a->seized)
		return 0;
	/* wait for the exec (a signal before it is passed on) */
	for (;;) {
		status = wait_stop(pid);
		if (status < 0) {
			a->seized = false;
			return status;
		}
		if ((status >> 8) == (SIGTRAP | (PTRACE_EVENT_EXEC << 8)))
			break;
		pass_on(pid, status);
	}
	snprintf(link, sizeof(link), "%s/%d/exe", a->ctx->procfs, (int)pid);
	ssize_t n = readlink(link, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	struct hpm_loc_env env = { .program = n > 0 ? exe : NULL, .lib_path = a->lib_path,
				   .debug_dir = a->debug_dir };
	open_pass(a, &env, pid, open, owner, &later);
	if (later) {
		/* breakpoints in libraries: on to the entry point, where they are
		 * mapped */
		int rc = run_to_entry(pid, a->ctx->procfs);
		if (rc == -ESRCH) {
			a->seized = false;
			return rc;
		}
		if (!rc)
			open_pass(a, &env, pid, open, owner, &later);
	}
	refuse_unopened(a, pid, false);
	ptrace(PTRACE_DETACH, pid, 0, 0);
	a->seized = false;
	return 0;
}

void hpm__loc_attach_free(struct hpm_loc_attach *a)
{
	if (!a)
		return;
	if (a->seized) {
		/* never completed: let the command go as it is */
		if (ptrace(PTRACE_INTERRUPT, a->pid, 0, 0) == 0 && wait_stop(a->pid) >= 0)
			ptrace(PTRACE_DETACH, a->pid, 0, 0);
	}
	for (size_t i = 0; a->ev && i < a->nr; i++)
		uprobe_remove(a, &a->ev[i]);
	free(a->ev);
	free(a->lib_path);
	free(a->debug_dir);
	free(a);
}
