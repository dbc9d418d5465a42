/* SPDX-License-Identifier: MIT */
/*
 * Events that stand for several PMUs, against recorded sysfs trees
 * (tests/data): a hybrid CPU's core PMUs (cpu_core and cpu_atom of
 * sysfs-intel-adl) and an uncore PMU's instances (uncore_cbox_0..3 of
 * sysfs-intel-skl). Resolution rows are in test-resolve.c; here: the
 * arithmetic of perf's merged line, the main-core flag, and metrics on a
 * hybrid CPU, which count on cpu_core only.
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

#include <hpmon/event.h>
#include <hpmon/metric.h>
#include <hpmon/session.h>

static struct hpm_ctx *ctx_for(const char *tree)
{
	char sysfs[512];
	struct hpm_ctx_opts o = { .sz = sizeof(o), .sysfs_root = sysfs, .procfs_root = "/proc" };
	snprintf(sysfs, sizeof(sysfs), "%s/%s", HPM_TEST_DATA, tree);
	return hpm_ctx__new(&o);
}

static size_t find(const struct hpm_evlist *list, const char *name)
{
	for (size_t i = 0; i < hpm_evlist__count(list); i++)
		if (!strcmp(hpm_event__name(hpm_evlist__event(list, i)), name))
			return i;
	fprintf(stderr, "no event '%s' in the list\n", name);
	fail();
	return SIZE_MAX;
}

/* perf's merge: counts, enabled and running times summed. */
static void test_merge_counts(void **state)
{
	const struct hpm_count box[] = {
		{ .value = 1000, .enabled = 100, .running = 100 },
		{ .value = 600, .enabled = 100, .running = 50 },
		{ .value = 0, .enabled = 100, .running = 0 },
	};
	struct hpm_count sum = { 0 };
	(void)state;

	for (size_t i = 0; i < 3; i++)
		hpm_count__merge(&sum, &box[i]);
	assert_int_equal(sum.value, 1600);
	assert_int_equal(sum.enabled, 300);
	assert_int_equal(sum.running, 150);
	assert_int_equal(sum.err, 0);
	/* the merged count is scaled by the summed times, as perf prints it */
	assert_true(fabs(hpm_count__scaled(&sum) - 3200.0) < 1e-9);
	assert_true(fabs(hpm_count__pct_running(&sum) - 50.0) < 1e-9);

	/* an instance that could not be opened fails the sum, with its error */
	struct hpm_count bad = { .err = -ENOENT }, sum2 = { 0 };
	hpm_count__merge(&sum2, &box[0]);
	hpm_count__merge(&sum2, &bad);
	hpm_count__merge(&sum2, &(struct hpm_count){ .err = -EINVAL });
	assert_int_equal(sum2.err, -ENOENT);
	assert_int_equal(sum2.value, 1000);
}

/* Merge leaders say which events one line sums, in lists and groups. */
static void test_merge_leaders(void **state)
{
	struct hpm_ctx *ctx = ctx_for("sysfs-intel-skl");
	struct hpm_evlist *list = NULL;
	struct hpm_parse_error err;
	(void)state;

	assert_int_equal(hpm_evlist__parse(ctx, "task-clock,uncore_cbox/clockticks/,"
					   "{uncore_cbox/clockticks/u,uncore_cbox/event=0x22/}",
					   &list, &err), 0);
	assert_int_equal(hpm_evlist__count(list), 1 + 4 + 8);
	/* count per merged line: each event counts its index + 1 */
	uint64_t line[16] = { 0 };
	size_t members[16] = { 0 };
	for (size_t i = 0; i < hpm_evlist__count(list); i++) {
		size_t m = hpm_event__merge_leader(hpm_evlist__event(list, i));
		assert_true(m <= i);
		line[m] += i + 1;
		members[m]++;
	}
	assert_int_equal(members[0], 1);
	assert_int_equal(members[1], 4);
	assert_int_equal(line[1], 2 + 3 + 4 + 5);
	/* the group: {cbox0/a,cbox0/b},{cbox1/a,cbox1/b},... */
	size_t a0 = find(list, "uncore_cbox_0/clockticks/u");
	size_t b0 = find(list, "uncore_cbox_0/event=0x22/");
	size_t b3 = find(list, "uncore_cbox_3/event=0x22/");
	assert_int_equal(a0, 5);
	assert_int_equal(b0, 6);
	assert_int_equal(members[a0], 4);
	assert_int_equal(members[b0], 4);
	assert_int_equal(hpm_event__merge_leader(hpm_evlist__event(list, b3)), b0);
	assert_int_equal(hpm_event__leader(hpm_evlist__event(list, b3)), b3 - 1);
	assert_string_equal(hpm_event__merged_name(hpm_evlist__event(list, b3)),
			    "uncore_cbox/event=0x22/");
	assert_string_equal(hpm_event__merged_name(hpm_evlist__event(list, 0)), "task-clock");
	/* CPUs: the uncore PMU's cpumask; software events anywhere */
	assert_true(hpm_event__on_cpu(hpm_evlist__event(list, b3), 0));
	assert_false(hpm_event__on_cpu(hpm_evlist__event(list, b3), 1));
	assert_true(hpm_event__on_cpu(hpm_evlist__event(list, 0), 7));
	hpm_evlist__free(list);
	hpm_ctx__free(ctx);
}

