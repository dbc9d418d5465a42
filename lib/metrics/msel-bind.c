/* SPDX-License-Identifier: MIT */
/*
 * A planned selection bound to the events of a resolved list or of a
 * recorded profile (hpm_msel__bind, hpm_msel__bind_recorded), its
 * metrics as the caller sees them, and their evaluation from the counts
 * (hpm_msel__eval).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hpmon/preset.h>
#include "events/evlist-internal.h"
#include "metrics/msel-internal.h"

/* ---- binding ---- */

static bool same_attr(const struct perf_event_attr *a, const struct perf_event_attr *b)
{
	return a->type == b->type && a->config == b->config && a->config1 == b->config1 &&
	       a->config2 == b->config2;
}

/* Bound-only leaf: any event of the list equal to each of its events. */
static int bind_any(struct hpm_msel *sel, const struct hpm_evlist *list, struct sel *s,
		    struct leaf *lf)
{
	const struct spec *sp = &sel->spec[lf->spec];
	struct inst in = { .spec = lf->spec, .group = -2 };

	if (sp->err)
		return -ENOENT;
	for (unsigned k = 0; k < sp->nr_ev; k++) {
		size_t i;
		for (i = 0; i < list->nr; i++)
			if (same_attr(&list->ev[i].attr, &sp->attr[k]))
				break;
		if (i == list->nr)
			return -ENOENT;
		in.ev[k] = i;
		in.sign[k] = +1;
		if (sp->nr_ev > 1)
			hpm_preset__component(list->ev[i].name, NULL, 0, &in.sign[k]);
	}
	in.nr_ev = sp->nr_ev;
	in.bound = true;
	if (hpm_msel__grow((void **)&sel->inst, &sel->cap_inst, sel->nr_inst, sizeof(*sel->inst)))
		return -ENOMEM;
	sel->inst[sel->nr_inst] = in;
	lf->inst = sel->nr_inst++;
	(void)s;
	return 0;
}

/* The group most of @s's events were planned in, or -1. */
static int home_group(const struct hpm_msel *sel, const struct sel *s)
{
	int best = -1;
	unsigned best_n = 0;
	for (int g = 0; g < sel->nr_groups; g++) {
		unsigned n = 0;
		for (unsigned k = 0; k < s->nr_leaves; k++)
			for (size_t j = 0; j < sel->nr_inst; j++)
				if (sel->inst[j].spec == s->leaf[k].spec && sel->inst[j].group == g) {
					n++;
					break;
				}
		if (n > best_n) {
			best = g;
			best_n = n;
		}
	}
	return best;
}

/* The planned instance of @spec for @s: in its home group if there, else
 * in any group, else the one counted alone. */
static size_t pick_inst(const struct hpm_msel *sel, const struct sel *s, size_t spec)
{
	int home = home_group(sel, s);
	size_t any = SIZE_MAX, alone = SIZE_MAX;
	for (size_t j = 0; j < sel->nr_inst; j++) {
		const struct inst *in = &sel->inst[j];
		if (in->spec != spec || in->group == -2)
			continue;
		if (in->group >= 0 && in->group == home)
			return j;
		if (in->group >= 0 && any == SIZE_MAX)
			any = j;
		if (in->group < 0 && alone == SIZE_MAX)
			alone = j;
	}
	return any != SIZE_MAX ? any : alone;
}

int hpm_msel__bind(struct hpm_msel *sel, const struct hpm_evlist *list, size_t first)
{
	size_t at = first;
	int rc = 0;

	if (!sel || !list)
		return -EINVAL;
	rc = hpm_msel__bind_pending(sel, list);
	if (rc)
		return rc;
	if (!sel->planned) {
		char *spec = NULL;
		rc = hpm_msel__plan(sel, NULL, &spec);
		free(spec);
		if (rc)
			return rc;
	}
	/* the plan's instances, in the order its spec listed them */
	size_t planned = 0;
	for (size_t i = 0; i < sel->nr_inst; i++) {
		struct inst *in = &sel->inst[i];
		if (in->group == -2)
			break; /* bound-only ones from an earlier bind */
		planned++;
		const struct spec *sp = &sel->spec[in->spec];
		if (at + sp->nr_ev > list->nr)
			return -EINVAL;
		for (unsigned k = 0; k < sp->nr_ev; k++) {
			in->ev[k] = at + k;
			in->sign[k] = +1;
			if (sp->nr_ev > 1)
				hpm_preset__component(list->ev[at + k].name, NULL, 0, &in->sign[k]);
		}
		in->nr_ev = sp->nr_ev;
		in->bound = true;
		at += sp->nr_ev;
	}
	sel->nr_inst = planned;
	for (size_t i = 0; i < sel->nr && !rc; i++) {
		struct sel *s = &sel->s[i];
		s->anchor = SIZE_MAX;
		s->dropped = false;
		for (unsigned k = 0; k < s->nr_leaves; k++) {
			struct leaf *lf = &s->leaf[k];
			lf->inst = SIZE_MAX;
			if (s->bound_only) {
				int r = bind_any(sel, list, s, lf);
				if (r == -ENOMEM)
					return r;
				if (r) {
					s->dropped = true;
					break;
				}
			} else {
				lf->inst = pick_inst(sel, s, lf->spec);
			}
			if (lf->inst != SIZE_MAX && s->anchor == SIZE_MAX &&
			    sel->inst[lf->inst].nr_ev)
				s->anchor = sel->inst[lf->inst].ev[0];
		}
	}
	return rc;
}

