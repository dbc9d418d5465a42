/* SPDX-License-Identifier: MIT */
/*
 * hpmon serve's bounded families (serve.h): which processes (or cgroups)
 * get a series of their own, and what happens to the counts of the rest.
 *
 * Prometheus wants two things that pull apart here: few series (each
 * costs memory in every Prometheus that scrapes us, and processes come
 * and go by the thousand), and counters that never go down (a decrease
 * is taken for a restart). The rules:
 *
 *  - at most max series are shown, besides the pinned ones; a step ranks
 *    the rows that grew since the previous step, and the series shown,
 *    by the rate of the ranking event (per second of the step, a step
 *    shorter than a second counted as one), a shown series by the best rate
 *    it had in the last hold_ns (so a process that exited keeps its
 *    series, at its final value, until others outrank that rate or the
 *    hold ends);
 *  - a series shown at one step and the next adds its increase; one new
 *    to the set starts at the increase of the step it appears in (for a
 *    process that started since the previous step: its whole count);
 *  - a series that leaves the set disappears, and its whole value moves
 *    into [other]; the increase of every row not shown goes there too.
 *
 * So every series only grows for as long as it is shown, [other] only
 * grows, and the series plus [other] add up to every increase ever
 * added: to the per-CPU totals, exactly. Prometheus takes a series that
 * disappears as stale; one that comes back later starts low again, which
 * rate() reads as a restart, correctly.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/serve.h"

struct cand {
	char *labels;
	bool pinned;
	uint64_t *delta;
};

struct serve_book {
	const char *by;
	size_t nr_ev, nr_metrics, max, rank_ev;
	uint64_t hold_ns;
	struct serve_series *s;   /* shown, sorted by labels */
	size_t nr;
	struct cand *c;           /* added since the last step */
	size_t nr_c, cap_c;
	uint64_t *other;
	size_t folded;
	char other_labels[32];
};

/* One row of a step: a candidate, a series shown, or both. */
struct ent {
	struct cand *c;
	struct serve_series *s;
	double rate, score;
	bool selected;
};

static void series_release(struct serve_series *s)
{
	free(s->labels);
	free(s->v);
	free(s->d);
	free(s->mv);
}

struct serve_book *serve_book__new(const char *by, size_t nr_ev, size_t nr_metrics, size_t max,
				   size_t rank_ev, uint64_t hold_ns)
{
	struct serve_book *b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->by = by;
	b->nr_ev = nr_ev;
	b->nr_metrics = nr_metrics;
	b->max = max;
	b->rank_ev = rank_ev < nr_ev ? rank_ev : 0;
	b->hold_ns = hold_ns;
	b->other = calloc(nr_ev ? nr_ev : 1, sizeof(uint64_t));
	if (!b->other) {
		free(b);
		return NULL;
	}
	/* a process label set has comm; a cgroup one, cgroup */
	snprintf(b->other_labels, sizeof(b->other_labels), "%s=\"[other]\"",
		 strcmp(by, "cgroup") ? "comm" : "cgroup");
	return b;
}

void serve_book__free(struct serve_book *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->nr; i++)
		series_release(&b->s[i]);
	for (size_t i = 0; i < b->nr_c; i++) {
		free(b->c[i].labels);
		free(b->c[i].delta);
	}
	free(b->s);
	free(b->c);
	free(b->other);
	free(b);
}

int serve_book__add(struct serve_book *b, const char *labels, bool pinned,
		    const uint64_t *delta)
{
	if (b->nr_c == b->cap_c) {
		size_t ncap = b->cap_c ? b->cap_c * 2 : 64;
		struct cand *c = realloc(b->c, ncap * sizeof(*c));
		if (!c)
			return -ENOMEM;
		b->c = c;
		b->cap_c = ncap;
	}
	struct cand *c = &b->c[b->nr_c];
	c->labels = strdup(labels);
	c->delta = malloc((b->nr_ev ? b->nr_ev : 1) * sizeof(uint64_t));
	if (!c->labels || !c->delta) {
		free(c->labels);
		free(c->delta);
		return -ENOMEM;
	}
	memcpy(c->delta, delta, b->nr_ev * sizeof(uint64_t));
	c->pinned = pinned;
	b->nr_c++;
	return 0;
}

static int cand_cmp(const void *x, const void *y)
{
	return strcmp(((const struct cand *)x)->labels, ((const struct cand *)y)->labels);
}

/* Candidates sorted by labels, those with the same labels summed. */
static void merge_cands(struct serve_book *b)
{
	size_t n = 0;
	if (b->nr_c > 1)
		qsort(b->c, b->nr_c, sizeof(*b->c), cand_cmp);
	for (size_t i = 0; i < b->nr_c; i++) {
		struct cand *c = &b->c[i];
		if (n && !strcmp(b->c[n - 1].labels, c->labels)) {
			struct cand *into = &b->c[n - 1];
			for (size_t e = 0; e < b->nr_ev; e++)
				into->delta[e] += c->delta[e];
			into->pinned |= c->pinned;
			free(c->labels);
			free(c->delta);
			continue;
		}
		b->c[n++] = *c;
	}
	b->nr_c = n;
}

static bool ent_pinned(const struct ent *e)
{
	return (e->c && e->c->pinned) || (e->s && e->s->pinned);
}

static const char *ent_labels(const struct ent *e)
{
	return e->s ? e->s->labels : e->c->labels;
}

/* Best first: the higher score, then a series already shown (it keeps
 * its place on a tie), then the labels, so a step is deterministic. */
