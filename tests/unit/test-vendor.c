/* SPDX-License-Identifier: MIT */
/*
 * The vendors' tables (lib/events/vendor.c, docs/vendor-tables.md): the
 * model found as perf 6.1 finds it, from a cpuid string given, from a
 * recorded cpuinfo or MIDR, and the events looked up by name.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <hpmon/hpmon.h>
#include "core/ctx-internal.h"
#include "events/vendor-internal.h"

static struct hpm_ctx *ctx_cpuid(const char *cpuid, const char *sysfs, const char *procfs)
{
	char s[512], p[512];
	struct hpm_ctx_opts o = { .sz = sizeof(o), .cpuid = cpuid };

	snprintf(s, sizeof(s), "%s/%s", HPM_TEST_DATA, sysfs ? sysfs : "sysfs-synthetic");
	snprintf(p, sizeof(p), "%s/%s", HPM_TEST_DATA, procfs ? procfs : "procfs-none");
	o.sysfs_root = s;
	o.procfs_root = p;
	struct hpm_ctx *ctx = hpm_ctx__new(&o);
	assert_non_null(ctx);
	return ctx;
}

/* cpuid string -> model dir, or NULL for none */
static const struct {
	int line;
	const char *cpuid, *dir, *version;
} models[] = {
	{ __LINE__, "GenuineIntel-6-55-4", "x86/skylakex", "v1.28" },
	{ __LINE__, "GenuineIntel-6-55-7", "x86/cascadelakex", "v1.16" },
	{ __LINE__, "GenuineIntel-6-55", NULL, NULL }, /* full cpuid needed */
	{ __LINE__, "GenuineIntel-6-6A-6", "x86/icelakex", "v1.16" },
	{ __LINE__, "GenuineIntel-6-8F-8", "x86/sapphirerapids", "v1.06" },
	{ __LINE__, "GenuineIntel-6-97-2", "x86/alderlake", "v1.15" },
	{ __LINE__, "GenuineIntel-6-9E-9", "x86/skylake", "v53" },
	{ __LINE__, "GenuineIntel-6-CF-2", NULL, NULL }, /* Emerald Rapids: none in 6.1 */
	{ __LINE__, "AuthenticAMD-25-1-1", "x86/amdzen3", "v1" },
	{ __LINE__, "AuthenticAMD-23-31-0", "x86/amdzen2", "v1" },
	{ __LINE__, "AuthenticAMD-23-1-2", "x86/amdzen1", "v2" },
	{ __LINE__, "AuthenticAMD-25-11-1", "x86/amdzen3", "v1" },
	{ __LINE__, "0x00000000410fd0c0", "arm64/cortex-a76-n1", "-" },
	{ __LINE__, "0x00000000410fd490", "arm64/neoverse-n2", "-" },
	{ __LINE__, "0x00000000410fd0c1", NULL, NULL }, /* revision must be cleared */
	{ __LINE__, "0x410fd0c0", NULL, NULL },
};

static void model_of_cpuid(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		struct hpm_ctx *ctx = ctx_cpuid(models[i].cpuid, NULL, NULL);
		const struct hpm_vendor_model *m;
		int err = hpm__vendor_model(ctx, &m);

		if (!models[i].dir) {
			if (err != -ENOENT || m)
				fail_msg("line %d: %s matched %s", models[i].line,
					 models[i].cpuid, m ? m->dir : "(error)");
		} else {
			if (err || strcmp(m->dir, models[i].dir) ||
			    strcmp(m->version, models[i].version))
				fail_msg("line %d: %s: %d %s", models[i].line, models[i].cpuid,
					 err, m ? m->dir : "-");
			assert_string_equal(m->cpuid, models[i].cpuid);
		}
		hpm_ctx__free(ctx);
	}
}

/* From the recorded cpuinfo: GenuineIntel-6-CF-2, a model without tables. */
static void model_of_cpuinfo(void **state)
{
	(void)state;
	struct hpm_ctx *ctx = ctx_cpuid(NULL, "sysfs-x86-vm-nopmu", "procfs-x86-vm");
	const struct hpm_vendor_model *m;

	assert_int_equal(hpm__vendor_model(ctx, &m), -ENOENT);
	assert_null(m);
	assert_string_equal(hpm__vendor_cpuid(ctx), "GenuineIntel-6-CF-2");
	hpm_ctx__free(ctx);
}

/* From the MIDR of the Neoverse N1 tree: 0x413fd0c1, variant and revision
 * cleared. */
