/* SPDX-License-Identifier: MIT */
/*
 * hpmon stat --topdown [--td-level N] and -d, -dd, -ddd: the events perf
 * 6.1 adds to the list for them (its builtin-stat.c,
 * add_default_attributes). The figures printed beside them are metrics
 * bound when their events are in the list, as perf's shadow figures are:
 * -d's of the "default" group (data/metrics-generic.txt), --topdown's of
 * "perf_topdown" (data/metrics-intel.txt), which stat-metrics.c binds
 * with --topdown only.
 */
#include <stdio.h>
#include <string.h>

#include "output/advice.h"
#include "output/exit.h"
#include "stat/stat-cmd.h"

/* perf's detailed_attrs, very_detailed_attrs and very_very_detailed_attrs */
static const char *const detailed[3] = {
	"L1-dcache-loads,L1-dcache-load-misses,LLC-loads,LLC-load-misses",
	"L1-icache-loads,L1-icache-load-misses,dTLB-loads,dTLB-load-misses,"
	"iTLB-loads,iTLB-load-misses",
	"L1-dcache-prefetches,L1-dcache-prefetch-misses",
};

/* Does @spec resolve here (a PMU's sysfs event, say)? */
static bool resolves(struct hpm_ctx *ctx, const char *spec)
{
	struct hpm_parse_error err;
	struct hpm_evlist *l = NULL;
	memset(&err, 0, sizeof(err));
	int rc = hpm_evlist__parse(ctx, spec, &l, &err);
	hpm_evlist__free(l);
	return rc == 0;
}

/* The core PMU that has perf's topdown events: "cpu", or on a hybrid
 * CPU "cpu_core" (perf's arch_get_topdown_pmu_name); NULL if neither. */
static const char *topdown_pmu(struct hpm_ctx *ctx, const char *event)
{
	static const char *const pmus[] = { "cpu", "cpu_core" };
	char spec[64];
	for (size_t i = 0; i < sizeof(pmus) / sizeof(*pmus); i++) {
		snprintf(spec, sizeof(spec), "%s/%s/", pmus[i], event);
		if (resolves(ctx, spec))
			return pmus[i];
	}
	return NULL;
}

/* The events of @names (NULL-ended) that @pmu has, as perf's
 * topdown_filter_events writes them: "{a,b}" with @group, "a,b" without;
 * "pmu/a/" on a hybrid CPU. */
static void filter(struct hpm_ctx *ctx, const char *const *names, const char *pmu, bool group,
		   char *out, size_t len)
{
	size_t at = 0;
	bool hybrid = strcmp(pmu, "cpu") != 0;
	out[0] = '\0';
	for (size_t i = 0; names[i]; i++) {
		char one[80];
		snprintf(one, sizeof(one), "%s/%s/", pmu, names[i]);
		if (!resolves(ctx, one))
			continue;
		if (!hybrid)
			snprintf(one, sizeof(one), "%s", names[i]);
		at += (size_t)snprintf(out + at, len - at, "%s%s", at ? "," : group ? "{" : "",
				       one);
		if (at >= len)
			break;
	}
	if (at && group && at + 1 < len)
		snprintf(out + at, len - at, "}");
}

static int topdown_events(struct hpm_ctx *ctx, struct stat_opts *o)
{
	static const char *const l1[] = { "slots", "topdown-retiring", "topdown-bad-spec",
					   "topdown-fe-bound", "topdown-be-bound", NULL };
	static const char *const l2[] = { "slots", "topdown-retiring", "topdown-bad-spec",
					   "topdown-fe-bound", "topdown-be-bound",
					   "topdown-heavy-ops", "topdown-br-mispredict",
					   "topdown-fetch-lat", "topdown-mem-bound", NULL };
	static const char *const old[] = { "topdown-total-slots", "topdown-slots-retired",
					    "topdown-recovery-bubbles", "topdown-fetch-bubbles",
					    "topdown-slots-issued", NULL };
	char spec[1024];
	const char *pmu = topdown_pmu(ctx, "topdown-retiring");
	int max = pmu && topdown_pmu(ctx, "topdown-heavy-ops") ? 2 : 1;

	if (o->td_level > max) {
		fprintf(stderr, "hpmon stat: --td-level %d: the top-down levels of this machine "
				"go to %d\n", o->td_level, max);
		return advice_usage_end("stat");
	}
	if (!o->td_level)
		o->td_level = max;
	if (pmu) {
		/* Ice Lake on: the slots group with the PERF_METRICS members */
		filter(ctx, o->td_level == 2 ? l2 : l1, pmu, true, spec, sizeof(spec));
		return stat_append_events(o, spec) ? HPM_EXIT_USAGE : 0;
	}
	pmu = advice_no_core_pmu(ctx) ? NULL : topdown_pmu(ctx, "topdown-total-slots");
	if (!pmu) {
		if (advice_no_core_pmu(ctx))
			fprintf(stderr, "hpmon stat: --topdown: this machine exposes no hardware "
					"PMU (a virtual machine without PMU passthrough?), so no "
					"top-down events; see 'hpmon diag'\n");
		else
			fprintf(stderr, "hpmon stat: --topdown: the CPU's PMU has no top-down "
					"events (no cpu/slots/ nor cpu/topdown-total-slots/); "
					"'hpmon stat -M TopdownL1' where the model has the "
					"vendor's metrics\n");
		return HPM_EXIT_FAIL;
	}
	if (!o->tg.system) {
		/* perf 6.1's refusal: they count per core */
		fprintf(stderr, "hpmon stat: --topdown: the top-down events of this machine "
				"(before Ice Lake) count per core: they need system-wide mode "
				"(-a)\n");
		return advice_usage_end("stat");
	}
	filter(ctx, old, pmu, true, spec, sizeof(spec));
	return stat_append_events(o, spec) ? HPM_EXIT_USAGE : 0;
}

int stat_extra_events(struct hpm_ctx *ctx, struct stat_opts *o)
{
	int rc;
	if (o->topdown && (rc = topdown_events(ctx, o)))
		return rc;
	/* perf appends the detailed events to any list, its default one too */
	if (o->detailed && !o->events_given && !o->topdown &&
	    !(o->nr_mgroups || o->nr_minline || o->nr_mfiles) &&
	    stat_append_events(o, count_args_default_events()))
		return HPM_EXIT_USAGE;
	for (int i = 0; i < o->detailed && i < 3; i++)
		if (stat_append_events(o, detailed[i]))
			return HPM_EXIT_USAGE;
	return 0;
}
