/* SPDX-License-Identifier: MIT */
/*
 * Selections: the metrics of one measurement. They are chosen by group or
 * name (hpm_msel__add), their events worked out and packed into groups
 * that fit the core PMU's counters, one metric's events in one group where
 * they fit, so that a ratio is never taken between two different time
 * slices (hpm_msel__plan); then they are bound to the events of the
 * resolved list (hpm_msel__bind) and evaluated from the counts
 * (hpm_msel__eval).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hpmon/preset.h>
#include "core/suggest-internal.h"
#include "events/evlist-internal.h"
#include "events/generic-internal.h"
#include "metrics/metric-internal.h"

#define MAX_SEL 1024
#define MAX_NOTES 64
#define MAX_MODS 15
#define MAX_SUBEV 8     /* events one name resolves to (a derived preset) */

/* What an event needs on the machine. */
enum need {
	NEED_CORE,   /* a counter of the core PMU: grouped with its metric */
	NEED_FREE,   /* software: never multiplexed, counted once alone */
	NEED_OTHER,  /* another PMU (uncore, msr, power): alone */
};

/* One distinct event spec the selection counts ("instructions:u"). */
struct spec {
	char *text;
	int err;               /* it does not resolve here */
	char why[224];
	enum need need;
	unsigned nr_ev;        /* events it resolves to */
	bool fixed_known;      /* fixed[] worked out (only the plan needs it) */
	int fixed[MAX_SUBEV];  /* fixed slot of each, or -1 */
	int sign[MAX_SUBEV];   /* +1, or -1 for a derived preset's subtracted term */
	struct perf_event_attr attr[MAX_SUBEV];
};

/* One instance of a spec in the plan: in a group, or alone (group -1). */
struct inst {
	size_t spec;
	int group;
	/* bound */
	size_t ev[MAX_SUBEV];
	int sign[MAX_SUBEV];
	unsigned nr_ev;
	bool bound;
};

struct leaf {
	const char *name;      /* as written in the formula */
	size_t spec;           /* index of name + the selection's modifiers */
	size_t inst;           /* bound instance, SIZE_MAX until bound */
};

struct sel {
	const struct hpm_metric *m;
	char mods[MAX_MODS + 1];
	bool bound_only;
	bool dropped;          /* bound-only, inputs missing: not shown */
	char why[224];         /* n/a for every evaluation, when set */
	struct leaf leaf[HPM_EXPR_MAX_INPUTS];
	unsigned nr_leaves;
	size_t anchor;
};

struct hpm_msel {
	struct hpm_metricset *ms;
	struct sel *s;
	size_t nr, cap;
	struct spec *spec;
	size_t nr_spec, cap_spec;
	struct inst *inst;
	size_t nr_inst, cap_inst;
	int nr_groups;
	char *notes[MAX_NOTES];
	size_t nr_notes;
	bool planned;
};

struct hpm_msel *hpm_msel__new(struct hpm_metricset *ms)
{
	struct hpm_msel *sel;
	if (!ms) {
		errno = EINVAL;
		return NULL;
	}
	sel = calloc(1, sizeof(*sel));
	if (sel)
		sel->ms = ms;
	return sel;
}

void hpm_msel__free(struct hpm_msel *sel)
{
	if (!sel)
		return;
	for (size_t i = 0; i < sel->nr_spec; i++)
		free(sel->spec[i].text);
	for (size_t i = 0; i < sel->nr_notes; i++)
		free(sel->notes[i]);
	free(sel->spec);
	free(sel->inst);
	free(sel->s);
	free(sel);
}

