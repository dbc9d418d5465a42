/* SPDX-License-Identifier: MIT */
/*
 * Counting sessions: open the events of a list on a target, enable, read
 * 64-bit counts with time enabled/running, and (for a launched command)
 * track every thread and child process so counts can be broken down.
 *
 * Lifecycle: hpm_session__new -> hpm_session__open -> (enable) ->
 * hpm_session__read* / hpm_session__poll ... -> hpm_session__free.
 *
 * Ownership: a session borrows its event list, so the list (and its
 * context) must outlive it, and so must the markers area of its options;
 * the options' ids, CPUs and paths are copied by hpm_session__new(). The
 * session owns what it returns: messages until it is freed, a struct
 * hpm_task until the next drain, and the counts handed to a task
 * callback only during the call.
 */
#ifndef HPMON_SESSION_H
#define HPMON_SESSION_H

#include <stdbool.h>
#include <sys/types.h>
#include <hpmon/event.h>

#ifdef __cplusplus
extern "C" {
#endif

enum hpm_target_kind {
	/* A child that has not exec'd yet: counters are enabled at its exec
	 * and inherited by every thread and process it creates. */
	HPM_TARGET_EXEC,
	HPM_TARGET_PIDS,  /* existing processes: every thread of each */
	HPM_TARGET_TIDS,  /* existing threads, exactly those */
	HPM_TARGET_CPUS,  /* system-wide on the listed CPUs */
};

struct hpm_session_opts {
	size_t sz;                 /* sizeof(struct hpm_session_opts) */
	enum hpm_target_kind target;
	const pid_t *ids;          /* pids or tids (EXEC: exactly one pid) */
	size_t nr_ids;
	const int *cpus;           /* CPUS: NULL means every online CPU */
	size_t nr_cpus;
	/* EXEC only: record fork/comm/exit and each task's final counts so
	 * hpm_session__task* can break counts down per thread and process. */
	bool track_tasks;
	/* Location events (exec:): directories searched for the program's
	 * shared libraries before its own and the system's (the value of
	 * LD_LIBRARY_PATH the program runs with, ':'-separated), and the
	 * root of separate debug files (default /usr/lib/debug). */
	const char *lib_path;
	const char *debug_dir;
	/* The area the program publishes software counters (sw: events),
	 * regions and marked counts in (<hpmon/counters.h>); NULL if none. */
	struct hpm_markers *markers;
	/* Report what the program's threads counted while marked
	 * (hpm_mark()), not everything: needs @markers created with
	 * .marked. exec: events cannot be limited so and report -EOPNOTSUPP. */
	bool marked;
	/* EXEC only: the caller lets the command exec and then calls
	 * hpm_session__complete_exec(), which location events (exec:) need;
	 * without it they fail to open (-EOPNOTSUPP) rather than stop the
	 * command for nobody. */
	bool stop_at_exec;
};

/* Counts of one event, summed over what the caller asked for. */
struct hpm_count {
	uint64_t value;    /* raw count */
	uint64_t enabled;  /* ns the event was enabled */
	uint64_t running;  /* ns it was on a counter */
	int err;           /* 0, or why it could not be opened (-errno) */
};

/* value scaled for multiplexing: value * enabled / running (0 if never ran) */
HPM_API double hpm_count__scaled(const struct hpm_count *c);
/*
 * Add @c to @sum (zeroed first) as perf merges the instances of an uncore
 * PMU (uncore_cbox_0 ... _3, hpm_event__merge_leader) into one line:
 * counts, enabled and running times are summed, so the merged count is
 * scaled by the summed times. An instance that could not be opened makes
 * the sum fail with its error: a total missing an instance is no total.
 */
HPM_API void hpm_count__merge(struct hpm_count *sum, const struct hpm_count *c);
/* percent of enabled time counted, 100.0 when not multiplexed */
HPM_API double hpm_count__pct_running(const struct hpm_count *c);

struct hpm_session;

HPM_API struct hpm_session *hpm_session__new(struct hpm_evlist *list,
					     const struct hpm_session_opts *opts);
HPM_API void hpm_session__free(struct hpm_session *s);

/*
 * Open every event on every target, disabled: EXEC targets start counting
 * at the child's exec, the others at hpm_session__enable(). An event the kernel refuses is kept
 * with its error (see hpm_count.err) so it can be reported as not
 * supported; the call fails only when no event at all could be opened, and
 * then returns the first event's error.
 */
HPM_API int hpm_session__open(struct hpm_session *s);
HPM_API int hpm_session__enable(struct hpm_session *s);
HPM_API int hpm_session__disable(struct hpm_session *s);
/*
 * Enable or disable the group led by event @leader alone (all its members,
 * on every CPU or thread it is open on, inherited copies included): for a
 * multiplexer of the caller's own, which puts groups on the counters in
 * turn instead of the kernel's rotation. A disabled group's enabled time
 * stands still. 0 or -errno.
 */
HPM_API int hpm_session__set_group_enabled(struct hpm_session *s, size_t leader, bool on);

/*
 * EXEC targets with location events (exec:...): the command is stopped at
 * its exec so that breakpoints can be placed at the addresses the
 * program is loaded at, before it runs one instruction. Call this right
 * after letting the command exec (it waits for that): it resolves and
 * opens the location events, then lets the command run. 0 when there is
 * nothing to do; -ESRCH when the command ended without exec'ing. A tool
 * that opens a session with location events on a command and never calls
 * this leaves the command stopped.
 */
HPM_API int hpm_session__complete_exec(struct hpm_session *s);
/*
 * What went wrong with event @idx, in one sentence, when the library knows
 * more than the error code says (a location that does not resolve: "no
 * function 'foo' in /bin/prog or its libraries"), else NULL. Also, for a
 * location event that opened, how it is counted ("breakpoint at
 * 0x5555555551a9 (hpm_work in calls)"): see hpm_session__event_how().
 */
HPM_API const char *hpm_session__event_message(const struct hpm_session *s, size_t idx);
/* How location event @idx is counted, or NULL for other events. */
HPM_API const char *hpm_session__event_how(const struct hpm_session *s, size_t idx);

/*
 * Check the location events of @list against @program before starting it:
 * every place exists, breakpoint slots suffice, uprobes are allowed. 0,
 * or an error with @err filled like a parse error (position of the
 * event in the list's text is not known: err->pos is 0, err->token the
 * event). @lib_path as in struct hpm_session_opts.
 */
HPM_API int hpm_evlist__check_locations(const struct hpm_evlist *list, const char *program,
					const char *lib_path, struct hpm_parse_error *err);

/* Error of event @idx from open (0 if it opened). */
HPM_API int hpm_session__event_error(const struct hpm_session *s, size_t idx);
/*
 * True when event @idx asked for user+kernel without naming privilege
 * levels and perf_event_paranoid refused the kernel part: it was opened
 * user-only instead, as perf does (report it as NAME:u).
 */
HPM_API bool hpm_session__event_user_only(const struct hpm_session *s,
					  size_t idx);

/* Totals of event @idx over all targets. */
HPM_API int hpm_session__read(struct hpm_session *s, size_t idx,
			      struct hpm_count *out);
/* CPUS target: number of CPUs, their ids, and per-CPU counts. */
HPM_API size_t hpm_session__nr_cpus(const struct hpm_session *s);
HPM_API int hpm_session__cpu(const struct hpm_session *s, size_t cpu_idx);
HPM_API int hpm_session__read_cpu(struct hpm_session *s, size_t idx,
				  size_t cpu_idx, struct hpm_count *out);
/* PIDS/TIDS target: per-thread counts of the threads opened. */
HPM_API size_t hpm_session__nr_threads(const struct hpm_session *s);
HPM_API pid_t hpm_session__thread(const struct hpm_session *s, size_t t);
HPM_API int hpm_session__read_thread(struct hpm_session *s, size_t idx,
				     size_t t, struct hpm_count *out);

/* ---- Task tracking (EXEC target with track_tasks) ---- */

enum hpm_task_event { HPM_TASK_FORK, HPM_TASK_EXEC, HPM_TASK_EXIT };

struct hpm_task {
	pid_t pid, tid;     /* process id and thread id */
	pid_t ppid, ptid;   /* creator, 0 for the launched command */
	char comm[16];      /* latest command name */
	uint64_t fork_ns, exit_ns; /* perf clock; exit_ns 0 while alive */
	bool exited;        /* its own counts below are final */
	bool thread;        /* created as a thread (pid == creator's pid) */
};

/* Called for each lifecycle event as records are processed, with the
 * kernel's timestamp (perf clock, ns); @counts holds the task's final
 * counts for EXIT (one per event), else NULL. */
typedef void (*hpm_task_fn)(enum hpm_task_event what,
			    const struct hpm_task *task, uint64_t time_ns,
			    const struct hpm_count *counts, void *arg);
HPM_API void hpm_session__on_task(struct hpm_session *s, hpm_task_fn fn,
				  void *arg);

/*
 * Called after each perf_event_open(2) the session makes (events on each
 * thread or CPU, a location event's breakpoints, the dummy that carries
 * tasks' lifecycle), with the attr as it was opened (after any fallback:
 * exclude_guest or exclude_kernel given up), the call's pid, cpu,
 * group_fd and flags, and its result: the file descriptor or -errno. For
 * hpmon stat -vv, which prints them as perf -vv does (hpm_attr__format).
 * Set it before hpm_session__open(); @attr is lent for the call only.
 */
typedef void (*hpm_open_fn)(const struct perf_event_attr *attr, pid_t pid, int cpu,
			    int group_fd, unsigned long flags, int fd, void *arg);
HPM_API void hpm_session__on_open(struct hpm_session *s, hpm_open_fn fn, void *arg);
/*
 * The attr hpm_session__open() opens event @idx with, before any
 * fallback, into @out, without opening anything (hpmon stat --dry-run).
 * 0, or -EINVAL for no such event.
 */
HPM_API int hpm_session__attr(const struct hpm_session *s, size_t idx,
			      struct perf_event_attr *out);

/* File descriptor to poll for POLLIN when records are waiting; -1 if none. */
HPM_API int hpm_session__poll_fd(const struct hpm_session *s);
/* Process every waiting record. Returns records handled or -error. After
 * hpm_session__disable(), once the command has ended, it also reads the
 * records a stalled ring buffer holds (lib/count/tasks.c) and reports
 * every exit still waiting. */
HPM_API int hpm_session__drain(struct hpm_session *s);
/* Records the kernel dropped (ring buffer full); breakdowns are then
 * incomplete and say so. */
HPM_API uint64_t hpm_session__lost(const struct hpm_session *s);

HPM_API size_t hpm_session__nr_tasks(const struct hpm_session *s);
HPM_API const struct hpm_task *hpm_session__task(const struct hpm_session *s,
						 size_t t);
/*
 * Own counts of task @t for event @idx. For a task that has exited these
 * are the kernel's final per-task counts. For the launched command's first
 * thread they are the total minus every other task's. A count that is
 * not known has err = -EAGAIN: a task still alive (other than the first),
 * or one whose final counts never arrived (records lost); the first task's
 * is then not known either. -EAGAIN means "counted, but this task's share
 * is missing", never "not supported".
 */
HPM_API int hpm_session__read_task(struct hpm_session *s, size_t idx,
				   size_t t, struct hpm_count *out);

#ifdef __cplusplus
}
#endif
#endif
