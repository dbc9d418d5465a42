/* SPDX-License-Identifier: MIT */
/*
 * report --html: one self-contained page (picture.h). The page's sources
 * (html/page.html, app.js, style.css, compiled in) are put together here:
 * page.html's @STYLE@, @APP@ and @DATA@ are replaced by the style, the
 * code and the profile's summary as JSON, inside a
 * <script type="application/json">. That summary is what app.js reads
 * (docs/hpmon-report.md): the header's facts, the events, the symbols and
 * their objects, each event's flame tree (picture-tree.c), pruned, and its
 * functions' self and total, exact.
 *
 * Names come from the profile and may hold anything: json.c escapes them
 * for JSON, and every '<' is then written \u003c, so no name can close the
 * script element or open a comment in it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "picture.h"
#include <stdint.h>
#include "json.h"
#include "report/report.h"
#include "report/table.h"

static const char *asset(const char *name)
{
	for (const struct html_asset *a = html_assets; a->name; a++)
		if (!strcmp(a->name, name))
			return a->text;
	return NULL;
}

/* A comm's index in the page's list, added when new; -1: no memory. */
static long comm_index(struct htab *h, uint32_t id, uint32_t **v, size_t *nr, size_t *cap)
{
	uint64_t k = id;
	long c = htab__get(h, &k);
	if (c >= 0)
		return c;
	uint32_t *nv = vec__grow(*v, cap, *nr, sizeof(**v));
	if (!nv || htab__put(h, &k, *nr))
		return -1;
	*v = nv;
	nv[*nr] = id;
	return (long)(*nr)++;
}

/* The symbols the page names, in the order first met: their indexes in
 * the rep, and each one's index in the page (+1; 0: not named yet). */
struct used_syms {
	uint32_t *local;   /* [nr_syms] */
	uint32_t *v;       /* the page's symbols */
	size_t nr, cap;
};

static long sym_index(struct used_syms *u, uint32_t sym)
{
	if (!u->local[sym]) {
		if (!PUSH(u, v, nr, cap))
			return -1;
		u->v[u->nr++] = sym;
		u->local[sym] = (uint32_t)u->nr;
	}
	return (long)u->local[sym] - 1;
}

/* Event @e's flame tree, depth first, as [depth, what, samples, period]
 * per node (what: a symbol, or -1 - the comm's index). A frame under
 * 1/PRUNE of the event's total is left out with what it calls (its
 * weight stays in its caller): at full width it would be a 200,000th of
 * the graph, and it is what makes a page of deep, varied stacks grow. */
#define PRUNE 200000.0
static int write_tree(struct json *j, const struct rep *r, uint32_t e, struct htab *h,
		      uint32_t **comms, size_t *nr_comms, size_t *cap_comms, struct used_syms *u)
{
	struct flame t = { 0 };
	uint32_t *todo = NULL;
	size_t top = 0;
	int rc = flame_build(&t, r, e);
	json_arr_open(j, NULL);
	if (rc || !(todo = malloc(t.nr * sizeof(*todo)))) {
		rc = -ENOMEM;
		goto out;
	}
	double floor = t.n[0].period / PRUNE;
	todo[top++] = 0;
	while (top) {
		const struct flame_node *n = &t.n[todo[--top]];
		int64_t what = 0;
		if (n->what & FLAME_COMM) {
			long c = comm_index(h, (uint32_t)n->what, comms, nr_comms, cap_comms);
			if (c < 0) {
				rc = -ENOMEM;
				goto out;
			}
			what = -1 - c;
		} else if (n != t.n) {
			what = sym_index(u, (uint32_t)n->what);
			if (what < 0) {
				rc = -ENOMEM;
				goto out;
			}
		}
		json_u64(j, NULL, n->depth);
		json_i64(j, NULL, what);
		json_u64(j, NULL, n->samples);
		json_dbl(j, NULL, n->period);
		for (uint32_t c = n->kid; c; c = t.n[c].next)
			if (t.n[c].period >= floor && t.n[c].period > 0)
				todo[top++] = c;
	}
out:
	json_arr_close(j);
	free(todo);
	flame_free(&t);
	return rc;
}

/* Event @e's functions, exact (before any pruning), as [sym, self
 * samples, self period, total samples, total period] per function: self
 * where it was the sampled frame, total where it was anywhere in the
 * stack, once per stack however deep it recursed. Functions whose total
 * is under 1/PRUNE of the event's are left out, as in the tree: a
 * profile of stripped code can have a "function" per address. */