static void note(struct hpm_msel *sel, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(struct hpm_msel *sel, const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	if (sel->nr_notes >= MAX_NOTES)
		return;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	for (size_t i = 0; s && i < sel->nr_notes; i++)
		if (!strcmp(sel->notes[i], s)) {
			free(s);
			return;
		}
	if (s)
		sel->notes[sel->nr_notes++] = s;
}

size_t hpm_msel__nr_notes(const struct hpm_msel *sel) { return sel->nr_notes; }

const char *hpm_msel__note(const struct hpm_msel *sel, size_t i)
{
	return i < sel->nr_notes ? sel->notes[i] : NULL;
}

static int grow(void **v, size_t *cap, size_t nr, size_t sz)
{
	if (nr < *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 16;
	void *n = realloc(*v, c * sz);
	if (!n)
		return -ENOMEM;
	*v = n;
	*cap = c;
	return 0;
}

/* ---- selecting ---- */

static bool valid_mods(const char *m)
{
	if (!*m || strlen(m) > MAX_MODS)
		return false;
	for (; *m; m++)
		if (!strchr("ukhHGpPDIeSW", *m))
			return false;
	return true;
}

static int select_one(struct hpm_msel *sel, const struct hpm_metric *m,
		      const char *mods, bool bound_only)
{
	for (size_t i = 0; i < sel->nr; i++)
		if (sel->s[i].m == m && !strcmp(sel->s[i].mods, mods)) {
			sel->s[i].bound_only &= bound_only;
			return 0;
		}
	if (sel->nr >= MAX_SEL)
		return -HPM_ERR_TOO_MANY;
	if (grow((void **)&sel->s, &sel->cap, sel->nr, sizeof(*sel->s)))
		return -ENOMEM;
	struct sel *s = &sel->s[sel->nr++];
	memset(s, 0, sizeof(*s));
	s->m = m;
	snprintf(s->mods, sizeof(s->mods), "%s", mods);
	s->bound_only = bound_only;
	s->anchor = SIZE_MAX;
	sel->planned = false;
	return 0;
}

/* Closest group and metric names to @word, for an error. */
static void suggest(const struct hpm_metricset *ms, const char *word, char *out,
		    size_t len)
{
	struct hpm_suggest s;

	hpm_suggest__init(&s, word, 3, HPM_SUGGEST_IN_NAME);
	for (size_t i = 0; i < ms->nr; i++) {
		const struct hpm_metric *m = ms->m[i];
		char groups[256], *save = NULL;
		unsigned nc = 1;
		hpm_suggest__offer(&s, m->name);
		snprintf(groups, sizeof(groups), "%s", m->groups);
		/* the metric and its first seven groups */
		for (char *g = strtok_r(groups, " ", &save); g && nc < 8;
		     g = strtok_r(NULL, " ", &save), nc++)
			hpm_suggest__offer(&s, g);
	}
	hpm_suggest__format(&s, out, len);
}

int hpm_msel__add(struct hpm_msel *sel, const char *names, struct hpm_parse_error *err)
{
	struct hpm_parse_error local;
	const char *p = names;
	int rc = 0;

	if (!err)
		err = &local;
	memset(err, 0, sizeof(*err));
	if (!sel || !names)
		return -EINVAL;
	while (*p && !rc) {
		size_t len = strcspn(p, ",");
		char item[128], *mods;
		size_t pos = (size_t)(p - names);
		const char *next = p[len] ? p + len + 1 : p + len;
		while (len && (*p == ' ' || *p == '\t')) {
			p++;
			len--;
			pos++;
		}
		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		if (!len || len >= sizeof(item)) {
			err->err = rc = -HPM_ERR_SYNTAX;
			err->pos = pos;
			snprintf(err->msg, sizeof(err->msg), len ? "name too long" :
				 "empty name in the metric list (write -M ipc,branch)");
			break;
		}
		memcpy(item, p, len);
		item[len] = '\0';
		mods = strchr(item, ':');
		if (mods)
			*mods++ = '\0';
		if (mods && !valid_mods(mods)) {
			err->err = rc = -HPM_ERR_BAD_MODIFIER;
			err->pos = pos + (size_t)(mods - item);
			snprintf(err->token, sizeof(err->token), "%s", mods);
			snprintf(err->msg, sizeof(err->msg),
				 "'%s' after '%s:' is not a list of modifiers (u k h H G p P D I e S W)",
				 mods, item);
			break;
		}
		/* a group first (ipc is a group and a metric of it), then a metric */
		bool found = hpm_metricset__is_group(sel->ms, item);
		for (size_t i = 0; found && i < sel->ms->nr && !rc; i++)
			if (hpm_metric__in_group(sel->ms->m[i], item))
				rc = select_one(sel, sel->ms->m[i], mods ? mods : "", false);
		const struct hpm_metric *m = found ? NULL : hpm_metricset__find(sel->ms, item);
		if (m) {
			found = true;
			rc = select_one(sel, m, mods ? mods : "", false);
		}
		if (!found) {
			err->err = rc = -HPM_ERR_UNKNOWN_EVENT;
			err->pos = pos;
			snprintf(err->token, sizeof(err->token), "%s", item);
			snprintf(err->msg, sizeof(err->msg),
				 "no metric or metric group '%s' for %s processors "
				 "(see 'hpmon list --metrics')", item, sel->ms->fam.name);
			suggest(sel->ms, item, err->suggest, sizeof(err->suggest));
		}
		p = next;
	}
	return rc;
}

int hpm_msel__add_bound(struct hpm_msel *sel, const char *group)
{
	int rc = 0;
	if (!sel || !group)
		return -EINVAL;
	for (size_t i = 0; i < sel->ms->nr && !rc; i++)
		if (hpm_metric__in_group(sel->ms->m[i], group))
			rc = select_one(sel, sel->ms->m[i], "", true);
	return rc;
}

/* ---- planning ---- */

/* Does the last ':' part of @s hold modifiers already? */
static bool has_mods(const char *s)
{
	const char *c = strrchr(s, ':');
	const char *slash = strrchr(s, '/');
	if (slash && (!c || c < slash))
		return slash[1] && valid_mods(slash + 1); /* cpu/event=1/u */
	return c && valid_mods(c + 1);
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
	if (grow((void **)&sel->spec, &sel->cap_spec, sel->nr_spec, sizeof(*sel->spec)))
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
	}
	if (rc) {
		sp->err = rc;
		snprintf(sp->why, sizeof(sp->why), "event '%s' does not resolve here: %s", text,
			 pe.msg);
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
static int leaves_of(struct hpm_msel *sel, struct sel *s)
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
	if (grow((void **)&sel->inst, &sel->cap_inst, sel->nr_inst, sizeof(*sel->inst)))
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

int hpm_msel__plan(struct hpm_msel *sel, const struct hpm_plan_opts *o, char **spec)
{
	int nr_general = sel->ms->fam.nr_general, nr_fixed = sel->ms->fam.nr_fixed;
	struct group *groups = NULL;
	size_t nr_groups = 0, cap_groups = 0;
	char *out = NULL;
	size_t len = 0;
	FILE *f = NULL;
	int rc = 0;

	if (!sel || !spec)
		return -EINVAL;
	*spec = NULL;
	if (o && o->sz >= sizeof(*o)) {
		if (o->nr_general > 0)
			nr_general = o->nr_general;
		if (o->nr_fixed >= 0 && o->nr_general > 0)
			nr_fixed = o->nr_fixed;
	}
	if (nr_general <= 0)
		nr_general = 4; /* no core PMU: events fail to open anyway */
	sel->nr_inst = 0;
	for (size_t i = 0; i < sel->nr_notes; i++)
		free(sel->notes[i]);
	sel->nr_notes = 0;

	for (size_t i = 0; i < sel->nr && !rc; i++) {
		struct sel *s = &sel->s[i];
		size_t core[HPM_EXPR_MAX_INPUTS];
		size_t nc = 0;

		s->why[0] = '\0';
		rc = leaves_of(sel, s);
		if (rc || s->bound_only)
			continue;
		if (s->why[0]) {
			note(sel, "%s: not computed: %s", s->m->name, s->why);
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
				if (grow((void **)&groups, &cap_groups, nr_groups, sizeof(*groups))) {
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
			if (grow((void **)&groups, &cap_groups, nr_groups, sizeof(*groups))) {
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
		int need = general_needed(sel, core, nc, nr_fixed);
		note(sel,
		     "%s needs %d general counter%s but the core PMU has %d (and %d fixed): its "
		     "events are split across %zu groups that the kernel multiplexes, so its "
		     "value mixes different time slices",
		     s->m->name, need, need == 1 ? "" : "s", nr_general, nr_fixed,
		     nr_groups - first);
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
	if (grow((void **)&sel->inst, &sel->cap_inst, sel->nr_inst, sizeof(*sel->inst)))
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
	if (missing && len)
		missing[0] = '\0';
	sel->nr_inst = 0;
	for (size_t i = 0; i < sel->nr; i++) {
		struct sel *s = &sel->s[i];
		int rc = leaves_of(sel, s);
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
			if (grow((void **)&sel->inst, &sel->cap_inst, sel->nr_inst,
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

/* ---- evaluation ---- */

struct ectx {
	const struct hpm_msel *sel;
	const struct sel *s;
	const struct hpm_metric_env *env;
	struct hpm_eval *ev;
	struct hpm_value in[HPM_EXPR_MAX_INPUTS];
	const char *ctx_name[HPM_EXPR_MAX_INPUTS]; /* context values given slots */
};

static void context_value(const struct hpm_metric_env *env, const char *name,
			  struct hpm_value *v)
{
	if (!strcmp(name, "duration_time")) {
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
		context_value(x->env, name, &x->in[n]);
		x->ctx_name[n] = name;
		x->ev->nr_inputs = n + 1;
		*slot = n;
		return 0;
	}
	const struct hpm_metric *m = hpm_metricset__find(x->sel->ms, name);
	if (m) {
		*sub = m->expr;
		return 0;
	}
	snprintf(why, why_len, "'%s' is not counted", name);
	return -ENOENT;
}

/* The value of a leaf: the sum (with signs) of its bound events. */
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
		var += c->sigma * c->sigma; /* NaN stays NaN */
	}
	hpm_value__set(v, sum, sqrt(var));
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
		};
		x.ev = &ev;
		for (unsigned k = 0; k < s->nr_leaves; k++)
			leaf_value(sel, &s->leaf[k], env, &x.in[k]);
		if (hpm_eval__run(&ev, s->m->expr, v) && !v->na)
			hpm_value__na(v, "%s cannot be evaluated", s->m->name);
	}
	return 0;
}
