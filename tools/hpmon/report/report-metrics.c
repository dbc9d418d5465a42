/* SPDX-License-Identifier: MIT */
/*
 * hpmon report -M, --metric, --metrics-file: the metric formulas of
 * docs/metrics.md evaluated for each row of the report (a function, a
 * line, a thread ...), from the counts its samples carry: for each event
 * of a group read at the leader's samples, the counts between two samples
 * of the same thread on the same CPU, added to the row of the second
 * (report/aggregate.c); for an event that triggers samples and is not read,
 * the events its samples stand for (their periods). Uses only the public
 * API (hpmon/metric.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hpmon/metric.h>
#include "output/advice.h"
#include "output/exit.h"
#include "counting/metric-args.h"
#include "report/report-view.h"

struct rep_metrics {
	struct hpm_metricset *ms;
	struct hpm_msel *sel;
	size_t nr;
	struct hpm_value *ev;   /* [nr_ev] scratch: one row's event values */
};

void rep_metrics_free(struct rep_metrics *m)
{
	if (!m)
		return;
	hpm_msel__free(m->sel);
	hpm_metricset__free(m->ms);
	free(m->ev);
	free(m);
}

size_t rep_metrics_count(const struct rep_metrics *m)
{
	return m ? m->nr : 0;
}

const char *rep_metrics_name(const struct rep_metrics *m, size_t i)
{
	return hpm_metric__name(hpm_msel__metric(m->sel, i));
}

const char *rep_metrics_unit(const struct rep_metrics *m, size_t i)
{
	return hpm_msel__unit(m->sel, i);
}

const char *rep_metrics_formula(const struct rep_metrics *m, size_t i)
{
	const char *f = hpm_metric__formula(hpm_msel__metric(m->sel, i));
	return f + strspn(f, " \t"); /* --metric 'x = a / b' keeps the space */
}

/* Does event @e have counts in the rows: read at samples, or sampled? */
static bool has_counts(const struct rep *r, uint32_t e)
{
	return r->ev_read[e] || (r->meta.events[e].trigger && r->ev_samples[e]);
}

/* Which events the profile has, and counts of them at samples. */
static void explain_missing(const struct rep *r, struct rep_metrics *m, const char *missing)
{
	char need[1024], have[1024] = "";
	size_t off = 0;

	/* every event the metrics use: bound against nothing, all are missing */
	hpm_msel__bind_recorded(m->sel, NULL, 0, need, sizeof(need));
	for (uint32_t e = 0; e < r->nr_ev && off < sizeof(have); e++)
		off += (size_t)snprintf(have + off, sizeof(have) - off, "%s%s%s", off ? ", " : "",
					r->meta.events[e].name,
					has_counts(r, e) ? "" : " (not read at samples)");
	fprintf(stderr, "hpmon report: the profile has no counts of %s, which ", missing);
	if (m->nr == 1)
		fprintf(stderr, "the metric %s needs", rep_metrics_name(m, 0));
	else
		fprintf(stderr, "the metrics need");
	fprintf(stderr, " (its events: %s)\n", have);
	for (size_t i = 0; i < m->nr; i++)
		fprintf(stderr, "  %s = %s\n", rep_metrics_name(m, i), rep_metrics_formula(m, i));
	/* the group: "a, b" -> "a,b" */
	size_t w = 0;
	for (size_t c = 0; need[c]; c++)
		if (!(need[c] == ' ' && c && need[c - 1] == ','))
			need[w++] = need[c];
	need[w] = '\0';
	fprintf(stderr, "Record them in one group, read at each sample of its first event:\n"
		"  hpmon record -e '{%s}' ...\n", need);
}

int rep_metrics_setup(struct hpm_ctx *ctx, const struct metric_args *o, struct rep *r)
{
	struct rep_metrics *m = calloc(1, sizeof(*m));
	struct hpm_event_id *ids = NULL;
	char missing[1024];
	int rc;

	if (!m)
		return HPM_EXIT_FAIL;
	rc = metric_args_load(ctx, "report", o, &m->ms, &m->sel);
	if (rc)
		goto out;
	ids = calloc(r->nr_ev, sizeof(*ids));
	m->ev = calloc(r->nr_ev, sizeof(*m->ev));
	rc = HPM_EXIT_FAIL;
	if (!ids || !m->ev)
		goto out;
	for (uint32_t e = 0; e < r->nr_ev; e++) {
		const struct hpm_profile_event *pe = &r->meta.events[e];
		/* an event without counts binds nothing: the metric says it lacks it */
		ids[e] = (struct hpm_event_id){ has_counts(r, e) ? pe->type : UINT32_MAX,
						pe->config, pe->config1, pe->config2 };
	}
	int b = hpm_msel__bind_recorded(m->sel, ids, r->nr_ev, missing, sizeof(missing));
	m->nr = hpm_msel__count(m->sel);
	if (b == -ENOENT) {
		explain_missing(r, m, missing);
		goto out;
	}
	if (b) {
		fprintf(stderr, "hpmon report: cannot bind the metrics: %s\n", hpm_strerror(b));
		goto out;
	}
	rc = HPM_EXIT_OK;
out:
	free(ids);
	if (rc)
		rep_metrics_free(m);
	else
		r->metrics = m;
	return rc;
}

void rep_metrics_eval(const struct rep *r, const struct rep_row *row, struct hpm_value *out)
{
	struct rep_metrics *m = r->metrics;

	for (uint32_t e = 0; e < r->nr_ev; e++) {
		if (r->ev_read[e])
			hpm_value__set(&m->ev[e], row->delta[e], 0);
		else if (r->meta.events[e].trigger)
			hpm_value__set(&m->ev[e], row->period[e], 0);
		else
			hpm_value__na(&m->ev[e], "%s was not read at samples",
				      r->meta.events[e].name);
	}
	struct hpm_metric_env env = {
		.sz = sizeof(env),
		.events = m->ev,
		.nr_events = r->nr_ev,
	};
	hpm_msel__eval(m->sel, &env, out);
}
