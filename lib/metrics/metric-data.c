/* SPDX-License-Identifier: MIT */
/*
 * The metric set of a machine (hpm_metricset__new): the metric files
 * shipped for its family's chain, and metrics generated from the typical
 * costs of events (data/costs-*.txt).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/data-internal.h"
#include "core/file-internal.h"
#include "events/evlist-internal.h"
#include "metrics/metric-internal.h"
#include "sys/opts.h"

/* ---- the shipped files ---- */

static int add_data_file(struct hpm_metricset *ms, const char *file)
{
	const char *text = hpm_data__get(file);
	char origin[64];
	struct hpm_parse_error e;

	if (!text)
		return 0;
	snprintf(origin, sizeof(origin), "data/%s", file);
	if (ms->nr_files < sizeof(ms->files) / sizeof(ms->files[0]))
		snprintf(ms->files[ms->nr_files++], sizeof(ms->files[0]), "%s", file);
	return hpm_metricset__add_text(ms, text, origin, &e);
}

struct cost {
	char cause[48];
	char event[96];
	double cycles;
	char desc[160];
	char origin[64];
};

/* Add the lines of costs file @text (named @origin) to @v, replacing a
 * cause's earlier line. */
static int merge_costs(const char *text, const char *origin, struct cost **pv, size_t *pn)
{
	struct hpm_data_line line = { 0 };
	struct cost *v = *pv;
	size_t pos = 0, n = *pn;

	while (hpm_data__next(text, &pos, 4, &line)) {
		if (line.nr < 3)
			continue;
		size_t k;
		for (k = 0; k < n; k++)
			if (!strcmp(v[k].cause, line.field[0]))
				break;
		if (k == n) {
			struct cost *nv = realloc(v, (n + 1) * sizeof(*v));
			if (!nv)
				return -ENOMEM;
			*pv = v = nv;
			*pn = ++n;
		}
		snprintf(v[k].cause, sizeof(v[k].cause), "%s", line.field[0]);
		snprintf(v[k].event, sizeof(v[k].event), "%s", line.field[1]);
		v[k].cycles = strtod(line.field[2], NULL);
		snprintf(v[k].desc, sizeof(v[k].desc), "%s", line.nr > 3 ? line.field[3] : "");
		snprintf(v[k].origin, sizeof(v[k].origin), "%s:%u", origin, line.lineno);
	}
	return 0;
}

#define MAX_COSTS_FILE (64u << 10)

/* The calibrated costs file @path: its text (malloc'd), or NULL and errno. */
static char *read_costs_file(const char *path)
{
	FILE *f = hpm__fopen_input(path, MAX_COSTS_FILE);
	char *text;
	size_t n;

	if (!f)
		return NULL;
	text = malloc(MAX_COSTS_FILE + 1);
	if (!text) {
		fclose(f);
		errno = ENOMEM;
		return NULL;
	}
	n = fread(text, 1, MAX_COSTS_FILE, f);
	if (ferror(f)) {
		fclose(f);
		free(text);
		errno = EIO;
		return NULL;
	}
	fclose(f);
	text[n] = '\0';
	return text;
}

/* Read costs-FAMILY.txt of the chain, most generic first, then the
 * calibrated file; later ones replace a cause's line. */
static int load_costs(struct hpm_metricset *ms, const char *costs_file, struct cost **out,
		      size_t *nr)
{
	struct cost *v = NULL;
	size_t n = 0;
	int rc;

	for (unsigned c = ms->fam.nr_chain + 1; c-- > 0;) {
		char file[64];
		/* generic first, even on a software-only machine */
		const char *fam = c == ms->fam.nr_chain ? "generic" : ms->fam.chain[c];
		if (c < ms->fam.nr_chain && !strcmp(fam, "generic"))
			continue;
		snprintf(file, sizeof(file), "costs-%s.txt", fam);
		const char *text = hpm_data__get(file);
		char origin[80];
		if (!text)
			continue;
		if (ms->nr_files < sizeof(ms->files) / sizeof(ms->files[0]))
			snprintf(ms->files[ms->nr_files++], sizeof(ms->files[0]), "%s", file);
		snprintf(origin, sizeof(origin), "data/%s", file);
		rc = merge_costs(text, origin, &v, &n);
		if (rc) {
			free(v);
			return rc;
		}
	}
	if (costs_file) {
		/* a file that is not there is no calibration: typical costs */
		char *text = read_costs_file(costs_file);
		if (!text && errno != ENOENT) {
			rc = -errno;
			free(v);
			return rc;
		}
		if (text) {
			rc = merge_costs(text, "calibrated", &v, &n);
			free(text);
			ms->costs_file = rc ? NULL : strdup(costs_file);
			if (rc || !ms->costs_file) {
				free(v);
				return rc ? rc : -ENOMEM;
			}
		}
	}
	*out = v;
	*nr = n;
	return 0;
}

