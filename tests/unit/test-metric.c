// SPDX-License-Identifier: MIT
/*
 * Metric sets, selections and uncertainty (lib/metrics/metric*.c, msel*.c,
 * slices.c): the metric file format and its errors, inline metrics,
 * metrics built on metrics, forms, selecting groups, scheduling events
 * into groups that fit the counters, binding to a list and evaluating from
 * counts; and the uncertainty of multiplexed counts. Against recorded sysfs
 * trees (tests/data), so nothing here needs a PMU.
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
#include <unistd.h>
#include <cmocka.h>

#include <hpmon/metric.h>

static struct hpm_ctx *ctx_for(const char *tree)
{
	char sysfs[512];
	struct hpm_ctx_opts o = { .sz = sizeof(o), .sysfs_root = sysfs, .procfs_root = "/proc" };
	snprintf(sysfs, sizeof(sysfs), "%s/%s", HPM_TEST_DATA, tree);
	return hpm_ctx__new(&o);
}

/* An empty set of @family on @tree. */
static struct hpm_metricset *empty_set(struct hpm_ctx *ctx, const char *family)
{
	struct hpm_metricset_opts o = { .sz = sizeof(o), .family = family, .no_builtin = true };
	struct hpm_metricset *ms = hpm_metricset__new(ctx, &o);
	assert_non_null(ms);
	return ms;
}

static const char good_file[] =
	"# a comment\n"
	"metric ratio_ab\n"
	"    formula  a_ev / b_ev   # trailing comment\n"
	"    unit     a per b\n"
	"    desc     A over B\n"
	"    group    g1, g2\n"
	"    form     ratio\n"
	"\n"
	"metric pct\n"
	"    formula  ratio_ab \\\n"
	"             * 1\n"
	"    form     percent\n"
	"    group    g2\n"
	"metric rate\n"
	"    formula  a_ev\n"
	"    form     per-second\n"
	"metric mpki\n"
	"    formula  a_ev\n"
	"    form     per-kinst\n";

static void test_file_format(void **state)
{
	struct hpm_ctx *ctx = ctx_for("sysfs-arm-n1");
	struct hpm_metricset *ms = empty_set(ctx, "generic");
	struct hpm_parse_error err;
	const struct hpm_metric *m;
	(void)state;

	assert_int_equal(hpm_metricset__add_text(ms, good_file, "good.txt", &err), 0);
	assert_int_equal(hpm_metricset__count(ms), 4);
	m = hpm_metricset__find(ms, "ratio_ab");
	assert_non_null(m);
	assert_string_equal(hpm_metric__formula(m), "a_ev / b_ev");
	assert_string_equal(hpm_metric__unit(m), "a per b");
	assert_string_equal(hpm_metric__desc(m), "A over B");
	assert_string_equal(hpm_metric__groups(m), "g1 g2");
	assert_string_equal(hpm_metric__origin(m), "good.txt:2");
	assert_true(hpm_metric__in_group(m, "g2"));
	assert_false(hpm_metric__in_group(m, "g"));
	assert_true(hpm_metricset__is_group(ms, "g1"));
	assert_false(hpm_metricset__is_group(ms, "ratio_ab"));
	m = hpm_metricset__find(ms, "pct");
	assert_string_equal(hpm_metric__formula(m), "ratio_ab * 1");
	assert_int_equal(hpm_metric__form(m), HPM_FORM_PERCENT);
	assert_string_equal(hpm_expr__text(hpm_metric__expr(m)), "(ratio_ab * 1) * 100");
	assert_string_equal(hpm_expr__text(hpm_metric__expr(hpm_metricset__find(ms, "rate"))),
			    "(a_ev) / duration_time");
	assert_string_equal(hpm_expr__text(hpm_metric__expr(hpm_metricset__find(ms, "mpki"))),
			    "(a_ev) / (instructions / 1000)");
	assert_string_equal(hpm_metric_form__str(HPM_FORM_PER_KINST), "per-kinst");
	/* a later definition replaces the earlier one, in place */
	assert_int_equal(hpm_metricset__add_text(ms, "metric rate\n formula b_ev\n", "o.txt", &err), 0);
	assert_int_equal(hpm_metricset__count(ms), 4);
	assert_string_equal(hpm_metric__formula(hpm_metricset__find(ms, "rate")), "b_ev");
	/* inline */
	assert_int_equal(hpm_metricset__add_inline(ms, "  mine = a_ev - 1 ", &err), 0);
	m = hpm_metricset__find(ms, "mine");
	assert_non_null(m);
	assert_string_equal(hpm_metric__groups(m), "user");
	assert_string_equal(hpm_metric__origin(m), "--metric");
	hpm_metricset__free(ms);
	hpm_ctx__free(ctx);
}