static int rank_cmp(const void *x, const void *y)
{
	const struct ent *a = *(struct ent *const *)x, *b = *(struct ent *const *)y;
	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	if (!a->s != !b->s)
		return a->s ? -1 : 1;
	return strcmp(ent_labels(a), ent_labels(b));
}

/* The rows of the step, in label order: candidates joined to series. */
static size_t join(struct serve_book *b, struct ent *ent, uint64_t now, double secs)
{
	size_t i = 0, k = 0, n = 0;
	while (i < b->nr_c || k < b->nr) {
		int cmp = i == b->nr_c ? 1 : k == b->nr ? -1 : strcmp(b->c[i].labels, b->s[k].labels);
		struct ent *e = &ent[n++];
		memset(e, 0, sizeof(*e));
		if (cmp <= 0)
			e->c = &b->c[i++];
		if (cmp >= 0)
			e->s = &b->s[k++];
		if (e->c)
			e->rate = (double)e->c->delta[b->rank_ev] / secs;
		e->score = e->rate;
		if (e->s && now < e->s->hold_until && e->s->hold_rate > e->score)
			e->score = e->s->hold_rate;
	}
	return n;
}

/* Which rows are shown: every pinned one, and the best max others. */
static int select_shown(struct serve_book *b, struct ent *ent, size_t n)
{
	struct ent **r = malloc((n ? n : 1) * sizeof(*r));
	size_t nr = 0;
	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (ent_pinned(&ent[i]))
			ent[i].selected = true;
		else
			r[nr++] = &ent[i];
	}
	qsort(r, nr, sizeof(*r), rank_cmp);
	for (size_t i = 0; i < nr && i < b->max; i++)
		r[i]->selected = true;
	free(r);
	return 0;
}

int serve_book__step(struct serve_book *b, uint64_t now, double secs)
{
	size_t n = 0, shown = 0, fresh = 0;
	struct ent *ent = NULL;
	struct serve_series *ns = NULL, *fr = NULL;
	int rc = -ENOMEM;

	/* two scrapes a moment apart would make any increase a high rate,
	 * held for hold_ns: a step is counted as one second at least */
	if (!(secs > 1.0))
		secs = 1.0;
	merge_cands(b);
	ent = malloc((b->nr_c + b->nr + 1) * sizeof(*ent));
	if (!ent)
		goto out;
	n = join(b, ent, now, secs);
	if (select_shown(b, ent, n))
		goto out;
	for (size_t i = 0; i < n; i++) {
		shown += ent[i].selected;
		fresh += ent[i].selected && !ent[i].s;
	}
	/* everything that can fail first: the new set, the new series' arrays */
	ns = calloc(shown + 1, sizeof(*ns));
	fr = calloc(fresh + 1, sizeof(*fr));
	if (!ns || !fr)
		goto out;
	for (size_t i = 0; i < fresh; i++) {
		fr[i].v = calloc(b->nr_ev + 1, sizeof(uint64_t));
		fr[i].d = calloc(b->nr_ev + 1, sizeof(uint64_t));
		fr[i].mv = calloc(b->nr_metrics + 1, sizeof(double));
		if (!fr[i].v || !fr[i].d || !fr[i].mv)
			goto out;
	}
	/* commit: nothing fails from here */
	size_t k = 0, fi = 0;
	b->folded = 0;
	for (size_t i = 0; i < n; i++) {
		struct ent *e = &ent[i];
		const uint64_t *d = e->c ? e->c->delta : NULL;
		if (!e->selected) {
			for (size_t v = 0; v < b->nr_ev; v++)
				b->other[v] += (e->s ? e->s->v[v] : 0) + (d ? d[v] : 0);
			if (e->s)
				series_release(e->s);
			if (e->c) {
				b->folded++;
				free(e->c->labels);
			}
			continue;
		}
		struct serve_series *t = &ns[k++];
		if (e->s) {
			*t = *e->s;
			if (e->c) {
				free(e->c->labels);
				t->pinned |= e->c->pinned;
			}
			if (e->rate >= t->hold_rate || now >= t->hold_until) {
				t->hold_rate = e->rate;
				t->hold_until = now + b->hold_ns;
			}
		} else {
			*t = fr[fi];
			fr[fi++] = (struct serve_series){ 0 }; /* moved */
			t->labels = e->c->labels;
			t->pinned = e->c->pinned;
			t->hold_rate = e->rate;
			t->hold_until = now + b->hold_ns;
		}
		for (size_t v = 0; v < b->nr_ev; v++) {
			t->d[v] = d ? d[v] : 0;
			t->v[v] += t->d[v];
		}
	}
	for (size_t i = 0; i < b->nr_c; i++)
		free(b->c[i].delta);
	b->nr_c = 0;
	free(b->s);
	b->s = ns;
	b->nr = shown;
	ns = NULL;
	rc = 0;
out:
	/* fresh arrays not moved into a series (all of them on failure) */
	for (size_t i = 0; fr && i < fresh; i++) {
		free(fr[i].v);
		free(fr[i].d);
		free(fr[i].mv);
	}
	free(fr);
	free(ns);
	free(ent);
	return rc;
}

void serve_book__view(struct serve_book *b, struct serve_set *out)
{
	*out = (struct serve_set){
		.by = b->by, .s = b->s, .nr = b->nr, .other = b->other,
		.other_labels = b->other_labels, .max = b->max, .folded = b->folded,
	};
}

struct serve_series *serve_book__series(struct serve_book *b, size_t i)
{
	return i < b->nr ? &b->s[i] : NULL;
}
