// SPDX-License-Identifier: MIT
/*
 * Metrics over the events of a profile (hpm_msel__bind_recorded, what
 * hpmon report -M uses): each event a metric needs binds to the recorded
 * event of the same type and config wherever it is in the list, a derived
 * preset to the sum of its terms; what is missing is named, in order of
 * first use, and the metrics that need it are n/a.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <linux/perf_event.h>

#include <hpmon/metric.h>

#define CYCLES { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, 0 }
#define INSNS { PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0, 0 }
#define TASK_CLOCK { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0, 0 }
/* L1-dcache-load-misses, L1-icache-load-misses */
#define L1D_MISS { PERF_TYPE_HW_CACHE, 0x10000, 0, 0 }
#define L1I_MISS { PERF_TYPE_HW_CACHE, 0x10001, 0, 0 }

struct fixture {
	struct hpm_ctx *ctx;
	struct hpm_metricset *ms;
	struct hpm_msel *sel;
};

static int setup(void **state)
{
	static struct fixture f;
	char sysfs[512];
	/* this VM's tree: presets map to the generic events */
	snprintf(sysfs, sizeof(sysfs), "%s/sysfs-x86-vm-nopmu", HPM_TEST_DATA);
	struct hpm_ctx_opts co = { .sz = sizeof(co), .sysfs_root = sysfs, .procfs_root = "/proc" };
	f.ctx = hpm_ctx__new(&co);
	f.ms = f.ctx ? hpm_metricset__new(f.ctx, NULL) : NULL;
	if (!f.ms ||
	    hpm_metricset__add_inline(f.ms, "tcm_per_insn = PAPI_L1_TCM / instructions", NULL))
		return -1;
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	hpm_metricset__free(f->ms);
	hpm_ctx__free(f->ctx);
	return 0;
}

static int sel_setup(void **state)
{
	struct fixture *f = *state;
	f->sel = hpm_msel__new(f->ms);
	return f->sel ? 0 : -1;
}

static int sel_teardown(void **state)
{
	struct fixture *f = *state;
	hpm_msel__free(f->sel);
	f->sel = NULL;
	return 0;
}

/* Evaluate the selection over @vals (one per recorded event). */
static void eval(const struct hpm_msel *sel, const double *vals, size_t n, struct hpm_value *out)
{
	struct hpm_value ev[8];
	assert_true(n <= 8);
	for (size_t i = 0; i < n; i++)
		hpm_value__set(&ev[i], vals[i], 0);
	struct hpm_metric_env env = { .sz = sizeof(env), .events = ev, .nr_events = n };
	assert_int_equal(hpm_msel__eval(sel, &env, out), 0);
}

static void test_bound_by_attr(void **state)
{
	struct fixture *f = *state;
	char missing[256];
	struct hpm_value v[4];

	assert_int_equal(hpm_msel__add(f->sel, "cpi,clock_ghz", NULL), 0);
	/* the profile lists them in another order, with an event between */
	const struct hpm_event_id ids[] = { TASK_CLOCK, INSNS, CYCLES };
	assert_int_equal(hpm_msel__bind_recorded(f->sel, ids, 3, missing, sizeof(missing)), 0);
	assert_string_equal(missing, "");
	assert_int_equal(hpm_msel__count(f->sel), 2);
	assert_string_equal(hpm_metric__name(hpm_msel__metric(f->sel, 0)), "cpi");
	eval(f->sel, (const double[]){ 5e6, 1000, 3000 }, 3, v);
	assert_false(v[0].na);
	assert_true(fabs(v[0].value - 3.0) < 1e-12);
	assert_false(v[1].na);
	assert_true(fabs(v[1].value - 3000 / 5e6) < 1e-15);
	/* a row without instructions: n/a, and why */
	eval(f->sel, (const double[]){ 5e6, 0, 3000 }, 3, v);
	assert_true(v[0].na);
	assert_non_null(strstr(v[0].reason, "division by zero"));
}

static void test_preset_terms(void **state)
{
	struct fixture *f = *state;
	struct hpm_value v[1];

	assert_int_equal(hpm_msel__add(f->sel, "tcm_per_insn", NULL), 0);
	const struct hpm_event_id ids[] = { L1I_MISS, INSNS, L1D_MISS };
	assert_int_equal(hpm_msel__bind_recorded(f->sel, ids, 3, NULL, 0), 0);
	/* (30 + 10) / 200 */
	eval(f->sel, (const double[]){ 10, 200, 30 }, 3, v);
	assert_false(v[0].na);
	assert_true(fabs(v[0].value - 0.2) < 1e-12);
}

static void test_missing(void **state)
{
	struct fixture *f = *state;
	char missing[256];
	struct hpm_value v[3];

	assert_int_equal(hpm_msel__add(f->sel, "cpi,clock_ghz,tcm_per_insn", NULL), 0);
	const struct hpm_event_id ids[] = { CYCLES, L1D_MISS };
	assert_int_equal(hpm_msel__bind_recorded(f->sel, ids, 2, missing, sizeof(missing)),
			 -ENOENT);
	/* in order of first use, each once */
	assert_string_equal(missing, "instructions, task-clock, PAPI_L1_TCM");
	eval(f->sel, (const double[]){ 3000, 7 }, 2, v);
	assert_true(v[0].na && v[1].na && v[2].na);
	/* nothing recorded: every event the selection uses */
	assert_int_equal(hpm_msel__bind_recorded(f->sel, NULL, 0, missing, sizeof(missing)),
			 -ENOENT);
	assert_string_equal(missing, "cycles, instructions, task-clock, PAPI_L1_TCM");
	/* a list too short for them all is cut, never overrun */
	char small[12];
	memset(small, 'x', sizeof(small));
	assert_int_equal(hpm_msel__bind_recorded(f->sel, NULL, 0, small, 8), -ENOENT);
	assert_true(strlen(small) < 8);
	assert_int_equal(small[8], 'x');
	assert_int_equal(hpm_msel__bind_recorded(NULL, ids, 2, NULL, 0), -EINVAL);
	assert_int_equal(hpm_msel__bind_recorded(f->sel, NULL, 2, NULL, 0), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bound_by_attr, sel_setup, sel_teardown),
		cmocka_unit_test_setup_teardown(test_preset_terms, sel_setup, sel_teardown),
		cmocka_unit_test_setup_teardown(test_missing, sel_setup, sel_teardown),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
