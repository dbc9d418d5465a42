/* SPDX-License-Identifier: MIT */
/*
 * Metrics and metric sets: the objects, the references between metrics,
 * and the check that a metric's events resolve. A set is filled from
 * metric files by metrics/metric-file.c; hpm_metricset__new
 * (metrics/metric-data.c) fills it with the files shipped for the
 * machine's family.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/data-internal.h"
#include "events/evlist-internal.h"
#include "metrics/metric-internal.h"

#define HPM_STR_(x) #x
#define HPM_STR(x) HPM_STR_(x)

static const char *const context_names[] = {
	"duration_time", "interval_time", "num_cpus", "cpu_hz",
};

bool hpm_metric__is_context(const char *name)
{
	if (name[0] == '#')
		return hpm_expr__literal(name) != NULL;
	for (size_t i = 0; i < sizeof(context_names) / sizeof(context_names[0]); i++)
		if (!strcmp(name, context_names[i]))
			return true;
	return false;
}

static const char *const form_names[] = {
	[HPM_FORM_RATIO] = "ratio", [HPM_FORM_PERCENT] = "percent",
	[HPM_FORM_PER_SECOND] = "per-second", [HPM_FORM_PER_KINST] = "per-kinst",
	[HPM_FORM_VALUE] = "value",
};

const char *hpm_metric_form__str(enum hpm_metric_form f)
{
	return (unsigned)f < sizeof(form_names) / sizeof(form_names[0]) ? form_names[f] : "?";
}

int hpm_metric_form__parse(const char *s, enum hpm_metric_form *out)
{
	for (size_t f = 0; f < sizeof(form_names) / sizeof(form_names[0]); f++)
		if (!strcmp(s, form_names[f])) {
			*out = (enum hpm_metric_form)f;
			return 0;
		}
	return -ENOENT;
}

/* ---- metrics ---- */

void hpm_metric__free(struct hpm_metric *m)
{
	if (!m)
		return;
	free(m->name);
	free(m->formula);
	free(m->unit);
	free(m->desc);
	free(m->groups);
	free(m->origin);
	free(m->pmu);
	free(m->constraint);
	hpm_expr__free(m->expr);
	free(m);
}

const char *hpm_metric__name(const struct hpm_metric *m) { return m->name; }
const char *hpm_metric__formula(const struct hpm_metric *m) { return m->formula; }
const char *hpm_metric__unit(const struct hpm_metric *m) { return m->unit; }
const char *hpm_metric__desc(const struct hpm_metric *m) { return m->desc; }
const char *hpm_metric__groups(const struct hpm_metric *m) { return m->groups; }
enum hpm_metric_form hpm_metric__form(const struct hpm_metric *m) { return m->form; }
const char *hpm_metric__origin(const struct hpm_metric *m) { return m->origin; }
const struct hpm_expr *hpm_metric__expr(const struct hpm_metric *m) { return m->expr; }

bool hpm_metric__in_group(const struct hpm_metric *m, const char *group)
{
	size_t n = strlen(group);
	for (const char *p = m->groups; *p;) {
		size_t w = strcspn(p, " ");
		if (w == n && !strncmp(p, group, n))
			return true;
		p += w;
		while (*p == ' ')
			p++;
	}
	return false;
}

const char *hpm_metric__shown_unit(const struct hpm_metric *m)
{
	if (m->unit[0])
		return m->unit;
	switch (m->form) {
	case HPM_FORM_PERCENT: return "%";
	case HPM_FORM_PER_SECOND: return "/sec";
	case HPM_FORM_PER_KINST: return "per 1k insn";
	default: return "";
	}
}

/* The expression text with the form applied. */
char *hpm_metric__apply_form(const char *formula, enum hpm_metric_form f)
{
	char *s = NULL;
	int n;
	switch (f) {
	case HPM_FORM_PERCENT: n = asprintf(&s, "(%s) * 100", formula); break;
	case HPM_FORM_PER_SECOND: n = asprintf(&s, "(%s) / duration_time", formula); break;
	case HPM_FORM_PER_KINST: n = asprintf(&s, "(%s) / (instructions / 1000)", formula); break;
	default: n = asprintf(&s, "%s", formula); break;
	}
	return n < 0 ? NULL : s;
}

/* ---- sets ---- */

void hpm_metricset__free(struct hpm_metricset *ms)
{
	if (!ms)
		return;
	for (size_t i = 0; i < ms->nr; i++)
		hpm_metric__free(ms->m[i]);
	free(ms->m);
	free(ms->costs_file);
	free(ms->costs_text);
	free(ms);
}

const struct hpm_metric *hpm__metricset_find(const struct hpm_metricset *ms, const char *name)
{
	for (size_t i = 0; i < ms->nr; i++)
		if (!strcmp(ms->m[i]->name, name))
			return ms->m[i];
	return NULL;
}

/* Add @m (taken), replacing a metric of the same name (and pmu) in place. */
int hpm_metricset__put(struct hpm_metricset *ms, struct hpm_metric *m)
{
	/* a hybrid model's tables name a metric once per core type (pmu) */
	for (size_t i = 0; i < ms->nr; i++)
		if (!strcmp(ms->m[i]->name, m->name) &&
		    !strcmp(ms->m[i]->pmu ? ms->m[i]->pmu : "", m->pmu ? m->pmu : "")) {
			hpm_metric__free(ms->m[i]);
			ms->m[i] = m;
			return 0;
		}
	if (ms->nr >= HPM_METRICSET_MAX) {
		hpm_metric__free(m);
		return -HPM_ERR_TOO_MANY;
	}
	if (ms->nr == ms->cap) {
		size_t cap = ms->cap ? ms->cap * 2 : 64;
		struct hpm_metric **v = realloc(ms->m, cap * sizeof(*v));
		if (!v) {
			hpm_metric__free(m);
			return -ENOMEM;
		}
		ms->m = v;
		ms->cap = cap;
	}
	ms->m[ms->nr++] = m;
	return 0;
}


