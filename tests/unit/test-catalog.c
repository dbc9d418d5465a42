/* SPDX-License-Identifier: MIT */
/*
 * hpm_catalog__foreach: what it offers for recorded machines, in what
 * order, and that every name it hands out resolves with hpm_evlist__parse
 * to an event of the kind it claims.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <hpmon/event.h>

#define DATA HPM_TEST_DATA

struct entry {
	char name[256];
	char kind[16];
	char pmu[64];
	char desc[256];
};

struct entries {
	struct entry *v;
	size_t nr, cap;
};

static int collect(const struct hpm_catalog_entry *e, void *arg)
{
	struct entries *es = arg;
	if (es->nr == es->cap) {
		es->cap = es->cap ? es->cap * 2 : 256;
		es->v = realloc(es->v, es->cap * sizeof(*es->v));
		assert_non_null(es->v);
	}
	struct entry *d = &es->v[es->nr++];
	snprintf(d->name, sizeof(d->name), "%s", e->name);
	snprintf(d->kind, sizeof(d->kind), "%s", e->kind);
	snprintf(d->pmu, sizeof(d->pmu), "%s", e->pmu);
	snprintf(d->desc, sizeof(d->desc), "%s", e->desc);
	return 0;
}

/* The cpuid string of each recorded machine (tests/data/README.md), for
 * its vendor tables; the arm64 tree has its MIDR, and the VM's model has
 * no tables. */
static const char *cpuid_of(const char *sysfs)
{
	static const struct { const char *tree, *cpuid; } ids[] = {
		{ "sysfs-intel-skl", "GenuineIntel-6-5E-3" },
		{ "sysfs-intel-adl", "GenuineIntel-6-97-2" },
		{ "sysfs-amd-zen3", "AuthenticAMD-25-21-0" },
		{ "sysfs-x86-vm-nopmu", "GenuineIntel-6-CF-2" },
	};
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		if (strstr(sysfs, ids[i].tree))
			return ids[i].cpuid;
	return NULL;
}

static struct hpm_ctx *ctx_for(const char *sysfs, const char *tracefs)
{
	struct hpm_ctx_opts o = {
		.sz = sizeof(o), .sysfs_root = sysfs, .tracefs_root = tracefs,
		.procfs_root = DATA "/procfs-none", .cpuid = cpuid_of(sysfs),
	};
	struct hpm_ctx *ctx = hpm_ctx__new(&o);
	assert_non_null(ctx);
	return ctx;
}

static const struct entry *find(const struct entries *es, const char *name)
{
	for (size_t i = 0; i < es->nr; i++)
		if (!strcmp(es->v[i].name, name))
			return &es->v[i];
	return NULL;
}

