/* SPDX-License-Identifier: MIT */
/*
 * report --html: one self-contained page (picture.h). The page's sources
 * (html/page.html, its scripts and style.css, compiled in) are put
 * together here: page.html's @STYLE@, @APP@ and @DATA@ are replaced by
 * the style, the code and the profile's summary as JSON, inside a
 * <script type="application/json">. That summary is what the scripts read
 * (docs/hpmon-report.md says its fields): the header's facts, the events,
 * the symbols and their objects, each event's flame tree (picture-tree.c,
 * the report layer's samples through its sink), pruned, with the counts
 * of groups read at its frames and its leaves' samples per time bin, its
 * functions' self and total, exact, their metrics (-M), and the annotate
 * data of the hottest functions (picture-anno.c). picture-diff.c writes
 * diff's page with the same parts.
 *
 * Names come from the profile and may hold anything: json.c escapes them
 * for JSON, and every '<' is then written \u003c, so no name can close the
 * script element or open a comment in it.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <hpmon/metric.h>
#include "json.h"
#include "picture.h"
#include "report-view.h"
#include "report/table.h"

/* A frame under 1/PRUNE of its event's total is left out of the page's
 * tree with what it calls (its weight stays in its caller): at full width
 * it would be a 200,000th of the graph, and it is what makes a page of
 * deep, varied stacks grow. So is a function of the table whose total is
 * under that share. */
#define PRUNE 200000.0
/* The time bins: at most BINS over the samples' span, at most
 * BIN_BUDGET (node, bin) pairs in all, coarser until they fit. */
#define BINS 600
#define BIN_BUDGET 150000

static const char *asset(const char *name)
{
	for (const struct html_asset *a = html_assets; a->name; a++)
		if (!strcmp(a->name, name))
			return a->text;
	return NULL;
}

int page_init(struct page *pg, struct json *j, struct rep *r, struct ptrees *p)
{
	memset(pg, 0, sizeof(*pg));
	pg->j = j;
	pg->r = r;
	pg->p = p;
	pg->local = calloc(r->nr_syms ? r->nr_syms : 1, sizeof(uint32_t));
	pg->hc = htab__new(1);
	pg->pnode = calloc(r->nr_ev ? r->nr_ev : 1, sizeof(*pg->pnode));
	pg->nr_pnode = calloc(r->nr_ev ? r->nr_ev : 1, sizeof(*pg->nr_pnode));
	return pg->local && pg->hc && pg->pnode && pg->nr_pnode ? 0 : -ENOMEM;
}

void page_free(struct page *pg)
{
	for (uint32_t e = 0; pg->pnode && e < pg->r->nr_ev; e++)
		free(pg->pnode[e]);
	free(pg->pnode);
	free(pg->nr_pnode);
	free(pg->local);
	free(pg->syms);
	free(pg->comms);
	htab__free(pg->hc);
}

long page_sym(struct page *pg, uint32_t sym)
{
	if (!pg->local[sym]) {
		void *v = vec__grow(pg->syms, &pg->cap_syms, pg->nr_syms, sizeof(*pg->syms));
		if (!v)
			return -1;
		pg->syms = v;
		pg->syms[pg->nr_syms++] = sym;
		pg->local[sym] = (uint32_t)pg->nr_syms;
	}
	return (long)pg->local[sym] - 1;
}

static long page_comm(struct page *pg, uint32_t id)
{
	uint64_t k = id;
	long c = htab__get(pg->hc, &k);
	if (c >= 0)
		return c;
	void *v = vec__grow(pg->comms, &pg->cap_comms, pg->nr_comms, sizeof(*pg->comms));
	if (!v)
		return -1;
	pg->comms = v;
	if (htab__put(pg->hc, &k, pg->nr_comms))
		return -1;
	pg->comms[pg->nr_comms] = id;
	return (long)pg->nr_comms++;
}

void page_header(struct page *pg)
{
	const struct rep *r = pg->r;
	struct json *j = pg->j;
	json_str(j, "command", r->meta.command);
	json_str(j, "host", r->meta.host);
	json_str(j, "arch", r->meta.arch);
	json_str(j, "cpu", r->meta.cpu_model);
	json_str(j, "kernel", r->meta.kernel);
	json_bool(j, "complete", r->st.complete);
	json_u64(j, "lost", r->lost);
	json_u64(j, "lost_samples", r->lost_samples);
	json_u64(j, "throttled", r->throttled);
	json_bool(j, "chains", r->have_chains);
	json_u64(j, "capped", r->cap_records);
	json_u64(j, "main", r->main_ev);
	json_arr_open(j, "events");
	for (uint32_t i = 0; i < r->nr_ev; i++) {
		json_obj_open(j, NULL);
		json_str(j, "name", r->meta.events[i].name);
		json_bool(j, "trigger", r->meta.events[i].trigger);
		json_bool(j, "read", r->ev_read[i]);
		json_u64(j, "samples", r->ev_samples[i]);
		json_dbl(j, "period", r->ev_period[i]);
		json_obj_close(j);
	}
	json_arr_close(j);
	json_arr_open(j, "dsos");
	for (size_t i = 0; i < r->nr_dsos; i++)
		json_str(j, NULL, r->dsos[i].base);
	json_arr_close(j);
}

