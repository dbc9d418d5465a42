/* SPDX-License-Identifier: MIT */
/*
 * Planning a selection (hpm_msel__plan): the events its metrics count,
 * each resolved once, and groups that fit the core PMU's general and
 * fixed counters, one metric's events in one group where they fit.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hpmon/preset.h>
#include "events/evlist-internal.h"
#include "events/generic-internal.h"
#include "metrics/msel-internal.h"
#include "sys/opts.h"

/* ---- planning ---- */

/* Does the last ':' part of @s hold modifiers already? */
static bool has_mods(const char *s)
{
	const char *c = strrchr(s, ':');
	const char *slash = strrchr(s, '/');
	if (slash && (!c || c < slash))
		return slash[1] && hpm_msel__valid_mods(slash + 1); /* cpu/event=1/u */
	return c && hpm_msel__valid_mods(c + 1);
}

static bool is_core_event(struct hpm_ctx *ctx, const struct hpm_event *ev)
{
	uint32_t t = ev->attr.type;
	if (t == PERF_TYPE_HARDWARE || t == PERF_TYPE_HW_CACHE || t == PERF_TYPE_RAW)
		return true;
	if (t == PERF_TYPE_SOFTWARE || t == PERF_TYPE_TRACEPOINT || t == PERF_TYPE_BREAKPOINT)
		return false;
	return hpm_pmu__is_core(ctx, ev->pmu);
}

/* Does @name resolve to software events only (task-clock ...)? The
 * selection's modifiers (ipc:u) are for the PMU's events; software clocks
 * keep measuring the tasks' time. */
static bool is_software(struct hpm_ctx *ctx, const char *name)
{
	struct hpm_evlist *l = NULL;
	bool sw = hpm_evlist__parse(ctx, name, &l, NULL) == 0;
	for (size_t k = 0; sw && k < l->nr; k++)
		sw = l->ev[k].attr.type == PERF_TYPE_SOFTWARE;
	hpm_evlist__free(l);
	return sw;
}

/* The spec for @name counted with @mods, resolved once. @quick: a generic
 * event's type and config are enough (bound-only metrics compare those). */
static int spec_get(struct hpm_msel *sel, const char *name, const char *mods, bool quick,
		    size_t *out)
{
	struct hpm_ctx *ctx = sel->ms->ctx;
	char text[320];

	if (mods[0] && !has_mods(name) && !is_software(ctx, name))
		snprintf(text, sizeof(text), "%s:%s", name, mods);
	else
		snprintf(text, sizeof(text), "%s", name);
	for (size_t i = 0; i < sel->nr_spec; i++)
		if (!strcmp(sel->spec[i].text, text)) {
			*out = i;
			return 0;
		}
	if (hpm_msel__grow((void **)&sel->spec, &sel->cap_spec, sel->nr_spec, sizeof(*sel->spec)))
		return -ENOMEM;
	struct spec *sp = &sel->spec[sel->nr_spec];
	memset(sp, 0, sizeof(*sp));
	sp->text = strdup(text);
	if (!sp->text)
		return -ENOMEM;
	*out = sel->nr_spec++;

	/* perf's default figures bind generic events: no need to read sysfs */
	if (quick && !mods[0] && hpm_generic__resolve(text, &sp->attr[0]) == 0) {
		hpm__attr_main_core(ctx, &sp->attr[0]); /* as resolved below */
		sp->nr_ev = 1;
		sp->sign[0] = +1;
		sp->need = sp->attr[0].type == PERF_TYPE_SOFTWARE ? NEED_FREE : NEED_CORE;
		return 0;
	}
	struct hpm_evlist *l = NULL;
	struct hpm_parse_error pe;
	/* a metric counts on one core PMU: on a hybrid CPU, cpu_core */
	int rc = hpm__evlist_parse_flags(ctx, text, HPM_EVLIST_MAIN_CORE, &l, &pe);
	if (rc == -ENOMEM)
		return rc;
	if (!rc && (l->nr == 0 || l->nr > MAX_SUBEV)) {
		rc = -HPM_ERR_TOO_MANY;
		snprintf(pe.msg, sizeof(pe.msg), "resolves to %zu events", l->nr);
		pe.suggest[0] = '\0';
	}
	if (rc) {
		sp->err = rc;
		/* with the parser's suggestions, as -e gives them */
		snprintf(sp->why, sizeof(sp->why), "event '%s' does not resolve here: %s%s%s%s",
			 text, pe.msg, pe.suggest[0] ? " (did you mean: " : "", pe.suggest,
			 pe.suggest[0] ? "?)" : "");
		hpm_evlist__free(l);
		return 0;
	}
	sp->nr_ev = (unsigned)l->nr;
	sp->need = NEED_FREE;
	for (size_t k = 0; k < l->nr; k++) {
		const struct hpm_event *ev = &l->ev[k];
		sp->attr[k] = ev->attr;
		sp->fixed[k] = -1;
		sp->sign[k] = +1;
		if (l->nr > 1)
			hpm_preset__component(ev->name, NULL, 0, &sp->sign[k]);
		if (is_core_event(ctx, ev)) {
			sp->need = NEED_CORE;
		} else if (ev->attr.type != PERF_TYPE_SOFTWARE && sp->need != NEED_CORE) {
			sp->need = NEED_OTHER;
		}
	}
	hpm_evlist__free(l);
	return 0;
}

