/* SPDX-License-Identifier: MIT */
/*
 * diff --html: the differential page (picture.h, export_html_diff). B's
 * flame tree of its first triggering event as report's page has it, and
 * for each of its frames A's period at the same stack (the same task's
 * name, then the same functions of the same objects, from the root):
 * the page colours each frame by its change of share, red where B spends
 * a larger part of its samples there than A, blue where a smaller one.
 * The table is diff's rows, computed by cmd-diff.c, in its order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "output/json.h"
#include "pictures/pictures-internal.h"
#include "report/table.h"

/* A frame's name in its profile, for matching: the task's name, or the
 * function's and its object's. */
static uint64_t node_hash(const struct rep *r, const struct ptree_node *n)
{
	const char *s[2] = { NULL, NULL };
	uint64_t h = 0xcbf29ce484222325ull;
	if (n->what & FLAME_COMM) {
		s[0] = rep_str(r, (uint32_t)n->what);
		h ^= 1;
	} else {
		s[0] = r->syms[n->what].name;
		s[1] = r->dsos[r->syms[n->what].dso].base;
	}
	for (int k = 0; k < 2 && s[k]; k++) {
		for (const unsigned char *p = (const unsigned char *)s[k]; *p; p++)
			h = (h ^ *p) * 0x100000001b3ull;
		h = (h ^ 0xff) * 0x100000001b3ull; /* "ab"+"c" is not "a"+"bc" */
	}
	return h;
}

/* "base": for each node of B's page tree of event @eb, A's period at the
 * same stack (0 where A has none). */
static int write_base(struct page *pg, const struct diff_side *a, uint32_t ea, uint32_t eb)
{
	const struct ptree *ta = &a->p->t[ea], *tb = &pg->p->t[eb];
	struct htab *h = htab__new(2);
	uint32_t *am = malloc((tb->nr ? tb->nr : 1) * sizeof(*am));
	double *base = calloc(pg->nr_pnode[eb] ? pg->nr_pnode[eb] : 1, sizeof(*base));
	int rc = -ENOMEM;

	json_arr_open(pg->j, "base");
	if (!h || !am || !base)
		goto out;
	for (size_t i = 1; i < ta->nr; i++) {
		uint64_t k[2] = { ta->n[i].parent, node_hash(a->r, &ta->n[i]) };
		if (htab__put(h, k, i))
			goto out;
	}
	for (size_t i = 0; i < tb->nr; i++) {
		am[i] = i ? UINT32_MAX : 0;
		if (!i || !ta->nr || am[tb->n[i].parent] == UINT32_MAX)
			continue;
		uint64_t k[2] = { am[tb->n[i].parent], node_hash(pg->r, &tb->n[i]) };
		long x = htab__get(h, k);
		if (x >= 0)
			am[i] = (uint32_t)x;
	}
	/* each page node's own tree node: the first that maps to it */
	for (size_t i = 0; i < tb->nr; i++) {
		uint32_t k = pg->pnode[eb][i];
		bool own = !i || pg->pnode[eb][tb->n[i].parent] != k;
		if (own && ta->nr && am[i] != UINT32_MAX)
			base[k] = ta->n[am[i]].period;
	}
	for (uint32_t k = 0; k < pg->nr_pnode[eb]; k++)
		json_dbl(pg->j, NULL, base[k]);
	rc = 0;
out:
	json_arr_close(pg->j);
	htab__free(h);
	free(am);
	free(base);
	return rc;
}

static int write_data(FILE *f, const struct diff_side *a, const struct diff_side *b,
		      const struct diff_row *rows, size_t n)
{
	struct rep *ra = a->r, *rb = b->r;
	struct json j;
	struct page pg;
	int rc = page_begin(&pg, &j, f, rb, b->p, "diff");

	json_obj_open(&j, "diff");
	json_str(&j, "a", a->path);
	json_str(&j, "b", b->path);
	json_str(&j, "a_command", ra->meta.command);
	json_u64(&j, "a_samples", ra->ev_samples[ra->main_ev]);
	json_str(&j, "a_event", ra->meta.events[ra->main_ev].name);
	json_arr_open(&j, "rows");
	for (size_t i = 0; i < n; i++) {
		json_arr_open(&j, NULL);
		json_str(&j, NULL, rows[i].sym);
		json_str(&j, NULL, rows[i].dso);
		json_u64(&j, NULL, rows[i].a);
		json_u64(&j, NULL, rows[i].b);
		json_dbl(&j, NULL, rows[i].pa);
		json_dbl(&j, NULL, rows[i].pb);
		json_arr_close(&j);
	}
	json_arr_close(&j);
	json_obj_close(&j);
	/* B's tree of its main event; the other events' are empty */
	json_arr_open(&j, "trees");
	for (uint32_t e = 0; e < rb->nr_ev && !rc; e++) {
		if (e == rb->main_ev) {
			rc = page_tree(&pg, e);
		} else {
			json_str(&j, NULL, "");
		}
	}
	json_arr_close(&j);
	page_tree_each(&pg);
	json_dbl(&j, "base_total", ra->ev_period[ra->main_ev]);
	if (!rc)
		rc = write_base(&pg, a, ra->main_ev, rb->main_ev);
	/* what report's page has besides, empty here */
	static const char *const empty[] = { "funcs", "read", "reads", "metrics", "fmetrics",
					     "nmetrics", "annotate" };
	for (size_t i = 0; i < sizeof(empty) / sizeof(*empty); i++) {
		json_arr_open(&j, empty[i]);
		json_arr_close(&j);
	}
	if (!rc)
		rc = page_tail(&pg);
	page_timeline(&j, NULL, NULL);
	json_obj_close(&j);
	page_free(&pg);
	return rc;
}

int export_html_diff(FILE *f, const struct diff_side *a, const struct diff_side *b,
		     const struct diff_row *rows, size_t n)
{
	char *data = NULL;
	size_t len = 0;
	int rc = ptrees_finish(a->p, a->r);
	if (!rc)
		rc = ptrees_finish(b->p, b->r);
	if (rc)
		return rc;
	FILE *m = open_memstream(&data, &len);
	if (!m)
		return -errno;
	rc = write_data(m, a, b, rows, n);
	if (fclose(m) && !rc)
		rc = -ENOMEM;
	if (!rc)
		rc = page_assemble(f, data, len);
	free(data);
	return rc;
}