/* Event @e's tree depth first, as [depth, what, samples, period] per node
 * (what: a symbol, or -1 - the comm's index), each node's place in it
 * into pg->pnode[e]. */
int page_tree(struct page *pg, uint32_t e)
{
	const struct ptree *t = &pg->p->t[e];
	struct json *j = pg->j;
	uint32_t *todo = NULL, *pn = NULL, k = 0;
	size_t top = 0;
	int rc = -ENOMEM;

	json_arr_open(j, NULL);
	if (!t->nr) {
		json_arr_close(j);
		return 0;
	}
	if (!(todo = malloc(t->nr * sizeof(*todo))) || !(pn = malloc(t->nr * sizeof(*pn))))
		goto out;
	memset(pn, 0xff, t->nr * sizeof(*pn));
	double floor = t->n[0].period / PRUNE;
	todo[top++] = 0;
	while (top) {
		uint32_t i = todo[--top];
		const struct ptree_node *n = &t->n[i];
		int64_t what = 0;
		if (n->what & FLAME_COMM) {
			long c = page_comm(pg, (uint32_t)n->what);
			if (c < 0)
				goto out;
			what = -1 - c;
		} else if (i) {
			what = page_sym(pg, (uint32_t)n->what);
			if (what < 0)
				goto out;
		}
		pn[i] = k++;
		json_u64(j, NULL, n->depth);
		json_i64(j, NULL, what);
		json_u64(j, NULL, n->samples);
		json_dbl(j, NULL, n->period);
		for (uint32_t c = n->kid; c; c = t->n[c].next)
			if (t->n[c].period >= floor && t->n[c].period > 0)
				todo[top++] = c;
	}
	/* a node left out stands in its nearest ancestor (made before it) */
	for (size_t i = 1; i < t->nr; i++)
		if (pn[i] == UINT32_MAX)
			pn[i] = pn[t->n[i].parent];
	pg->pnode[e] = pn;
	pg->nr_pnode[e] = k;
	pn = NULL;
	rc = 0;
out:
	json_arr_close(j);
	free(todo);
	free(pn);
	return rc;
}

/* The page's nodes of event @e in order: the tree's index of each. */
static uint32_t *page_order(const struct page *pg, uint32_t e)
{
	const struct ptree *t = &pg->p->t[e];
	uint32_t *o = malloc((pg->nr_pnode[e] ? pg->nr_pnode[e] : 1) * sizeof(*o));
	if (!o)
		return NULL;
	for (size_t i = 0; i < t->nr; i++) {
		uint32_t k = pg->pnode[e][i];
		if (!i || pg->pnode[e][t->n[i].parent] != k)
			o[k] = (uint32_t)i;
	}
	return o;
}

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

static int cmp_bin(const void *x, const void *y)
{
	const struct pbin *p = x, *q = y;
	if (p->ev != q->ev)
		return p->ev < q->ev ? -1 : 1;
	if (p->node != q->node)
		return p->node < q->node ? -1 : 1;
	return p->tk < q->tk ? -1 : p->tk > q->tk;
}

/* "bins": the leaves' samples and period per time bin, per event, as
 * [node, bin, samples, period] (node: in the page's tree). */
