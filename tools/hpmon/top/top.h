/* SPDX-License-Identifier: MIT */
/*
 * hpmon top, between its files, top-down: cmd-top.c (options, the source
 * of counts, the refresh loop), top-tui.c (the full-screen view, ncurses),
 * top-batch.c (text, CSV and JSON frames), top-frame.c (a frame: rows
 * filtered, their columns computed, sorted), top-user.c (--user: the
 * user's own processes, attached one by one). The rows themselves are
 * sysrows.h's, from system-wide accounting or from top-user.c.
 *
 * Room: tools/hpmon/top/ owns hpmon top; may use counting, launch, output.
 * Ownership: cmd-top.c owns the options, the event list, the metrics,
 * the source and the frame, and frees them; the printers and the view
 * borrow the frame for a call.
 */
#ifndef HPMON_TOOL_TOP_H
#define HPMON_TOOL_TOP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "counting/metric-args.h"
#include "counting/sysrows.h"

struct hpm_ctx;
struct hpm_evlist;
struct hpm_sysacct;
struct top_user;

#define TOP_MAX_ARGS 64
#define TOP_MAX_PIDS 64
/* Without -c, past this many tasks kept (exited ones included) the
 * accounting starts afresh after a frame: memory stays bounded on a
 * machine that forks all day. With -c every task is kept, up to the
 * library's bound (hpm_sysacct__drain: -EOVERFLOW). */
#define TOP_RENEW_TASKS 65536

struct top_filter {
	bool by_uid;
	uid_t uid;
	char comm[16];            /* substring of the name, "" any */
	pid_t pids[TOP_MAX_PIDS]; /* none: any */
	size_t nr_pids;
};

struct top_opts {
	char events[2048];
	bool events_given;
	const char *mgroups[TOP_MAX_ARGS];
	size_t nr_mgroups;
	const char *minline[TOP_MAX_ARGS];
	size_t nr_minline;
	enum sysrows_by by;        /* -H threads, --cgroup */
	double delay_s;            /* -d */
	long frames;               /* -n, 0: until quit */
	bool batch;                /* -b */
	bool json;
	const char *sep;           /* -x */
	bool cumulative;           /* -c */
	bool user_mode;            /* --user */
	bool system;               /* -a: system-wide, or fail */
	int cpus[1024];            /* -C */
	size_t nr_cpus;
	char sort[64];             /* -s: a column's name */
	struct top_filter filter;
};

/* One column: an event or a metric. The views show a count as a rate
 * per second, a clock as %CPU (100: one CPU all the time); JSON and CSV
 * keep the counts. */
struct top_col {
	const char *name;          /* the event's or metric's: JSON, CSV, -s */
	char label[96];            /* the views' header: "%CPU", "page-faults/s" */
	const char *unit;          /* "msec" for clocks, a metric's unit */
	bool clock;                /* shown as %CPU */
	bool metric;
	bool hidden;               /* an event a metric added twice: not shown */
	size_t idx;                /* event or metric index */
};

/* A row of the frame: its sysrows row and its columns' values (rates
 * per second of the frame, %CPU for clocks; since the start with -c). */
struct top_line {
	size_t row;
	double *val;               /* [nr_cols], NaN n/a */
};

struct top_cpu {
	int cpu;
	double busy_pct;           /* NaN unknown (no clock event) */
	double first;              /* the first event's count on it */
};