struct ferr {
	int line;
	const char *text;
	const char *msg;   /* substring of the message */
};

static const struct ferr file_errors[] = {
	{ __LINE__, "formula 1\n", "t.txt:1: 'formula' before the first 'metric NAME' line" },
	{ __LINE__, "metric a\n", "t.txt:1: metric a has no formula" },
	{ __LINE__, "metric a\n formula 1\nmetric b\n", "t.txt:3: metric b has no formula" },
	{ __LINE__, "metric a\n formula 1\n formula 2\n", "t.txt:3: formula of a given twice" },
	{ __LINE__, "metric a\n formul 1\n", "t.txt:2: unknown keyword 'formul'" },
	{ __LINE__, "metric a b\n", "t.txt:1: write 'metric NAME' (one name)" },
	{ __LINE__, "metric 1a\n formula 1\n", "t.txt:1: '1a' is not a metric name" },
	{ __LINE__, "metric if\n formula 1\n", "'if' is not a metric name" },
	{ __LINE__, "metric duration_time\n formula 1\n", "not a metric name" },
	{ __LINE__, "metric a-b\n formula 1\n", "not a metric name" },
	{ __LINE__, "metric a\n formula 1 +\n", "t.txt:2: formula of a, column 4: expected" },
	{ __LINE__, "metric a\n\n formula x \\\n  y\n", "t.txt:3: formula of a, column 3: 'y' follows" },
	{ __LINE__, "metric a\n formula 1\n form rate\n", "form of a must be ratio, percent" },
	{ __LINE__, "metric a\n formula 1\n group a/b\n", "groups of a: names" },
	{ __LINE__, "metric a\n formula 1\n desc\n", "desc of a is empty" },
	{ __LINE__, "metric a\n formula 1\nmetric a\n formula 2\n", "metric a is defined twice" },
	{ __LINE__, "metric a\n formula 1\n\x01\n", "control character" },
};

static void test_file_errors(void **state)
{
	struct hpm_ctx *ctx = ctx_for("sysfs-arm-n1");
	struct hpm_metricset *ms = empty_set(ctx, "generic");
	struct hpm_parse_error err;
	(void)state;

	for (size_t i = 0; i < sizeof(file_errors) / sizeof(file_errors[0]); i++) {
		const struct ferr *f = &file_errors[i];
		int rc = hpm_metricset__add_text(ms, f->text, "t.txt", &err);
		if (rc != -HPM_ERR_SYNTAX || !strstr(err.msg, f->msg)) {
			fprintf(stderr, "test-metric.c:%d: rc %d, message '%s', expected '%s'\n",
				f->line, rc, err.msg, f->msg);
			fail();
		}
		/* nothing of a bad file is added */
		assert_int_equal(hpm_metricset__count(ms), 0);
	}
	/* a bad file after a good one: the good metrics stay */
	assert_int_equal(hpm_metricset__add_text(ms, good_file, "g", &err), 0);
	assert_int_equal(hpm_metricset__add_text(ms, "metric z\n formula (\n", "t.txt", &err),
			 -HPM_ERR_SYNTAX);
	assert_int_equal(hpm_metricset__count(ms), 4);
	/* inline errors point into the definition */
	assert_int_equal(hpm_metricset__add_inline(ms, "x = 1 +", &err), -HPM_ERR_SYNTAX);
	assert_int_equal(err.pos, 7);
	assert_non_null(strstr(err.msg, "--metric x: expected"));
	assert_int_equal(hpm_metricset__add_inline(ms, "no definition", &err), -HPM_ERR_SYNTAX);
	assert_int_equal(hpm_metricset__add_inline(ms, "a == b", &err), -HPM_ERR_SYNTAX);
	assert_int_equal(hpm_metricset__add_inline(ms, "9x = 1", &err), -HPM_ERR_SYNTAX);
	assert_non_null(strstr(err.msg, "not a metric name"));
	/* files */
	assert_int_equal(hpm_metricset__add_file(ms, "/no/such/file", &err), -ENOENT);
	assert_non_null(strstr(err.msg, "/no/such/file"));
	char path[] = "/tmp/hpmon-metric-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "metric f\n formula 2 * a_ev\n", 27), 27);
	close(fd);
	assert_int_equal(hpm_metricset__add_file(ms, path, &err), 0);
	assert_non_null(hpm_metricset__find(ms, "f"));
	unlink(path);
	hpm_metricset__free(ms);
	hpm_ctx__free(ctx);
}

