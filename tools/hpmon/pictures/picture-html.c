/* SPDX-License-Identifier: MIT */
/*
 * report --html: one self-contained page (picture.h; picture-page.c puts
 * it together). Its data, the profile's summary as JSON, is what the
 * page's scripts read (docs/hpmon-report.md says its fields): the
 * header's facts, the events, the symbols and their objects, each event's
 * flame tree (picture-tree.c, the report layer's samples through its
 * sink), pruned, with the counts of groups read at its frames and its
 * leaves' samples per time bin (picture-page.c), its functions' self and
 * total, exact, their metrics (-M), the annotate data of the hottest
 * functions (picture-anno.c), and each sample's time and leaf for the
 * stack chart (picture-stack.c). picture-diff.c writes diff's page with the
 * same parts.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <hpmon/metric.h>
#include "output/json.h"
#include "pictures/pictures-internal.h"
#include "report/report-view.h"
#include "report/table.h"

/* A function of the table whose total is under 1/PRUNE of its event's
 * is left out, as a frame of the trees is (picture-page.c). */
#define PRUNE PAGE_PRUNE

/* "reads": per event, per node of its tree, the counts of each event of
 * "read" (the events read from groups at samples). */
static int page_reads(struct page *pg)
{
	const struct rep *r = pg->r;
	struct json *j = pg->j;
	json_arr_open(j, "read");
	for (uint32_t e = 0; e < r->nr_ev; e++)
		if (r->ev_read[e])
			json_u64(j, NULL, e);
	json_arr_close(j);
	json_arr_open(j, "reads");
	int rc = 0;
	for (uint32_t e = 0; e < r->nr_ev && !rc; e++) {
		json_arr_open(j, NULL);
		uint32_t *o = r->have_groups && pg->nr_pnode[e] ? page_order(pg, e) : NULL;
		if (r->have_groups && pg->nr_pnode[e] && !o)
			rc = -ENOMEM;
		for (uint32_t k = 0; o && k < pg->nr_pnode[e]; k++)
			for (uint32_t x = 0; x < r->nr_ev; x++)
				if (r->ev_read[x])
					json_dbl(j, NULL, pg->p->t[e].dv[(size_t)o[k] * r->nr_ev + x]);
		free(o);
		json_arr_close(j);
	}
	json_arr_close(j);
	return rc;
}

/* "metrics" (-M): their names, each function's values ("fmetrics",
 * from report's rows) and each frame's ("nmetrics", per event, per node:
 * the formulas over the counts read at the frame's samples). */
static int page_metrics(struct page *pg)
{
	struct rep *r = pg->r;
	struct json *j = pg->j;
	size_t nm = rep_metrics_count(r->metrics);
	struct hpm_value *v = calloc(nm ? nm : 1, sizeof(*v));
	double *period = calloc(r->nr_ev ? r->nr_ev : 1, sizeof(double));
	uint64_t *samples = calloc(r->nr_ev ? r->nr_ev : 1, sizeof(uint64_t));
	int rc = v && period && samples ? 0 : -ENOMEM;

	json_arr_open(j, "metrics");
	for (size_t m = 0; m < nm; m++) {
		json_obj_open(j, NULL);
		json_str(j, "name", rep_metrics_name(r->metrics, m));
		json_str(j, "unit", rep_metrics_unit(r->metrics, m));
		json_str(j, "formula", rep_metrics_formula(r->metrics, m));
		json_obj_close(j);
	}
	json_arr_close(j);
	json_arr_open(j, "fmetrics");
	for (size_t i = 0; nm && !rc && i < r->nr_rows; i++) {
		uint64_t s = r->rows[i].key[SK_SYM];
		if (s >= r->nr_syms || !pg->local[s])
			continue; /* a row the page does not name: pruned, or capped */
		rep_metrics_eval(r, &r->rows[i], v);
		json_u64(j, NULL, pg->local[s] - 1);
		for (size_t m = 0; m < nm; m++)
			json_dbl(j, NULL, v[m].na ? NAN : v[m].value);
	}
	json_arr_close(j);
	json_arr_open(j, "nmetrics");
	for (uint32_t e = 0; e < r->nr_ev && !rc; e++) {
		json_arr_open(j, NULL);
		const struct ptree *t = &pg->p->t[e];
		uint32_t *o = nm && pg->nr_pnode[e] ? page_order(pg, e) : NULL;
		if (nm && pg->nr_pnode[e] && !o)
			rc = -ENOMEM;
		for (uint32_t k = 0; o && k < pg->nr_pnode[e]; k++) {
			/* the frame as a row: its samples' period, its counts */
			struct rep_row row = { .samples = samples, .period = period,
					       .delta = &t->dv[(size_t)o[k] * r->nr_ev] };
			period[e] = t->n[o[k]].period;
			rep_metrics_eval(r, &row, v);
			for (size_t m = 0; m < nm; m++)
				json_dbl(j, NULL, v[m].na ? NAN : v[m].value);
		}
		period[e] = 0;
		free(o);
		json_arr_close(j);
	}
	json_arr_close(j);
	free(v);
	free(period);
	free(samples);
	return rc;
}

