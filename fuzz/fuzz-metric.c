/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: metric expressions and metric files. The first byte
 * chooses what the rest is:
 *   even  an expression: parsed, and evaluated with every name given a
 *         value derived from the input (zeros, n/a and unknown sigmas too);
 *   odd   a metric file: added to an empty set of the Neoverse N1 tree,
 *         every metric selected, planned on 6 + 1 counters, the plan's
 *         events resolved and bound, and evaluated.
 * Everything is freed, so leaks show up too. Built by fuzz/CMakeLists.txt,
 * run by scripts/fuzz.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hpmon/metric.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
static int fuzz_one(const uint8_t *data, size_t size);

#define MAX_INPUT 8192

static struct hpm_ctx *ctx;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct hpm_ctx_opts o = {
		.sz = sizeof(o),
		.sysfs_root = HPM_TEST_DATA "/sysfs-arm-n1",
		.procfs_root = HPM_TEST_DATA "/procfs-arm-n1",
	};
	(void)argc;
	(void)argv;
	ctx = hpm_ctx__new(&o);
	if (!ctx)
		abort();
	return 0;
}

/* A value for input @i, from the seed byte: ordinary, zero, n/a, huge,
 * negative, with an unknown uncertainty. */
static void value_for(uint8_t seed, size_t i, struct hpm_value *v)
{
	switch ((seed + i) % 6) {
	case 0: hpm_value__set(v, 1000.0 + (double)i, 3); break;
	case 1: hpm_value__set(v, 0, 0); break;
	case 2: hpm_value__na(v, "input %zu is missing", i); break;
	case 3: hpm_value__set(v, 1e300, 1e299); break;
	case 4: hpm_value__set(v, -2.5, 0); break;
	default: hpm_value__set(v, 7, NAN); break;
	}
}

static void check_value(const struct hpm_value *v)
{
	if (!memchr(v->reason, 0, sizeof(v->reason)))
		abort();
	if (v->na != isnan(v->value))
		abort();
	if (v->na && !v->reason[0])
		abort();
	if (!v->na && (v->reason[0] || !isfinite(v->value)))
		abort();
}

static void one_expr(const char *text, uint8_t seed)
{
	struct hpm_expr *e = NULL;
	struct hpm_parse_error err;
	struct hpm_value refs[64], out;
	int rc = hpm_expr__parse(text, &e, &err);

	if (rc) {
		if (e || rc != err.err || err.pos > strlen(text) || !memchr(err.msg, 0, sizeof(err.msg)) ||
		    !err.msg[0])
			abort();
		return;
	}
	if (hpm_expr__nr_refs(e) > 64 || strcmp(hpm_expr__text(e), text))
		abort();
	for (size_t i = 0; i < hpm_expr__nr_refs(e); i++) {
		if (!hpm_expr__ref(e, i) || !hpm_expr__ref(e, i)[0])
			abort();
		value_for(seed, i, &refs[i]);
	}
	if (hpm_expr__eval(e, refs, &out) == 0)
		check_value(&out);
	hpm_expr__free(e);
}

static void one_file(const char *text, uint8_t seed)
{
	struct hpm_metricset_opts o = { .sz = sizeof(o), .family = "arm", .no_builtin = true };
	struct hpm_metricset *ms = hpm_metricset__new(ctx, &o);
	struct hpm_parse_error err;
	struct hpm_msel *sel = NULL;
	struct hpm_evlist *list = NULL;
	struct hpm_value *ev = NULL, *out = NULL;
	char *spec = NULL;

	if (!ms)
		abort();
	if (hpm_metricset__add_text(ms, text, "fuzz", &err)) {
		if (!err.msg[0] || !memchr(err.msg, 0, sizeof(err.msg)) || hpm_metricset__count(ms))
			abort();
		goto out;
	}
	/* the same text as one inline definition, too */
	hpm_metricset__add_inline(ms, text, &err);
	sel = hpm_msel__new(ms);
	if (!sel)
		abort();
	for (size_t i = 0; i < hpm_metricset__count(ms); i++) {
		const struct hpm_metric *m = hpm_metricset__metric(ms, i);
		char name[128];
		snprintf(name, sizeof(name), "%s%s", hpm_metric__name(m), seed & 2 ? ":u" : "");
		hpm_metricset__check(ms, m, &err);
		if (hpm_msel__add(sel, name, &err))
			abort();
	}
	struct hpm_plan_opts po = { .sz = sizeof(po), .nr_general = 1 + seed % 7, .nr_fixed = 1 };
	if (hpm_msel__plan(sel, &po, &spec))
		goto out;
	for (size_t i = 0; i < hpm_msel__nr_notes(sel); i++)
		if (!hpm_msel__note(sel, i))
			abort();
	list = hpm_evlist__new(ctx);
	if (!list)
		abort();
	if (spec[0] && hpm_evlist__add(list, spec, &err))
		abort(); /* the plan's events resolved one by one */
	if (hpm_msel__bind(sel, list, 0))
		abort();
	size_t n = hpm_evlist__count(list), nm = hpm_msel__count(sel);
	ev = calloc(n + 1, sizeof(*ev));
	out = calloc(nm + 1, sizeof(*out));
	if (!ev || !out)
		abort();
	for (size_t i = 0; i < n; i++)
		value_for(seed, i, &ev[i]);
	struct hpm_metric_env env = { .sz = sizeof(env), .events = ev, .nr_events = n,
				      .duration_s = seed & 1 ? 1.5 : 0, .num_cpus = 2 };
	if (hpm_msel__eval(sel, &env, out))
		abort();
	for (size_t i = 0; i < nm; i++) {
		check_value(&out[i]);
		size_t a = hpm_msel__anchor(sel, i);
		if (a != SIZE_MAX && a >= n)
			abort();
		(void)hpm_msel__unit(sel, i);
	}
out:
	free(ev);
	free(out);
	free(spec);
	hpm_evlist__free(list);
	hpm_msel__free(sel);
	hpm_metricset__free(ms);
}

static int fuzz_one(const uint8_t *data, size_t size)
{
	char *text;

	if (size < 1 || size > MAX_INPUT)
		return 0;
	text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	if (data[0] & 1)
		one_file(text, data[0]);
	else
		one_expr(text, data[0]);
	free(text);
	return 0;
}

#include "fuzz-cpu.h"
