// SPDX-License-Identifier: MIT
/*
 * The shipped knowledge (data/metrics-*.txt, data/costs-*.txt): every
 * metric file parses on its own, every cost line is well formed, and every
 * metric of a family's set resolves against that family's recorded tree
 * (tests/data), Intel and AMD natives in child processes with libpfm4
 * forced to that PMU. A metric that cannot resolve on a family must be
 * listed below with the reason, so that a gap is a decision, not an
 * accident.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <hpmon/metric.h>
#include "core/data-internal.h"

#define SKIP_STATUS 77

static struct hpm_ctx *ctx_for(const char *tree)
{
	char sysfs[512];
	struct hpm_ctx_opts o = { .sz = sizeof(o), .sysfs_root = sysfs, .procfs_root = "/proc" };
	snprintf(sysfs, sizeof(sysfs), "%s/%s", HPM_TEST_DATA, tree);
	return hpm_ctx__new(&o);
}

static void test_files_parse(void **state)
{
	struct hpm_ctx *ctx = ctx_for("sysfs-arm-n1");
	struct hpm_metricset_opts o = { .sz = sizeof(o), .family = "generic", .no_builtin = true };
	size_t files = 0;
	(void)state;

	for (const struct hpm_data_file *f = hpm_data_files; f->name; f++) {
		struct hpm_parse_error err;
		if (!strncmp(f->name, "metrics-", 8)) {
			struct hpm_metricset *ms = hpm_metricset__new(ctx, &o);
			assert_non_null(ms);
			if (hpm_metricset__add_text(ms, f->text, f->name, &err)) {
				fprintf(stderr, "%s\n", err.msg);
				fail();
			}
			/* every metric says what it is */
			for (size_t i = 0; i < hpm_metricset__count(ms); i++) {
				const struct hpm_metric *m = hpm_metricset__metric(ms, i);
				if (!hpm_metric__desc(m)[0] || !hpm_metric__groups(m)[0]) {
					fprintf(stderr, "%s: %s lacks a desc or group\n",
						hpm_metric__origin(m), hpm_metric__name(m));
					fail();
				}
			}
			hpm_metricset__free(ms);
			files++;
		} else if (!strncmp(f->name, "costs-", 6)) {
			struct hpm_data_line l = { 0 };
			size_t pos = 0;
			while (hpm_data__next(f->text, &pos, 4, &l)) {
				char *end;
				double c = l.nr >= 3 ? strtod(l.field[2], &end) : 0;
				if (l.nr < 4 || c <= 0 || *end) {
					fprintf(stderr, "%s:%u: want CAUSE EVENT CYCLES DESCRIPTION\n",
						f->name, l.lineno);
					fail();
				}
			}
			files++;
		}
	}
	/* software, generic, intel, amd, arm, and four cost files */
	assert_true(files >= 9);
	hpm_ctx__free(ctx);
}

/* Metrics that cannot resolve on a family, and the words of the reason.
 * A name ending in '*' stands for every metric it begins (perf's figures
 * beside --topdown's events, which each model has only some of). */
struct gap {
	const char *tree, *metric, *why;
};

static const struct gap gaps[] = {
	{ "sysfs-arm-n1", "flops", "PAPI_FP_OPS: no mapping on arm processors" },
	{ "sysfs-x86-vm-nopmu", "l2_hit_ratio", "PAPI_L2_TCM: no mapping on software processors" },
	{ "sysfs-x86-vm-nopmu", "l2_miss_rate", "PAPI_L2_TCM: no mapping on software processors" },
	{ "sysfs-x86-vm-nopmu", "l2_mpki", "PAPI_L2_TCM: no mapping on software processors" },
	{ "sysfs-x86-vm-nopmu", "flops", "PAPI_FP_OPS: no mapping on software processors" },
	{ "sysfs-intel-skl", "td_*", "topdown-" },
};

static bool gap_is(const struct gap *g, const char *tree, const char *metric)
{
	size_t n = strlen(g->metric);
	if (strcmp(g->tree, tree))
		return false;
	return g->metric[n - 1] == '*' ? !strncmp(g->metric, metric, n - 1)
				       : !strcmp(g->metric, metric);
}