/* Append @text to the list @buf (@len bytes, items separated by ", ")
 * unless it is there. */
static void list_add(char *buf, size_t len, const char *text)
{
	size_t n = strlen(text), used = strlen(buf);
	for (const char *p = buf; *p;) {
		const char *sep = strstr(p, ", ");
		size_t k = sep ? (size_t)(sep - p) : strlen(p);
		if (k == n && !strncmp(p, text, n))
			return;
		p += k + (sep ? 2 : 0);
	}
	if (used + n + 3 <= len)
		snprintf(buf + used, len - used, "%s%s", used ? ", " : "", text);
}

int hpm_msel__bind_recorded(struct hpm_msel *sel, const struct hpm_event_id *ids,
			    size_t nr, char *missing, size_t len)
{
	bool all = true;

	if (!sel || (!ids && nr))
		return -EINVAL;
	int prc = hpm_msel__bind_pending(sel, NULL);
	if (prc)
		return prc;
	if (missing && len)
		missing[0] = '\0';
	sel->nr_inst = 0;
	for (size_t i = 0; i < sel->nr; i++) {
		struct sel *s = &sel->s[i];
		int rc = hpm_msel__leaves(sel, s);
		if (rc)
			return rc;
		s->anchor = SIZE_MAX;
		s->dropped = false;
		for (unsigned k = 0; k < s->nr_leaves; k++) {
			struct leaf *lf = &s->leaf[k];
			const struct spec *sp = &sel->spec[lf->spec];
			struct inst in = { .spec = lf->spec, .group = -2, .nr_ev = sp->nr_ev };
			bool found = !sp->err;
			for (unsigned c = 0; found && c < sp->nr_ev; c++) {
				size_t e;
				for (e = 0; e < nr; e++)
					if (ids[e].type == sp->attr[c].type &&
					    ids[e].config == sp->attr[c].config &&
					    ids[e].config1 == sp->attr[c].config1 &&
					    ids[e].config2 == sp->attr[c].config2)
						break;
				found = e < nr;
				in.ev[c] = e;
				in.sign[c] = sp->sign[c];
			}
			lf->inst = SIZE_MAX;
			if (!found) {
				all = false;
				if (missing)
					list_add(missing, len, sp->text);
				continue;
			}
			if (hpm_msel__grow((void **)&sel->inst, &sel->cap_inst, sel->nr_inst,
				 sizeof(*sel->inst)))
				return -ENOMEM;
			in.bound = true;
			sel->inst[sel->nr_inst] = in;
			lf->inst = sel->nr_inst++;
			if (s->anchor == SIZE_MAX)
				s->anchor = in.ev[0];
		}
	}
	sel->planned = true;
	return all ? 0 : -ENOENT;
}

size_t hpm_msel__count(const struct hpm_msel *sel)
{
	size_t n = 0;
	for (size_t i = 0; i < sel->nr; i++)
		n += !sel->s[i].dropped;
	return n;
}

/* The i-th selection that is not dropped. */
static const struct sel *nth(const struct hpm_msel *sel, size_t i)
{
	for (size_t k = 0; k < sel->nr; k++) {
		if (sel->s[k].dropped)
			continue;
		if (i-- == 0)
			return &sel->s[k];
	}
	return NULL;
}

const struct hpm_metric *hpm_msel__metric(const struct hpm_msel *sel, size_t i)
{
	const struct sel *s = nth(sel, i);
	return s ? s->m : NULL;
}