/* The shipped set of the Neoverse N1 tree: the arm family's chain. */
static void test_shipped(void **state)
{
	struct hpm_ctx *ctx = ctx_for("sysfs-arm-n1");
	struct hpm_metricset *ms = hpm_metricset__new(ctx, NULL);
	(void)state;

	assert_non_null(ms);
	assert_string_equal(hpm_metricset__family(ms), "arm");
	assert_true(hpm_metricset__nr_files(ms) >= 4);
	assert_string_equal(hpm_metricset__file(ms, 0), "metrics-software.txt");
	assert_string_equal(hpm_metricset__file(ms, 1), "metrics-generic.txt");
	assert_string_equal(hpm_metricset__file(ms, 2), "metrics-arm.txt");
	static const char *const groups[] = { "ipc", "branch", "l1", "l2", "tlb", "memory",
					       "stalls", "cost", "software", "default" };
	for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
		assert_true(hpm_metricset__is_group(ms, groups[i]));
	/* costs: Arm's override of the generic line, and the remainder */
	const struct hpm_metric *m = hpm_metricset__find(ms, "cost.l1d_miss");
	assert_non_null(m);
	assert_string_equal(hpm_metric__formula(m), "PAPI_L1_DCM * 10 / PAPI_TOT_CYC");
	assert_int_equal(hpm_metric__form(m), HPM_FORM_PERCENT);
	assert_non_null(strstr(hpm_metric__desc(m), "costs-arm.txt"));
	assert_non_null(hpm_metricset__find(ms, "cost.other"));
	assert_non_null(hpm_metricset__find(ms, "cost.llc_miss"));
	assert_string_equal(hpm_metric__formula(hpm_metricset__find(ms, "cost.llc_miss")),
			    "ll_cache_miss_rd * 150 / PAPI_TOT_CYC");
	/* the arm file replaces the generic l1_hit_ratio */
	assert_non_null(strstr(hpm_metric__origin(hpm_metricset__find(ms, "l1_hit_ratio")),
			       "metrics-arm.txt"));
	hpm_metricset__free(ms);
	/* an unknown family */
	struct hpm_metricset_opts o = { .sz = sizeof(o), .family = "sparc" };
	assert_null(hpm_metricset__new(ctx, &o));
	assert_int_equal(errno, EINVAL);
	hpm_ctx__free(ctx);
}

/* Evaluate the bound selection with per-event values looked up by name. */
struct named { const char *name; double v, sigma; };

static void eval_with(struct hpm_msel *sel, const struct hpm_evlist *list,
		      const struct named *vals, size_t nv, double secs, struct hpm_value *out)
{
	size_t n = hpm_evlist__count(list);
	struct hpm_value *ev = calloc(n, sizeof(*ev));
	assert_non_null(ev);
	for (size_t i = 0; i < n; i++) {
		const char *name = hpm_event__name(hpm_evlist__event(list, i));
		hpm_value__na(&ev[i], "%s: not counted", name);
		for (size_t k = 0; k < nv; k++)
			if (!strcmp(vals[k].name, name))
				hpm_value__set(&ev[i], vals[k].v, vals[k].sigma);
	}
	struct hpm_metric_env env = { .sz = sizeof(env), .events = ev, .nr_events = n,
				      .duration_s = secs, .num_cpus = 4 };
	assert_int_equal(hpm_msel__eval(sel, &env, out), 0);
	free(ev);
}

static size_t idx_of(const struct hpm_msel *sel, const char *name)
{
	for (size_t i = 0; i < hpm_msel__count(sel); i++)
		if (!strcmp(hpm_metric__name(hpm_msel__metric(sel, i)), name))
			return i;
	fprintf(stderr, "metric %s not selected\n", name);
	fail();
	return 0;
}

