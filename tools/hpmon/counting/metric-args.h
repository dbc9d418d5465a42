/* SPDX-License-Identifier: MIT */
/*
 * The counting options stat, serve and report share: -M, --metric and
 * --metrics-file (loading the metric set they name and selecting what is
 * to be shown), the parsing of -e and -C, so each command takes them
 * with the same rules and says the same thing about a bad one, and the
 * events counted without -e.
 * Room: tools/hpmon/counting/ owns the counting options, default events, calibrated costs and rows of system-wide accounting; may use output.
 * Ownership: the caller owns the set and the selection metric_args_load
 * returns and frees them, the selection first (it borrows the set); the
 * context outlives both; @a's strings are borrowed for the call; the
 * option values kept are pointers into argv, which outlives them.
 */
#ifndef HPMON_TOOL_METRIC_ARGS_H
#define HPMON_TOOL_METRIC_ARGS_H

#include <stdbool.h>
#include <stddef.h>

struct hpm_ctx;
struct hpm_metricset;
struct hpm_msel;

struct metric_args {
	const char *const *groups;        /* -M values */
	size_t nr_groups;
	const char *const *inline_defs;   /* --metric values */
	size_t nr_inline;
	const char *const *files;         /* --metrics-file values */
	size_t nr_files;
	bool system_wide, cpu_list;       /* -a or -C; -C (perf's #core_wide) */
};

/* At most this many of each of -M, --metric, --metrics-file. */
#define METRIC_ARGS_MAX 64

/* Did the user ask for any metric? */
bool metric_args_any(const struct metric_args *a);

/*
 * The shipped metrics plus @a's files and --metric definitions (*ms), and
 * a selection (*sel) of the -M groups, every --metric, and each file's
 * metrics when -M names none. Errors go to stderr as "hpmon CMD: ...".
 * HPM_EXIT_OK, or HPM_EXIT_USAGE / HPM_EXIT_FAIL with *ms and *sel NULL.
 */
int metric_args_load(struct hpm_ctx *ctx, const char *cmd, const struct metric_args *a,
		     struct hpm_metricset **ms, struct hpm_msel **sel);

/* ---- parsing, for each command's getopt loop ---- */

/* A -M, --metric or --metrics-file value (@opt as the user knows it) kept
 * in @v, which holds METRIC_ARGS_MAX: 0, or HPM_EXIT_USAGE after saying
 * "hpmon CMD: too many OPT options". */
int metric_args_keep(const char *cmd, const char **v, size_t *n, const char *arg,
		     const char *opt);

/*
 * -e: @val appended to the comma-separated @events (@len bytes). An empty
 * value, or one that starts with '-' (no event does: "-e -- cmd" lost its
 * value), is refused naming @opt as written ("-e", "--event=..."), as is
 * a list that would not fit. 0, or HPM_EXIT_USAGE after saying why.
 */
int count_args_event(const char *cmd, char *events, size_t len, const char *opt,
		     const char *val);
/* @spec appended to @events: 0, or -1 when it does not fit. */
int count_args_append(char *events, size_t len, const char *spec);
/* The events of stat and serve without -e, perf's default events:
 * hardware ones only when they count here. A static string. */
const char *count_args_default_events(void);

/* -C: every CPU of @cpus must exist here (under the context's sysfs).
 * 0, or HPM_EXIT_USAGE after naming the first that does not and the
 * online ones. */
int count_args_cpus(struct hpm_ctx *ctx, const char *cmd, const int *cpus, size_t nr);

#endif