/* HPM_EVLIST_MAIN_CORE: generic events go to cpu_core only. */
static void test_main_core_flag(void **state)
{
	struct hpm_ctx *adl = ctx_for("sysfs-intel-adl"), *skl = ctx_for("sysfs-intel-skl");
	struct hpm_evlist *list = hpm_evlist__new(adl), *l2 = hpm_evlist__new(skl);
	struct hpm_parse_error err;
	(void)state;

	assert_int_equal(hpm_evlist__add_flags(list, "cycles,{instructions,branches}:u",
					       HPM_EVLIST_MAIN_CORE, &err), 0);
	assert_int_equal(hpm_evlist__count(list), 3);
	for (size_t i = 0; i < 3; i++) {
		const struct hpm_event *ev = hpm_evlist__event(list, i);
		assert_string_equal(hpm_event__pmu(ev), "cpu_core");
		assert_int_equal(hpm_event__attr(ev)->config >> 32, 4);
		assert_string_equal(hpm_event__cpus(ev), "0-15");
	}
	assert_string_equal(hpm_event__name(hpm_evlist__event(list, 2)), "cpu_core/branches/");
	assert_int_equal(hpm_event__leader(hpm_evlist__event(list, 2)), 1);
	/* without it, the same spec counts on both core PMUs */
	assert_int_equal(hpm_evlist__add(list, "cycles,{instructions,branches}:u", &err), 0);
	assert_int_equal(hpm_evlist__count(list), 3 + 6);
	assert_int_equal(hpm_evlist__add_flags(list, "cycles", 0x80, &err), -EINVAL);
	assert_int_equal(hpm_evlist__count(list), 9);
	/* one core PMU: the flag changes nothing */
	assert_int_equal(hpm_evlist__add_flags(l2, "cycles", HPM_EVLIST_MAIN_CORE, &err), 0);
	assert_int_equal(hpm_evlist__count(l2), 1);
	assert_int_equal(hpm_event__attr(hpm_evlist__event(l2, 0))->config, 0);
	assert_string_equal(hpm_event__name(hpm_evlist__event(l2, 0)), "cycles");
	hpm_evlist__free(list);
	hpm_evlist__free(l2);
	hpm_ctx__free(adl);
	hpm_ctx__free(skl);
}

static size_t metric_idx(const struct hpm_msel *sel, const char *name)
{
	for (size_t i = 0; i < hpm_msel__count(sel); i++)
		if (!strcmp(hpm_metric__name(hpm_msel__metric(sel, i)), name))
			return i;
	fprintf(stderr, "metric %s not selected\n", name);
	fail();
	return 0;
}

/* Counts by event name, the rest n/a. */
struct named {
	const char *name;
	double v;
};

static void eval_named(const struct hpm_msel *sel, const struct hpm_evlist *list,
		       const struct named *vals, size_t nv, struct hpm_value *out)
{
	size_t n = hpm_evlist__count(list);
	struct hpm_value *ev = calloc(n, sizeof(*ev));
	assert_non_null(ev);
	for (size_t i = 0; i < n; i++) {
		const char *name = hpm_event__name(hpm_evlist__event(list, i));
		hpm_value__na(&ev[i], "%s: not counted", name);
		for (size_t k = 0; k < nv; k++)
			if (!strcmp(vals[k].name, name))
				hpm_value__set(&ev[i], vals[k].v, 0);
	}
	struct hpm_metric_env env = { .sz = sizeof(env), .events = ev, .nr_events = n,
				      .duration_s = 1, .num_cpus = 24 };
	assert_int_equal(hpm_msel__eval(sel, &env, out), 0);
	free(ev);
}

/*
 * On a hybrid CPU a metric counts on cpu_core only: its planned events are
 * cpu_core's, and perf's figures beside the user's counts bind to the
 * cpu_core events of the expanded list.
 */
