/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <hpmon/hpmon.h>
#include <hpmon/metric.h>
#include "advice.h"
#include "builtin.h"
#include "costs-file.h"
#include "metric-args.h"

bool metric_args_any(const struct metric_args *a)
{
	return a->nr_groups || a->nr_inline || a->nr_files;
}

/* The name of a --metric definition ("NAME = FORMULA") into @name. */
static void inline_name(const char *def, char *name, size_t len)
{
	const char *eq = strchr(def, '=');
	while (*def == ' ' || *def == '\t')
		def++;
	size_t n = eq && eq > def ? (size_t)(eq - def) : 0;
	while (n && (def[n - 1] == ' ' || def[n - 1] == '\t'))
		n--;
	snprintf(name, len, "%.*s", (int)n, def);
}

/* Whether -M names the cost group or one of its metrics: only then is
 * this machine's CPU model looked up for its calibrated costs. */
static bool wants_costs(const struct metric_args *a)
{
	for (size_t i = 0; i < a->nr_groups; i++)
		if (strstr(a->groups[i], "cost"))
			return true;
	return false;
}

static int load(struct hpm_ctx *ctx, const char *cmd, const struct metric_args *a,
		struct hpm_metricset **ms, struct hpm_msel **sel)
{
	struct hpm_parse_error err;
	int rc;

	struct hpm_metricset_opts mo = { .sz = sizeof(mo) };
	char costs[PATH_MAX];
	if (wants_costs(a) && !costs_file_path(ctx, costs, sizeof(costs), NULL, 0))
		mo.costs_file = costs;
	*ms = hpm_metricset__new(ctx, &mo);
	if (!*ms && mo.costs_file) {
		fprintf(stderr, "hpmon %s: cannot read the calibrated costs %s: %s; remove it, "
				"or run 'hpmon validate --calibrate' again\n",
			cmd, costs, strerror(errno));
		return HPM_EXIT_FAIL;
	}
	if (!*ms) {
		fprintf(stderr, "hpmon %s: cannot load the metrics: %s\n", cmd, strerror(errno));
		return HPM_EXIT_FAIL;
	}
	for (size_t i = 0; i < a->nr_files; i++) {
		rc = hpm_metricset__add_file(*ms, a->files[i], &err);
		if (rc) {
			fprintf(stderr, "hpmon %s: %s\n", cmd, err.msg);
			return rc == -HPM_ERR_SYNTAX ? HPM_EXIT_USAGE : HPM_EXIT_FAIL;
		}
	}
	for (size_t i = 0; i < a->nr_inline; i++) {
		const char *def = a->inline_defs[i];
		rc = hpm_metricset__add_inline(*ms, def, &err);
		if (rc) {
			fprintf(stderr, "hpmon %s: %s\n", cmd, err.msg);
			if (err.pos <= strlen(def) && strlen(def) < 200)
				fprintf(stderr, "  %s\n  %*s^\n", def, (int)err.pos, "");
			return HPM_EXIT_USAGE;
		}
	}
	*sel = hpm_msel__new(*ms);
	if (!*sel)
		return HPM_EXIT_FAIL;
	for (size_t i = 0; i < a->nr_groups; i++) {
		if (hpm_msel__add(*sel, a->groups[i], &err)) {
			advice_parse(stderr, a->groups[i], &err);
			return HPM_EXIT_USAGE;
		}
	}
	/* every --metric is shown; a file's metrics when -M names none */
	for (size_t i = 0; i < a->nr_inline; i++) {
		char name[128];
		inline_name(a->inline_defs[i], name, sizeof(name));
		if (hpm_msel__add(*sel, name, &err))
			return HPM_EXIT_USAGE;
	}
	for (size_t i = 0; i < a->nr_files && !a->nr_groups; i++) {
		size_t fl = strlen(a->files[i]);
		for (size_t k = 0; k < hpm_metricset__count(*ms); k++) {
			const struct hpm_metric *m = hpm_metricset__metric(*ms, k);
			const char *orig = hpm_metric__origin(m);
			if (!strncmp(orig, a->files[i], fl) && orig[fl] == ':' &&
			    hpm_msel__add(*sel, hpm_metric__name(m), &err))
				return HPM_EXIT_USAGE;
		}
	}
	return HPM_EXIT_OK;
}

int metric_args_load(struct hpm_ctx *ctx, const char *cmd, const struct metric_args *a,
		     struct hpm_metricset **ms, struct hpm_msel **sel)
{
	*ms = NULL;
	*sel = NULL;
	int rc = load(ctx, cmd, a, ms, sel);
	if (rc != HPM_EXIT_OK) {
		hpm_msel__free(*sel);
		hpm_metricset__free(*ms);
		*ms = NULL;
		*sel = NULL;
	}
	return rc;
}