/* Collect the leaves of selection @s and resolve their specs. */
int hpm_msel__leaves(struct hpm_msel *sel, struct sel *s)
{
	const char *names[HPM_EXPR_MAX_INPUTS];
	int n = hpm_metricset__leaves(sel->ms, s->m, names, HPM_EXPR_MAX_INPUTS);

	s->nr_leaves = 0;
	if (n == -E2BIG) {
		snprintf(s->why, sizeof(s->why), "%s counts more than %d events", s->m->name,
			 HPM_EXPR_MAX_INPUTS);
		return 0;
	}
	if (n < 0) {
		snprintf(s->why, sizeof(s->why),
			 "%s refers to itself through other metrics, or too deeply", s->m->name);
		return 0;
	}
	for (int i = 0; i < n; i++) {
		struct leaf *lf = &s->leaf[s->nr_leaves++];
		int rc;
		lf->name = names[i];
		lf->inst = SIZE_MAX;
		rc = spec_get(sel, names[i], s->mods, s->bound_only, &lf->spec);
		if (rc)
			return rc;
		if (sel->spec[lf->spec].err && !s->why[0] && !s->bound_only)
			snprintf(s->why, sizeof(s->why), "%s", sel->spec[lf->spec].why);
	}
	return 0;
}

/* Counters a set of specs needs: general ones, given @nr_fixed fixed. */
static int general_needed(const struct hpm_msel *sel, const size_t *specs, size_t n,
			  int nr_fixed)
{
	unsigned used_fixed = 0;
	int general = 0;
	for (size_t i = 0; i < n; i++) {
		const struct spec *sp = &sel->spec[specs[i]];
		for (unsigned k = 0; k < sp->nr_ev; k++) {
			int f = sp->fixed[k];
			if (f >= 0 && f < nr_fixed && f < 32 && !(used_fixed & (1u << f)))
				used_fixed |= 1u << f;
			else
				general++;
		}
	}
	return general;
}

struct group {
	size_t specs[HPM_EXPR_MAX_INPUTS * 2];
	size_t n;
};