struct top {
	struct top_opts *o;
	struct hpm_ctx *ctx;
	struct hpm_evlist *list;
	size_t nr_ev;
	struct hpm_metricset *ms;
	struct hpm_msel *sel;
	size_t nr_metrics;
	struct top_col *cols;
	size_t nr_cols;
	size_t clock_ev;           /* a clock event's index, or SIZE_MAX */
	/* the source: system-wide accounting, or the user's processes */
	struct hpm_sysacct *acct;
	struct top_user *user;
	struct sysrows rows;
	uint64_t *cpu_prev;        /* [nr_cpus * nr_ev] the CPUs' counts at the last frame */
	/* the frame */
	struct top_line *lines;
	size_t nr_lines, cap_lines;
	double *vals;              /* the lines' values */
	struct top_cpu *cpus;
	size_t nr_cpus;
	double *total;             /* [nr_cols] over every row of the frame, idle too */
	/* the idle tasks (pid 0, one per CPU): apart from the ranked lines */
	double *idle;              /* [nr_cols] their values summed (events only) */
	size_t *idle_rows;         /* their rows, by CPU */
	size_t nr_idle;
	double now;                /* CLOCK_REALTIME, s */
	double interval;           /* s covered by the frame */
	double elapsed;            /* s since counting began (what -c covers) */
	uint64_t last_ns;          /* CLOCK_MONOTONIC of the last frame */
	uint64_t start_ns;         /* CLOCK_MONOTONIC of the first frame */
	uint64_t lost;
	uint64_t unsampled;        /* switches counted without their sample */
	size_t sort_col;           /* SIZE_MAX: by pid */
	bool sort_asc;
	size_t nr_tasks;           /* rows alive in the frame, idle not */
};

/* ---- top-frame.c ---- */

/* Wait @secs, draining the buffers: 0 when the time is up, 1 as soon as
 * @key_fd (-1: none) is readable, -1 when a signal ends hpmon. */
int top_wait(struct top *t, double secs, int key_fd);

/* Open and enable system-wide accounting for @t into t->acct: 0 or
 * -errno (t->acct NULL; hpm_sysacct__failed_event of a failed one is
 * in *@bad). */
int top_open_acct(struct top *t, size_t *bad);
/* The columns of @t (its events, then its metrics). 0 or -ENOMEM. */
int top_columns(struct top *t);
/* Read the source and build the frame: 0 or -errno. */
int top_frame(struct top *t);
/* Once a frame is shown: start the accounting afresh when it keeps more
 * than TOP_RENEW_TASKS tasks (the rows then start empty). 0 or -errno. */
int top_after_frame(struct top *t);
/* Rows of another kind (the 'H' key): built anew from the source now,
 * the next frame's changes counted from here; until that frame no row
 * is shown (with -c the totals so far are). 0 or -errno. */
int top_regroup(struct top *t, enum sysrows_by by);
/* Re-sort and re-filter the frame without reading (a key was pressed). */
int top_refilter(struct top *t);
/* A column's index by name or label, SIZE_MAX if none. */
size_t top_col_find(const struct top *t, const char *name);
/* The user name of @uid, or its number, into @buf. */
void top_user_name(uid_t uid, char *buf, size_t len);
/* Parse a user name or number: 0, or -1 if unknown. */
int top_parse_user(const char *s, uid_t *uid);
/* What went wrong reading the counts, in words: hpm_strerror, and the
 * task table's bound. */
const char *top_strerror(int rc);
/* Format a column's value for a table: %CPU with one decimal, a rate
 * with one below 1000 and none above, metrics with three; "-" for n/a. */
void top_fmt(const struct top_col *c, double v, char *buf, size_t len);
/* The width of a column in a table: its label's, at least 12. */
int top_col_width(const struct top_col *c);
/* The idle line of a view ("idle:  62.3 % of 2 CPUs  context-switches/s
 * 405.5") into @buf; false when there is none (--user: no idle tasks). */
bool top_idle_line(const struct top *t, char *buf, size_t len);
/* Free the frame's arrays. */
void top_frame_free(struct top *t);

/* ---- top-batch.c ---- */

void top_print_batch(const struct top *t, FILE *f);
void top_print_json(const struct top *t, FILE *f);
void top_print_csv(const struct top *t, FILE *f, bool header);

/* ---- top-tui.c ---- */

/* The full-screen view until 'q', Ctrl-C or -n frames: HPM_EXIT_*. */
int top_tui(struct top *t);

/* ---- top-user.c ---- */

/* --user: the calling user's own processes, each attached as it is found. */
struct top_user *top_user_new(struct hpm_evlist *list, enum sysrows_by by);
void top_user_free(struct top_user *u);
/* Find new processes, read every one into @rows: 0 or -errno. */
int top_user_update(struct top_user *u, struct sysrows *rows);

#endif
