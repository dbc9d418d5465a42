// SPDX-License-Identifier: MIT
/*
 * Every metric of the vendors' tables (data/vendor/<arch>/<model>/metrics.txt,
 * docs/vendor-tables.md; HPMON_VENDOR_DIR names another tree) parses as
 * a metric file, and its events, references followed, fit the engine's
 * bounds: the distinct events of one metric (HPM_EXPR_MAX_INPUTS), the
 * chain of metrics referring to metrics (HPM_METRIC_MAX_CHAIN), the
 * nesting of one formula (HPM_EXPR_MAX_DEPTH). It prints the largest of
 * each, the measurements behind the bounds (docs/metrics.md); that test
 * skips where there are no tables. And the vendor attributes of the
 * metric file format (scale, unit, pmu, constraint).
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <cmocka.h>

#include <hpmon/event.h>
#include <hpmon/metric.h>
#include "metrics/metric-internal.h"
#include "skip.h"

static char root[1024];

static unsigned height(const struct hpm_node *n)
{
	unsigned h = 0;
	for (unsigned i = 0; i < n->nr_kids; i++) {
		unsigned k = height(n->kids[i]);
		h = k > h ? k : h;
	}
	return h + 1;
}

/* How deep the chain of metrics under @e goes (0: refers to none). */
static unsigned chain(const struct hpm_metricset *ms, const struct hpm_expr *e, unsigned d)
{
	unsigned best = d;
	if (d > HPM_METRIC_MAX_CHAIN)
		return d;
	for (size_t r = 0; r < hpm_expr__nr_refs(e); r++) {
		const struct hpm_metric *sub = hpm__metricset_find(ms, hpm_expr__ref(e, r));
		if (sub) {
			unsigned k = chain(ms, sub->expr, d + 1);
			best = k > best ? k : best;
		}
	}
	return best;
}

struct worst {
	int events, chain, height, nodes, refs, metrics;
	char events_at[160], chain_at[160], height_at[160];
	unsigned files, total;
};

static void one_file(struct hpm_ctx *ctx, const char *path, const char *model, struct worst *w)
{
	struct hpm_metricset_opts o = { .sz = sizeof(o), .family = "generic", .no_builtin = true };
	struct hpm_metricset *ms = hpm_metricset__new(ctx, &o);
	struct hpm_parse_error err;
	const char **names = calloc(HPM_EXPR_MAX_INPUTS, sizeof(*names));

	assert_non_null(ms);
	assert_non_null(names);
	if (hpm_metricset__add_file(ms, path, &err)) {
		fprintf(stderr, "%s: %s\n", path, err.msg);
		fail();
	}
	size_t n = hpm_metricset__count(ms);
	assert_true(n > 0);
	w->files++;
	w->total += (unsigned)n;
	if ((int)n > w->metrics)
		w->metrics = (int)n;
	for (size_t i = 0; i < n; i++) {
		const struct hpm_metric *m = hpm_metricset__metric(ms, i);
		int k = hpm_metricset__leaves(ms, m, names, HPM_EXPR_MAX_INPUTS);
		if (k < 0) {
			fprintf(stderr, "%s: %s: its events do not fit (%d)\n", model, m->name, k);
			fail();
		}
		if (k > w->events) {
			w->events = k;
			snprintf(w->events_at, sizeof(w->events_at), "%s %s", model, m->name);
		}
		int c = (int)chain(ms, m->expr, 0);
		assert_true(c <= HPM_METRIC_MAX_CHAIN);
		if (c > w->chain) {
			w->chain = c;
			snprintf(w->chain_at, sizeof(w->chain_at), "%s %s", model, m->name);
		}
		int h = (int)height(m->expr->root);
		if (h > w->height) {
			w->height = h;
			snprintf(w->height_at, sizeof(w->height_at), "%s %s", model, m->name);
		}
		if ((int)m->expr->nr_nodes > w->nodes)
			w->nodes = (int)m->expr->nr_nodes;
		if ((int)m->expr->nr_refs > w->refs)
			w->refs = (int)m->expr->nr_refs;
		/* perf finds metrics by name whatever the case: the tables
		 * refer to them as they spell them */
		for (size_t r = 0; r < hpm_expr__nr_refs(m->expr); r++) {
			const char *ref = hpm_expr__ref(m->expr, r);
			if (hpm__metricset_find(ms, ref))
				continue;
			for (size_t j = 0; j < n; j++)
				if (!strcasecmp(hpm_metricset__metric(ms, j)->name, ref)) {
					fprintf(stderr, "%s: %s refers to %s as %s\n", model, m->name,
						hpm_metricset__metric(ms, j)->name, ref);
					fail();
				}
		}
	}
	free(names);
	hpm_metricset__free(ms);
}

/* The vendor attributes of a metric file, perf's literal in a formula
 * (not a comment), a hybrid model's metric named once per pmu. */