static void test_hybrid_metrics(void **state)
{
	struct hpm_ctx *ctx = ctx_for("sysfs-intel-adl");
	struct hpm_metricset *ms = hpm_metricset__new(ctx, NULL);
	struct hpm_msel *sel = hpm_msel__new(ms);
	struct hpm_evlist *list = hpm_evlist__new(ctx);
	struct hpm_parse_error err;
	struct hpm_value out[64];
	char *spec = NULL;
	(void)state;

	assert_non_null(sel);
	assert_int_equal(hpm_msel__add(sel, "ipc", &err), 0);
	struct hpm_plan_opts po = { .sz = sizeof(po), .nr_general = 8, .nr_fixed = 3 };
	assert_int_equal(hpm_msel__plan(sel, &po, &spec), 0);
	assert_int_equal(hpm_evlist__add_flags(list, spec, HPM_EVLIST_MAIN_CORE, &err), 0);
	for (size_t i = 0; i < hpm_evlist__count(list); i++) {
		const struct hpm_event *ev = hpm_evlist__event(list, i);
		if (hpm_event__kind(ev) == HPM_EV_GENERIC_HW)
			assert_string_equal(hpm_event__pmu(ev), "cpu_core");
	}
	assert_int_equal(hpm_msel__bind(sel, list, 0), 0);
	size_t ipc = metric_idx(sel, "ipc");
	size_t ins = find(list, "cpu_core/instructions/");
	assert_int_equal(hpm_msel__anchor(sel, ipc), ins);
	const struct named vals[] = {
		{ "cpu_core/instructions/", 3000 }, { "cpu_core/cycles/", 1000 },
		{ "task-clock", 1e6 },
	};
	eval_named(sel, list, vals, 3, out);
	assert_false(out[ipc].na);
	assert_true(fabs(out[ipc].value - 3.0) < 1e-12);
	hpm_msel__free(sel);
	hpm_evlist__free(list);
	free(spec);

	/* perf's figures beside `-e cycles,instructions`: cpu_core's pair */
	sel = hpm_msel__new(ms);
	list = hpm_evlist__new(ctx);
	assert_int_equal(hpm_evlist__add(list, "cycles,instructions", &err), 0);
	assert_int_equal(hpm_evlist__count(list), 4);
	assert_int_equal(hpm_msel__add_bound(sel, "default"), 0);
	assert_int_equal(hpm_msel__plan(sel, &po, &spec), 0);
	assert_string_equal(spec, "");
	assert_int_equal(hpm_msel__bind(sel, list, hpm_evlist__count(list)), 0);
	ipc = metric_idx(sel, "ipc");
	assert_int_equal(hpm_msel__anchor(sel, ipc), find(list, "cpu_core/instructions/"));
	const struct named both[] = {
		{ "cpu_core/instructions/", 4000 }, { "cpu_core/cycles/", 1000 },
		{ "cpu_atom/instructions/", 100 }, { "cpu_atom/cycles/", 1000 },
	};
	eval_named(sel, list, both, 4, out);
	assert_false(out[ipc].na);
	assert_true(fabs(out[ipc].value - 4.0) < 1e-12);
	hpm_msel__free(sel);
	hpm_evlist__free(list);
	free(spec);
	hpm_metricset__free(ms);
	hpm_ctx__free(ctx);
}

/* A PAPI preset is one count: on a hybrid CPU, cpu_core's. */
static void test_hybrid_preset(void **state)
{
	struct hpm_ctx *ctx = ctx_for("sysfs-intel-adl");
	struct hpm_evlist *list = NULL;
	struct hpm_parse_error err;
	(void)state;

	assert_int_equal(hpm_evlist__parse(ctx, "PAPI_TOT_INS:u,cycles", &list, &err), 0);
	assert_int_equal(hpm_evlist__count(list), 3);
	const struct hpm_event *p = hpm_evlist__event(list, 0);
	assert_string_equal(hpm_event__pmu(p), "cpu_core");
	assert_int_equal(hpm_event__attr(p)->config, 1 | 4ULL << 32);
	assert_true(hpm_event__attr(p)->exclude_kernel);
	assert_string_equal(hpm_event__name(hpm_evlist__event(list, 2)), "cpu_atom/cycles/");
	hpm_evlist__free(list);
	hpm_ctx__free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_counts),
		cmocka_unit_test(test_merge_leaders),
		cmocka_unit_test(test_main_core_flag),
		cmocka_unit_test(test_hybrid_metrics),
		cmocka_unit_test(test_hybrid_preset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
