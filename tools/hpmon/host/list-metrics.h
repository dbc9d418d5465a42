/* SPDX-License-Identifier: MIT */
/*
 * Room: tools/hpmon/host/ owns hpmon list and hpmon diag; may use counting, output.
 *
 * `hpmon list metrics` and `hpmon list metricgroups`: the vendor's
 * metrics and metric groups of this processor model, in perf 6.1's
 * words and layout (host/list-metrics.c); `hpmon list --metrics` is
 * cmd-list.c's.
 *
 * Ownership: the context is borrowed for the call.
 */
#ifndef HPMON_HOST_LIST_METRICS_H
#define HPMON_HOST_LIST_METRICS_H

#include <stdbool.h>

struct hpm_ctx;

/* Is @word an operand list_perf_metrics answers ("metric", "metrics",
 * "metricgroup", "metricgroups")? */
bool list_perf_metrics_word(const char *word);
/* List them as perf 6.1 does for @word; the exit status. */
int list_perf_metrics(struct hpm_ctx *ctx, const char *word);

#endif