static int page_bins(struct page *pg)
{
	struct ptrees *p = pg->p;
	struct json *j = pg->j;
	int rc = ptrees_bins(p, BIN_BUDGET, BINS);
	if (rc)
		return rc;
	uint64_t b0 = p->tmin >> p->shift;
	for (size_t i = 0; i < p->nr_b; i++) /* the page's nodes */
		p->b[i].node = pg->pnode[p->b[i].ev] ? pg->pnode[p->b[i].ev][p->b[i].node] : 0;
	qsort(p->b, p->nr_b, sizeof(*p->b), cmp_bin);
	json_obj_open(j, "bins");
	json_u64(j, "t0", b0 << p->shift);
	json_u64(j, "width", 1ull << p->shift);
	json_u64(j, "n", p->any_time ? (p->tmax >> p->shift) - b0 + 1 : 0);
	json_arr_open(j, "v");
	size_t i = 0;
	for (uint32_t e = 0; e < p->nr_ev; e++) {
		json_arr_open(j, NULL);
		while (i < p->nr_b && p->b[i].ev == e) {
			struct pbin b = p->b[i++];
			while (i < p->nr_b && !cmp_bin(&b, &p->b[i])) {
				b.n += p->b[i].n;
				b.p += p->b[i++].p;
			}
			json_u64(j, NULL, b.node);
			json_u64(j, NULL, b.tk - b0);
			json_u64(j, NULL, b.n);
			json_dbl(j, NULL, b.p);
		}
		json_arr_close(j);
	}
	json_arr_close(j);
	json_obj_close(j);
	return 0;
}

int page_tail(struct page *pg)
{
	const struct rep *r = pg->r;
	struct json *j = pg->j;
	int rc = page_bins(pg);
	json_arr_open(j, "syms");
	for (size_t i = 0; i < pg->nr_syms; i++)
		json_str(j, NULL, r->syms[pg->syms[i]].name);
	json_arr_close(j);
	json_arr_open(j, "symdso");
	for (size_t i = 0; i < pg->nr_syms; i++)
		json_u64(j, NULL, r->syms[pg->syms[i]].dso);
	json_arr_close(j);
	json_arr_open(j, "comms");
	for (size_t i = 0; i < pg->nr_comms; i++)
		json_str(j, NULL, rep_str(r, pg->comms[i]));
	json_arr_close(j);
	return rc;
}

/* The report's summary, as JSON, into @f. */
static int write_data(FILE *f, struct rep *r, struct ptrees *p)
{
	struct json j;
	struct page pg;
	int rc = page_init(&pg, &j, r, p);

	json_init(&j, f, false);
	json_obj_open(&j, NULL);
	json_u64(&j, "version", 2);
	json_str(&j, "mode", "report");
	if (!rc)
		page_header(&pg);
	json_arr_open(&j, "trees");
	for (uint32_t e = 0; e < r->nr_ev && !rc; e++)
		rc = page_tree(&pg, e);
	json_arr_close(&j);
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
		rc = page_tail(&pg);
	json_obj_close(&j);
	page_free(&pg);
	return rc;
}

/* @s (JSON) into @f with every '<' as \u003c. */
static void put_json(FILE *f, const char *s, size_t len)
{
	const char *end = s + len;
	while (s < end) {
		const char *lt = memchr(s, '<', (size_t)(end - s));
		size_t n = lt ? (size_t)(lt - s) : (size_t)(end - s);
		fwrite(s, 1, n, f);
		if (!lt)
			break;
		fputs("\\u003c", f);
		s = lt + 1;
	}
}

/* The scripts, in the order they run: each defines what the next use. */
static const char *const scripts[] = { "core.js", "flame.js", "table.js", "annotate.js",
				       "timeline.js", "app.js" };

int page_assemble(FILE *f, const char *data, size_t len)
{
	const char *page = asset("page.html"), *style = asset("style.css");
	if (!page || !style)
		return -ENOENT; /* a build without the page's sources: cannot happen */
	for (size_t i = 0; i < sizeof(scripts) / sizeof(*scripts); i++)
		if (!asset(scripts[i]))
			return -ENOENT;
	/* page.html with each @NAME@ replaced */
	const char *p = page;
	for (;;) {
		const char *at = strchr(p, '@');
		if (!at) {
			fputs(p, f);
			break;
		}
		fwrite(p, 1, (size_t)(at - p), f);
		if (!strncmp(at, "@STYLE@", 7)) {
			fputs(style, f);
			p = at + 7;
		} else if (!strncmp(at, "@APP@", 5)) {
			for (size_t i = 0; i < sizeof(scripts) / sizeof(*scripts); i++)
				fputs(asset(scripts[i]), f);
			p = at + 5;
		} else if (!strncmp(at, "@DATA@", 6)) {
			put_json(f, data, len);
			p = at + 6;
		} else {
			fputc('@', f);
			p = at + 1;
		}
	}
	return 0;
}

int export_html(FILE *f, struct rep *r, struct ptrees *p)
{
	char *data = NULL;
	size_t len = 0;
	if (p->err)
		return p->err;
	FILE *m = open_memstream(&data, &len);
	if (!m)
		return -errno;
	int rc = write_data(m, r, p);
	if (fclose(m) && !rc)
		rc = -ENOMEM;
	if (!rc)
		rc = page_assemble(f, data, len);
	free(data);
	return rc;
}
