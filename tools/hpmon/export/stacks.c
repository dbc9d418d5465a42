/* SPDX-License-Identifier: MIT */
/*
 * What every export keeps of a profile's samples (export-internal.h):
 * the call stacks as a tree of frames (each distinct stack one node, so a
 * sample costs one index however deep it is), the threads with their
 * names, and the facts of symbols and events the formats share. Whatever
 * grows with the file is charged to the report's memory cap.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export/export-internal.h"

bool x_grow(void **v, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return true;
	size_t nc = *cap ? *cap : 64;
	while (nc < need)
		nc *= 2;
	void *p = realloc(*v, nc * size);
	if (!p)
		return false;
	*v = p;
	*cap = nc;
	return true;
}

/* What an item of a vector found through a hash table of @kw words costs
 * with the slack of both (as the report layer's rep_cost counts). */
static uint64_t item_cost(size_t size, unsigned kw)
{
	return 2 * (uint64_t)size + 3 * (8 * (uint64_t)kw + 4);
}

static uint32_t node_get(struct export *x, struct rep *r, uint32_t parent, uint32_t id)
{
	uint64_t k[2] = { parent, id };
	long i = htab__get(x->h_node, k);
	if (i >= 0)
		return (uint32_t)i + 1;
	uint64_t cost = item_cost(sizeof(struct xnode), 2);
	/* pprof: what writing the location will take (its entry, its
	 * function's, their names copied into the string table) */
	if (x->by_loc)
		cost += 192 + 2 * strlen(r->syms[r->locs[id].sym].name);
	if (x->nr_nodes >= UINT32_MAX - 1 || !rep_reserve(r, cost))
		return 0;
	if (!x_grow((void **)&x->nodes, &x->cap_nodes, x->nr_nodes + 1, sizeof(*x->nodes)) ||
	    htab__put(x->h_node, k, x->nr_nodes))
		return 0;
	x->nodes[x->nr_nodes] = (struct xnode){ parent, id };
	return (uint32_t)++x->nr_nodes;
}

/* Past the memory cap a stack keeps the outer frames that have nodes:
 * the sample still counts, at its caller's place (or the root). */
static uint32_t x_stack_of(struct export *x, struct rep *r, const struct rep_xsample *xs)
{
	uint32_t node = 0;
	for (size_t i = xs->nr; i-- > 0;) {
		uint32_t id = x->by_loc ? xs->locs[i] : r->locs[xs->locs[i]].sym;
		uint32_t next = node_get(x, r, node, id);
		if (!next) {
			x->cut++;
			return node;
		}
		node = next;
	}
	return node;
}

uint32_t x_stack(struct export *x, struct rep *r, const struct rep_xsample *xs)
{
	if (xs->same && x->last_valid) {
		x->cut += x->last_cut;
		return x->last_node;
	}
	uint64_t before = x->cut;
	x->last_node = x_stack_of(x, r, xs);
	x->last_cut = x->cut != before;
	x->last_valid = true;
	return x->last_node;
}

size_t x_frames(const struct export *x, uint32_t node, uint32_t *out, size_t max)
{
	size_t n = 0;
	for (uint32_t v = node; v && n < max; v = x->nodes[v - 1].parent)
		n++;
	size_t i = n;
	for (uint32_t v = node; v && i > 0; v = x->nodes[v - 1].parent)
		out[--i] = x->nodes[v - 1].id;
	return n;
}

uint32_t x_thread(struct export *x, struct rep *r, pid_t pid, pid_t tid, uint32_t comm)
{
	uint64_t k = (uint32_t)tid;
	long i = htab__get(x->h_thread, &k);
	if (i < 0) {
		if (!rep_reserve(r, item_cost(sizeof(struct xthread), 1)))
			return x_capped_thread(x);
		if (!x_grow((void **)&x->threads, &x->cap_threads, x->nr_threads + 1,
			    sizeof(*x->threads)) ||
		    htab__put(x->h_thread, &k, x->nr_threads))
			return UINT32_MAX;
		i = (long)x->nr_threads++;
	}
	x->threads[i] = (struct xthread){ pid, tid, comm };
	return (uint32_t)i;
}

uint32_t x_capped_thread(struct export *x)
{
	x->capped_samples++;
	if (x->capped_thread)
		return x->capped_thread - 1;
	/* one, uncharged: every thread past the cap */
	if (!x_grow((void **)&x->threads, &x->cap_threads, x->nr_threads + 1, sizeof(*x->threads)))
		return UINT32_MAX;
	x->threads[x->nr_threads] = (struct xthread){ -1, -1, 0 };
	x->capped_thread = (uint32_t)++x->nr_threads;
	return x->capped_thread - 1;
}

const char *x_thread_name(const struct export *x, const struct rep *r, uint32_t t)
{
	return t + 1 == x->capped_thread ? "[memory cap]" : rep_str(r, x->threads[t].comm);
}

uint64_t x_loc_off(struct rep *r, const struct rep_loc *l)
{
	struct rep_dso *d = &r->dsos[l->dso];
	uint64_t off;
	/* an object read keeps link-time addresses; the others the key */
	if (rep_dso_open(r, d) && !hpm_dso__addr_to_offset(d->d, l->addr, &off))
		return off;
	return l->addr;
}

const char *x_sym_name(const struct rep *r, uint32_t id)
{
	return r->syms[id].name;
}

const char *x_unit(const struct rep *r, uint32_t ev)
{
	const struct hpm_profile_event *e = &r->meta.events[ev];
	/* PERF_TYPE_SOFTWARE: PERF_COUNT_SW_CPU_CLOCK, _TASK_CLOCK count ns */
	if (e->type == 1 && (e->config == 0 || e->config == 1))
		return "nanoseconds";
	return "count";
}

bool x_sym_source(struct rep *r, uint32_t id, const char **file, unsigned *line)
{
	const struct rep_sym *sy = &r->syms[id];
	struct rep_dso *d = &r->dsos[sy->dso];
	struct hpm_symbol s = { 0 };

	if (!sy->resolved || !rep_dso_open(r, d))
		return false;
	/* the line of its first instruction: where the function begins */
	hpm_dso__lookup(d->d, sy->start, HPM_SYM_LINES, &s);
	if (!s.file || !s.line)
		return false;
	*file = s.file;
	*line = s.line;
	return true;
}
