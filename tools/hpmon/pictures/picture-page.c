/* SPDX-License-Identifier: MIT */
/*
 * What the pages of report --html and diff --html share
 * (pictures-internal.h, struct page): the header's facts, the trees as the
 * page lists them (pruned), the time bins, the names, and the page put
 * together from html/page.html, its scripts and style.css (compiled in):
 * page.html's @STYLE@, @APP@ and @DATA@ replaced by the style, the code and
 * the data as JSON, inside a <script type="application/json">.
 *
 * Names come from the profile and may hold anything: json.c escapes them
 * for JSON, and every '<' is then written \u003c, so no name can close the
 * script element or open a comment in it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "output/json.h"
#include "pictures/pictures-internal.h"
#include "report/table.h"

/* A frame under 1/PRUNE of its event's total is left out of the page's
 * tree with what it calls (its weight stays in its caller): at full width
 * it would be a 200,000th of the graph, and it is what makes a page of
 * deep, varied stacks grow. */
#define PRUNE PAGE_PRUNE
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
	pg->each = calloc(r->nr_ev ? r->nr_ev : 1, sizeof(*pg->each));
	return pg->local && pg->hc && pg->pnode && pg->nr_pnode && pg->each ? 0 : -ENOMEM;
}

int page_begin(struct page *pg, struct json *j, FILE *f, struct rep *r, struct ptrees *p,
	       const char *mode)
{
	int rc = page_init(pg, j, r, p);

	json_init(j, f, false);
	json_obj_open(j, NULL);
	json_u64(j, "version", 2);
	json_str(j, "mode", mode);
	if (!rc)
		page_header(pg);
	return rc;
}

