/* SPDX-License-Identifier: MIT */
/*
 * The flame tree of one event (pictures-internal.h), for --svg and --html:
 * the stacks of the report layer (as --folded lists them) merged by prefix:
 * the root, the task's name, then the frames from the outermost. For the
 * page, the same trees made from every sample as the report layer accounts
 * it (its sink), with what --folded's stacks lack: the counts of groups
 * read at the samples, and when the samples were taken.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pictures/pictures-internal.h"
#include "report/report.h"
#include "report/table.h"

/* The child of @parent for @what (a comm's string id with bit 63, or a
 * symbol), made when new: its index, or 0 when memory ran out. */
static uint32_t child(struct flame *t, uint32_t parent, uint64_t what, const char *name)
{
	uint64_t k[2] = { parent, what };
	long i = htab__get(t->h, k);
	if (i >= 0)
		return (uint32_t)i;
	if (!PUSH(t, n, nr, cap) || htab__put(t->h, k, t->nr))
		return 0;
	t->n[t->nr] = (struct flame_node){ .name = name, .what = what, .next = t->n[parent].kid,
					   .depth = t->n[parent].depth + 1 };
	t->n[parent].kid = (uint32_t)t->nr;
	return (uint32_t)t->nr++;
}

int flame_build(struct flame *t, const struct rep *r, uint32_t ev)
{
	t->h = htab__new(2);
	if (!t->h || !PUSH(t, n, nr, cap))
		return -ENOMEM;
	t->n[t->nr++] = (struct flame_node){ .name = "all" };
	for (size_t i = 0; i < r->nr_stacks; i++) {
		const struct rep_stack *s = &r->stacks[i];
		if (s->ev != ev)
			continue;
		uint32_t at = child(t, 0, s->comm | FLAME_COMM, rep_str(r, s->comm));
		if (!at)
			return -ENOMEM;
		t->n[0].samples += s->samples;
		t->n[0].period += s->period;
		t->n[at].samples += s->samples;
		t->n[at].period += s->period;
		for (uint32_t k = 0; k < s->nr; k++) {
			at = child(t, at, s->syms[k], r->syms[s->syms[k]].name);
			if (!at)
				return -ENOMEM;
			t->n[at].samples += s->samples;
			t->n[at].period += s->period;
		}
	}
	return 0;
}

void flame_free(struct flame *t)
{
	htab__free(t->h);
	free(t->n);
}

/* ---- the page's trees, from the report layer's sink (picture.h) ---- */

#define BIN_SPAN 16384  /* time keys a tree keeps apart before it coarsens them */

int ptrees_ensure(struct ptrees *p, const struct rep *r)
{
	if (p->t)
		return 0;
	p->nr_ev = r->nr_ev;
	p->t = calloc(r->nr_ev ? r->nr_ev : 1, sizeof(*p->t));
	p->h = htab__new(3);
	p->hb = htab__new(2);
	return p->t && p->h && p->hb ? 0 : -ENOMEM;
}

/* A new node of @t under @parent, its counts zero: its index, or -1. */
static long ptree_new(struct ptrees *p, struct ptree *t, uint32_t parent, uint64_t what)
{
	void *v = vec__grow(t->n, &t->cap, t->nr, sizeof(*t->n));
	if (!v)
		return -1;
	t->n = v;
	size_t need = (t->nr + 1) * p->nr_ev;
	if (need > t->cap_dv) {
		size_t nc = t->cap_dv ? t->cap_dv * 2 : 64 * (size_t)p->nr_ev;
		while (nc < need)
			nc *= 2;
		double *d = realloc(t->dv, nc * sizeof(*d));
		if (!d)
			return -1;
		t->dv = d;
		t->cap_dv = nc;
	}
	memset(&t->dv[t->nr * p->nr_ev], 0, p->nr_ev * sizeof(double));
	struct ptree_node *n = &t->n[t->nr];
	*n = (struct ptree_node){ .what = what, .parent = parent };
	if (t->nr) {
		n->next = t->n[parent].kid;
		n->depth = t->n[parent].depth + 1;
		t->n[parent].kid = (uint32_t)t->nr;
	}
	return (long)t->nr++;
}

/* The child of @parent for @what in event @ev's tree, made when new: its
 * index; 0 when the memory cap leaves it out (the sample stays in
 * @parent), or when memory ran out (p->err). */
static uint32_t ptree_child(struct ptrees *p, struct rep *r, uint32_t ev, uint32_t parent,
			    uint64_t what)
{
	struct ptree *t = &p->t[ev];
	uint64_t k[3] = { ev, parent, what };
	long i = htab__get(p->h, k);
	if (i >= 0)
		return (uint32_t)i;
	if (!rep_reserve(r, sizeof(struct ptree_node) + 8 * (uint64_t)p->nr_ev + 64)) {
		r->cap_records++;
		return 0;
	}
	long c = ptree_new(p, t, parent, what);
	if (c <= 0 || htab__put(p->h, k, (size_t)c)) {
		p->err = -ENOMEM;
		return 0;
	}
	return (uint32_t)c;
}