static int write_funcs(struct json *j, const struct rep *r, uint32_t e, struct used_syms *u)
{
	struct acc { uint64_t sn, tn; double sp, tp; size_t seen; } *a;
	json_arr_open(j, NULL);
	a = calloc(r->nr_syms ? r->nr_syms : 1, sizeof(*a));
	if (!a) {
		json_arr_close(j);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->nr_stacks; i++) {
		const struct rep_stack *s = &r->stacks[i];
		if (s->ev != e || !s->nr)
			continue;
		struct acc *l = &a[s->syms[s->nr - 1]];
		l->sn += s->samples;
		l->sp += s->period;
		for (uint32_t k = 0; k < s->nr; k++) {
			struct acc *x = &a[s->syms[k]];
			if (x->seen == i + 1)
				continue;
			x->seen = i + 1;
			x->tn += s->samples;
			x->tp += s->period;
		}
	}
	double floor = r->ev_period[e] / PRUNE;
	int rc = 0;
	for (size_t i = 0; i < r->nr_syms; i++) {
		if (!a[i].tn || a[i].tp < floor)
			continue;
		long l = sym_index(u, (uint32_t)i);
		if (l < 0) {
			rc = -ENOMEM;
			break;
		}
		json_u64(j, NULL, (uint64_t)l);
		json_u64(j, NULL, a[i].sn);
		json_dbl(j, NULL, a[i].sp);
		json_u64(j, NULL, a[i].tn);
		json_dbl(j, NULL, a[i].tp);
	}
	json_arr_close(j);
	free(a);
	return rc;
}

/* The summary, as JSON, into @f. Comm ids are renumbered from 0. */
static int write_data(FILE *f, const struct rep *r)
{
	struct json j;
	struct htab *h = htab__new(1);
	struct { uint32_t *comms; size_t nr_comms, cap_comms; } cv = { 0 }; /* string ids */
	struct used_syms u = { .local = calloc(r->nr_syms ? r->nr_syms : 1, sizeof(uint32_t)) };
	int rc = 0;

	if (!h || !u.local) {
		htab__free(h);
		free(u.local);
		return -ENOMEM;
	}
	json_init(&j, f, false);
	json_obj_open(&j, NULL);
	json_u64(&j, "version", 1);
	json_str(&j, "command", r->meta.command);
	json_str(&j, "host", r->meta.host);
	json_str(&j, "arch", r->meta.arch);
	json_str(&j, "cpu", r->meta.cpu_model);
	json_str(&j, "kernel", r->meta.kernel);
	json_bool(&j, "complete", r->st.complete);
	json_u64(&j, "lost", r->lost);
	json_u64(&j, "lost_samples", r->lost_samples);
	json_u64(&j, "throttled", r->throttled);
	json_bool(&j, "chains", r->have_chains);
	json_u64(&j, "capped", r->cap_records);
	json_u64(&j, "main", r->main_ev);
	json_arr_open(&j, "events");
	for (uint32_t i = 0; i < r->nr_ev; i++) {
		json_obj_open(&j, NULL);
		json_str(&j, "name", r->meta.events[i].name);
		json_bool(&j, "trigger", r->meta.events[i].trigger);
		json_u64(&j, "samples", r->ev_samples[i]);
		json_dbl(&j, "period", r->ev_period[i]);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	json_arr_open(&j, "dsos");
	for (size_t i = 0; i < r->nr_dsos; i++)
		json_str(&j, NULL, r->dsos[i].base);
	json_arr_close(&j);
	json_arr_open(&j, "trees");
	for (uint32_t e = 0; e < r->nr_ev && !rc; e++)
		rc = write_tree(&j, r, e, h, &cv.comms, &cv.nr_comms, &cv.cap_comms, &u);
	json_arr_close(&j);
	json_arr_open(&j, "funcs");
	for (uint32_t e = 0; e < r->nr_ev && !rc; e++)
		rc = write_funcs(&j, r, e, &u);
	json_arr_close(&j);
	json_arr_open(&j, "syms");
	for (size_t i = 0; i < u.nr; i++)
		json_str(&j, NULL, r->syms[u.v[i]].name);
	json_arr_close(&j);
	json_arr_open(&j, "symdso");
	for (size_t i = 0; i < u.nr; i++)
		json_u64(&j, NULL, r->syms[u.v[i]].dso);
	json_arr_close(&j);
	json_arr_open(&j, "comms");
	for (size_t i = 0; i < cv.nr_comms; i++)
		json_str(&j, NULL, rep_str(r, cv.comms[i]));
	json_arr_close(&j);
	json_obj_close(&j);
	free(cv.comms);
	free(u.local);
	free(u.v);
	htab__free(h);
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

int export_html(FILE *f, const struct rep *r)
{
	const char *page = asset("page.html"), *app = asset("app.js"), *style = asset("style.css");
	char *data = NULL;
	size_t len = 0;
	if (!page || !app || !style)
		return -ENOENT; /* a build without the page's sources: cannot happen */
	FILE *m = open_memstream(&data, &len);
	if (!m)
		return -errno;
	int rc = write_data(m, r);
	if (fclose(m) && !rc)
		rc = -ENOMEM;
	if (rc) {
		free(data);
		return rc;
	}
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
			fputs(app, f);
			p = at + 5;
		} else if (!strncmp(at, "@DATA@", 6)) {
			put_json(f, data, len);
			p = at + 6;
		} else {
			fputc('@', f);
			p = at + 1;
		}
	}
	free(data);
	return 0;
}