/* ---- references ---- */

/* The value of @n when it is a constant: numbers and perf's literals
 * under arithmetic and comparisons (perf folds them when it collects a
 * metric's events). */
static bool const_value(const struct hpm_metricset *ms, const struct hpm_expr *e,
			const struct hpm_node *n, double *v)
{
	double a, b;

	switch (n->kind) {
	case HPM_N_NUM:
		*v = n->num;
		return true;
	case HPM_N_REF: {
		struct hpm_value lv;
		if (e->refs[n->ref][0] != '#')
			return false;
		/* the set's cache of the machine's literals */
		hpm__literal_value((struct hpm_literals *)&ms->lit, ms->ctx, e->refs[n->ref], &lv);
		*v = lv.value;
		return !lv.na;
	}
	case HPM_N_NEG:
		if (!const_value(ms, e, n->kids[0], &a))
			return false;
		*v = -a;
		return true;
	case HPM_N_BIN:
		if (!const_value(ms, e, n->kids[0], &a) || !const_value(ms, e, n->kids[1], &b))
			return false;
		switch (n->op) {
		case HPM_OP_ADD: *v = a + b; return true;
		case HPM_OP_SUB: *v = a - b; return true;
		case HPM_OP_MUL: *v = a * b; return true;
		case HPM_OP_LT: *v = a < b; return true;
		case HPM_OP_GT: *v = a > b; return true;
		default: return false;
		}
	default:
		return false;
	}
}

static int leaves_walk(const struct hpm_metricset *ms, const struct hpm_expr *e,
		       const char **names, size_t max, size_t *n,
		       const struct hpm_expr **stack, unsigned depth);

/* The events under node @n of @e, in the order they are written; of an
 * 'if' whose condition is a constant (#SMT_on), those of the branch it
 * takes only, as perf 6.1 opens them. */
static int node_walk(const struct hpm_metricset *ms, const struct hpm_expr *e,
		     const struct hpm_node *nd, const char **names, size_t max, size_t *n,
		     const struct hpm_expr **stack, unsigned depth)
{
	if (nd->kind == HPM_N_REF) {
		const char *name = e->refs[nd->ref];
		const struct hpm_metric *sub;
		if (hpm_metric__is_context(name))
			return 0;
		sub = hpm__metricset_find(ms, name); /* the metrics read so far */
		if (sub)
			return leaves_walk(ms, sub->expr, names, max, n, stack, depth + 1);
		for (size_t k = 0; k < *n; k++)
			if (!strcmp(names[k], name))
				return 0;
		if (*n >= max)
			return -E2BIG;
		names[(*n)++] = name;
		return 0;
	}
	double c;
	if (nd->kind == HPM_N_COND && const_value(ms, e, nd->kids[1], &c))
		return node_walk(ms, e, nd->kids[c != 0 ? 0 : 2], names, max, n, stack, depth);
	for (unsigned k = 0; k < nd->nr_kids; k++) {
		int rc = node_walk(ms, e, nd->kids[k], names, max, n, stack, depth);
		if (rc)
			return rc;
	}
	return 0;
}

static int leaves_walk(const struct hpm_metricset *ms, const struct hpm_expr *e,
		       const char **names, size_t max, size_t *n,
		       const struct hpm_expr **stack, unsigned depth)
{
	for (unsigned i = 0; i < depth; i++)
		if (stack[i] == e)
			return -HPM_ERR_SYNTAX;
	if (depth > HPM_METRIC_MAX_CHAIN)
		return -HPM_ERR_SYNTAX;
	stack[depth] = e;
	return node_walk(ms, e, e->root, names, max, n, stack, depth);
}

int hpm_metricset__leaves(const struct hpm_metricset *ms, const struct hpm_metric *m,
			  const char **names, size_t max)
{
	const struct hpm_expr *stack[HPM_METRIC_MAX_CHAIN + 2];
	size_t n = 0;
	int rc = leaves_walk(ms, m->expr, names, max, &n, stack, 0);
	return rc ? rc : (int)n;
}

int hpm_metricset__check(const struct hpm_metricset *ms, const struct hpm_metric *m,
			 struct hpm_parse_error *err)
{
	const char *names[HPM_EXPR_MAX_INPUTS];
	struct hpm_parse_error local;
	int n;

	if (!err)
		err = &local;
	memset(err, 0, sizeof(*err));
	n = hpm_metricset__leaves(ms, m, names, HPM_EXPR_MAX_INPUTS);
	if (n < 0) {
		err->err = n == -E2BIG ? -HPM_ERR_TOO_MANY : n;
		snprintf(err->msg, sizeof(err->msg), "%s: %s", m->name,
			 n == -E2BIG ? "counts more than " HPM_STR(HPM_EXPR_MAX_INPUTS) " events"
				     : "refers to itself through other metrics, or too deeply");
		return err->err;
	}
	for (int i = 0; i < n; i++) {
		struct hpm_evlist *l = NULL;
		struct hpm_parse_error pe;
		int rc = hpm_evlist__parse(ms->ctx, names[i], &l, &pe);
		hpm_evlist__free(l);
		if (rc) {
			err->err = rc;
			snprintf(err->token, sizeof(err->token), "%s", names[i]);
			snprintf(err->msg, sizeof(err->msg), "%s: event '%s': %s", m->name, names[i],
				 pe.msg);
			snprintf(err->suggest, sizeof(err->suggest), "%s", pe.suggest);
			return rc;
		}
	}
	return 0;
}
