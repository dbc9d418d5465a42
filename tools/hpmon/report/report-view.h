/* SPDX-License-Identifier: MIT */
/*
 * What report, annotate, diff and the report page show of a loaded
 * report (report/report.h): metric formulas per row (report-metrics.c)
 * and the listings (print-report.c).
 *
 * Room: tools/hpmon/report/ owns the report layer (a profile read into tables, its listings, per-row metrics, a function per instruction); may use counting, cache, output.
 * Ownership: rep_metrics_setup makes r->metrics, which the caller frees
 * with rep_metrics_free (before rep_free); the metrics borrow the rep's
 * events, so the rep must outlive them. Names, units and formulas are
 * the metrics'. Printing borrows the rep.
 */
#ifndef HPMON_TOOL_REPORT_VIEW_H
#define HPMON_TOOL_REPORT_VIEW_H

#include <stdbool.h>
#include <stdio.h>
#include "report/report.h"

/* report-metrics.c: metric formulas (docs/metrics.md) per row */

struct hpm_ctx;
struct hpm_value;

/* Select the metrics and bind them to the loaded profile's events; sets
 * r->metrics. HPM_EXIT_OK, or prints why (the events the profile lacks and
 * the group to record them with) and returns another HPM_EXIT_*. */
struct metric_args;
int rep_metrics_setup(struct hpm_ctx *ctx, const struct metric_args *o, struct rep *r);
void rep_metrics_free(struct rep_metrics *m);
size_t rep_metrics_count(const struct rep_metrics *m);
const char *rep_metrics_name(const struct rep_metrics *m, size_t i);
const char *rep_metrics_unit(const struct rep_metrics *m, size_t i);
const char *rep_metrics_formula(const struct rep_metrics *m, size_t i);
/* The values of every metric for @row (rep_metrics_count entries): from
 * the counts read at its samples, or its samples' periods for an event
 * that triggers samples and is not read. */
void rep_metrics_eval(const struct rep *r, const struct rep_row *row, struct hpm_value *out);

/* print-report.c */
enum rep_fmt { REP_TEXT, REP_CSV, REP_JSON, REP_FOLDED };
void rep_print(FILE *f, struct rep *r, enum rep_fmt fmt, bool callgraph, double min_pct);
void rep_print_notes(FILE *f, const struct rep *r, const char *prefix);

#endif