void page_free(struct page *pg)
{
	for (uint32_t e = 0; pg->pnode && e < pg->r->nr_ev; e++)
		free(pg->pnode[e]);
	free(pg->pnode);
	free(pg->nr_pnode);
	free(pg->each);
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

/* The task of @what (a tree's node: a comm's id, with by_thread the tid
 * in bits 32-62) in the page's list. */
static long page_comm(struct page *pg, uint64_t what)
{
	uint64_t k = what & ~FLAME_COMM;
	long c = htab__get(pg->hc, &k);
	if (c >= 0)
		return c;
	void *v = vec__grow(pg->comms, &pg->cap_comms, pg->nr_comms, sizeof(*pg->comms));
	if (!v)
		return -1;
	pg->comms = v;
	if (htab__put(pg->hc, &k, pg->nr_comms))
		return -1;
	pg->comms[pg->nr_comms] = k;
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

/* The period every node of @t stands for per sample, when one: the
 * period of each sample of the event; else 0. */
static uint64_t tree_each(const struct ptree *t)
{
	const struct ptree_node *root = &t->n[0];
	if (!root->samples)
		return 0;
	double q = root->period / (double)root->samples;
	if (!(q >= 1 && q < 0x1p52 && q == (double)(uint64_t)q))
		return 0;
	for (size_t i = 0; i < t->nr; i++)
		if (t->n[i].period != (double)t->n[i].samples * q)
			return 0;
	return (uint64_t)q;
}

/* Event @e's tree depth first as a string: base64 of unsigned LEB128
 * numbers, per node (parent depth + 1 - its depth), its what zigzagged
 * (what: a symbol, or -1 - the task's index; 2w, or -2w - 1 when
 * negative), its samples and, unless pg->each gives it, its period
 * (rounded to an integer); each node's place in it into pg->pnode[e]. */
int page_tree(struct page *pg, uint32_t e)
{
	const struct ptree *t = &pg->p->t[e];
	uint32_t *todo = NULL, *pn = NULL, k = 0;
	size_t top = 0;
	int64_t prev = -1;
	struct pbuf o = { 0 };
	char *s = NULL;
	int rc = -ENOMEM;

	if (!t->nr) {
		json_str(pg->j, NULL, "");
		return 0;
	}
	if (!(todo = malloc(t->nr * sizeof(*todo))) || !(pn = malloc(t->nr * sizeof(*pn))))
		goto out;
	pg->each[e] = tree_each(t);
	memset(pn, 0xff, t->nr * sizeof(*pn));
	double floor = t->n[0].period / PRUNE;
	todo[top++] = 0;
	while (top) {
		uint32_t i = todo[--top];
		const struct ptree_node *n = &t->n[i];
		int64_t what = 0;
		if (n->what & FLAME_COMM) {
			long c = page_comm(pg, n->what);
			if (c < 0)
				goto out;
			what = -1 - c;
		} else if (i) {
			what = page_sym(pg, (uint32_t)n->what);
			if (what < 0)
				goto out;
		}
		pn[i] = k++;
		if (!pbuf_uleb(&o, (uint64_t)(prev + 1 - (int64_t)n->depth)) ||
		    !pbuf_uleb(&o, what >= 0 ? 2 * (uint64_t)what : 2 * (uint64_t)(-what) - 1) ||
		    !pbuf_uleb(&o, n->samples) ||
		    (!pg->each[e] && !pbuf_uleb(&o, n->period > 0 ? (uint64_t)(n->period + 0.5) : 0)))
			goto out;
		prev = n->depth;
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
	rc = (s = pbuf_base64(o.b, o.n)) ? 0 : -ENOMEM;
out:
	json_str(pg->j, NULL, s ? s : "");
	free(s);
	free(o.b);
	free(todo);
	free(pn);
	return rc;
}

void page_tree_each(struct page *pg)
{
	json_arr_open(pg->j, "tree_each");
	for (uint32_t e = 0; e < pg->r->nr_ev; e++)
		if (pg->each && pg->each[e])
			json_u64(pg->j, NULL, pg->each[e]);
		else
			json_null(pg->j, NULL);
	json_arr_close(pg->j);
}

/* The page's nodes of event @e in order: the tree's index of each. */
uint32_t *page_order(const struct page *pg, uint32_t e)
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
 * [node, bin, samples, period] (node: in the page's tree), or [node,
 * bin, samples] when every sample of the event has the period "each"
 * gives; "v" null when the stack chart's samples are every sample, each
 * of the period "each" gives (the page bins those). */
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
	if (p->nr_b) /* no sample, no bins: p->b is NULL, which qsort may not be given */
		qsort(p->b, p->nr_b, sizeof(*p->b), cmp_bin);
	json_obj_open(j, "bins");
	json_u64(j, "t0", b0 << p->shift);
	json_u64(j, "width", 1ull << p->shift);
	json_u64(j, "n", p->any_time ? (p->tmax >> p->shift) - b0 + 1 : 0);
	/* merged: one entry per (event, node, bin) */
	size_t m = 0;
	for (size_t i = 0; i < p->nr_b; i++) {
		if (m && !cmp_bin(&p->b[m - 1], &p->b[i])) {
			p->b[m - 1].n += p->b[i].n;
			p->b[m - 1].p += p->b[i].p;
		} else {
			p->b[m++] = p->b[i];
		}
	}
	p->nr_b = m;
	/* an event whose samples all have one period (-c) needs no period per
	 * bin: "each" gives it, and its entries are three numbers */
	double *each = calloc(p->nr_ev ? p->nr_ev : 1, sizeof(*each));
	if (!each)
		return -ENOMEM;
	for (size_t i = 0, k; i < p->nr_b; i = k) {
		uint32_t e = p->b[i].ev;
		double q = p->b[i].n ? p->b[i].p / (double)p->b[i].n : 0;
		bool one = q > 0 && q == (double)(uint64_t)q && q < 0x1p52;
		for (k = i; k < p->nr_b && p->b[k].ev == e; k++)
			one = one && p->b[k].p == (double)p->b[k].n * q;
		each[e] = one ? q : 0;
	}
	json_arr_open(j, "each");
	for (uint32_t e = 0; e < p->nr_ev; e++)
		if (each[e])
			json_dbl(j, NULL, each[e]);
		else
			json_null(j, NULL);
	json_arr_close(j);
	/* every sample in the stack chart's (page_stacks), each of one
	 * period: the page bins them itself, and "v" is null */
	bool from_stacks = p->by_thread && p->any_time && p->nr_smp && p->stride <= 1 &&
			   !p->smp_left && !pg->r->cap_records;
	for (size_t k = 0; from_stacks && k < p->nr_b; k++)
		from_stacks = each[p->b[k].ev] != 0;
	if (from_stacks) {
		json_null(j, "v");
		free(each);
		json_obj_close(j);
		return 0;
	}
	json_arr_open(j, "v");
	size_t i = 0;
	for (uint32_t e = 0; e < p->nr_ev; e++) {
		json_arr_open(j, NULL);
		for (; i < p->nr_b && p->b[i].ev == e; i++) {
			json_u64(j, NULL, p->b[i].node);
			json_u64(j, NULL, p->b[i].tk - b0);
			json_u64(j, NULL, p->b[i].n);
			if (!each[e])
				json_dbl(j, NULL, p->b[i].p);
		}
		json_arr_close(j);
	}
	json_arr_close(j);
	free(each);
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
		json_str(j, NULL, rep_str(r, (uint32_t)pg->comms[i]));
	json_arr_close(j);
	json_arr_open(j, "tids"); /* -1: the tasks of that name together */
	for (size_t i = 0; i < pg->nr_comms; i++)
		json_i64(j, NULL, pg->p->by_thread ? (int64_t)(pg->comms[i] >> 32) : -1);
	json_arr_close(j);
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
static const char *const scripts[] = { "core.js",     "flame.js", "table.js", "annotate.js",
				       "timeline.js", "views.js", "stack.js", "state.js",
				       "app.js" };

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