/* Event @e's functions, exact (from the whole tree, before pruning), as
 * [sym, self samples, self period, total samples, total period]: self
 * where it was the sampled frame, total where it was anywhere in the
 * stack, once per stack however deep it recursed. */
static int page_funcs(struct page *pg, uint32_t e)
{
	const struct rep *r = pg->r;
	const struct ptree *t = &pg->p->t[e];
	struct acc { uint64_t sn, tn; double sp, tp; uint32_t on; } *a;
	uint32_t *todo = NULL;
	size_t top = 0;
	int rc = -ENOMEM;

	json_arr_open(pg->j, NULL);
	a = calloc(r->nr_syms ? r->nr_syms : 1, sizeof(*a));
	if (!a || (t->nr && !(todo = malloc(2 * t->nr * sizeof(*todo)))))
		goto out;
	/* depth first; an entry with bit 31 leaves the node */
	if (t->nr)
		todo[top++] = 0;
	while (top) {
		uint32_t i = todo[--top];
		bool leave = i >> 31;
		i &= ~(1u << 31);
		const struct ptree_node *n = &t->n[i];
		struct acc *x = i && !(n->what & FLAME_COMM) ? &a[n->what] : NULL;
		if (leave) {
			x->on--;
			continue;
		}
		if (x) {
			x->sn += n->self_n;
			x->sp += n->self_p;
			if (!x->on++) { /* recursion counts once */
				x->tn += n->samples;
				x->tp += n->period;
			}
			todo[top++] = i | 1u << 31;
		}
		for (uint32_t c = n->kid; c; c = t->n[c].next)
			todo[top++] = c;
	}
	double floor = r->ev_period[e] / PRUNE;
	for (size_t i = 0; i < r->nr_syms; i++) {
		if (!a[i].tn || a[i].tp < floor)
			continue;
		long l = page_sym(pg, (uint32_t)i);
		if (l < 0)
			goto out;
		json_u64(pg->j, NULL, (uint64_t)l);
		json_u64(pg->j, NULL, a[i].sn);
		json_dbl(pg->j, NULL, a[i].sp);
		json_u64(pg->j, NULL, a[i].tn);
		json_dbl(pg->j, NULL, a[i].tp);
	}
	rc = 0;
out:
	json_arr_close(pg->j);
	free(a);
	free(todo);
	return rc;
}

/* The report's summary, as JSON, into @f. */
static int write_data(FILE *f, struct rep *r, struct ptrees *p, const struct timeline *t)
{
	struct json j;
	struct page pg;
	int rc = page_begin(&pg, &j, f, r, p, "report");

	json_arr_open(&j, "trees");
	for (uint32_t e = 0; e < r->nr_ev && !rc; e++)
		rc = page_tree(&pg, e);
	json_arr_close(&j);
	page_tree_each(&pg);
	json_arr_open(&j, "funcs");
	for (uint32_t e = 0; e < r->nr_ev && !rc; e++)
		rc = page_funcs(&pg, e);
	json_arr_close(&j);
	if (!rc)
		rc = page_reads(&pg);
	if (!rc)
		rc = page_metrics(&pg);
	if (!rc)
		rc = page_annotate(&pg);
	if (!rc)
		rc = page_stacks(&pg);
	if (!rc)
		rc = page_tail(&pg);
	page_timeline(&j, t, r);
	json_obj_close(&j);
	page_free(&pg);
	return rc;
}

int export_html(FILE *f, struct rep *r, struct ptrees *p, const struct timeline *t)
{
	char *data = NULL;
	size_t len = 0;
	int rc = ptrees_finish(p, r);
	if (rc)
		return rc;
	FILE *m = open_memstream(&data, &len);
	if (!m)
		return -errno;
	rc = write_data(m, r, p, t);
	if (fclose(m) && !rc)
		rc = -ENOMEM;
	if (!rc)
		rc = page_assemble(f, data, len);
	free(data);
	return rc;
}
