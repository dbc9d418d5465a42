/* SPDX-License-Identifier: MIT */
/*
 * Events of the vendors' tables resolved into perf_event_attr on recorded
 * sysfs trees (tests/data), the model given as HPMON_CPUID gives it. The
 * expected attrs are written by hand from Linux 6.1 perf's JSON, as
 * jevents.py encodes it and perf applies it through the PMU's format
 * (docs/vendor-tables.md): e.g. skylake's OFFCORE_RESPONSE.DEMAND_DATA_RD.
 * ANY_RESPONSE is EventCode "0xB7, 0xBB" (the first), UMask 0x1, MSRIndex
 * 0x1a6 with MSRValue 0x10001 (offcore_rsp: config1), SampleAfterValue
 * 100003 (period: sample_period); INST_RETIRED.ANY is perf's fixed
 * event=0xc0,period=2000003 whatever the JSON's UMask says.
 * Every field a row leaves out must be zero, except exclude_guest, which
 * test-resolve.c checks for every form of event.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <hpmon/event.h>

#define SKL_ID "GenuineIntel-6-5E-3"  /* skylake */
#define SKX_ID "GenuineIntel-6-55-4"  /* skylakex */
#define ADL_ID "GenuineIntel-6-97-2"  /* alderlake */
#define N1_ID "0x00000000410fd0c0"    /* cortex-a76-n1 */

#define X_U 0x1u /* exclude_user */
#define X_K 0x2u /* exclude_kernel */
#define X_HV 0x4u

struct want {
	uint32_t type;
	uint64_t config, config1, config2, period;
	unsigned excl;
	const char *name, *pmu, *merged;
};

struct row {
	int line;
	const char *tree, *cpuid, *spec;
	int err;               /* 0 or the error hpm_evlist__parse returns */
	size_t count;          /* events the spec becomes */
	struct want ev[4];
};

#define L .line = __LINE__

