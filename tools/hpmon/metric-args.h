/* SPDX-License-Identifier: MIT */
/*
 * The metric options stat and report share (-M, --metric, --metrics-file):
 * loading the metric set they name and selecting what is to be shown.
 * Ownership: the caller owns the set and the selection metric_args_load
 * returns and frees them, the selection first (it borrows the set); the
 * context outlives both; @a's strings are borrowed for the call.
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
};

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

#endif
