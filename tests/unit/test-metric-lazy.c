// SPDX-License-Identifier: MIT
/*
 * The metric set reads its built-in metrics at the first need. perf's
 * figures beside the counts (hpm_msel__add_bound) bind only to events in
 * the list, so a list of software events reads metrics-software.txt alone:
 * no family detection (which reads sysfs), no other file. That is exact
 * only while no other built-in file has a metric that counts software
 * events alone, nor replaces or refers into the software file's metrics:
 * test_software_file_holds_them checks it for every family, and the other
 * tests that the lazy set shows what the whole set shows.
 */
#include <errno.h>
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
#include "core/data-internal.h"
#include "metrics/metric-internal.h"
#include "metric-software.h"

#define SOFTWARE_FILE "data/metrics-software.txt"

static struct hpm_ctx *ctx_for(const char *tree)
{
	char sysfs[512];
	struct hpm_ctx_opts o = { .sz = sizeof(o), .sysfs_root = sysfs, .procfs_root = "/proc" };
	snprintf(sysfs, sizeof(sysfs), "%s/%s", HPM_TEST_DATA, tree);
	return hpm_ctx__new(&o);
}

static bool from_software_file(const struct hpm_metric *m)
{
	return !strncmp(hpm_metric__origin(m), SOFTWARE_FILE, strlen(SOFTWARE_FILE));
}

static void test_software_file_holds_them(void **state)
{
	static const struct { const char *tree, *family; } t[] = {
		{ "sysfs-x86-vm-nopmu", "software" }, { "sysfs-intel-skl", "generic" },
		{ "sysfs-intel-skl", "intel" },       { "sysfs-amd-zen3", "amd" },
		{ "sysfs-arm-n1", "arm" },
	};
	int bad = 0;
	(void)state;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct hpm_ctx *ctx = ctx_for(t[i].tree);
		struct hpm_metricset_opts o = { .sz = sizeof(o), .family = t[i].family };
		struct hpm_metricset *ms = hpm_metricset__new(ctx, &o);
		size_t nsw = 0;
		assert_non_null(ms);
		for (size_t k = 0; k < hpm_metricset__count(ms); k++) {
			const struct hpm_metric *m = hpm_metricset__metric(ms, k);
			const struct hpm_expr *e = hpm_metric__expr(m);
			if (!from_software_file(m)) {
				if (counts_software_only(ctx, ms, m)) {
					fprintf(stderr, "[%s] %s (%s) counts software events only: "
						"move it to metrics-software.txt\n", t[i].family,
						hpm_metric__name(m), hpm_metric__origin(m));
					bad++;
				}
				continue;
			}
			nsw++;
			for (size_t r = 0; r < hpm_expr__nr_refs(e); r++) {
				const struct hpm_metric *sub = hpm_metricset__find(ms, hpm_expr__ref(e, r));
				if (sub && !from_software_file(sub)) {
					fprintf(stderr, "[%s] %s refers to %s of %s\n", t[i].family,
						hpm_metric__name(m), hpm_metric__name(sub),
						hpm_metric__origin(sub));
					bad++;
				}
			}
		}
		/* none of the software file's was replaced by a later file */
		struct hpm_metricset_opts so = { .sz = sizeof(so), .family = t[i].family,
						  .no_builtin = true };
		struct hpm_metricset *sw = hpm_metricset__new(ctx, &so);
		struct hpm_parse_error err;
		assert_non_null(sw);
		assert_int_equal(hpm_metricset__add_text(sw, hpm_data__get("metrics-software.txt"),
							 SOFTWARE_FILE, &err), 0);
		if (nsw != hpm_metricset__count(sw)) {
			fprintf(stderr, "[%s] %zu of the software file's %zu metrics kept\n",
				t[i].family, nsw, hpm_metricset__count(sw));
			bad++;
		}
		hpm_metricset__free(sw);
		hpm_metricset__free(ms);
		hpm_ctx__free(ctx);
	}
	assert_int_equal(bad, 0);
}