static void model_of_midr(void **state)
{
	(void)state;
	struct hpm_ctx *ctx = ctx_cpuid(NULL, "sysfs-arm-n1", "procfs-none");
	const struct hpm_vendor_model *m;

	assert_int_equal(hpm__vendor_model(ctx, &m), 0);
	assert_string_equal(m->cpuid, "0x00000000410fd0c0");
	assert_string_equal(m->dir, "arm64/cortex-a76-n1");
	assert_string_equal(m->arch, "arm64");
	assert_string_equal(m->name, "cortex-a76-n1");
	const char *t = hpm__vendor_text(m, "events.txt");
	assert_non_null(t);
	assert_non_null(strstr(t, "\nL1D_CACHE_REFILL\tcpu\tevent=0x3\t-\tLevel 1 data cache refill\n"));
	errno = 0;
	assert_null(hpm__vendor_text(m, "metrics.txt"));
	assert_int_equal(errno, ENOENT);
	assert_ptr_equal(hpm__vendor_text(m, "events.txt"), t); /* once */
	hpm_ctx__free(ctx);
}

static void lookup(void **state)
{
	(void)state;
	struct hpm_ctx *ctx = ctx_cpuid("GenuineIntel-6-55-4", NULL, NULL);
	const struct hpm_vendor_event *ev, *all;
	size_t nr, nr_all;
	char unit[16];

	assert_int_equal(hpm__vendor_event(ctx, "inst_retired.any", &ev, &nr), 0);
	assert_int_equal(nr, 1);
	assert_string_equal(ev->name, "INST_RETIRED.ANY");
	assert_string_equal(ev->pmu, "cpu");
	assert_string_equal(ev->terms, "event=0xc0,period=2000003");
	assert_int_equal(hpm__vendor_event(ctx, "OFFCORE_RESPONSE.ALL_DATA_RD.ANY_RESPONSE", &ev, &nr), 0);
	assert_string_equal(ev->terms, "event=0xb7,period=100003,umask=0x1,offcore_rsp=0x10491");
	assert_int_equal(hpm__vendor_event(ctx, "Unc_M_Cas_Count.Rd", &ev, &nr), 0);
	assert_string_equal(ev->pmu, "uncore_imc");
	assert_true(ev->perpkg);
	assert_null(ev->scale_unit);
	assert_int_equal(hpm__vendor_event(ctx, "LLC_MISSES.MEM_READ", &ev, &nr), 0);
	assert_string_equal(ev->scale_unit, "64Bytes");
	assert_true(hpm__vendor_scale_unit(ev->scale_unit, unit, sizeof(unit)) == 64.0);
	assert_string_equal(unit, "Bytes");
	assert_int_equal(hpm__vendor_event(ctx, "INST_RETIRED", &ev, &nr), -ENOENT);
	assert_int_equal(hpm__vendor_event(ctx, "zzzz", &ev, &nr), -ENOENT);
	assert_int_equal(hpm__vendor_events(ctx, &all, &nr_all), 0);
	assert_true(nr_all > 1000);
	for (size_t i = 1; i < nr_all; i++)
		assert_true(strcasecmp(all[i - 1].name, all[i].name) <= 0);
	const struct hpm_vendor_model *m;
	assert_int_equal(hpm__vendor_model(ctx, &m), 0);
	const char *metrics = hpm__vendor_text(m, "metrics.txt");
	assert_non_null(metrics);
	assert_non_null(strstr(metrics, "\nmetric tma_frontend_bound\n    formula     IDQ_UOPS_NOT_DELIVERED.CORE / SLOTS\n    scale       100\n    unit        %\n"));
	hpm_ctx__free(ctx);
}

/* A hybrid name: one entry per PMU, sorted by PMU. */
static void lookup_hybrid(void **state)
{
	(void)state;
	struct hpm_ctx *ctx = ctx_cpuid("GenuineIntel-6-97-2", NULL, NULL);
	const struct hpm_vendor_event *ev;
	size_t nr;

	assert_int_equal(hpm__vendor_event(ctx, "INST_RETIRED.ANY", &ev, &nr), 0);
	assert_int_equal(nr, 2);
	assert_string_equal(ev[0].pmu, "cpu_atom");
	assert_string_equal(ev[1].pmu, "cpu_core");
	assert_int_equal(hpm__vendor_event(ctx, "TOPDOWN.SLOTS", &ev, &nr), 0);
	assert_int_equal(nr, 1);
	assert_string_equal(ev->pmu, "cpu_core");
	assert_string_equal(ev->terms, "event=0,period=10000003,umask=0x4");
	hpm_ctx__free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(model_of_cpuid),
		cmocka_unit_test(model_of_cpuinfo),
		cmocka_unit_test(model_of_midr),
		cmocka_unit_test(lookup),
		cmocka_unit_test(lookup_hybrid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