bool hpm_msel__is_bound_only(const struct hpm_msel *sel, size_t i)
{
	const struct sel *s = nth(sel, i);
	return s && s->bound_only;
}

size_t hpm_msel__anchor(const struct hpm_msel *sel, size_t i)
{
	const struct sel *s = nth(sel, i);
	return s ? s->anchor : SIZE_MAX;
}

const char *hpm_msel__unit(const struct hpm_msel *sel, size_t i)
{
	const struct sel *s = nth(sel, i);
	return s ? hpm_metric__shown_unit(s->m) : "";
}

static bool expr_uses(const struct hpm_metricset *ms, const struct hpm_expr *e,
		      const char *name, unsigned depth)
{
	if (depth > HPM_METRIC_MAX_CHAIN)
		return false; /* a cycle: evaluation says so */
	for (size_t r = 0; r < hpm_expr__nr_refs(e); r++) {
		const char *ref = hpm_expr__ref(e, r);
		const struct hpm_metric *sub;
		if (!strcmp(ref, name))
			return true;
		if (!hpm_metric__is_context(ref) && (sub = hpm__metricset_find(ms, ref)) &&
		    expr_uses(ms, sub->expr, name, depth + 1))
			return true;
	}
	return false;
}

bool hpm_msel__uses(const struct hpm_msel *sel, const char *name)
{
	for (size_t i = 0; sel && name && i < sel->nr; i++)
		if (!sel->s[i].dropped && expr_uses(sel->ms, sel->s[i].m->expr, name, 0))
			return true;
	return false;
}

/* ---- evaluation ---- */

struct ectx {
	const struct hpm_msel *sel;
	const struct sel *s;
	const struct hpm_metric_env *env;
	struct hpm_eval *ev;
	struct hpm_value in[HPM_EXPR_MAX_INPUTS];
	const char *ctx_name[HPM_EXPR_MAX_INPUTS]; /* context values given slots */
};

static void context_value(struct hpm_metricset *ms, const struct hpm_metric_env *env,
			  const char *name, struct hpm_value *v)
{
	if (name[0] == '#') {
		hpm__literal_value(&ms->lit, ms->ctx, name, v);
	} else if (!strcmp(name, "duration_time")) {
		if (env->duration_s > 0)
			hpm_value__set(v, env->duration_s, 0);
		else
			hpm_value__na(v, "the time counted is not known");
	} else if (!strcmp(name, "interval_time")) {
		if (env->interval_s > 0)
			hpm_value__set(v, env->interval_s, 0);
		else
			hpm_value__na(v, "interval_time exists only in interval mode (-I)");
	} else if (!strcmp(name, "num_cpus")) {
		if (env->num_cpus > 0)
			hpm_value__set(v, env->num_cpus, 0);
		else
			hpm_value__na(v, "the number of CPUs is not known");
	} else if (!strcmp(name, "cpu_hz")) {
		if (env->cpu_hz > 0)
			hpm_value__set(v, env->cpu_hz, 0);
		else
			hpm_value__na(v, "the CPU's nominal clock is not known here");
	}
}

static int eval_resolve(void *arg, const char *name, size_t *slot,
			const struct hpm_expr **sub, char *why, size_t why_len)
{
	struct ectx *x = arg;
	const struct sel *s = x->s;

	for (unsigned k = 0; k < s->nr_leaves; k++)
		if (!strcmp(s->leaf[k].name, name)) {
			*slot = k;
			return 0;
		}
	if (hpm_metric__is_context(name)) {
		size_t n = x->ev->nr_inputs;
		for (size_t k = s->nr_leaves; k < n; k++)
			if (x->ctx_name[k] && !strcmp(x->ctx_name[k], name)) {
				*slot = k;
				return 0;
			}
		if (n >= HPM_EXPR_MAX_INPUTS) {
			snprintf(why, why_len, "more than %d inputs", HPM_EXPR_MAX_INPUTS);
			return -E2BIG;
		}
		context_value(x->sel->ms, x->env, name, &x->in[n]);
		x->ctx_name[n] = name;
		x->ev->nr_inputs = n + 1;
		*slot = n;
		return 0;
	}
	const struct hpm_metric *m = hpm__metricset_find(x->sel->ms, name);
	if (m) {
		*sub = m->expr;
		return 0;
	}
	snprintf(why, why_len, "'%s' is not counted", name);
	return -ENOENT;
}

/* The covariance of events @a and @b of the bound list (their variance
 * when the same). */