/* The bound metrics of "default" for @spec: their names, space separated;
 * *@whole: was the whole set read? */
static void bound(struct hpm_ctx *ctx, const char *spec, bool eager, char *out, size_t len,
		  bool *whole)
{
	struct hpm_metricset *ms = hpm_metricset__new(ctx, NULL);
	struct hpm_evlist *l = NULL;
	struct hpm_msel *sel;
	char *plan = NULL;

	assert_non_null(ms);
	if (eager)
		assert_true(hpm_metricset__count(ms) > 0);
	sel = hpm_msel__new(ms);
	assert_non_null(sel);
	assert_int_equal(hpm_msel__add_bound(sel, "default"), 0);
	assert_int_equal(hpm_msel__plan(sel, NULL, &plan), 0);
	assert_string_equal(plan, ""); /* bound metrics add no event */
	free(plan);
	assert_int_equal(hpm_evlist__parse(ctx, spec, &l, NULL), 0);
	assert_int_equal(hpm_msel__bind(sel, l, hpm_evlist__count(l)), 0);
	*whole = ms->loaded == HPM_MS_ALL;
	out[0] = '\0';
	for (size_t i = 0; i < hpm_msel__count(sel); i++) {
		size_t n = strlen(out);
		snprintf(out + n, len - n, "%s%s", n ? " " : "", hpm_metric__name(hpm_msel__metric(sel, i)));
	}
	hpm_evlist__free(l);
	hpm_msel__free(sel);
	hpm_metricset__free(ms);
}

static void test_lazy_shows_the_same(void **state)
{
	static const struct { const char *spec; bool whole; const char *shown; } t[] = {
		{ "task-clock", false, "cpus_utilized" },
		{ "task-clock,page-faults,cpu-clock", false, "cpus_utilized cpu_clock_utilized" },
		/* a hardware event: the whole set, chosen in its order */
		{ "task-clock,cycles,instructions", true, "cpus_utilized ipc" },
		{ "cycles", true, "" },
	};
	struct hpm_ctx *ctx = ctx_for("sysfs-intel-skl");
	(void)state;

	assert_non_null(ctx);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char lazy[256], eager[256];
		bool whole, whole_eager;
		bound(ctx, t[i].spec, false, lazy, sizeof(lazy), &whole);
		bound(ctx, t[i].spec, true, eager, sizeof(eager), &whole_eager);
		assert_true(whole_eager);
		if (whole != t[i].whole || strcmp(lazy, t[i].shown) || strcmp(eager, t[i].shown)) {
			fprintf(stderr, "%s: lazy '%s' (whole set read: %d), eager '%s', "
				"expected '%s' (%d)\n", t[i].spec, lazy, whole, eager, t[i].shown,
				t[i].whole);
			fail();
		}
	}
	hpm_ctx__free(ctx);
}

/* Asking the set anything reads it all, before what the caller adds. */
static void test_accessors_read_all(void **state)
{
	struct hpm_ctx *ctx = ctx_for("sysfs-intel-skl");
	struct hpm_metricset *ms = hpm_metricset__new(ctx, NULL);
	struct hpm_parse_error err;
	(void)state;

	assert_non_null(ms);
	assert_int_equal(ms->loaded, HPM_MS_NONE);
	assert_false(ms->fam_known); /* no sysfs read yet */
	/* a user's metric replaces the built-in one of its name */
	assert_int_equal(hpm_metricset__add_inline(ms, "ipc = instructions / cycles / 2", &err), 0);
	assert_int_equal(ms->loaded, HPM_MS_ALL);
	assert_string_equal(hpm_metricset__family(ms), "intel");
	assert_string_equal(hpm_metric__origin(hpm_metricset__find(ms, "ipc")), "--metric");
	assert_non_null(hpm_metricset__find(ms, "cpus_utilized"));
	hpm_metricset__free(ms);
	hpm_ctx__free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_software_file_holds_them),
		cmocka_unit_test(test_lazy_shows_the_same),
		cmocka_unit_test(test_accessors_read_all),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