/* Merge the bins into keys of time >> @shift. */
static int bins_coarsen(struct ptrees *p, unsigned shift)
{
	struct htab *h = htab__new(2);
	size_t m = 0;
	if (!h)
		return -ENOMEM;
	for (size_t i = 0; i < p->nr_b; i++) {
		struct pbin b = p->b[i];
		b.tk >>= shift - p->shift;
		uint64_t k[2] = { (uint64_t)b.ev << 32 | b.node, b.tk };
		long j = htab__get(h, k);
		if (j >= 0) {
			p->b[j].n += b.n;
			p->b[j].p += b.p;
			continue;
		}
		if (htab__put(h, k, m)) {
			htab__free(h);
			return -ENOMEM;
		}
		p->b[m++] = b;
	}
	htab__free(p->hb);
	p->hb = h;
	p->nr_b = m;
	p->shift = shift;
	return 0;
}

static void ptrees_bin(struct ptrees *p, struct rep *r, uint32_t ev, uint32_t node, uint64_t t,
		       double w)
{
	if (!p->nr_b && !p->any_time) {
		p->tmin = p->tmax = t;
		p->any_time = true;
	}
	if (t < p->tmin)
		p->tmin = t;
	if (t > p->tmax)
		p->tmax = t;
	unsigned s = p->shift;
	while ((p->tmax >> s) - (p->tmin >> s) > BIN_SPAN)
		s++;
	if (s != p->shift && bins_coarsen(p, s)) {
		p->err = -ENOMEM;
		return;
	}
	uint64_t k[2] = { (uint64_t)ev << 32 | node, t >> p->shift };
	long i = htab__get(p->hb, k);
	if (i < 0) {
		void *v;
		if (!rep_reserve(r, sizeof(struct pbin) + 48)) {
			r->cap_records++; /* the sample's time is left out of the ranges */
			return;
		}
		if (!(v = vec__grow(p->b, &p->cap_b, p->nr_b, sizeof(*p->b))) ||
		    htab__put(p->hb, k, p->nr_b)) {
			p->err = -ENOMEM;
			return;
		}
		p->b = v;
		i = (long)p->nr_b++;
		p->b[i] = (struct pbin){ .ev = ev, .node = node, .tk = k[1] };
	}
	p->b[i].n++;
	p->b[i].p += w;
}

/* Room for @n entries in p's path of the previous sample. */
static bool path_reserve(struct ptrees *p, size_t n)
{
	if (n <= p->path_cap)
		return true;
	size_t c = p->path_cap ? p->path_cap : 64;
	while (c < n)
		c *= 2;
	uint32_t *a = realloc(p->path_node, c * sizeof(*a)), *b;
	if (!a)
		return false;
	p->path_node = a;
	if (!(b = realloc(p->path_sym, c * sizeof(*b))))
		return false;
	p->path_sym = b;
	p->path_cap = c;
	return true;
}

/* The sample for the stack chart: one in p->stride, the stride doubled
 * (and every other sample kept dropped) whenever PTREES_MAX_SAMPLES are
 * kept, so that the chart covers the whole run however long it is. */
static void ptrees_keep(struct ptrees *p, struct rep *r, uint32_t ev, uint32_t node, uint64_t t)
{
	if (!p->stride)
		p->stride = 1;
	if (p->smp_seen++ % p->stride) {
		p->smp_left++;
		return;
	}
	if (p->nr_smp >= PTREES_MAX_SAMPLES) {
		size_t m = 0;
		for (size_t i = 0; i < p->nr_smp; i += 2)
			p->smp[m++] = p->smp[i];
		p->smp_left += p->nr_smp - m;
		p->nr_smp = m;
		p->stride *= 2;
		if ((p->smp_seen - 1) % p->stride) {
			p->smp_left++;
			return;
		}
	}
	if (!rep_reserve(r, sizeof(struct psample))) {
		p->smp_left++;
		return;
	}
	void *v = vec__grow(p->smp, &p->cap_smp, p->nr_smp, sizeof(*p->smp));
	if (!v) {
		p->err = -ENOMEM;
		return;
	}
	p->smp = v;
	p->smp[p->nr_smp++] = (struct psample){ .t = t, .ev = ev, .node = node };
}

