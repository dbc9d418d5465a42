/* SPDX-License-Identifier: MIT */
/*
 * `hpmon list metrics` and `hpmon list metricgroups`, as perf 6.1 lists
 * them (util/metricgroup.c metricgroup__print): after a blank line and
 * "Metrics:" (or "Metric Groups:") and a blank line, each metric once,
 * sorted, as "  NAME" and "       [DESCRIPTION]", or each group name
 * once, sorted, on a line of its own. The vendor's metrics of this
 * model; a model without tables lists hpmon's own, with one note.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hpmon/metric.h>
#include "builtin.h"
#include "host/list-metrics.h"

bool list_perf_metrics_word(const char *word)
{
	return word && (!strcmp(word, "metric") || !strcmp(word, "metrics") ||
			!strcmp(word, "metricgroup") || !strcmp(word, "metricgroups"));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Add a copy of @s to @v (*n of *cap). 0 or -ENOMEM. */
static int push(char ***v, size_t *n, size_t *cap, const char *s, size_t len)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 256;
		char **nv = realloc(*v, c * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = c;
	}
	if (!((*v)[*n] = strndup(s, len)))
		return -ENOMEM;
	(*n)++;
	return 0;
}

int list_perf_metrics(struct hpm_ctx *ctx, const char *word)
{
	struct hpm_metricset_opts mo = { .sz = sizeof(mo) };
	struct hpm_metricset *ms = hpm_metricset__new(ctx, &mo);
	bool groups = !strncmp(word, "metricgroup", 11);
	char **v = NULL;
	size_t n = 0, cap = 0, vendor = 0;
	int rc = 0;

	if (!ms) {
		fprintf(stderr, "hpmon list: cannot load the metrics: %s\n", strerror(errno));
		return HPM_EXIT_FAIL;
	}
	for (size_t i = 0; i < hpm_metricset__count(ms); i++)
		vendor += !strncmp(hpm_metric__origin(hpm_metricset__metric(ms, i)),
				   "data/vendor/", 12);
	if (!vendor)
		fprintf(stderr, "# hpmon: this processor model has no vendor tables: hpmon's own "
				"metrics\n");
	for (size_t i = 0; i < hpm_metricset__count(ms) && !rc; i++) {
		const struct hpm_metric *m = hpm_metricset__metric(ms, i);
		if (vendor && strncmp(hpm_metric__origin(m), "data/vendor/", 12))
			continue;
		if (!groups) {
			char *s = NULL;
			/* perf prints a metric without one "[(null)]" */
			const char *d = hpm_metric__desc(m);
			if (asprintf(&s, "%s\n%*s%s]", hpm_metric__name(m), 8, "[",
				     *d ? d : "(null)") < 0)
				rc = -ENOMEM;
			else
				rc = push(&v, &n, &cap, s, strlen(s));
			free(s);
			continue;
		}
		/* perf puts a metric of no group in No_group */
		const char *g = hpm_metric__groups(m);
		if (!*g)
			rc = push(&v, &n, &cap, "No_group", 8);
		while (*g && !rc) {
			size_t w = strcspn(g, " ");
			rc = push(&v, &n, &cap, g, w);
			g += w;
			while (*g == ' ')
				g++;
		}
	}
	if (!rc) {
		qsort(v, n, sizeof(*v), cmp_str);
		printf("\n%s:\n\n", groups ? "Metric Groups" : "Metrics");
		for (size_t i = 0; i < n; i++)
			if (!i || strcmp(v[i], v[i - 1]))
				printf(groups ? "%s\n" : "  %s\n", v[i]);
	}
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
	hpm_metricset__free(ms);
	if (rc) {
		fprintf(stderr, "hpmon list: %s\n", strerror(-rc));
		return HPM_EXIT_FAIL;
	}
	return HPM_EXIT_OK;
}