static double ev_cov(const struct hpm_metric_env *env, size_t a, size_t b)
{
	if (a == b)
		return env->events[a].sigma * env->events[a].sigma;
	if (!env->cov || env->events[a].sigma == 0 || env->events[b].sigma == 0)
		return 0;
	return env->cov(env->cov_arg, a, b);
}

/* The value of a leaf: the sum (with signs) of its bound events; its
 * variance that of the sum, with the covariances of events of one group. */
static void leaf_value(const struct hpm_msel *sel, const struct leaf *lf,
		       const struct hpm_metric_env *env, struct hpm_value *v)
{
	const struct spec *sp = &sel->spec[lf->spec];
	double sum = 0, var = 0;

	if (lf->inst == SIZE_MAX || !sel->inst[lf->inst].bound) {
		hpm_value__na(v, "%s", sp->err ? sp->why : "its event is not in the list");
		return;
	}
	const struct inst *in = &sel->inst[lf->inst];
	for (unsigned k = 0; k < in->nr_ev; k++) {
		size_t e = in->ev[k];
		if (e >= env->nr_events) {
			hpm_value__na(v, "%s: no count", sp->text);
			return;
		}
		const struct hpm_value *c = &env->events[e];
		if (c->na) {
			hpm_value__na(v, "%s: %s", sp->text, c->reason[0] ? c->reason : "not counted");
			return;
		}
		sum += in->sign[k] * c->value;
		for (unsigned l = 0; l < in->nr_ev; l++) /* NaN stays NaN */
			if (in->ev[l] < env->nr_events)
				var += in->sign[k] * in->sign[l] * ev_cov(env, e, in->ev[l]);
	}
	hpm_value__set(v, sum, sqrt(var > 0 || isnan(var) ? var : 0));
}

/* How many counts were summed into leaf @i (perf's source_count): the
 * bound events of its instance (uncore boxes, ...). */
static double slot_sources(void *arg, size_t i)
{
	const struct ectx *x = arg;
	const struct sel *s = x->s;

	if (i >= s->nr_leaves || s->leaf[i].inst == SIZE_MAX)
		return 1;
	unsigned n = x->sel->inst[s->leaf[i].inst].nr_ev;
	return n ? n : 1;
}

/* The covariance of leaves @i and @j of the metric evaluated (slots
 * beyond the leaves are context values: exact). */
static double slot_cov(void *arg, size_t i, size_t j)
{
	const struct ectx *x = arg;
	const struct sel *s = x->s;
	double c = 0;

	if (i >= s->nr_leaves || j >= s->nr_leaves)
		return 0;
	const struct leaf *li = &s->leaf[i], *lj = &s->leaf[j];
	if (li->inst == SIZE_MAX || lj->inst == SIZE_MAX)
		return 0;
	const struct inst *a = &x->sel->inst[li->inst], *b = &x->sel->inst[lj->inst];
	for (unsigned k = 0; k < a->nr_ev; k++)
		for (unsigned l = 0; l < b->nr_ev; l++)
			if (a->ev[k] < x->env->nr_events && b->ev[l] < x->env->nr_events)
				c += a->sign[k] * b->sign[l] * ev_cov(x->env, a->ev[k], b->ev[l]);
	return c;
}

int hpm_msel__eval(const struct hpm_msel *sel, const struct hpm_metric_env *env,
		   struct hpm_value *out)
{
	size_t o = 0;

	if (!sel || !env || !out || env->sz < sizeof(*env))
		return -EINVAL;
	for (size_t i = 0; i < sel->nr; i++) {
		const struct sel *s = &sel->s[i];
		struct hpm_value *v;
		if (s->dropped)
			continue;
		v = &out[o++];
		if (s->why[0]) {
			hpm_value__na(v, "%s", s->why);
			continue;
		}
		struct ectx x = { .sel = sel, .s = s, .env = env };
		struct hpm_eval ev = {
			.resolve = eval_resolve,
			.arg = &x,
			.inputs = x.in,
			.nr_inputs = s->nr_leaves,
			.cov = env->cov ? slot_cov : NULL,
			.sources = slot_sources,
		};
		x.ev = &ev;
		for (unsigned k = 0; k < s->nr_leaves; k++)
			leaf_value(sel, &s->leaf[k], env, &x.in[k]);
		if (hpm_eval__run(&ev, s->m->expr, v) && !v->na)
			hpm_value__na(v, "%s cannot be evaluated", s->m->name);
	}
	return 0;
}