static void ptrees_sample(void *arg, struct rep *r, const struct rep_xsample *x)
{
	struct ptrees *p = arg;
	uint32_t ev = x->s->ev;
	if (p->err || (p->err = ptrees_ensure(p, r)) || ev >= p->nr_ev)
		return;
	struct ptree *t = &p->t[ev];
	if (!t->nr && ptree_new(p, t, 0, 0) < 0) { /* the root: index 0 */
		p->err = -ENOMEM;
		return;
	}
	uint32_t at;
	uint64_t task = x->comm | FLAME_COMM;
	if (p->by_thread)
		task |= (uint64_t)((uint32_t)x->s->tid & 0x7fffffffu) << 32;
	if (x->same && p->last_ok && p->last_ev == ev && p->last_task == task) {
		at = p->last_leaf;
	} else {
		/* the frames it shares with the previous sample, from the root,
		 * are the same nodes: looked up no more (a DWARF profile's
		 * samples share most of their stack with the one before) */
		bool keep = p->last_ok && p->last_ev == ev && p->last_task == task && p->path_n;
		if (!path_reserve(p, x->nr + 1)) {
			p->err = -ENOMEM;
			return;
		}
		at = keep ? p->path_node[0] : ptree_child(p, r, ev, 0, task);
		p->path_node[0] = at;
		size_t d = 0;
		for (size_t k = x->nr; at && k-- > 0; d++) {
			uint32_t sym = r->locs[x->locs[k]].sym, c;
			if (keep && d + 1 < p->path_n && p->path_sym[d + 1] == sym) {
				c = p->path_node[d + 1];
			} else {
				keep = false;
				c = ptree_child(p, r, ev, at, sym);
			}
			if (!c)
				break;
			at = c;
			p->path_node[d + 1] = c;
			p->path_sym[d + 1] = sym;
		}
		p->path_n = p->path_node[0] ? d + 1 : 0;
		if (p->err)
			return;
		p->last_ev = ev;
		p->last_task = task;
		p->last_leaf = at;
		p->last_ok = true;
	}
	/* the leaf's counts alone: its callers' are summed once, when the
	 * trees are done (ptrees_finish). Adding them here walked the whole
	 * stack at every sample: a crafted file repeating a 4096-entry chain
	 * in 2 bytes a sample cost 4096 steps each. */
	double w = (double)x->s->period;
	t->n[at].self_n++;
	t->n[at].self_p += w;
	t->n[at].samples++;
	t->n[at].period += w;
	if (x->delta)
		for (uint32_t e = 0; e < p->nr_ev; e++)
			t->dv[(size_t)at * p->nr_ev + e] += x->delta[e];
	ptrees_bin(p, r, ev, at, x->s->time, w);
	if (p->by_thread)
		ptrees_keep(p, r, ev, at, x->s->time);
}

int ptrees_finish(struct ptrees *p, const struct rep *r)
{
	int rc = p->err ? p->err : ptrees_ensure(p, r);
	if (rc || p->summed)
		return rc;
	/* a node comes after its parent (ptree_new): from the last one up,
	 * each node's sums are whole when they are added to its parent's */
	for (uint32_t e = 0; e < p->nr_ev; e++) {
		struct ptree *t = &p->t[e];
		for (size_t i = t->nr; i-- > 1;) {
			struct ptree_node *n = &t->n[i], *up = &t->n[n->parent];
			up->samples += n->samples;
			up->period += n->period;
			for (uint32_t k = 0; k < p->nr_ev; k++)
				t->dv[(size_t)n->parent * p->nr_ev + k] += t->dv[i * p->nr_ev + k];
		}
	}
	p->summed = true;
	return 0;
}

void ptrees_init(struct ptrees *p, struct rep_opts *o)
{
	memset(p, 0, sizeof(*p));
	p->shift = 10; /* about a microsecond, coarsened as the profile's span grows */
	p->sink.sample = ptrees_sample;
	p->sink.arg = p;
	o->sink = &p->sink;
	o->callgraph = true;
}

int ptrees_bins(struct ptrees *p, size_t budget, uint64_t max_bins)
{
	unsigned s = p->shift;
	while (s < 63 && ((p->tmax >> s) - (p->tmin >> s) + 1 > max_bins))
		s++;
	int rc = s != p->shift ? bins_coarsen(p, s) : 0;
	while (!rc && p->nr_b > budget && p->shift < 63)
		rc = bins_coarsen(p, p->shift + 1);
	return rc;
}

void ptrees_free(struct ptrees *p)
{
	for (uint32_t e = 0; p->t && e < p->nr_ev; e++) {
		free(p->t[e].n);
		free(p->t[e].dv);
	}
	free(p->t);
	free(p->b);
	free(p->smp);
	free(p->path_node);
	free(p->path_sym);
	htab__free(p->h);
	htab__free(p->hb);
	memset(p, 0, sizeof(*p));
}