static void test_select_plan_eval(void **state)
{
	struct hpm_ctx *ctx = ctx_for("sysfs-arm-n1");
	struct hpm_metricset *ms = hpm_metricset__new(ctx, NULL);
	struct hpm_msel *sel = hpm_msel__new(ms);
	struct hpm_parse_error err;
	struct hpm_evlist *list = NULL;
	struct hpm_value out[64];
	char *spec = NULL;
	(void)state;

	/* the metric ipc and the group ipc: the group wins */
	assert_int_equal(hpm_msel__add(sel, "ipc:u", &err), 0);
	assert_true(hpm_msel__count(sel) >= 4);
	assert_string_equal(hpm_metric__name(hpm_msel__metric(sel, 0)), "ipc");
	/* a metric of the user's, built on another metric (the second pass) */
	assert_int_equal(hpm_metricset__add_inline(ms, "double_ipc = 2 * ipc", &err), 0);
	assert_int_equal(hpm_msel__add(sel, "double_ipc:u", &err), 0);
	struct hpm_plan_opts po = { .sz = sizeof(po), .nr_general = 6, .nr_fixed = 1 };
	assert_int_equal(hpm_msel__plan(sel, &po, &spec), 0);
	/* one group: cycles and cpu_cycles share the cycle counter, so the
	 * second needs a general one; software clocks are counted alone */
	assert_string_equal(spec, "{instructions:u,cycles:u,inst_retired:u,cpu_cycles:u},task-clock");
	assert_int_equal(hpm_msel__nr_notes(sel), 0);
	assert_int_equal(hpm_evlist__parse(ctx, spec, &list, &err), 0);
	assert_int_equal(hpm_msel__bind(sel, list, 0), 0);
	size_t ipc = idx_of(sel, "ipc"), cpi = idx_of(sel, "cpi"), mips = idx_of(sel, "mips");
	size_t dbl = idx_of(sel, "double_ipc");
	assert_int_equal(hpm_msel__anchor(sel, ipc), 0);
	assert_int_equal(hpm_msel__anchor(sel, cpi), 1);
	assert_string_equal(hpm_msel__unit(sel, ipc), "insn per cycle");
	assert_false(hpm_msel__is_bound_only(sel, ipc));
	const struct named vals[] = {
		{ "instructions:u", 3000, 30 }, { "cycles:u", 1000, 0 },
		{ "inst_retired:u", 3000, 0 }, { "cpu_cycles:u", 1500, 0 },
		{ "task-clock", 2e6, 0 },
	};
	eval_with(sel, list, vals, 5, 0.5, out);
	assert_false(out[ipc].na);
	assert_true(fabs(out[ipc].value - 3) < 1e-12);
	assert_true(fabs(out[ipc].sigma - 0.03) < 1e-12);
	assert_true(fabs(out[cpi].value - 1.0 / 3) < 1e-12);
	assert_true(fabs(out[mips].value - 3000 / 0.5 / 1e6) < 1e-15);
	assert_true(fabs(out[dbl].value - 6) < 1e-12);
	assert_true(fabs(out[dbl].sigma - 0.06) < 1e-12);
	/* the nominal clock is not known: n/a, with the reason */
	size_t nom = idx_of(sel, "clock_vs_nominal");
	assert_true(out[nom].na);
	assert_non_null(strstr(out[nom].reason, "nominal clock"));
	/* an event not counted makes its metrics n/a and says which */
	const struct named few[] = { { "instructions:u", 3000, 0 } };
	eval_with(sel, list, few, 1, 0.5, out);
	assert_true(out[ipc].na);
	assert_string_equal(out[ipc].reason, "cycles:u: cycles:u: not counted");
	hpm_evlist__free(list);
	free(spec);
	hpm_msel__free(sel);

	/* unknown names: suggestions; bad modifiers */
	sel = hpm_msel__new(ms);
	assert_int_equal(hpm_msel__add(sel, "branc", &err), -HPM_ERR_UNKNOWN_EVENT);
	assert_non_null(strstr(err.suggest, "branch"));
	assert_non_null(strstr(err.msg, "no metric or metric group 'branc'"));
	assert_int_equal(hpm_msel__add(sel, "ipc,l1:x", &err), -HPM_ERR_BAD_MODIFIER);
	assert_int_equal(hpm_msel__add(sel, "ipc,,l1", &err), -HPM_ERR_SYNTAX);
	hpm_msel__free(sel);
	hpm_metricset__free(ms);
	hpm_ctx__free(ctx);
}

/* Events that do not fit the counters: split across groups, with a note;
 * events this machine lacks: the metric is n/a with the resolver's words. */