static const struct row rows[] = {
	/* a fixed-counter event, perf's fixed encoding */
	{ L, "sysfs-intel-skl", SKL_ID, "INST_RETIRED.ANY", 0, 1,
	  { { .type = 4, .config = 0xc0, .period = 2000003, .name = "INST_RETIRED.ANY",
	      .pmu = "cpu" } } },
	/* any case, with modifiers */
	{ L, "sysfs-intel-skl", SKL_ID, "inst_retired.any:u", 0, 1,
	  { { .type = 4, .config = 0xc0, .period = 2000003, .excl = X_K | X_HV,
	      .name = "inst_retired.any:u", .pmu = "cpu" } } },
	/* inside a PMU's terms, with a term of the user's */
	{ L, "sysfs-intel-skl", SKL_ID, "cpu/INST_RETIRED.ANY,cmask=1/", 0, 1,
	  { { .type = 4, .config = 0xc0 | 1ull << 24, .period = 2000003,
	      .name = "cpu/INST_RETIRED.ANY,cmask=1/", .pmu = "cpu" } } },
	/* CounterMask 12, UMask 0xc */
	{ L, "sysfs-intel-skl", SKL_ID, "cycle_activity.stalls_l1d_miss", 0, 1,
	  { { .type = 4, .config = 0xa3 | 0xc << 8 | 12ull << 24, .period = 2000003 } } },
	/* offcore_rsp: MSR 0x1a6 into config1 */
	{ L, "sysfs-intel-skl", SKL_ID, "OFFCORE_RESPONSE.DEMAND_DATA_RD.ANY_RESPONSE", 0, 1,
	  { { .type = 4, .config = 0x1b7, .config1 = 0x10001, .period = 100003 } } },
	/* ldlat: MSR 0x3f6 */
	{ L, "sysfs-intel-skl", SKL_ID, "MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4:p", 0, 1,
	  { { .type = 4, .config = 0x1cd, .config1 = 4, .period = 100003 } } },
	/* frontend: MSR 0x3f7 */
	{ L, "sysfs-intel-skl", SKL_ID, "FRONTEND_RETIRED.DSB_MISS", 0, 1,
	  { { .type = 4, .config = 0x1c6, .config1 = 0x11, .period = 100007 } } },
	/* uncore (Unit CBO): one event per box, merged under the name written */
	{ L, "sysfs-intel-skl", SKL_ID, "UNC_CBO_CACHE_LOOKUP.ANY_ES", 0, 4,
	  { { .type = 14, .config = 0x8634, .name = "uncore_cbox_0/UNC_CBO_CACHE_LOOKUP.ANY_ES/",
	      .pmu = "uncore_cbox_0", .merged = "UNC_CBO_CACHE_LOOKUP.ANY_ES" },
	    { .type = 15, .config = 0x8634, .pmu = "uncore_cbox_1" },
	    { .type = 16, .config = 0x8634, .pmu = "uncore_cbox_2" },
	    { .type = 17, .config = 0x8634, .pmu = "uncore_cbox_3",
	      .name = "uncore_cbox_3/UNC_CBO_CACHE_LOOKUP.ANY_ES/" } } },
	/* uncore (Unit iMC): every uncore_imc_N */
	{ L, "sysfs-intel-skx-imc", SKX_ID, "UNC_M_CAS_COUNT.RD", 0, 2,
	  { { .type = 16, .config = 0x304, .pmu = "uncore_imc_0", .merged = "UNC_M_CAS_COUNT.RD" },
	    { .type = 17, .config = 0x304, .pmu = "uncore_imc_1",
	      .name = "uncore_imc_1/UNC_M_CAS_COUNT.RD/" } } },
	{ L, "sysfs-intel-skx-imc", SKX_ID, "uncore_imc_1/unc_m_cas_count.wr/", 0, 1,
	  { { .type = 17, .config = 0xc04, .pmu = "uncore_imc_1" } } },
	/* hybrid: one event per core PMU, the main one (cpu_core) first; k
	 * excludes user and hypervisor, as perf's */
	{ L, "sysfs-intel-adl", ADL_ID, "INST_RETIRED.ANY:k", 0, 2,
	  { { .type = 4, .config = 0xc0, .period = 2000003, .excl = X_U | X_HV,
	      .name = "cpu_core/INST_RETIRED.ANY/k", .pmu = "cpu_core" },
	    { .type = 10, .config = 0xc0, .period = 2000003, .excl = X_U | X_HV,
	      .name = "cpu_atom/INST_RETIRED.ANY/k", .pmu = "cpu_atom" } } },
	/* in a group, which splits per core PMU as perf splits it */
	{ L, "sysfs-intel-adl", ADL_ID, "{INST_RETIRED.ANY,cycles}", 0, 4,
	  { { .type = 4, .config = 0xc0, .period = 2000003, .pmu = "cpu_core" },
	    { .type = 0, .config = 4ull << 32, .name = "cpu_core/cycles/" },
	    { .type = 10, .config = 0xc0, .period = 2000003, .pmu = "cpu_atom" },
	    { .type = 0, .config = 10ull << 32, .name = "cpu_atom/cycles/" } } },
	/* hybrid, a cpu_core event only: ldlat on cpu_core */
	{ L, "sysfs-intel-adl", ADL_ID, "MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4", 0, 1,
	  { { .type = 4, .config = 0x1cd, .config1 = 4, .period = 100003,
	      .pmu = "cpu_core" } } },
	/* a cpu_core event is no alias of cpu_atom */
	{ L, "sysfs-intel-adl", ADL_ID, "cpu_atom/MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4/",
	  -HPM_ERR_UNKNOWN_TERM, 0, { { 0 } } },
	/* arm64: the architecture's standard event, on the core PMU */
	{ L, "sysfs-arm-n1", N1_ID, "L1D_CACHE_REFILL", 0, 1,
	  { { .type = 10, .config = 0x3, .name = "L1D_CACHE_REFILL", .pmu = "armv8_pmuv3_0" } } },
	/* arm64: an event of the model's own (cortex-a76-n1's), by MIDR */
	{ L, "sysfs-arm-n1", N1_ID, "armv8_pmuv3_0/L2D_CACHE_WB_VICTIM/", 0, 1,
	  { { .type = 10, .config = 0x56 } } },
	/* libpfm4's names keep working beside them */
	{ L, "sysfs-intel-skl", SKL_ID, "INST_RETIRED.ANY_P:u", 0, 1,
	  { { .type = 4, .config = 0xc0, .period = 2000003, .excl = X_K | X_HV } } },
	/* a core event where sysfs shows no core PMU */
	{ L, "sysfs-x86-vm-nopmu", SKL_ID, "INST_RETIRED.ANY", -HPM_ERR_UNKNOWN_PMU, 0, { { 0 } } },
	/* no such vendor event */
	{ L, "sysfs-intel-skl", SKL_ID, "INST_RETIRED.NOPE", -HPM_ERR_UNKNOWN_EVENT, 0, { { 0 } } },
};

