/* SPDX-License-Identifier: MIT */
/*
 * The page's annotate data (pictures-internal.h, page_annotate): for the
 * ANNO_TOP functions with the most self samples of the main event, what
 * `hpmon annotate` shows of each (annotate.c computes it), cut to what a
 * panel shows: its source lines with the samples of their instructions, and
 * its hottest instructions. Bounded, so that the page stays small: at most
 * ANNO_LINES lines (those with the most samples) and ANNO_HOT instructions
 * a function, each text at most ANNO_TEXT bytes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/annotate.h"
#include "output/json.h"
#include "pictures/pictures-internal.h"

#define ANNO_LINES 300
#define ANNO_HOT 10
#define ANNO_TEXT 160
#define ANNO_SEEN 4096 /* lines told apart in a function */

struct aline { const char *file; unsigned line; uint64_t samples; size_t first; };

static int cmp_line_place(const void *x, const void *y)
{
	const struct aline *p = x, *q = y;
	int c = strcmp(p->file, q->file);
	return c ? c : p->line < q->line ? -1 : p->line > q->line;
}

static int cmp_line_hot(const void *x, const void *y)
{
	const struct aline *p = x, *q = y;
	if (p->samples != q->samples)
		return p->samples > q->samples ? -1 : 1;
	return p->first < q->first ? -1 : p->first > q->first;
}

static int cmp_insn_hot(const void *x, const void *y)
{
	const struct anno_insn *p = *(const struct anno_insn *const *)x;
	const struct anno_insn *q = *(const struct anno_insn *const *)y;
	if (p->samples != q->samples)
		return p->samples > q->samples ? -1 : 1;
	return p->addr < q->addr ? -1 : p->addr > q->addr;
}

static void put_text(struct json *j, const char *t)
{
	char b[ANNO_TEXT + 1];
	snprintf(b, sizeof(b), "%s", t ? t : "");
	json_str(j, NULL, b);
}

/* One function's entry: {sym, samples, lines: [[file, line, samples,
 * text]...] in file and line order, hot: [[address, samples, text, file,
 * line]...] hottest first}; files as indexes into its "files". */
static int one(struct page *pg, struct anno *a, struct anno_src *src)
{
	struct json *j = pg->j;
	struct aline *l = calloc(a->nr ? a->nr : 1, sizeof(*l));
	const struct anno_insn **hot = calloc(a->nr ? a->nr : 1, sizeof(*hot));
	const char *files[64];
	size_t nl = 0, nh = 0, nf = 0;
	if (!l || !hot) {
		free(l);
		free(hot);
		return -ENOMEM;
	}
	/* the lines, in address order, merged (file names are the dso's: one
	 * pointer per name) */
	for (size_t i = 0; i < a->nr; i++) {
		const struct anno_insn *in = &a->v[i];
		if (in->samples)
			hot[nh++] = in;
		if (!in->file)
			continue;
		size_t k = nl && l[nl - 1].file == in->file && l[nl - 1].line == in->line ? nl - 1 : 0;
		while (k < nl && !(l[k].file == in->file && l[k].line == in->line))
			k++;
		if (k == nl && nl == ANNO_SEEN)
			continue; /* a function of more lines than that: the first ones */
		if (k == nl)
			l[nl++] = (struct aline){ in->file, in->line, 0, i };
		l[k].samples += in->samples;
	}
	if (nl > ANNO_LINES) {
		qsort(l, nl, sizeof(*l), cmp_line_hot);
		nl = ANNO_LINES;
	}
	qsort(l, nl, sizeof(*l), cmp_line_place);
	qsort(hot, nh, sizeof(*hot), cmp_insn_hot);
	if (nh > ANNO_HOT)
		nh = ANNO_HOT;

	json_obj_open(j, NULL);
	json_u64(j, "sym", (uint64_t)page_sym(pg, a->sym));
	json_u64(j, "samples", a->samples);
	json_arr_open(j, "lines");
	for (size_t k = 0; k < nl; k++) {
		size_t f = 0;
		while (f < nf && files[f] != l[k].file)
			f++;
		if (f == nf && nf < sizeof(files) / sizeof(*files))
			files[nf++] = l[k].file;
		json_arr_open(j, NULL);
		json_u64(j, NULL, f < nf ? f : 0);
		json_u64(j, NULL, l[k].line);
		json_u64(j, NULL, l[k].samples);
		put_text(j, anno_src_line(src, l[k].file, l[k].line));
		json_arr_close(j);
	}
	json_arr_close(j);
	json_arr_open(j, "hot");
	for (size_t k = 0; k < nh; k++) {
		char addr[32];
		snprintf(addr, sizeof(addr), "%" PRIx64, hot[k]->addr);
		json_arr_open(j, NULL);
		json_str(j, NULL, addr);
		json_u64(j, NULL, hot[k]->samples);
		put_text(j, anno_text(a, hot[k]));
		json_u64(j, NULL, hot[k]->line);
		json_arr_close(j);
	}
	json_arr_close(j);
	json_arr_open(j, "files");
	for (size_t f = 0; f < nf; f++)
		json_str(j, NULL, files[f]);
	json_arr_close(j);
	json_obj_close(j);
	free(l);
	free(hot);
	return 0;
}

struct top { uint32_t sym; uint64_t n; };

static int cmp_top(const void *x, const void *y)
{
	const struct top *p = x, *q = y;
	if (p->n != q->n)
		return p->n > q->n ? -1 : 1;
	return p->sym < q->sym ? -1 : p->sym > q->sym;
}

int page_annotate(struct page *pg)
{
	struct rep *r = pg->r;
	uint32_t e = r->main_ev;
	struct top *t = calloc(r->nr_syms ? r->nr_syms : 1, sizeof(*t));
	struct anno_src src = { .path = "" };
	int rc = 0;

	json_u64(pg->j, "annotate_top", ANNO_TOP);
	json_arr_open(pg->j, "annotate");
	if (!t) {
		json_arr_close(pg->j);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->nr_syms; i++)
		t[i].sym = (uint32_t)i;
	for (size_t l = 0; l < r->nr_locs; l++)
		t[r->locs[l].sym].n += r->locs[l].count[e];
	qsort(t, r->nr_syms, sizeof(*t), cmp_top);
	for (size_t i = 0, done = 0; i < r->nr_syms && done < ANNO_TOP && t[i].n && !rc; i++) {
		struct anno a;
		if (!pg->local[t[i].sym])
			continue; /* not in the page's table */
		int x = anno_load(&a, r, t[i].sym, e, true);
		if (x == -ENOMEM)
			rc = x;
		if (x)
			continue; /* no code to show: the panel says so */
		rc = one(pg, &a, &src);
		anno_free(&a);
		done++;
	}
	json_arr_close(pg->j);
	anno_src_free(&src);
	free(t);
	return rc;
}