/*
 * perfex's estimate: each cause's count times its typical cost, as a share
 * of the cycles, assuming no overlap; what remains is "other".
 */
static int add_costs(struct hpm_metricset *ms, const char *costs_file)
{
	struct cost *c = NULL;
	size_t n = 0, len = 0;
	char *text = NULL;
	FILE *f;
	int rc = load_costs(ms, costs_file, &c, &n);

	if (rc || !n) {
		free(c);
		return rc;
	}
	f = open_memstream(&text, &len);
	if (!f) {
		free(c);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		fprintf(f,
			"metric cost.%s\n formula %s * %.17g / PAPI_TOT_CYC\n form percent\n"
			" unit %% of cycles (est.)\n group cost\n desc %s: %g cycles each, "
			"%s (%s)\n",
			c[i].cause, c[i].event, c[i].cycles, c[i].desc, c[i].cycles,
			strncmp(c[i].origin, "calibrated:", 11) ? "typical" : "measured here",
			c[i].origin);
	fprintf(f, "metric cost.other\n formula 1");
	for (size_t i = 0; i < n; i++)
		fprintf(f, " - %s * %.17g / PAPI_TOT_CYC", c[i].event, c[i].cycles);
	fprintf(f, "\n form percent\n unit %% of cycles (est.)\n group cost\n"
		   " desc What the estimates above leave: computing, and overlap of "
		   "the causes (negative when they overlap more than they leave)\n");
	fclose(f);
	struct hpm_parse_error e;
	rc = text ? hpm_metricset__add_text(ms, text, "data/costs", &e) : -ENOMEM;
	free(text);
	free(c);
	return rc;
}

struct hpm_metricset *hpm_metricset__new(struct hpm_ctx *ctx,
					 const struct hpm_metricset_opts *o)
{
	struct hpm_metricset *ms;
	int rc;

	if (!ctx || !HPM_OPTS_VALID(o, hpm_metricset_opts)) {
		errno = EINVAL;
		return NULL;
	}
	ms = calloc(1, sizeof(*ms));
	if (!ms)
		return NULL;
	ms->ctx = ctx;
	const char *family = HPM_OPTS_GET(o, family, NULL);
	if (family)
		rc = hpm_family__get(family, &ms->fam);
	else
		rc = hpm_family__detect_into(ctx, &ms->fam);
	if (rc) {
		free(ms);
		errno = rc == -ENOENT ? EINVAL : -rc;
		return NULL;
	}
	if (HPM_OPTS_GET(o, no_builtin, false))
		return ms;
	/* software, then generic (even without a core PMU, so that hardware
	 * metrics say why they cannot be computed), then the family's own */
	rc = add_data_file(ms, "metrics-software.txt");
	if (!rc)
		rc = add_data_file(ms, "metrics-generic.txt");
	for (unsigned c = ms->fam.nr_chain; c-- > 0 && !rc;) {
		char file[64];
		if (!strcmp(ms->fam.chain[c], "software") || !strcmp(ms->fam.chain[c], "generic"))
			continue;
		snprintf(file, sizeof(file), "metrics-%s.txt", ms->fam.chain[c]);
		rc = add_data_file(ms, file);
	}
	if (!rc)
		rc = add_costs(ms, HPM_OPTS_GET(o, costs_file, NULL));
	if (rc) {
		hpm_metricset__free(ms);
		errno = rc == -ENOMEM ? ENOMEM : EINVAL;
		return NULL;
	}
	return ms;
}