static int nr_bad;

static void bad(const struct row *r, size_t i, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void bad(const struct row *r, size_t i, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "test-vendor-resolve.c:%d: '%s' event %zu: ", r->line, r->spec, i);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	nr_bad++;
}

#define U64(field, got, want)                                                          \
	do {                                                                           \
		if ((uint64_t)(got) != (uint64_t)(want))                               \
			bad(r, i, "%s is %#llx, expected %#llx", field,                \
			    (unsigned long long)(got), (unsigned long long)(want));    \
	} while (0)
#define STR(field, got, want)                                                          \
	do {                                                                           \
		if ((want) && strcmp((got), (want)))                                   \
			bad(r, i, "%s is '%s', expected '%s'", field, (got), (want));  \
	} while (0)

static void check_row(const struct row *r)
{
	char sysfs[512];
	struct hpm_ctx_opts o = { .sz = sizeof(o), .sysfs_root = sysfs,
				  .procfs_root = HPM_TEST_DATA "/procfs-none",
				  .tracefs_root = HPM_TEST_DATA "/tracefs", .cpuid = r->cpuid };
	struct hpm_parse_error err = { 0 };
	struct hpm_evlist *list = NULL;
	size_t i = 0;

	snprintf(sysfs, sizeof(sysfs), "%s/%s", HPM_TEST_DATA, r->tree);
	struct hpm_ctx *ctx = hpm_ctx__new(&o);
	assert_non_null(ctx);
	int rc = hpm_evlist__parse(ctx, r->spec, &list, &err);
	if (r->err) {
		if (rc != r->err)
			bad(r, i, "returned %d (%s), expected %d", rc, err.msg, r->err);
		goto out;
	}
	if (rc) {
		bad(r, i, "failed: %d %s", rc, err.msg);
		goto out;
	}
	if (hpm_evlist__count(list) != r->count) {
		bad(r, i, "%zu events, expected %zu", hpm_evlist__count(list), r->count);
		goto out;
	}
	for (i = 0; i < r->count; i++) {
		const struct hpm_event *ev = hpm_evlist__event(list, i);
		const struct perf_event_attr *a = hpm_event__attr(ev);
		const struct want *w = &r->ev[i];
		unsigned excl = (a->exclude_user ? X_U : 0) | (a->exclude_kernel ? X_K : 0) |
				(a->exclude_hv ? X_HV : 0);

		U64("type", a->type, w->type);
		U64("config", a->config, w->config);
		U64("config1", a->config1, w->config1);
		U64("config2", a->config2, w->config2);
		U64("sample_period", a->sample_period, w->period);
		U64("freq", a->freq, 0);
		U64("exclusions", excl, w->excl);
		STR("name", hpm_event__name(ev), w->name);
		STR("pmu", hpm_event__pmu(ev), w->pmu);
		STR("merged name", hpm_event__merged_name(ev), w->merged);
	}
out:
	hpm_evlist__free(list);
	hpm_ctx__free(ctx);
}

static void vendor_rows(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++)
		check_row(&rows[k]);
	assert_int_equal(nr_bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(vendor_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