static void test_plan_split_and_missing(void **state)
{
	struct hpm_ctx *ctx = ctx_for("sysfs-arm-n1");
	struct hpm_metricset *ms = hpm_metricset__new(ctx, NULL);
	struct hpm_msel *sel = hpm_msel__new(ms);
	struct hpm_parse_error err;
	struct hpm_evlist *list = NULL;
	struct hpm_value out[8];
	char *spec = NULL;
	(void)state;

	assert_int_equal(hpm_metricset__add_inline(
		ms, "wide = (r01 + r02 + r03 + r04 + r05 + r06 + r07 + r08) / r08", &err), 0);
	assert_int_equal(hpm_metricset__add_inline(ms, "gone = no_such_event / r08", &err), 0);
	assert_int_equal(hpm_msel__add(sel, "wide:u,gone", &err), 0);
	struct hpm_plan_opts po = { .sz = sizeof(po), .nr_general = 6, .nr_fixed = 1 };
	assert_int_equal(hpm_msel__plan(sel, &po, &spec), 0);
	assert_string_equal(spec, "{r01:u,r02:u,r03:u,r04:u,r05:u,r06:u},{r07:u,r08:u}");
	assert_int_equal(hpm_msel__nr_notes(sel), 2);
	assert_non_null(strstr(hpm_msel__note(sel, 0),
			       "wide needs 8 general counters but the core PMU has 6 (and 1 fixed)"));
	assert_non_null(strstr(hpm_msel__note(sel, 0), "split across 2 groups"));
	assert_non_null(strstr(hpm_msel__note(sel, 1), "gone: not computed: event 'no_such_event'"));
	assert_int_equal(hpm_evlist__parse(ctx, spec, &list, &err), 0);
	assert_int_equal(hpm_evlist__count(list), 8);
	assert_int_equal(hpm_msel__bind(sel, list, 0), 0);
	const struct named vals[] = {
		{ "r01:u", 1, 0 }, { "r02:u", 0, 0 }, { "r03:u", 0, 0 }, { "r04:u", 0, 0 },
		{ "r05:u", 0, 0 }, { "r06:u", 0, 0 }, { "r07:u", 0, 0 }, { "r08:u", 4, 0 },
	};
	eval_with(sel, list, vals, 8, 1, out);
	assert_true(fabs(out[0].value - 1.25) < 1e-12);
	assert_true(out[1].na);
	assert_non_null(strstr(out[1].reason, "unknown event 'no_such_event'"));
	assert_int_equal(hpm_msel__anchor(sel, 1), SIZE_MAX);
	hpm_evlist__free(list);
	free(spec);
	hpm_msel__free(sel);
	hpm_metricset__free(ms);
	hpm_ctx__free(ctx);
}


/* Without a counters line for the family, the split note says the number
 * of counters was assumed, and on a machine without a core PMU that its
 * events cannot be counted at all (not "the core PMU has 4"). */
static void test_plan_note_unknown_counters(void **state)
{
	static const struct {
		const char *tree, *note;
	} cases[] = {
		{ "sysfs-x86-vm-nopmu",
		  "wide needs 8 general counters, and this machine exposes no core PMU (none in "
		  "sysfs): its events cannot be counted here" },
		{ "sysfs-arm-n1",
		  "wide needs 8 general counters, more than the 4 assumed for core PMU "
		  "armv8_pmuv3_0, whose number of counters is not known (CPU family software has "
		  "no counters line): its events are split across 2 groups that the kernel "
		  "multiplexes, so its value mixes different time slices" },
	};
	(void)state;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct hpm_ctx *ctx = ctx_for(cases[c].tree);
		struct hpm_metricset *ms = empty_set(ctx, "software");
		struct hpm_msel *sel = hpm_msel__new(ms);
		struct hpm_parse_error err;
		char *spec = NULL;

		assert_int_equal(hpm_metricset__add_inline(
			ms, "wide = (r01 + r02 + r03 + r04 + r05 + r06 + r07 + r08) / r08", &err), 0);
		assert_int_equal(hpm_msel__add(sel, "wide", &err), 0);
		assert_int_equal(hpm_msel__plan(sel, NULL, &spec), 0);
		assert_int_equal(hpm_msel__nr_notes(sel), 1);
		assert_string_equal(hpm_msel__note(sel, 0), cases[c].note);
		free(spec);
		hpm_msel__free(sel);
		hpm_metricset__free(ms);
		hpm_ctx__free(ctx);
	}
}
/* perf's figures: bound to events already in the list, dropped otherwise;
 * derived presets sum their terms with their signs. */