static int check_set(const char *tree, const char *family)
{
	struct hpm_ctx *ctx = ctx_for(tree);
	struct hpm_metricset *ms = hpm_metricset__new(ctx, NULL);
	int bad = 0;

	if (!ms || strcmp(hpm_metricset__family(ms), family)) {
		fprintf(stderr, "%s: family %s, expected %s\n", tree,
			ms ? hpm_metricset__family(ms) : "?", family);
		return 1;
	}
	for (size_t i = 0; i < hpm_metricset__count(ms); i++) {
		const struct hpm_metric *m = hpm_metricset__metric(ms, i);
		struct hpm_parse_error err;
		const struct gap *g = NULL;
		/* the vendor's tables are the host's model's (its /proc/cpuinfo),
		 * not the tree's: test-metric-vendor checks them */
		if (!strncmp(hpm_metric__origin(m), "data/vendor/", 12))
			continue;
		for (size_t k = 0; k < sizeof(gaps) / sizeof(gaps[0]); k++)
			if (gap_is(&gaps[k], tree, hpm_metric__name(m)))
				g = &gaps[k];
		int rc = hpm_metricset__check(ms, m, &err);
		if (!rc && g && !strchr(g->metric, '*')) {
			fprintf(stderr, "[%s] %s resolves now: remove it from the gaps\n", tree,
				hpm_metric__name(m));
			bad++;
		} else if (rc && (!g || !strstr(err.msg, g->why))) {
			fprintf(stderr, "[%s] %s: %s\n", tree, hpm_metric__origin(m), err.msg);
			bad++;
		}
	}
	/* the scenarios the issue asks for */
	static const char *const groups[] = { "ipc", "branch", "l1", "l2", "tlb", "memory",
					       "stalls", "cost" };
	for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
		if (!hpm_metricset__is_group(ms, groups[i])) {
			fprintf(stderr, "[%s] no group %s\n", tree, groups[i]);
			bad++;
		}
	if (!strcmp(family, "intel") && !hpm_metricset__is_group(ms, "topdown")) {
		fprintf(stderr, "[%s] no topdown group\n", tree);
		bad++;
	}
	hpm_metricset__free(ms);
	hpm_ctx__free(ctx);
	return bad;
}

static int in_child(const char *tree, const char *family, const char *force)
{
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (force) {
			char probe[128];
			struct hpm_ctx *ctx;
			struct hpm_evlist *l = NULL;
			setenv("LIBPFM_FORCE_PMU", force, 1);
			snprintf(probe, sizeof(probe), "%s::%s", force,
				 !strcmp(family, "intel") ? "INST_RETIRED:ANY_P" : "RETIRED_INSTRUCTIONS");
			ctx = ctx_for(tree);
			if (hpm_evlist__parse(ctx, probe, &l, NULL))
				_exit(SKIP_STATUS);
			hpm_evlist__free(l);
			hpm_ctx__free(ctx);
		}
		int bad = check_set(tree, family);
		_exit(bad > 76 ? 76 : bad);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static void test_sets_resolve(void **state)
{
	static const struct { const char *tree, *family, *force; } t[] = {
		{ "sysfs-arm-n1", "arm", NULL },
		{ "sysfs-x86-vm-nopmu", "software", NULL },
		{ "sysfs-intel-skl", "intel", "skl" },
		{ "sysfs-amd-zen3", "amd", "amd64_fam19h_zen3" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int rc = in_child(t[i].tree, t[i].family, t[i].force);
		if (rc == SKIP_STATUS) {
			fprintf(stderr, "note: this libpfm4 does not know %s: %s not checked\n",
				t[i].force, t[i].tree);
			continue;
		}
		if (rc) {
			fprintf(stderr, "%s: %d metrics do not resolve\n", t[i].tree, rc);
			fail();
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_files_parse),
		cmocka_unit_test(test_sets_resolve),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
