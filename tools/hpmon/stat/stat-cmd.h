/* SPDX-License-Identifier: MIT */
/*
 * Between the files of hpmon stat, top-down: cmd-stat.c (the command:
 * setup, repeats, output), stat-run.c (one measurement: the session, the
 * wait loop, intervals), stat-rows.c (rows per thread, process or CPU;
 * merged uncore instances), stat-opts.c (options; the default events
 * are counting/metric-args.h's, which serve shares). stat.h is what they
 * fill and print-stat.c prints.
 *
 * Room: tools/hpmon/stat/ owns hpmon stat; may use counting, launch, output.
 * Ownership: cmd-stat.c owns the options, the event list, the report and
 * the struct stat_run, and frees them; a run borrows all of them, so they
 * must outlive it. The session (run->s) is made by stat_measure and freed
 * by the command after each repeat; the thread names and processes
 * (comms, tgids) belong to the run and are freed with it.
 */
#ifndef HPMON_TOOL_STAT_CMD_H
#define HPMON_TOOL_STAT_CMD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <hpmon/metric.h>
#include <hpmon/session.h>
#include "launch/launch.h"
#include "output/attr-dump.h"
#include "stat/stat.h"
#include "stat/stat-user.h"

#define MAX_METRIC_ARGS METRIC_ARGS_MAX

struct stat_opts {
	bool events_given;
	enum stat_agg agg;
	long interval_ms;
	int repeat;
	const char *sep;
	bool json;
	const char *output;         /* -o, templates expanded (outname.h) */
	bool append;
	bool trace;
	bool no_big_num;
	bool no_merge;
	enum { MUX_DEFAULT, MUX_KERNEL, MUX_HPMON } mux; /* --mux */
	uint64_t mux_seed;          /* --mux-seed, 0: from the clock */
	char **argv;
	struct stat_user_opts user; /* exec:, sw:, --regions, --marked: stat-user.c */
	/* metrics */
	const char *mgroups[MAX_METRIC_ARGS];
	size_t nr_mgroups;
	const char *minline[MAX_METRIC_ARGS];
	size_t nr_minline;
	const char *mfiles[MAX_METRIC_ARGS];
	size_t nr_mfiles;
	bool per_second, per_kinst;
	int verbose;                /* -v: how many; -vv prints each open */
	bool dry_run;               /* --dry-run */
	int detailed;               /* -d: 1, -dd: 2, -ddd: 3 (stat-topdown.c) */
	bool topdown;               /* --topdown */
	int td_level;               /* --td-level, 0: the machine's deepest */
	/*
	 * The large parts last: stat_opts_new() zeroes what comes before
	 * them and leaves them as they are, read only as far as written (a
	 * string, the ids up to their count), so that a start touches only
	 * the memory it uses (docs/hpmon-stat.md, START-UP).
	 */
	char events[4096];
	struct target tg;           /* -p, -t, -a, -C (target_init) */
	char output_name[4096];     /* -o expanded: written before it is read */
};

/* ---- stat-opts.c ---- */

/* New options, every field zero or empty; NULL when out of memory. Freed
 * with free(). */
struct stat_opts *stat_opts_new(void);
/* Parse the command line into @o (from stat_opts_new()): 0, -1 after
 * --help (printed), or HPM_EXIT_USAGE after saying why. @o keeps
 * pointers into @argv. */
int stat_parse_opts(int argc, char **argv, struct stat_opts *o);
/* -C: every CPU given must exist here. 0 or HPM_EXIT_USAGE, said. */
int stat_check_cpus(struct hpm_ctx *ctx, const struct stat_opts *o);
/* Add @spec to the event list of @o. 0, or -1 when it is too long. */
int stat_append_events(struct stat_opts *o, const char *spec);

/* ---- stat-topdown.c ---- */

/* Add the events of --topdown and -d/-dd/-ddd to @o's list, as perf 6.1
 * adds them (perf's default events first when -d is given alone). 0, or
 * HPM_EXIT_* after saying why (--topdown where the machine has no
 * top-down events, or needs -a for them). */
int stat_extra_events(struct hpm_ctx *ctx, struct stat_opts *o);

/* ---- stat-run.c ---- */

/* One measurement's state, kept across repeats. */
struct stat_run {
	struct stat_opts *o;
	struct hpm_ctx *ctx;
	struct hpm_evlist *list;
	struct hpm_session *s;
	struct stat_report *r;
	const struct stat_out *out;
	uint64_t t0_ns;        /* perf clock of the first trace record */
	struct hpm_count *prev; /* -I: totals at the previous tick */
	struct hpm_count **prev_rows;
	size_t nr_prev_rows;
	uint64_t last_tick_ns;  /* -I: time of the previous line since start */
	/* -p/-t: each opened thread's name and process, read at open time
	 * (a thread that exits takes its /proc entry with it) */
	char (*comms)[16];
	pid_t *tgids;
	/* metrics, and the uncertainty of multiplexed counts */
	struct stat_metrics *sm;
	struct hpm_slices *slices;
	bool sample;            /* some event may be multiplexed: sample it */
	uint64_t sample_ns;     /* how often */
	struct stat_mux *mux;   /* hpmon's multiplexer, or NULL (stat-mux.h) */
	struct stat_user *user; /* stat-user.c */
	struct attr_dump vv;    /* -vv */
};

/* Run the measurement once. Returns HPM_EXIT_* or the command's status. */
int stat_measure(struct stat_run *run);
/* --dry-run: every event's attr as it would be opened, perf -vv's way,
 * on stdout; nothing opened, no command run. HPM_EXIT_OK or _FAIL. */
int stat_dry_run(struct stat_run *run);
/* Everything computed from the counts before printing. */
void stat_prepare(struct stat_run *run);

/* ---- stat-systasks.c ---- */

/* -a with --per-thread, --per-process or --per-cgroup: the measurement,
 * every task of the machine. Returns as stat_measure. */
int stat_measure_systasks(struct stat_run *run);

/* ---- stat-rows.c ---- */

/* -p/-t: each opened thread's name and process, read now (a thread that
 * exits takes its procfs entry with it). */
void stat_remember_threads(struct stat_run *run);
/* Breakdown rows for the report, from the session. 0 or -ENOMEM. */
int stat_collect_rows(struct stat_run *run);
/* Rows with a count that is missing (-EAGAIN, hpm_session__read_task):
 * the breakdown is incomplete, and says so. */
size_t stat_rows_missing(const struct stat_report *r);
void stat_free_rows(struct stat_report *r);

#endif