static void test_vm_offers(void **state)
{
	(void)state;
	struct hpm_ctx *ctx = ctx_for(DATA "/sysfs-x86-vm-nopmu", DATA "/tracefs");
	struct entries es = { 0 };

	assert_int_equal(hpm_catalog__foreach(ctx, HPM_CATALOG_TRACEPOINTS,
					      collect, &es), 0);
	static const struct { int line; const char *name, *kind, *pmu; } want[] = {
		{ __LINE__, "cpu-cycles", "hardware", "" },
		{ __LINE__, "ref-cycles", "hardware", "" },
		{ __LINE__, "task-clock", "software", "software" },
		{ __LINE__, "cgroup-switches", "software", "software" },
		{ __LINE__, "L1-dcache-loads", "cache", "" },
		{ __LINE__, "L1-dcache-load-misses", "cache", "" },
		{ __LINE__, "L1-dcache-prefetch-misses", "cache", "" },
		{ __LINE__, "LLC-stores", "cache", "" },
		{ __LINE__, "iTLB-load-misses", "cache", "" },
		{ __LINE__, "branch-loads", "cache", "" },
		{ __LINE__, "node-prefetches", "cache", "" },
		{ __LINE__, "msr/tsc/", "pmu", "msr" },
		{ __LINE__, "power/energy-psys/", "pmu", "power" },
		{ __LINE__, "sched:sched_switch", "tracepoint", "tracepoint" },
		{ __LINE__, "syscalls:sys_enter_openat", "tracepoint", "tracepoint" },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct entry *e = find(&es, want[i].name);
		if (!e)
			fail_msg("line %d: %s not offered", want[i].line, want[i].name);
		if (strcmp(e->kind, want[i].kind) || strcmp(e->pmu, want[i].pmu))
			fail_msg("line %d: %s is [%s] of '%s'", want[i].line,
				 want[i].name, e->kind, e->pmu);
	}
	/* perf's valid combinations only; aliases in the description */
	assert_null(find(&es, "iTLB-stores"));
	assert_null(find(&es, "L1-icache-stores"));
	assert_null(find(&es, "branch-prefetches"));
	assert_null(find(&es, "cycles"));
	assert_non_null(strstr(find(&es, "cpu-cycles")->desc, "also cycles"));
	assert_int_equal(strcmp(find(&es, "msr/tsc/")->desc, "event=0x00"), 0);
	/* one entry per cache name */
	for (size_t i = 0; i < es.nr; i++)
		for (size_t k = i + 1; k < es.nr; k++)
			if (!strcmp(es.v[i].name, es.v[k].name))
				fail_msg("%s offered twice", es.v[i].name);

	/* sections in a stable order */
	static const char *const order[] = { "hardware", "software", "cache", "pmu",
					     "vendor", "breakpoint", "tracepoint" };
	size_t at = 0;
	for (size_t i = 0; i < es.nr; i++) {
		while (at < 7 && strcmp(order[at], es.v[i].kind))
			at++;
		if (at == 7)
			fail_msg("%s [%s] out of order", es.v[i].name, es.v[i].kind);
	}
	free(es.v);

	/* without the flag, no tracepoints */
	memset(&es, 0, sizeof(es));
	assert_int_equal(hpm_catalog__foreach(ctx, 0, collect, &es), 0);
	assert_null(find(&es, "sched:sched_switch"));
	assert_non_null(find(&es, "task-clock"));
	free(es.v);
	hpm_ctx__free(ctx);
}

static const struct {
	const char *kind;
	enum hpm_event_kind ev;
} kinds[] = {
	{ "hardware", HPM_EV_GENERIC_HW }, { "software", HPM_EV_SOFTWARE },
	{ "cache", HPM_EV_GENERIC_CACHE }, { "pmu", HPM_EV_PMU }, { "vendor", HPM_EV_PMU },
	{ "tracepoint", HPM_EV_TRACEPOINT }, { "native", HPM_EV_NATIVE },
};

/* Every name the catalogue offers for @sysfs resolves, to its kind: one
 * event, or on a CPU with @cores core PMUs (hybrid) a generic hardware or
 * cache event one per core PMU. */
static void check_resolves_cores(const char *sysfs, unsigned flags, size_t cores)
{
	struct hpm_ctx *ctx = ctx_for(sysfs, DATA "/tracefs");
	struct entries es = { 0 };
	size_t checked = 0;

	assert_int_equal(hpm_catalog__foreach(ctx, HPM_CATALOG_TRACEPOINTS | flags,
					      collect, &es), 0);
	for (size_t i = 0; i < es.nr; i++) {
		const struct entry *e = &es.v[i];
		struct hpm_parse_error err;
		struct hpm_evlist *list = NULL;

		if (!strcmp(e->kind, "breakpoint")) {
			assert_true(strncmp(e->name, "mem:", 4) == 0);
			continue;
		}
		memset(&err, 0, sizeof(err));
		int rc = hpm_evlist__parse(ctx, e->name, &list, &err);
		if (rc)
			fail_msg("%s: '%s' [%s] does not resolve: %s", sysfs, e->name,
				 e->kind, err.msg);
		const struct hpm_event *ev = hpm_evlist__event(list, 0);
		bool generic = !strcmp(e->kind, "hardware") || !strcmp(e->kind, "cache");
		if (!strcmp(e->kind, "vendor")) {
			/* an uncore event: one per box of its PMU, each its own */
			assert_true(hpm_evlist__count(list) >= 1);
			for (size_t k = 0; k < hpm_evlist__count(list); k++) {
				const char *pmu = hpm_event__pmu(hpm_evlist__event(list, k));
				if (strcmp(e->pmu, "cpu") && strncmp(pmu, e->pmu, strlen(e->pmu)))
					fail_msg("%s: '%s' of %s resolves to PMU %s", sysfs,
						 e->name, e->pmu, pmu);
			}
		} else {
			assert_int_equal(hpm_evlist__count(list), generic ? cores : 1);
		}
		bool kind_ok = false;
		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
			if (!strcmp(kinds[k].kind, e->kind))
				kind_ok = hpm_event__kind(ev) == kinds[k].ev;
		if (!kind_ok)
			fail_msg("%s: '%s' offered as [%s] resolves to kind %d", sysfs,
				 e->name, e->kind, (int)hpm_event__kind(ev));
		if (!strcmp(e->kind, "pmu") && strcmp(hpm_event__pmu(ev), e->pmu))
			fail_msg("%s: '%s' resolves to PMU %s", sysfs, e->name,
				 hpm_event__pmu(ev));
		hpm_evlist__free(list);
		checked++;
	}
	assert_true(checked > 50);
	free(es.v);
	hpm_ctx__free(ctx);
}

