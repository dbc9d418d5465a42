/* SPDX-License-Identifier: MIT */
/*
 * PAPI presets from data/presets.txt:
 *   preset NAME DESCRIPTION
 *   map    NAME FAMILY MAPPING      MAPPING: TERM [(+|-) TERM]...
 *                                   or "none: why"
 * A preset takes the mapping of the first family of the machine's chain
 * (data/families.txt) that has one; presets fall back to the generic
 * events even on a machine without a core PMU, where they then fail to
 * open like any hardware event (and say why).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/data-internal.h"
#include "core/suggest-internal.h"
#include "events/family-internal.h"
#include "events/preset-internal.h"

#define PREFIX "PAPI_"

static const char *presets_text(void)
{
	return hpm_data__get("presets.txt");
}

/* The families whose mappings apply, most specific first. */
static void chain_of(const struct hpm_family *f, char chain[][HPM_FAMILY_NAME_MAX],
		     unsigned *nr)
{
	bool generic = false;
	*nr = 0;
	for (unsigned i = 0; i < f->nr_chain; i++) {
		snprintf(chain[(*nr)++], HPM_FAMILY_NAME_MAX, "%s", f->chain[i]);
		generic |= !strcmp(f->chain[i], "generic");
	}
	if (!generic && *nr < HPM_FAMILY_MAX_CHAIN + 1)
		snprintf(chain[(*nr)++], HPM_FAMILY_NAME_MAX, "generic");
}

/* Split the mapping into terms; false when it is malformed. */
static bool split_terms(const char *mapping, struct hpm_preset_expansion *x)
{
	char buf[256], *save = NULL, *tok;
	int sign = +1;
	bool want_term = true;

	snprintf(buf, sizeof(buf), "%s", mapping);
	x->nr = 0;
	for (tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		if (!want_term) {
			if (strcmp(tok, "+") && strcmp(tok, "-"))
				return false;
			sign = tok[0] == '-' ? -1 : +1;
			want_term = true;
			continue;
		}
		if (x->nr == HPM_PRESET_MAX_TERMS)
			return false;
		snprintf(x->term[x->nr].spec, sizeof(x->term[0].spec), "%s", tok);
		x->term[x->nr].sign = sign;
		x->nr++;
		want_term = false;
	}
	return x->nr > 0 && !want_term;
}

/* Fill @out for preset @name (a "preset" line) on family chain @f. */
static int lookup(const struct hpm_family *f, const char *name,
		  struct hpm_preset_info *out)
{
	const char *text = presets_text();
	char chain[HPM_FAMILY_MAX_CHAIN + 1][HPM_FAMILY_NAME_MAX];
	struct hpm_data_line line = { 0 };
	size_t pos = 0;
	unsigned nr, best = UINT32_MAX;

	memset(out, 0, sizeof(*out));
	if (!text)
		return -ENOENT;
	chain_of(f, chain, &nr);
	while (hpm_data__next(text, &pos, 3, &line)) {
		if (line.nr < 3 || strcmp(line.field[1], name))
			continue;
		if (!strcmp(line.field[0], "preset")) {
			snprintf(out->name, sizeof(out->name), "%s", name);
			snprintf(out->desc, sizeof(out->desc), "%s", line.field[2]);
			continue;
		}
		if (strcmp(line.field[0], "map"))
			continue;
		/* field[2] is "FAMILY MAPPING..." */
		char fam[HPM_FAMILY_NAME_MAX];
		const char *rest = line.field[2];
		size_t n = strcspn(rest, " \t");
		if (n >= sizeof(fam))
			continue;
		memcpy(fam, rest, n);
		fam[n] = '\0';
		rest += n;
		while (*rest == ' ' || *rest == '\t')
			rest++;
		for (unsigned i = 0; i < nr && i < best; i++) {
			if (strcmp(chain[i], fam))
				continue;
			best = i;
			snprintf(out->family, sizeof(out->family), "%s", fam);
			if (!strncmp(rest, "none", 4)) {
				out->mapping[0] = '\0';
				rest += 4;
				while (*rest == ':' || *rest == ' ')
					rest++;
				snprintf(out->why, sizeof(out->why), "no mapping on %s processors: %s",
					 fam, rest);
			} else {
				snprintf(out->mapping, sizeof(out->mapping), "%s", rest);
				out->why[0] = '\0';
			}
		}
	}
	if (!out->name[0])
		return -ENOENT;
	if (!out->mapping[0] && !out->why[0]) {
		out->family[0] = '\0';
		snprintf(out->why, sizeof(out->why),
			 "no mapping on %s processors: hpmon knows no event for it", f->name);
	}
	if (out->mapping[0]) {
		struct hpm_preset_expansion x;
		if (!split_terms(out->mapping, &x)) {
			snprintf(out->why, sizeof(out->why), "malformed mapping '%s' in data/presets.txt",
				 out->mapping);
			out->mapping[0] = '\0';
		} else {
			out->derived = x.nr > 1;
		}
	}
	return 0;
}

