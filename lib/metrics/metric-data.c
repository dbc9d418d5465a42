/* SPDX-License-Identifier: MIT */
/*
 * The metric set of a machine (hpm_metricset__new): the metric files
 * shipped for its family's chain, and metrics generated from the typical
 * costs of events (data/costs-*.txt). They are read at the first need,
 * not when the set is made: a command line that shows no metric reads
 * none, and one whose list has only software events binds only the
 * software file's (msel.c). The set's accessors are here for that.
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
#include "events/vendor-internal.h"
#include "metrics/metric-internal.h"
#include "sys/opts.h"

/* ---- the shipped files ---- */

static int add_vendor(struct hpm_metricset *ms);

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
	return hpm__metricset_add_text(ms, text, origin, &e);
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
static int load_costs(struct hpm_metricset *ms, struct cost **out, size_t *nr)
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
	if (ms->costs_text) {
		rc = merge_costs(ms->costs_text, "calibrated", &v, &n);
		if (rc) {
			free(v);
			return rc;
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
static int add_costs(struct hpm_metricset *ms)
{
	struct cost *c = NULL;
	size_t n = 0, len = 0;
	char *text = NULL;
	FILE *f;
	int rc = load_costs(ms, &c, &n);

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
	rc = text ? hpm__metricset_add_text(ms, text, "data/costs", &e) : -ENOMEM;
	free(text);
	free(c);
	return rc;
}

/* The family's own files, then the costs: what the software file leaves. */
static int load_rest(struct hpm_metricset *ms)
{
	int rc = 0;

	if (!ms->fam_known) {
		rc = hpm_family__detect_into(ms->ctx, &ms->fam);
		if (rc)
			return rc;
		ms->fam_known = true;
	}
	/* generic (even without a core PMU, so that hardware metrics say why
	 * they cannot be computed), then the family's own */
	rc = add_data_file(ms, "metrics-generic.txt");
	for (unsigned c = ms->fam.nr_chain; c-- > 0 && !rc;) {
		char file[64];
		if (!strcmp(ms->fam.chain[c], "software") || !strcmp(ms->fam.chain[c], "generic"))
			continue;
		snprintf(file, sizeof(file), "metrics-%s.txt", ms->fam.chain[c]);
		rc = add_data_file(ms, file);
	}
	return rc ? rc : add_costs(ms);
}

/* The vendor's metrics of this machine's model (data/vendor/MODEL/
 * metrics.txt), after hpmon's own files: a name both define is the
 * vendor's, as perf's users type it (hpmon's own are lower-case; perf's
 * IPC and hpmon's ipc are two metrics). Without tables, the set keeps
 * hpmon's own metrics, and says so where a name is not found. */
static int add_vendor(struct hpm_metricset *ms)
{
	const struct hpm_vendor_model *vm = NULL;
	const char *text;
	char origin[96];
	struct hpm_parse_error e;

	if (hpm__vendor_model(ms->ctx, &vm) || !vm) {
		const char *cpuid = hpm__vendor_cpuid(ms->ctx);
		snprintf(ms->no_vendor, sizeof(ms->no_vendor),
			 "this machine's model (%s) has no vendor tables: hpmon's own metrics only",
			 cpuid ? cpuid : "cpuid unknown");
		return 0;
	}
	text = hpm__vendor_text(vm, "metrics.txt");
	if (!text)
		return 0;
	snprintf(origin, sizeof(origin), "data/vendor/%s/metrics.txt", vm->dir);
	if (ms->nr_files < sizeof(ms->files) / sizeof(ms->files[0]))
		snprintf(ms->files[ms->nr_files++], sizeof(ms->files[0]), "vendor/%s/metrics.txt",
			 vm->dir);
	snprintf(ms->vendor_model, sizeof(ms->vendor_model), "%s", vm->name);
	return hpm__metricset_add_text(ms, text, origin, &e);
}

int hpm__metricset_load(const struct hpm_metricset *cms, bool all)
{
	struct hpm_metricset *ms = (struct hpm_metricset *)cms; /* its cache */

	if (ms->load_err || ms->loaded == HPM_MS_ALL || (!all && ms->loaded != HPM_MS_NONE))
		return ms->load_err;
	if (ms->no_builtin) {
		ms->loaded = HPM_MS_ALL;
		if (!ms->fam_known && hpm_family__detect_into(ms->ctx, &ms->fam) == 0)
			ms->fam_known = true;
		return 0;
	}
	if (ms->loaded == HPM_MS_NONE) {
		/* software first: every family's chain starts with it */
		ms->load_err = add_data_file(ms, "metrics-software.txt");
		ms->loaded = HPM_MS_SOFTWARE;
	}
	if (all && !ms->load_err) {
		ms->load_err = load_rest(ms);
		ms->loaded = HPM_MS_ALL;
	}
	return ms->load_err;
}

int hpm__metricset_load_vendor(const struct hpm_metricset *cms)
{
	struct hpm_metricset *ms = (struct hpm_metricset *)cms; /* its cache */
	int rc = hpm__metricset_load(ms, true);

	if (rc || ms->vendor_read || ms->no_builtin)
		return rc;
	ms->vendor_read = true;
	return ms->load_err = add_vendor(ms);
}

struct hpm_metricset *hpm_metricset__new(struct hpm_ctx *ctx,
					 const struct hpm_metricset_opts *o)
{
	struct hpm_metricset *ms;

	if (!ctx || !HPM_OPTS_VALID(o, hpm_metricset_opts)) {
		errno = EINVAL;
		return NULL;
	}
	ms = calloc(1, sizeof(*ms));
	if (!ms)
		return NULL;
	ms->ctx = ctx;
	ms->no_builtin = HPM_OPTS_GET(o, no_builtin, false);
	ms->lit.system_wide = HPM_OPTS_GET(o, system_wide, false);
	ms->lit.cpu_list = HPM_OPTS_GET(o, cpu_list, false);
	const char *family = HPM_OPTS_GET(o, family, NULL);
	if (family) {
		int rc = hpm_family__get(family, &ms->fam);
		if (rc) {
			free(ms);
			errno = rc == -ENOENT ? EINVAL : -rc;
			return NULL;
		}
		ms->fam_known = true;
	}
	/* The calibrated costs are read now, though applied at the load: a
	 * file that is there but cannot be read is the caller's error to
	 * report, not a silent fall back to the typical costs. Not there:
	 * no calibration. */
	const char *cf = HPM_OPTS_GET(o, costs_file, NULL);
	if (cf) {
		ms->costs_text = read_costs_file(cf);
		if (!ms->costs_text && errno != ENOENT) {
			int e = errno;
			free(ms);
			errno = e;
			return NULL;
		}
		if (ms->costs_text && !(ms->costs_file = strdup(cf))) {
			free(ms->costs_text);
			free(ms);
			errno = ENOMEM;
			return NULL;
		}
	}
	/* the family is detected, and the files read, when first needed */
	return ms;
}

/* Every accessor of the set reads the built-in metrics first, when it has
 * not been done (metric-data.c), the vendor's included: what lists the
 * set sees all of it. A failure leaves the set with the metrics read
 * before it, as hpm_metricset__new's did. */
static const struct hpm_metricset *all(const struct hpm_metricset *ms)
{
	hpm__metricset_load_vendor(ms);
	return ms;
}

/* hpmon's own metrics, without reading the vendor's (all() reads them). */
static const struct hpm_metricset *own(const struct hpm_metricset *ms)
{
	hpm__metricset_load(ms, true);
	return ms;
}

const char *hpm_metricset__family(const struct hpm_metricset *ms) { return all(ms)->fam.name; }
const char *hpm_metricset__costs_file(const struct hpm_metricset *ms) { return ms->costs_file; }
size_t hpm_metricset__count(const struct hpm_metricset *ms) { return all(ms)->nr; }
size_t hpm_metricset__nr_files(const struct hpm_metricset *ms) { return all(ms)->nr_files; }

const char *hpm_metricset__file(const struct hpm_metricset *ms, size_t i)
{
	return i < all(ms)->nr_files ? ms->files[i] : NULL;
}

const struct hpm_metric *hpm_metricset__metric(const struct hpm_metricset *ms, size_t i)
{
	return i < all(ms)->nr ? ms->m[i] : NULL;
}

const struct hpm_metric *hpm_metricset__find(const struct hpm_metricset *ms,
					     const char *name)
{
	const struct hpm_metric *m = hpm__metricset_find(own(ms), name);

	return m ? m : hpm__metricset_find(all(ms), name);
}

bool hpm_metricset__is_group(const struct hpm_metricset *ms, const char *name)
{
	for (size_t i = 0; i < own(ms)->nr; i++)
		if (hpm_metric__in_group(ms->m[i], name))
			return true;
	for (size_t i = 0; i < all(ms)->nr; i++)
		if (hpm_metric__in_group(ms->m[i], name))
			return true;
	return false;
}

/* What a caller adds comes after the built-in metrics, the vendor's
 * included, which it may replace by name: they are read first. */
int hpm_metricset__add_text(struct hpm_metricset *ms, const char *text,
			    const char *origin, struct hpm_parse_error *err)
{
	if (ms)
		hpm__metricset_load_vendor(ms);
	return hpm__metricset_add_text(ms, text, origin, err);
}

int hpm_metricset__add_file(struct hpm_metricset *ms, const char *path,
			    struct hpm_parse_error *err)
{
	if (ms)
		hpm__metricset_load_vendor(ms);
	return hpm__metricset_add_file(ms, path, err);
}

int hpm_metricset__add_inline(struct hpm_metricset *ms, const char *def,
			      struct hpm_parse_error *err)
{
	if (ms)
		hpm__metricset_load_vendor(ms);
	return hpm__metricset_add_inline(ms, def, err);
}