static void check_resolves(const char *sysfs, unsigned flags)
{
	check_resolves_cores(sysfs, flags, 1);
}

static void test_resolves_skl(void **state) { (void)state; check_resolves(DATA "/sysfs-intel-skl", 0); }
static void test_resolves_adl(void **state) { (void)state; check_resolves_cores(DATA "/sysfs-intel-adl", 0, 2); }
static void test_resolves_zen3(void **state) { (void)state; check_resolves(DATA "/sysfs-amd-zen3", 0); }
static void test_resolves_n1(void **state) { (void)state; check_resolves(DATA "/sysfs-arm-n1", 0); }
static void test_resolves_vm(void **state) { (void)state; check_resolves(DATA "/sysfs-x86-vm-nopmu", 0); }

/* libpfm4 natives: main() makes libpfm4 detect a Skylake whatever the
 * machine, so each of its events and umasks must resolve. */
static void test_resolves_native(void **state)
{
	(void)state;
	struct hpm_ctx *ctx = ctx_for(DATA "/sysfs-intel-skl", NULL);
	struct entries es = { 0 };
	size_t natives = 0;

	assert_int_equal(hpm_catalog__foreach(ctx, HPM_CATALOG_NATIVE, collect, &es), 0);
	for (size_t i = 0; i < es.nr; i++)
		natives += !strcmp(es.v[i].kind, "native");
	assert_true(natives > 100);
	assert_non_null(find(&es, "skl::INST_RETIRED:ANY_P"));
	assert_string_equal(find(&es, "skl::INST_RETIRED:ANY_P")->pmu, "skl");
	/* an event whose umasks have no default is offered with umasks only */
	assert_null(find(&es, "skl::MEM_LOAD_RETIRED"));
	assert_non_null(find(&es, "skl::MEM_LOAD_RETIRED:L1_HIT"));
	free(es.v);
	hpm_ctx__free(ctx);
	check_resolves(DATA "/sysfs-intel-skl", HPM_CATALOG_NATIVE);
}

static int stop_at_third(const struct hpm_catalog_entry *e, void *arg)
{
	(void)e;
	return ++*(int *)arg == 3 ? 42 : 0;
}

static void test_stops_early(void **state)
{
	(void)state;
	struct hpm_ctx *ctx = ctx_for(DATA "/sysfs-intel-skl", NULL);
	int calls = 0;

	assert_int_equal(hpm_catalog__foreach(ctx, HPM_CATALOG_NATIVE, stop_at_third,
					      &calls), 42);
	assert_int_equal(calls, 3);
	hpm_ctx__free(ctx);
}

int main(void)
{
	/* before libpfm4 is initialised (once per process) */
	setenv("LIBPFM_FORCE_PMU", "skl", 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vm_offers),
		cmocka_unit_test(test_resolves_skl),
		cmocka_unit_test(test_resolves_adl),
		cmocka_unit_test(test_resolves_zen3),
		cmocka_unit_test(test_resolves_n1),
		cmocka_unit_test(test_resolves_vm),
		cmocka_unit_test(test_resolves_native),
		cmocka_unit_test(test_stops_early),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