static void test_bound_only_and_presets(void **state)
{
	struct hpm_ctx *ctx = ctx_for("sysfs-arm-n1");
	struct hpm_metricset *ms = hpm_metricset__new(ctx, NULL);
	struct hpm_msel *sel = hpm_msel__new(ms);
	struct hpm_parse_error err;
	struct hpm_evlist *list = NULL;
	struct hpm_value out[16];
	char *spec = NULL;
	(void)state;

	assert_int_equal(hpm_msel__add_bound(sel, "default"), 0);
	assert_int_equal(hpm_metricset__add_inline(ms, "hits = PAPI_L2_TCH", &err), 0);
	assert_int_equal(hpm_msel__add(sel, "hits", &err), 0);
	assert_int_equal(hpm_msel__plan(sel, NULL, &spec), 0);
	assert_string_equal(spec, "PAPI_L2_TCH");
	assert_int_equal(hpm_evlist__parse(ctx, "cycles:u,instructions:k,task-clock", &list, &err), 0);
	assert_int_equal(hpm_evlist__add(list, spec, &err), 0);
	assert_int_equal(hpm_evlist__count(list), 5);
	assert_int_equal(hpm_msel__bind(sel, list, 3), 0);
	/* ipc (modifiers do not matter) and cpus_utilized bind; the others go */
	assert_int_equal(hpm_msel__count(sel), 3);
	size_t ipc = idx_of(sel, "ipc"), cu = idx_of(sel, "cpus_utilized"), hits = idx_of(sel, "hits");
	assert_true(hpm_msel__is_bound_only(sel, ipc));
	assert_int_equal(hpm_msel__anchor(sel, ipc), 1);
	assert_int_equal(hpm_msel__anchor(sel, cu), 2);
	assert_int_equal(hpm_msel__anchor(sel, hits), 3);
	const struct named vals[] = {
		{ "cycles:u", 100, 0 }, { "instructions:k", 50, 0 }, { "task-clock", 1e9, 0 },
		{ "PAPI_L2_TCH(+l2d_cache)", 70, 3 }, { "PAPI_L2_TCH(-l2d_cache_refill)", 20, 4 },
	};
	eval_with(sel, list, vals, 5, 2, out);
	assert_true(fabs(out[ipc].value - 0.5) < 1e-12);
	assert_true(fabs(out[cu].value - 0.5) < 1e-12);
	assert_true(fabs(out[hits].value - 50) < 1e-12);
	assert_true(fabs(out[hits].sigma - 5) < 1e-12);
	hpm_evlist__free(list);
	free(spec);
	hpm_msel__free(sel);
	hpm_metricset__free(ms);
	hpm_ctx__free(ctx);
}

/* A metric that refers to itself, directly or through another: n/a. */
static void test_cycles(void **state)
{
	struct hpm_ctx *ctx = ctx_for("sysfs-arm-n1");
	struct hpm_metricset *ms = empty_set(ctx, "arm");
	struct hpm_msel *sel = hpm_msel__new(ms);
	struct hpm_parse_error err;
	struct hpm_value out[4];
	char *spec = NULL;
	(void)state;

	assert_int_equal(hpm_metricset__add_text(ms,
		"metric a\n formula b + 1\nmetric b\n formula a * 2\nmetric c\n formula c\n", "t", &err), 0);
	assert_int_equal(hpm_metricset__check(ms, hpm_metricset__find(ms, "a"), &err), -HPM_ERR_SYNTAX);
	assert_non_null(strstr(err.msg, "refers to itself"));
	assert_int_equal(hpm_msel__add(sel, "a,c", &err), 0);
	assert_int_equal(hpm_msel__plan(sel, NULL, &spec), 0);
	assert_string_equal(spec, "");
	struct hpm_evlist *list = hpm_evlist__new(ctx);
	assert_int_equal(hpm_msel__bind(sel, list, 0), 0);
	struct hpm_metric_env env = { .sz = sizeof(env) };
	assert_int_equal(hpm_msel__eval(sel, &env, out), 0);
	assert_true(out[0].na && out[1].na);
	assert_non_null(strstr(out[0].reason, "refers to itself"));
	hpm_evlist__free(list);
	free(spec);
	hpm_msel__free(sel);
	hpm_metricset__free(ms);
	hpm_ctx__free(ctx);
}

/* Cumulative readings of an event with rates @rate[k] per ns, running
 * @run of every @period ns. */
static void feed(struct hpm_slices *s, size_t idx, const double *rate, size_t n,
		 uint64_t period, uint64_t run, struct hpm_count *c)
{
	memset(c, 0, sizeof(*c));
	for (size_t k = 0; k < n; k++) {
		c->value += (uint64_t)(rate[k] * (double)run);
		c->running += run;
		c->enabled += period;
		hpm_slices__add(s, idx, c);
	}
}