static void test_attributes(void **state)
{
	struct hpm_ctx_opts co = { .sz = sizeof(co), .sysfs_root = HPM_TEST_DATA "/sysfs-intel-skl",
				   .procfs_root = "/proc" };
	struct hpm_ctx *ctx = hpm_ctx__new(&co);
	struct hpm_metricset_opts o = { .sz = sizeof(o), .family = "generic", .no_builtin = true };
	struct hpm_metricset *ms;
	struct hpm_parse_error err;
	static const char text[] =
		"metric tma_frontend_bound   # a comment\n"
		"    formula     IDQ_UOPS_NOT_DELIVERED.CORE / (4 * (CPU_CLK_UNHALTED.THREAD_ANY / 2 if #SMT_on else CLKS))\n"
		"    scale       100\n"
		"    unit        %\n"
		"    desc        Frontend bound\n"
		"    group       PGO TopdownL1 tma_L1_group\n"
		"    pmu         cpu_core\n"
		"    constraint  NO_NMI_WATCHDOG\n"
		"metric tma_frontend_bound\n"
		"    formula     a / b\n"
		"    pmu         cpu_atom\n"
		"metric CLKS\n"
		"    formula     CPU_CLK_UNHALTED.THREAD\n";
	(void)state;

	assert_non_null(ctx);
	ms = hpm_metricset__new(ctx, &o);
	assert_non_null(ms);
	if (hpm_metricset__add_text(ms, text, "t", &err)) {
		fprintf(stderr, "%s\n", err.msg);
		fail();
	}
	assert_int_equal(hpm_metricset__count(ms), 3);
	const struct hpm_metric *m = hpm_metricset__metric(ms, 0);
	assert_string_equal(m->name, "tma_frontend_bound");
	assert_true(m->scale == 100);
	assert_string_equal(m->unit, "%");
	assert_string_equal(m->pmu, "cpu_core");
	assert_string_equal(m->constraint, "NO_NMI_WATCHDOG");
	assert_string_equal(m->groups, "PGO TopdownL1 tma_L1_group");
	assert_string_equal(hpm_expr__text(m->expr),
			    "(IDQ_UOPS_NOT_DELIVERED.CORE / (4 * (CPU_CLK_UNHALTED.THREAD_ANY / 2 "
			    "if #SMT_on else CLKS))) * 100");
	assert_true(hpm_metric__in_group(m, "TopdownL1"));
	assert_string_equal(hpm_metricset__metric(ms, 1)->pmu, "cpu_atom");
	assert_true(hpm_metricset__metric(ms, 2)->scale == 1);
	assert_string_equal(hpm_metricset__metric(ms, 2)->pmu, "");

	/* bad attributes: refused with the line and the cause */
	static const struct { const char *text, *msg; } bad[] = {
		{ "metric x\n formula a\n scale 0\n", "t:3: scale of x must be a number other than 0, not '0'" },
		{ "metric x\n formula a\n scale 1e999\n", "scale of x must be a number" },
		{ "metric x\n formula a\n constraint NO_SUCH\n", "constraint of x must be NO_NMI_WATCHDOG" },
		{ "metric x\n formula a\n pmu cpu/x\n", "pmu of x: a PMU name" },
		{ "metric x\n formula a\n pmu p\nmetric x\n formula b\n pmu p\n", "metric x is defined twice" },
		{ "metric x\n formula a + #nope\n", "unknown literal '#nope'" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(hpm_metricset__add_text(ms, bad[i].text, "t", &err), -HPM_ERR_SYNTAX);
		if (!strstr(err.msg, bad[i].msg)) {
			fprintf(stderr, "'%s': '%s', expected '%s'\n", bad[i].text, err.msg, bad[i].msg);
			fail();
		}
	}
	hpm_metricset__free(ms);
	hpm_ctx__free(ctx);
}

/* A sysfs tree of @smt ("0", "1", or NULL: not said) in @dir. */
static void smt_tree(char *dir, size_t len, const char *smt)
{
	char path[600];
	snprintf(dir, len, "/tmp/hpm-test-smt-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "mkdir -p %s/devices/system/cpu/smt", dir);
	assert_int_equal(system(path), 0);
	if (smt) {
		snprintf(path, sizeof(path), "%s/devices/system/cpu/smt/active", dir);
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		fprintf(f, "%s\n", smt);
		fclose(f);
	}
}

/* perf opens the events of the branch an 'if' on a literal takes: with
 * SMT off, 'A / 2 if #SMT_on else B' counts B alone; unknown, both. */
static void test_literal_branch(void **state)
{
	static const struct { const char *smt, *want; } t[] = {
		{ "0", "c d" }, { "1", "c a" }, { NULL, "c a d" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char dir[64], cmd[128], got[128] = "";
		smt_tree(dir, sizeof(dir), t[i].smt);
		struct hpm_ctx_opts co = { .sz = sizeof(co), .sysfs_root = dir, .procfs_root = "/proc" };
		struct hpm_ctx *ctx = hpm_ctx__new(&co);
		struct hpm_metricset_opts o = { .sz = sizeof(o), .family = "generic", .no_builtin = true };
		struct hpm_metricset *ms = hpm_metricset__new(ctx, &o);
		struct hpm_parse_error err;
		const char *names[8];
		assert_int_equal(hpm_metricset__add_text(ms,
			"metric x\n formula c * (a / 2 if #SMT_on else d) / (c if 1 > 2 else c)\n", "t", &err), 0);
		int n = hpm_metricset__leaves(ms, hpm_metricset__find(ms, "x"), names, 8);
		for (int k = 0; k < n; k++)
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", k ? " " : "", names[k]);
		if (strcmp(got, t[i].want)) {
			fprintf(stderr, "SMT %s: events '%s', expected '%s'\n", t[i].smt ? t[i].smt : "unknown",
				got, t[i].want);
			fail();
		}
		hpm_metricset__free(ms);
		hpm_ctx__free(ctx);
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		assert_int_equal(system(cmd), 0);
	}
}

/* perf 6.1's #core_wide: 0 unless every CPU is counted; then 1 without
 * SMT or without -C's list; with both, not known. */
static void test_core_wide(void **state)
{
	static const struct { const char *smt; bool sw, list; const char *want; } t[] = {
		{ "1", false, false, "a" }, { "0", false, false, "a" }, { "0", true, true, "b" },
		{ "1", true, false, "b" }, { "1", true, true, "a b" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char dir[64], cmd[128], got[128] = "";
		smt_tree(dir, sizeof(dir), t[i].smt);
		struct hpm_ctx_opts co = { .sz = sizeof(co), .sysfs_root = dir, .procfs_root = "/proc" };
		struct hpm_ctx *ctx = hpm_ctx__new(&co);
		struct hpm_metricset_opts o = { .sz = sizeof(o), .family = "generic", .no_builtin = true,
						.system_wide = t[i].sw, .cpu_list = t[i].list };
		struct hpm_metricset *ms = hpm_metricset__new(ctx, &o);
		struct hpm_parse_error err;
		const char *names[8];
		assert_int_equal(hpm_metricset__add_text(ms,
			"metric x\n formula a if #core_wide < 1 else b\n", "t", &err), 0);
		int n = hpm_metricset__leaves(ms, hpm_metricset__find(ms, "x"), names, 8);
		for (int k = 0; k < n; k++)
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", k ? " " : "", names[k]);
		if (strcmp(got, t[i].want)) {
			fprintf(stderr, "case %zu: events '%s', expected '%s'\n", i, got, t[i].want);
			fail();
		}
		hpm_metricset__free(ms);
		hpm_ctx__free(ctx);
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		assert_int_equal(system(cmd), 0);
	}
}

static void test_every_table(void **state)
{
	struct hpm_ctx_opts co = { .sz = sizeof(co), .sysfs_root = HPM_TEST_DATA "/sysfs-intel-skl",
				   .procfs_root = "/proc" };
	struct hpm_ctx *ctx = hpm_ctx__new(&co);
	struct worst w = { 0 };
	static const char *const arch[] = { "x86", "arm64" };
	(void)state;

	DIR *top = opendir(root);
	if (!top) {
		hpm_ctx__free(ctx);
		hpm_skip_note(__FILE__, "test_every_table", "no vendor tables here (data/vendor, or HPMON_VENDOR_DIR)");
		skip();
	}
	closedir(top);
	assert_non_null(ctx);
	for (size_t a = 0; a < 2; a++) {
		char dir[1200];
		snprintf(dir, sizeof(dir), "%s/%s", root, arch[a]);
		DIR *d = opendir(dir);
		struct dirent *de;
		while (d && (de = readdir(d))) {
			char path[2600];
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s/metrics.txt", dir, de->d_name);
			FILE *f = fopen(path, "r");
			if (!f)
				continue;
			fclose(f);
			one_file(ctx, path, de->d_name, &w);
		}
		if (d)
			closedir(d);
	}
	hpm_ctx__free(ctx);
	printf("%u files, %u metrics (at most %d in one)\n", w.files, w.total, w.metrics);
	printf("most events of one metric, references followed: %d (%s)\n", w.events, w.events_at);
	printf("deepest chain of metrics: %d (%s)\n", w.chain, w.chain_at);
	printf("deepest formula: %d levels (%s); most nodes %d; most names %d\n", w.height,
	       w.height_at, w.nodes, w.refs);
	assert_true(w.files > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_attributes),
		cmocka_unit_test(test_literal_branch),
		cmocka_unit_test(test_core_wide),
		cmocka_unit_test(test_every_table),
	};
	const char *env = getenv("HPMON_VENDOR_DIR");

	snprintf(root, sizeof(root), "%s", env && *env ? env : HPM_TEST_DATA "/../../data/vendor");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
