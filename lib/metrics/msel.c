/* SPDX-License-Identifier: MIT */
/*
 * Selections: the metrics of one measurement. They are chosen by group or
 * name (hpm_msel__add, this file), their events worked out and packed into
 * groups that fit the core PMU's counters, one metric's events in one
 * group where they fit, so that a ratio is never taken between two
 * different time slices (hpm_msel__plan, msel-plan.c); then they are bound
 * to the events of the resolved list (hpm_msel__bind) and evaluated from
 * the counts (hpm_msel__eval, msel-bind.c).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <hpmon/preset.h>
#include "core/suggest-internal.h"
#include "events/evlist-internal.h"
#include "metrics/msel-internal.h"

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
	for (size_t i = 0; i < sel->nr_pending; i++)
		free(sel->pending[i]);
	free(sel->spec);
	free(sel->inst);
	free(sel->s);
	free(sel);
}

void hpm_msel__add_note(struct hpm_msel *sel, const char *fmt, ...)
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

int hpm_msel__grow(void **v, size_t *cap, size_t nr, size_t sz)
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

bool hpm_msel__valid_mods(const char *m)
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
	if (hpm_msel__grow((void **)&sel->s, &sel->cap, sel->nr, sizeof(*sel->s)))
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

static int resolve_pending(struct hpm_msel *sel);

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

/* Is @m in @group, as written or (@ci) whatever the case? */
static bool in_group(const struct hpm_metric *m, const char *group, int ci)
{
	size_t n = strlen(group);
	if (!ci)
		return hpm_metric__in_group(m, group);
	for (const char *p = m->groups; *p;) {
		size_t w = strcspn(p, " ");
		if (w == n && !strncasecmp(p, group, n))
			return true;
		p += w;
		while (*p == ' ')
			p++;
	}
	return false;
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
	rc = sel->nr_pending ? resolve_pending(sel) : hpm__metricset_load(sel->ms, true);
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
		if (mods && !hpm_msel__valid_mods(mods)) {
			err->err = rc = -HPM_ERR_BAD_MODIFIER;
			err->pos = pos + (size_t)(mods - item);
			snprintf(err->token, sizeof(err->token), "%s", mods);
			snprintf(err->msg, sizeof(err->msg),
				 "'%s' after '%s:' is not a list of modifiers (u k h H G p P D I e S W)",
				 mods, item);
			break;
		}
		/* a group first (ipc is a group and a metric of it), then a
		 * metric; as written, else whatever the case, as perf matches
		 * (-M topdownl1) */
		bool found = false;
		/* as written in hpmon's own metrics, then (read only now) in
		 * the vendor's too; then whatever the case */
		for (int ci = 0; ci < 2 && !found && !rc; ci++) {
			for (int pass = 0; pass < 2 && !found && !rc; pass++) {
				if (pass && (sel->ms->vendor_read ||
					     (rc = hpm__metricset_load_vendor(sel->ms))))
					break;
				for (size_t i = 0; i < sel->ms->nr && !rc; i++)
					if (in_group(sel->ms->m[i], item, ci)) {
						found = true;
						rc = select_one(sel, sel->ms->m[i], mods ? mods : "", false);
					}
				/* a hybrid model names a metric once per core type */
				for (size_t i = 0; !found && i < sel->ms->nr && !rc; i++)
					if (ci ? !strcasecmp(sel->ms->m[i]->name, item)
					       : !strcmp(sel->ms->m[i]->name, item)) {
						rc = select_one(sel, sel->ms->m[i], mods ? mods : "", false);
						for (size_t j = i + 1; j < sel->ms->nr && !rc; j++)
							if (!strcmp(sel->ms->m[j]->name, sel->ms->m[i]->name))
								rc = select_one(sel, sel->ms->m[j],
										mods ? mods : "", false);
						found = true;
					}
			}
		}
		if (!found && !rc) {
			err->err = rc = -HPM_ERR_UNKNOWN_EVENT;
			err->pos = pos;
			snprintf(err->token, sizeof(err->token), "%s", item);
			snprintf(err->msg, sizeof(err->msg),
				 "no metric or metric group '%s' for %s processors "
				 "(see 'hpmon list metrics')%s%s", item,
				 sel->ms->vendor_model[0] ? sel->ms->vendor_model : sel->ms->fam.name,
				 sel->ms->no_vendor[0] ? "; " : "", sel->ms->no_vendor);
			suggest(sel->ms, item, err->suggest, sizeof(err->suggest));
		}
		p = next;
	}
	return rc;
}

static int add_bound(struct hpm_msel *sel, const char *group)
{
	int rc = 0;
	for (size_t i = 0; i < sel->ms->nr && !rc; i++)
		if (hpm_metric__in_group(sel->ms->m[i], group))
			rc = select_one(sel, sel->ms->m[i], "", true);
	return rc;
}

int hpm_msel__add_bound(struct hpm_msel *sel, const char *group)
{
	if (!sel || !group)
		return -EINVAL;
	/*
	 * Bound metrics show only when every event they count is in the
	 * list. A list of software events binds only software metrics,
	 * which metrics-software.txt holds (test-metric-lazy checks that no
	 * other built-in file has one): until the list is known, read that
	 * file alone, and the rest (family detection and all) only for a
	 * list that can use it.
	 */
	if (sel->ms->loaded != HPM_MS_ALL && sel->nr_pending < MAX_PENDING) {
		bool only_bound = true;
		for (size_t i = 0; i < sel->nr; i++)
			only_bound &= sel->s[i].bound_only;
		char *g = only_bound ? strdup(group) : NULL;
		if (g) {
			hpm__metricset_load(sel->ms, false);
			sel->pending[sel->nr_pending++] = g;
			return add_bound(sel, group);
		}
	}
	hpm__metricset_load(sel->ms, true);
	return add_bound(sel, group);
}

static bool software_only(const struct hpm_evlist *list)
{
	for (size_t i = 0; list && i < list->nr; i++)
		if (list->ev[i].attr.type != PERF_TYPE_SOFTWARE)
			return false;
	return list != NULL;
}

/* Read the whole set and choose the pending groups again, in its order:
 * every selection is a bound one of those groups. */
static int resolve_pending(struct hpm_msel *sel)
{
	int rc = 0;

	hpm__metricset_load(sel->ms, true);
	sel->nr = 0;
	sel->planned = false;
	for (size_t i = 0; i < sel->nr_pending; i++) {
		if (!rc)
			rc = add_bound(sel, sel->pending[i]);
		free(sel->pending[i]);
	}
	sel->nr_pending = 0;
	return rc;
}

int hpm_msel__bind_pending(struct hpm_msel *sel, const struct hpm_evlist *list)
{
	if (!sel->nr_pending || software_only(list))
		return 0;
	return resolve_pending(sel);
}