/* Covariance of events of one group (hpm_slices__cov) and its use in the
 * metrics: a ratio of two events whose rates move together has no
 * multiplexing uncertainty; a sum of them, σa + σb rather than the
 * quadrature sum; events of different groups stay independent. */
static double cov_of(void *arg, size_t a, size_t b)
{
	const double *m = arg;
	return m[a * 2 + b];
}

static void test_correlation(void **state)
{
	struct hpm_slices *s = hpm_slices__new(3);
	struct hpm_count ca, cb, cc;
	double a[20], b[20], other[20];
	(void)state;

	for (int k = 0; k < 20; k++) {
		a[k] = k % 2 ? 1.0 : 3.0;
		b[k] = 2 * a[k];                /* moves with a */
		other[k] = k % 3 ? 1.0 : 4.0;   /* its own way */
	}
	feed(s, 0, a, 20, 1000000, 500000, &ca);
	feed(s, 1, b, 20, 1000000, 500000, &cb);
	double sa = hpm_slices__sigma(s, 0, &ca), sb = hpm_slices__sigma(s, 1, &cb);
	assert_true(sa > 0 && fabs(sb - 2 * sa) < 1e-9 * sb);
	/* perfectly correlated: cov = sa * sb */
	double cab = hpm_slices__cov(s, 0, 1, &ca, &cb);
	assert_true(fabs(cab - sa * sb) < 1e-9 * cab);
	assert_true(hpm_slices__cov(s, 1, 0, &cb, &ca) == cab);
	assert_true(fabs(hpm_slices__cov(s, 0, 0, &ca, &ca) - sa * sa) < 1e-9 * sa * sa);
	/* slices that do not line up (another group's): unknown */
	feed(s, 2, other, 20, 1000000, 250000, &cc);
	assert_true(isnan(hpm_slices__cov(s, 0, 2, &ca, &cc)));
	/* counted all the time: no covariance */
	struct hpm_count full = ca;
	full.running = full.enabled;
	assert_true(hpm_slices__cov(s, 0, 1, &full, &cb) == 0);

	/* through an expression: b / a has no uncertainty, a + b has sa + sb */
	struct hpm_ctx *ctx = ctx_for("sysfs-arm-n1");
	struct hpm_metricset *ms = empty_set(ctx, "arm");
	struct hpm_msel *sel = hpm_msel__new(ms);
	struct hpm_parse_error err;
	struct hpm_evlist *list = NULL;
	struct hpm_value out[4], ev[2];
	double m[4] = { sb * sb, cab, cab, sa * sa };
	assert_int_equal(hpm_metricset__add_text(ms,
		"metric r\n formula inst_retired / cpu_cycles\n"
		"metric t\n formula inst_retired + cpu_cycles\n", "t", &err), 0);
	assert_int_equal(hpm_msel__add(sel, "r,t", &err), 0);
	char *spec = NULL;
	assert_int_equal(hpm_msel__plan(sel, NULL, &spec), 0);
	assert_string_equal(spec, "{inst_retired,cpu_cycles}");
	assert_int_equal(hpm_evlist__parse(ctx, spec, &list, &err), 0);
	free(spec);
	assert_int_equal(hpm_msel__bind(sel, list, 0), 0);
	/* cpu_cycles (event 1) is a, inst_retired (event 0) is b */
	double va = (double)ca.value * 2, vb = (double)cb.value * 2; /* scaled */
	hpm_value__set(&ev[1], va, sa);
	hpm_value__set(&ev[0], vb, sb);
	struct hpm_metric_env env = { .sz = sizeof(env), .events = ev, .nr_events = 2,
				      .cov = cov_of, .cov_arg = m };
	assert_int_equal(hpm_msel__eval(sel, &env, out), 0);
	size_t r = idx_of(sel, "r"), t = idx_of(sel, "t");
	assert_true(fabs(out[r].value - 2) < 1e-12);
	assert_true(out[r].sigma < 1e-9 * out[r].value);
	assert_true(fabs(out[t].sigma - (sa + sb)) < 1e-9 * (sa + sb));
	/* without the covariance: what the metrics said before */
	env.cov = NULL;
	assert_int_equal(hpm_msel__eval(sel, &env, out), 0);
	assert_true(out[r].sigma > 0.1 * out[r].value * sa / va);
	assert_true(fabs(out[t].sigma - sqrt(sa * sa + sb * sb)) < 1e-9 * out[t].sigma);
	hpm_evlist__free(list);
	hpm_msel__free(sel);
	hpm_metricset__free(ms);
	hpm_ctx__free(ctx);
	hpm_slices__free(s);
}

