// SPDX-License-Identifier: MIT
/*
 * hpmon stat shows perf's figures beside the counts of a list of software
 * events without reading the metric set (tools/hpmon/stat/stat-metrics.c): the
 * only such figure the set has is CPUs utilized beside task-clock and
 * cpu-clock, which print-stat.c computes itself, as perf does (the clock's
 * CPU time over the elapsed time). That is exact only while the built-in
 * metrics of the "default" group that count software events alone are
 * those two, with that formula and unit. These tests check it for every
 * family: a new software figure in the default group fails here, and
 * must then be computed by stat as well (or the shortcut dropped).
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <linux/perf_event.h>

#include <hpmon/event.h>
#include <hpmon/metric.h>
#include "metrics/metric-internal.h" /* hpm_metricset__leaves */
#include "metric-software.h"

/* The figures stat computes itself: the metric, the clock it divides. */
static const struct {
	const char *metric, *clock;
} direct[] = {
	{ "cpus_utilized", "task-clock" },
	{ "cpu_clock_utilized", "cpu-clock" },
};
#define NR_DIRECT (sizeof(direct) / sizeof(direct[0]))

/* Every software event of perf's syntax that counts (a list of them binds
 * every software figure of the default group). */
#define ALL_SOFTWARE                                                              \
	"task-clock,cpu-clock,page-faults,minor-faults,major-faults,context-switches," \
	"cpu-migrations,alignment-faults,emulation-faults"

/* The family trees of test-metric-lazy.c: every built-in metric file. */
static const struct {
	const char *tree, *family;
} families[] = {
	{ "sysfs-x86-vm-nopmu", "software" }, { "sysfs-intel-skl", "generic" },
	{ "sysfs-intel-skl", "intel" },       { "sysfs-amd-zen3", "amd" },
	{ "sysfs-arm-n1", "arm" },
};

static struct hpm_ctx *ctx_for(const char *tree)
{
	char sysfs[512];
	struct hpm_ctx_opts o = { .sz = sizeof(o), .sysfs_root = sysfs, .procfs_root = "/proc" };
	snprintf(sysfs, sizeof(sysfs), "%s/%s", HPM_TEST_DATA, tree);
	return hpm_ctx__new(&o);
}

static int direct_index(const char *name)
{
	for (size_t i = 0; i < NR_DIRECT; i++)
		if (!strcmp(direct[i].metric, name))
			return (int)i;
	return -1;
}

/* Of the default group, only the two clock figures count software alone. */
static void test_default_software_figures(void **state)
{
	int bad = 0;
	(void)state;

	for (size_t f = 0; f < sizeof(families) / sizeof(families[0]); f++) {
		struct hpm_ctx *ctx = ctx_for(families[f].tree);
		struct hpm_metricset_opts o = { .sz = sizeof(o), .family = families[f].family };
		struct hpm_metricset *ms = hpm_metricset__new(ctx, &o);
		bool seen[NR_DIRECT] = { false };

		assert_non_null(ms);
		for (size_t k = 0; k < hpm_metricset__count(ms); k++) {
			const struct hpm_metric *m = hpm_metricset__metric(ms, k);
			if (!hpm_metric__in_group(m, "default") || !counts_software_only(ctx, ms, m))
				continue;
			int d = direct_index(hpm_metric__name(m));
			if (d < 0) {
				fprintf(stderr, "[%s] %s (%s) is a default figure of software events: "
					"hpmon stat shows those without the metric set; compute it in "
					"print-stat.c too\n", families[f].family, hpm_metric__name(m),
					hpm_metric__origin(m));
				bad++;
				continue;
			}
			seen[d] = true;
			if (strcmp(hpm_metric__unit(m), "CPUs utilized")) {
				fprintf(stderr, "[%s] %s: unit '%s', stat prints 'CPUs utilized'\n",
					families[f].family, hpm_metric__name(m), hpm_metric__unit(m));
				bad++;
			}
		}
		for (size_t d = 0; d < NR_DIRECT; d++)
			if (!seen[d]) {
				fprintf(stderr, "[%s] no default figure %s beside %s\n",
					families[f].family, direct[d].metric, direct[d].clock);
				bad++;
			}
		hpm_metricset__free(ms);
		hpm_ctx__free(ctx);
	}
	assert_int_equal(bad, 0);
}

/*
 * Bound to every software event, the default group gives the two figures,
 * each beside its clock, with the value stat computes: the clock's count
 * (ns) over the elapsed time (ns).
 */
static void test_same_value_as_stat(void **state)
{
	const double elapsed_ns = 4e6;
	(void)state;

	for (size_t f = 0; f < sizeof(families) / sizeof(families[0]); f++) {
		struct hpm_ctx *ctx = ctx_for(families[f].tree);
		struct hpm_metricset_opts o = { .sz = sizeof(o), .family = families[f].family };
		struct hpm_metricset *ms = hpm_metricset__new(ctx, &o);
		struct hpm_msel *sel = hpm_msel__new(ms);
		struct hpm_evlist *l = NULL;
		struct hpm_value in[16], out[16];

		assert_non_null(sel);
		assert_int_equal(hpm_evlist__parse(ctx, ALL_SOFTWARE, &l, NULL), 0);
		assert_true(hpm_evlist__count(l) <= 16);
		assert_int_equal(hpm_msel__add_bound(sel, "default"), 0);
		assert_int_equal(hpm_msel__bind(sel, l, hpm_evlist__count(l)), 0);
		/* distinct counts, so that a figure of the wrong event shows */
		for (size_t i = 0; i < hpm_evlist__count(l); i++)
			hpm_value__set(&in[i], 1e6 + 12345.0 * (double)i, 0);
		struct hpm_metric_env env = { .sz = sizeof(env), .events = in,
					      .nr_events = hpm_evlist__count(l),
					      .duration_s = elapsed_ns / 1e9 };
		assert_true(hpm_msel__count(sel) <= 16);
		assert_int_equal(hpm_msel__eval(sel, &env, out), 0);
		assert_int_equal(hpm_msel__count(sel), NR_DIRECT);
		for (size_t k = 0; k < hpm_msel__count(sel); k++) {
			int d = direct_index(hpm_metric__name(hpm_msel__metric(sel, k)));
			assert_true(d >= 0);
			size_t at = hpm_msel__anchor(sel, k);
			assert_true(at < hpm_evlist__count(l));
			assert_string_equal(hpm_event__name(hpm_evlist__event(l, at)), direct[d].clock);
			assert_true(hpm_msel__is_bound_only(sel, k));
			assert_false(out[k].na);
			/* print-stat.c's rate(): the count over the elapsed ns */
			double stat = in[at].value / elapsed_ns;
			if (fabs(out[k].value - stat) > 1e-12 * stat) {
				fprintf(stderr, "[%s] %s = %.15g, stat shows %.15g\n",
					families[f].family, direct[d].metric, out[k].value, stat);
				fail();
			}
		}
		hpm_evlist__free(l);
		hpm_msel__free(sel);
		hpm_metricset__free(ms);
		hpm_ctx__free(ctx);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_software_figures),
		cmocka_unit_test(test_same_value_as_stat),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
