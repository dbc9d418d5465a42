/* SPDX-License-Identifier: MIT */
/*
 * For the unit tests of metrics that must need no hardware counter
 * (test-stat-clockfig, test-metric-lazy): whether a metric counts
 * software events only. Include after <hpmon/event.h>, <hpmon/metric.h>,
 * <linux/perf_event.h> and metrics/metric-internal.h.
 */
#ifndef HPMON_TEST_METRIC_SOFTWARE_H
#define HPMON_TEST_METRIC_SOFTWARE_H

#include <stdbool.h>
#include <linux/perf_event.h>

/* Does every event @m counts resolve, to software events only? */
static bool counts_software_only(struct hpm_ctx *ctx, const struct hpm_metricset *ms,
				 const struct hpm_metric *m)
{
	const char *names[HPM_EXPR_MAX_INPUTS];
	int n = hpm_metricset__leaves(ms, m, names, HPM_EXPR_MAX_INPUTS);

	if (n <= 0)
		return false;
	for (int i = 0; i < n; i++) {
		struct hpm_evlist *l = NULL;
		bool sw = hpm_evlist__parse(ctx, names[i], &l, NULL) == 0;
		for (size_t k = 0; sw && k < hpm_evlist__count(l); k++)
			sw = hpm_event__attr(hpm_evlist__event(l, k))->type == PERF_TYPE_SOFTWARE;
		hpm_evlist__free(l);
		if (!sw)
			return false;
	}
	return true;
}

#endif