static void test_slices(void **state)
{
	struct hpm_slices *s = hpm_slices__new(4);
	struct hpm_count c;
	double flat[20], noisy[20];
	(void)state;

	assert_non_null(s);
	for (int k = 0; k < 20; k++) {
		flat[k] = 2.0;
		noisy[k] = k % 2 ? 1.0 : 3.0;
	}
	/* never multiplexed: exact */
	feed(s, 0, noisy, 20, 1000000, 1000000, &c);
	assert_true(hpm_slices__sigma(s, 0, &c) == 0);
	/* a steady rate, counted half the time: the estimate is exact too */
	feed(s, 1, flat, 20, 1000000, 500000, &c);
	assert_true(hpm_slices__sigma(s, 1, &c) == 0);
	/* a rate that varies: an uncertainty, growing as it runs less */
	feed(s, 2, noisy, 20, 1000000, 500000, &c);
	double half = hpm_slices__sigma(s, 2, &c);
	assert_true(half > 0 && isfinite(half));
	/* var = s2 * U * E / R, s2 the largest estimate: here successive
	 * differences, (3 - 1)^2 / (2 / 5e5) = 1e6 each (single slices about
	 * their mean give 20 * 5e5 / 19, batches of two or more nothing),
	 * widened for 19 degrees of freedom by (t / 1.96)^2 */
	double t19 = 2.093 / 1.959964, t7 = 2.365 / 1.959964;
	double want = sqrt(1e6 * t19 * t19 * 10e6 * 20e6 / 10e6);
	assert_true(fabs(half - want) < 1e-6 * want);
	feed(s, 3, noisy, 20, 1000000, 250000, &c);
	assert_true(hpm_slices__sigma(s, 3, &c) > half);
	/* a rate that keeps step with the sampling: 4 slices at 3, 4 at 1,
	 * and so on. Neighbouring slices mostly agree, but batches of 4 are
	 * 3, 1, 3, 1 ...: s2 = 8 * 2e6 / 7 from them (7 degrees of freedom),
	 * the largest (successive differences give 7 * 1e6 / 31, single
	 * slices 32 * 5e5 / 31, pairs 16 * 1e6 / 15) */
	struct hpm_slices *d = hpm_slices__new(1);
	double drift[32];
	for (int k = 0; k < 32; k++)
		drift[k] = (k / 4) % 2 ? 1.0 : 3.0;
	feed(d, 0, drift, 32, 1000000, 500000, &c);
	want = sqrt(8 * 2e6 / 7 * t7 * t7 * 16e6 * 32e6 / 16e6);
	assert_true(fabs(hpm_slices__sigma(d, 0, &c) - want) < 1e-6 * want);
	hpm_slices__free(d);
	/* too few slices to tell */
	hpm_slices__restart(s);
	struct hpm_count c2 = c;
	c2.value += 100;
	c2.running += 250000;
	c2.enabled += 1000000;
	hpm_slices__add(s, 3, &c2);
	assert_true(isnan(hpm_slices__sigma(s, 3, &c2)));
	/* an event that did not count, or out of range */
	struct hpm_count bad = { .err = -ENOENT };
	assert_true(isnan(hpm_slices__sigma(s, 0, &bad)));
	assert_true(isnan(hpm_slices__sigma(s, 9, &c2)));
	/* bounded memory: many readings merge */
	double many[3000];
	for (int k = 0; k < 3000; k++)
		many[k] = 1 + (k % 3);
	feed(s, 1, many, 3000, 1000, 400, &c);
	assert_true(hpm_slices__sigma(s, 1, &c) > 0);
	hpm_slices__free(s);
	hpm_slices__free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_format),
		cmocka_unit_test(test_file_errors),
		cmocka_unit_test(test_shipped),
		cmocka_unit_test(test_select_plan_eval),
		cmocka_unit_test(test_plan_split_and_missing),
		cmocka_unit_test(test_plan_note_unknown_counters),
		cmocka_unit_test(test_bound_only_and_presets),
		cmocka_unit_test(test_cycles),
		cmocka_unit_test(test_slices),
		cmocka_unit_test(test_correlation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