int hpm_preset__find(struct hpm_ctx *ctx, const char *name,
		     struct hpm_preset_info *out)
{
	struct hpm_family f;
	int rc;

	if (!ctx || !name || !out)
		return -EINVAL;
	rc = hpm_family__detect_into(ctx, &f);
	if (rc)
		return rc;
	return lookup(&f, name, out);
}

int hpm_preset__foreach(struct hpm_ctx *ctx, hpm_preset_fn fn, void *arg)
{
	const char *text = presets_text();
	struct hpm_data_line line = { 0 };
	struct hpm_preset_info info;
	struct hpm_family f;
	size_t pos = 0;
	int rc;

	if (!ctx || !fn)
		return -EINVAL;
	if (!text)
		return -ENOENT;
	rc = hpm_family__detect_into(ctx, &f);
	if (rc)
		return rc;
	while (hpm_data__next(text, &pos, 3, &line)) {
		if (line.nr < 3 || strcmp(line.field[0], "preset"))
			continue;
		char name[32];
		snprintf(name, sizeof(name), "%s", line.field[1]);
		if (lookup(&f, name, &info))
			continue;
		rc = fn(&info, arg);
		if (rc)
			return rc;
	}
	return 0;
}

bool hpm_preset__component(const char *evname, char *preset, size_t len, int *sign)
{
	size_t n;
	const char *open;

	if (!evname || strncmp(evname, PREFIX, strlen(PREFIX)))
		return false;
	n = strlen(evname);
	if (n < 4 || evname[n - 1] != ')')
		return false;
	open = strchr(evname, '(');
	if (!open || (open[1] != '+' && open[1] != '-'))
		return false;
	if (preset && len) {
		size_t pl = (size_t)(open - evname);
		if (pl >= len)
			pl = len - 1;
		memcpy(preset, evname, pl);
		preset[pl] = '\0';
	}
	if (sign)
		*sign = open[1] == '-' ? -1 : +1;
	return true;
}

static void suggest(const char *word, char *buf, size_t len)
{
	const char *text = presets_text();
	struct hpm_data_line line = { 0 };
	struct hpm_suggest s;
	size_t pos = 0;

	buf[0] = '\0';
	if (!text)
		return;
	hpm_suggest__init(&s, word, 4, HPM_SUGGEST_WHOLE);
	while (hpm_data__next(text, &pos, 3, &line))
		if (line.nr >= 2 && !strcmp(line.field[0], "preset"))
			hpm_suggest__offer(&s, line.field[1]);
	hpm_suggest__format(&s, buf, len);
}

int hpm_preset__expand(struct hpm_ctx *ctx, const char *s, size_t len,
		       struct hpm_preset_expansion *out)
{
	struct hpm_preset_info info;
	char name[64], written[128];
	const char *colon;
	size_t nlen;
	int rc;

	memset(out, 0, sizeof(*out));
	if (len < strlen(PREFIX) || strncmp(s, PREFIX, strlen(PREFIX)))
		return -ENOENT;
	colon = memchr(s, ':', len);
	nlen = colon ? (size_t)(colon - s) : len;
	if (nlen >= sizeof(name) || len >= sizeof(written)) {
		snprintf(out->msg, sizeof(out->msg), "no PAPI preset named '%.*s'", (int)len, s);
		return -HPM_ERR_UNKNOWN_EVENT;
	}
	memcpy(name, s, nlen);
	name[nlen] = '\0';
	memcpy(written, s, len);
	written[len] = '\0';
	rc = hpm_preset__find(ctx, name, &info);
	if (rc == -ENOENT) {
		suggest(name, out->suggest, sizeof(out->suggest));
		snprintf(out->msg, sizeof(out->msg),
			 "no PAPI preset named '%s' (see 'hpmon list --presets')", name);
		return -HPM_ERR_UNKNOWN_EVENT;
	}
	if (rc)
		return rc;
	if (!info.mapping[0]) {
		snprintf(out->msg, sizeof(out->msg), "%s: %s", name, info.why);
		return -HPM_ERR_UNKNOWN_EVENT;
	}
	if (!split_terms(info.mapping, out)) {
		snprintf(out->msg, sizeof(out->msg), "%s: %s", name, info.why);
		return -HPM_ERR_UNKNOWN_EVENT;
	}
	for (unsigned i = 0; i < out->nr; i++) {
		struct hpm_preset_term *t = &out->term[i];
		char base[sizeof(t->spec)];
		snprintf(base, sizeof(base), "%s", t->spec);
		if (colon) /* "PAPI_X:" gives "TERM:", which the parser refuses */
			snprintf(t->spec, sizeof(t->spec), "%s:%.*s", base,
				 (int)(len - nlen - 1), colon + 1);
		if (out->nr == 1)
			snprintf(t->name, sizeof(t->name), "%s", written);
		else
			snprintf(t->name, sizeof(t->name), "%s(%c%s)", written,
				 t->sign < 0 ? '-' : '+', base);
	}
	return 0;
}