static bool in_list(const size_t *v, size_t n, size_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

/* Would @g with the specs @add fit? */
static bool fits(const struct hpm_msel *sel, const struct group *g, const size_t *add,
		 size_t nadd, int nr_general, int nr_fixed)
{
	size_t u[HPM_EXPR_MAX_INPUTS * 3];
	size_t n = 0;
	for (size_t i = 0; i < g->n; i++)
		u[n++] = g->specs[i];
	for (size_t i = 0; i < nadd; i++)
		if (!in_list(u, n, add[i])) {
			if (n >= HPM_EXPR_MAX_INPUTS * 2)
				return false;
			u[n++] = add[i];
		}
	return general_needed(sel, u, n, nr_fixed) <= nr_general;
}

static void group_add(struct group *g, const size_t *add, size_t nadd)
{
	for (size_t i = 0; i < nadd; i++)
		if (!in_list(g->specs, g->n, add[i]) && g->n < HPM_EXPR_MAX_INPUTS * 2)
			g->specs[g->n++] = add[i];
}

static int inst_add(struct hpm_msel *sel, size_t spec, int group)
{
	for (size_t i = 0; i < sel->nr_inst; i++)
		if (sel->inst[i].spec == spec && sel->inst[i].group == group)
			return 0;
	if (hpm_msel__grow((void **)&sel->inst, &sel->cap_inst, sel->nr_inst, sizeof(*sel->inst)))
		return -ENOMEM;
	struct inst *in = &sel->inst[sel->nr_inst++];
	memset(in, 0, sizeof(*in));
	in->spec = spec;
	in->group = group;
	return 0;
}

struct fixed_find {
	struct hpm_ctx *ctx;
	const struct perf_event_attr *attr;
};

/* Slot + 1 when @spec resolves to the event sought, else 0. */
static int fixed_cb(const char *spec, int slot, void *arg)
{
	const struct fixed_find *ff = arg;
	struct hpm_evlist *l = NULL;

	if (hpm_evlist__parse(ff->ctx, spec, &l, NULL))
		return 0; /* an alias this machine does not have */
	const struct perf_event_attr *a = hpm_event__attr(hpm_evlist__event(l, 0));
	bool same = a->type == ff->attr->type && a->config == ff->attr->config &&
		    a->config1 == ff->attr->config1;
	hpm_evlist__free(l);
	return same ? slot + 1 : 0;
}

/* The fixed counter an event of the core PMU takes in family @family, or
 * -1 when it needs a general counter. */
static int fixed_slot(struct hpm_ctx *ctx, const char *family,
		      const struct perf_event_attr *attr)
{
	struct fixed_find ff = { .ctx = ctx, .attr = attr };
	return hpm_family__foreach_fixed(family, fixed_cb, &ff) - 1;
}

/* Say that metric @name's @need general counters did not fit in
 * @nr_general, and what that means: counts from different time slices, or,
 * on a machine without a core PMU, no counts at all. @assumed: the number
 * of counters is not known for this CPU. */
static void split_note(struct hpm_msel *sel, const char *name, int need, int nr_general,
		       int nr_fixed, bool assumed, size_t nr_split)
{
	const char *s = need == 1 ? "" : "s";
	char core[64];

	if (assumed && hpm_pmu__core_name(sel->ms->ctx, core, sizeof(core)))
		hpm_msel__add_note(sel, "%s needs %d general counter%s, and this machine exposes "
				   "no core PMU (none in sysfs): its events cannot be counted here",
				   name, need, s);
	else if (assumed)
		hpm_msel__add_note(sel, "%s needs %d general counter%s, more than the %d assumed for "
				   "core PMU %s, whose number of counters is not known (CPU family "
				   "%s has no counters line): its events are split across %zu groups "
				   "that the kernel multiplexes, so its value mixes different time "
				   "slices", name, need, s, nr_general, core, sel->ms->fam.name,
				   nr_split);
	else
		hpm_msel__add_note(sel, "%s needs %d general counter%s but the core PMU has %d (and "
				   "%d fixed): its events are split across %zu groups that the "
				   "kernel multiplexes, so its value mixes different time slices",
				   name, need, s, nr_general, nr_fixed, nr_split);
}

int hpm_msel__plan(struct hpm_msel *sel, const struct hpm_plan_opts *o, char **spec)
{
	int nr_general = sel->ms->fam.nr_general, nr_fixed = sel->ms->fam.nr_fixed;
	struct group *groups = NULL;
	size_t nr_groups = 0, cap_groups = 0;
	char *out = NULL;
	size_t len = 0;
	FILE *f = NULL;
	int rc = 0;

	if (!sel || !spec || !HPM_OPTS_VALID(o, hpm_plan_opts))
		return -EINVAL;
	*spec = NULL;
	int want_general = HPM_OPTS_GET(o, nr_general, 0);
	int want_fixed = HPM_OPTS_GET(o, nr_fixed, -1);
	if (want_general > 0) {
		nr_general = want_general;
		if (want_fixed >= 0)
			nr_fixed = want_fixed;
	}
	/* the family has no counters line (or there is no core PMU): plan for
	 * 4, the notes say the number was assumed */
	bool assumed = nr_general <= 0;
	if (assumed)
		nr_general = 4;
	sel->nr_inst = 0;
	for (size_t i = 0; i < sel->nr_notes; i++)
		free(sel->notes[i]);
	sel->nr_notes = 0;

	for (size_t i = 0; i < sel->nr && !rc; i++) {
		struct sel *s = &sel->s[i];
		size_t core[HPM_EXPR_MAX_INPUTS];
		size_t nc = 0;

		s->why[0] = '\0';
		rc = hpm_msel__leaves(sel, s);
		if (rc || s->bound_only)
			continue;
		if (s->why[0]) {
			hpm_msel__add_note(sel, "%s: not computed: %s", s->m->name, s->why);
			continue;
		}
		for (unsigned k = 0; k < s->nr_leaves && !rc; k++) {
			struct spec *sp = &sel->spec[s->leaf[k].spec];
			if (sp->need == NEED_CORE && !sp->fixed_known) {
				for (unsigned e = 0; e < sp->nr_ev; e++)
					sp->fixed[e] = fixed_slot(sel->ms->ctx, sel->ms->fam.name,
								  &sp->attr[e]);
				sp->fixed_known = true;
			}
			if (sp->need == NEED_CORE)
				core[nc++] = s->leaf[k].spec;
			else
				rc = inst_add(sel, s->leaf[k].spec, -1);
		}
		if (rc || !nc)
			continue;
		/* one group for the metric's events: an existing one they fit in */
		struct group empty = { .n = 0 };
		if (fits(sel, &empty, core, nc, nr_general, nr_fixed)) {
			size_t g;
			for (g = 0; g < nr_groups; g++)
				if (fits(sel, &groups[g], core, nc, nr_general, nr_fixed))
					break;
			if (g == nr_groups) {
				if (hpm_msel__grow((void **)&groups, &cap_groups, nr_groups, sizeof(*groups))) {
					rc = -ENOMEM;
					break;
				}
				groups[nr_groups++].n = 0;
			}
			group_add(&groups[g], core, nc);
			for (size_t k = 0; k < nc && !rc; k++)
				rc = inst_add(sel, core[k], (int)g);
			continue;
		}
		/* too many for the counters: split, and say so */
		size_t first = nr_groups, k = 0;
		while (k < nc && !rc) {
			if (hpm_msel__grow((void **)&groups, &cap_groups, nr_groups, sizeof(*groups))) {
				rc = -ENOMEM;
				break;
			}
			struct group *g = &groups[nr_groups++];
			g->n = 0;
			group_add(g, &core[k++], 1); /* at least one, even if it cannot fit */
			while (k < nc && fits(sel, g, &core[k], 1, nr_general, nr_fixed))
				group_add(g, &core[k++], 1);
			for (size_t j = 0; j < g->n && !rc; j++)
				rc = inst_add(sel, g->specs[j], (int)(nr_groups - 1));
		}
		split_note(sel, s->m->name, general_needed(sel, core, nc, nr_fixed), nr_general,
			   nr_fixed, assumed, nr_groups - first);
	}
	if (rc)
		goto out;
	sel->nr_groups = (int)nr_groups;

	/* the spec: groups first, in order, then the events counted alone */
	f = open_memstream(&out, &len);
	if (!f) {
		rc = -ENOMEM;
		goto out;
	}
	bool any = false;
	struct inst *ordered = malloc((sel->nr_inst + 1) * sizeof(*ordered));
	size_t no = 0;
	if (!ordered) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t g = 0; g < nr_groups; g++) {
		size_t members = 0;
		for (size_t i = 0; i < sel->nr_inst; i++)
			members += sel->inst[i].group == (int)g;
		fprintf(f, "%s%s", any ? "," : "", members > 1 ? "{" : "");
		size_t m = 0;
		for (size_t i = 0; i < sel->nr_inst; i++)
			if (sel->inst[i].group == (int)g) {
				fprintf(f, "%s%s", m++ ? "," : "", sel->spec[sel->inst[i].spec].text);
				ordered[no++] = sel->inst[i];
			}
		fprintf(f, "%s", members > 1 ? "}" : "");
		any = true;
	}
	for (size_t i = 0; i < sel->nr_inst; i++)
		if (sel->inst[i].group < 0) {
			fprintf(f, "%s%s", any ? "," : "", sel->spec[sel->inst[i].spec].text);
			ordered[no++] = sel->inst[i];
			any = true;
		}
	if (no)
		memcpy(sel->inst, ordered, no * sizeof(*ordered));
	free(ordered);
	if (fclose(f)) {
		f = NULL;
		rc = -ENOMEM;
		goto out;
	}
	f = NULL;
	*spec = out;
	out = NULL;
	sel->planned = true;
out:
	if (f)
		fclose(f);
	free(out);
	free(groups);
	return rc;
}
