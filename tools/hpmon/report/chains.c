/* SPDX-License-Identifier: MIT */
/*
 * The one reading of call chains (report/report-internal.h): context
 * markers, a zero return address that ends its part, an unknown marker
 * that makes the chain corrupt; and a sample's frames resolved, each
 * return address at the byte before it but where the kernel put an
 * address that is no return address; and -g's call graph and folded
 * stacks, to which a stack is added once with all its samples.
 */
#include <stdlib.h>
#include <string.h>

#include "report/report-internal.h"

/* The mode a context marker starts; false for a value in the markers'
 * range that is none perf knows (-1, PERF_CONTEXT_GUEST, ...). */
static bool chain_marker(uint64_t ip, enum hpm_mode *mode)
{
	switch ((int64_t)ip) {
	case -128: *mode = HPM_MODE_KERNEL; return true;      /* PERF_CONTEXT_KERNEL */
	case -512: *mode = HPM_MODE_USER; return true;        /* PERF_CONTEXT_USER */
	case -32: *mode = HPM_MODE_HV; return true;           /* PERF_CONTEXT_HV */
	case -2176: *mode = HPM_MODE_GUEST_KERNEL; return true;
	case -2560: *mode = HPM_MODE_GUEST_USER; return true;
	default: return false;
	}
}

bool rep_chain_ok(const struct hpm_sample *s)
{
	enum hpm_mode mode;
	for (uint32_t i = 0; i < s->nr_chain; i++)
		if (s->chain[i] >= HPM_CHAIN_CONTEXT_MIN && !chain_marker(s->chain[i], &mode))
			return false;
	return true;
}

bool rep_chain_next(const struct hpm_sample *s, struct rep_chain_it *it, uint64_t *ip,
		    enum hpm_mode *mode)
{
	if (!it->started) {
		it->started = true;
		it->mode = s->mode;
	}
	while (it->i < s->nr_chain) {
		uint64_t v = s->chain[it->i++];
		if (v >= HPM_CHAIN_CONTEXT_MIN) {
			chain_marker(v, &it->mode);
			it->ended = false;
			continue;
		}
		/* a zero return address ends the frames of its part (the user
		 * stack's outermost frame); a next part starts at its marker */
		if (it->ended || !v) {
			it->ended = true;
			continue;
		}
		*ip = v;
		*mode = it->mode;
		return true;
	}
	return false;
}

size_t chains__locs(struct rep *r, const struct hpm_sample *s, uint32_t leaf)
{
	struct rep_chain_it it = { 0 };
	enum hpm_mode mode;
	uint64_t ip;
	size_t n = 0;

	if (r->xcap < (size_t)s->nr_chain + 1) {
		size_t nc = (size_t)s->nr_chain + 1;
		uint32_t *l = realloc(r->xlocs, nc * sizeof(*l));
		if (l)
			r->xlocs = l;
		uint64_t *xi = realloc(r->xips, nc * sizeof(*xi));
		if (xi)
			r->xips = xi;
		if (!l || !xi)
			return 0;
		r->xcap = nc;
	}
	r->xlocs[n] = leaf;
	r->xips[n++] = s->ip;
	/* as perf: a marker it does not know means the chain is corrupt, and
	 * only the sampled function is kept */
	if (!rep_chain_ok(s))
		return 1;
	bool first = true;
	enum hpm_mode part = s->mode;
	while (rep_chain_next(s, &it, &ip, &mode)) {
		if (first && ip == s->ip) { /* the sampled address itself */
			first = false;
			continue;
		}
		first = false;
		/* a return address: the call is the byte before it. But the
		 * user part of a sample taken in the kernel starts with where
		 * the user code was stopped (the registers' ip at the fault,
		 * interrupt or system call), itself the instruction: a page
		 * fault at a function's first byte is in that function, not
		 * in the one before it (perf script names it so too). */
		bool stopped_at = mode != part && rep_kernel_mode(part) && !rep_kernel_mode(mode);
		part = mode;
		uint64_t at = stopped_at ? ip : ip - 1;
		uint32_t l = addrspace__resolve(r, s->pid, at, mode, s->time);
		/* the byte before a kernel function is its padding (__pfx_),
		 * which holds no call: an address at the function's start is
		 * no return address but one the kernel put on the stack (a
		 * retpoline thunk's target, an interrupted instruction) */
		if (l != UINT32_MAX && rep_kernel_mode(mode) && r->locs[l].sym != UINT32_MAX &&
		    r->syms[r->locs[l].sym].name &&
		    !strncmp(r->syms[r->locs[l].sym].name, "__pfx_", 6)) {
			at = ip;
			l = addrspace__resolve(r, s->pid, at, mode, s->time);
		}
		if (l != UINT32_MAX) {
			r->xlocs[n] = l;
			r->xips[n++] = at;
		}
	}
	return n;
}

size_t chains__syms(struct rep *r, const struct hpm_sample *s, uint32_t leaf)
{
	size_t n = chains__locs(r, s, leaf);
	if (r->frames_cap < n) {
		uint32_t *v = realloc(r->frames, n * sizeof(*v));
		if (!v)
			return 0;
		r->frames = v;
		r->frames_cap = n;
	}
	for (size_t i = 0; i < n; i++)
		r->frames[i] = r->locs[r->xlocs[i]].sym;
	return n;
}

/* The stack @frames (@n sym ids, leaf first), of @nr samples of event
 * @ev, of period @w in all. The call graph is the main event's; the stacks of
 * other events are kept only when asked (all_stacks: report --html). */
static void add_callgraph(struct rep *r, uint32_t ev, uint32_t comm, const uint32_t *frames,
			  size_t n, double w, uint64_t nr)
{
	if (ev != r->main_ev)
		goto stack;
	if (r->stamp_cap < r->nr_syms) {
		size_t nc = r->nr_syms * 2;
		uint32_t *v = realloc(r->stamp, nc * sizeof(*v));
		if (!v)
			return;
		memset(v + r->stamp_cap, 0, (nc - r->stamp_cap) * sizeof(*v));
		r->stamp = v;
		r->stamp_cap = nc;
	}
	r->gen++;
	r->syms[frames[0]].self += w;
	for (size_t i = 0; i < n; i++) {
		uint32_t sy = frames[i];
		if (r->stamp[sy] != r->gen) { /* recursion counts once */
			r->stamp[sy] = r->gen;
			r->syms[sy].incl += w;
		}
		if (i + 1 < n) {
			uint64_t k[2] = { frames[i + 1], sy };
			long e = htab__get(r->h_edge, k);
			if (e < 0) {
				if (!rep_charge(r, rep_cost(sizeof(struct rep_edge), 2, 0, 0))) {
					r->cap_records++; /* the call is left out of the graph */
					return;
				}
				if (!PUSH(r, edges, nr_edges, cap_edges) || htab__put(r->h_edge, k, r->nr_edges))
					return;
				e = (long)r->nr_edges++;
				r->edges[e] = (struct rep_edge){ (uint32_t)k[0], sy, 0 };
			}
			r->edges[e].period += w;
		}
	}
stack:
	if (!r->o.folded)
		return;
	uint64_t k[3] = { comm | (uint64_t)ev << 32, 0, n };
	uint64_t h[2] = { 0, 0 };
	for (size_t i = 0; i < n; i++) {
		h[0] = h[0] * 1000003u + frames[i] + 1;
		h[1] = (h[1] ^ (frames[i] + 0x9e37u)) * 0x100000001b3ull;
	}
	k[1] = h[0] ^ (h[1] << 1);
	long i = htab__get(r->h_stack, k);
	if (i < 0) {
		if (!rep_charge(r, rep_cost(sizeof(struct rep_stack), 3, n * sizeof(uint32_t), 1))) {
			r->cap_records++; /* the stack is left out of --folded */
			return;
		}
		if (!PUSH(r, stacks, nr_stacks, cap_stacks) || htab__put(r->h_stack, k, r->nr_stacks))
			return;
		struct rep_stack *st = &r->stacks[r->nr_stacks];
		st->syms = malloc(n * sizeof(uint32_t));
		if (!st->syms)
			return;
		for (size_t j = 0; j < n; j++)
			st->syms[j] = frames[n - 1 - j];
		st->nr = (uint32_t)n;
		st->comm = comm;
		st->ev = ev;
		st->samples = 0;
		st->period = 0;
		i = (long)r->nr_stacks++;
	}
	r->stacks[i].samples += nr;
	r->stacks[i].period += w;
}

/* ---- -g: the stacks that wait ----
 *
 * A stack (the same call chain of the same process, address, mode, task
 * name and event, with no side-band record between) resolves to the same
 * frames: it is resolved once and kept. Its first run of samples is added
 * to the call graph and the folded stacks when another stack comes, as
 * each run always was (so the tables fill in the same order under the
 * memory cap); its later samples wait in it, with their weight, to be
 * added once (chains__flush: when the stacks kept hold CG_WAIT_MAX bytes,
 * and at the end, aggregate__flush). A crafted file may alternate two
 * addresses under one 4096-entry chain repeated by reference (2 bytes a
 * sample): each sample then cost its 4096 frames resolved and their 4096
 * edges looked up (report -g: 45 s of CPU a hundred thousand samples).
 * The stacks kept are a fixed bound, outside the memory cap.
 */
#define CG_WAIT_MAX (1ull << 20)

static uint64_t cg_hash(const struct hpm_sample *s, uint32_t gen, uint32_t comm, uint32_t leaf)
{
	uint64_t a = 0x9e3779b97f4a7c15ull ^ s->ip, b = 0xff51afd7ed558ccdull ^ gen;
	a = (a ^ ((uint64_t)comm << 32 | leaf)) * 0x100000001b3ull;
	b = (b ^ ((uint64_t)(uint32_t)s->pid << 32 | (uint64_t)s->mode << 8 | s->ev)) *
	    0xc4ceb9fe1a85ec53ull;
	/* two lanes: the chain is up to 4096 words, hashed for each sample */
	for (uint32_t i = 0; i + 1 < s->nr_chain; i += 2) {
		a = (a ^ s->chain[i]) * 0x100000001b3ull;
		b = (b ^ s->chain[i + 1]) * 0xc4ceb9fe1a85ec53ull;
	}
	if (s->nr_chain & 1)
		a = (a ^ s->chain[s->nr_chain - 1]) * 0x100000001b3ull;
	a ^= b ^ (b >> 29) ^ s->nr_chain;
	return a ^ (a >> 32);
}

static bool cg_same(const struct rep *r, const struct rep_cg *c, const struct hpm_sample *s,
		    uint32_t comm, uint32_t leaf)
{
	return c->gen == r->sb_gen && c->ev == s->ev && c->pid == s->pid && c->ip == s->ip &&
	       c->mode == s->mode && c->comm == comm && c->leaf == leaf &&
	       c->nr_chain == s->nr_chain &&
	       (!s->nr_chain || !memcmp(c->chain, s->chain, s->nr_chain * sizeof(uint64_t)));
}

struct rep_cg *chains__last(const struct rep *r)
{
	return r->cg_last ? &r->cgs[r->cg_last - 1] : NULL;
}

/* Drop the stacks kept. */
static void cg_clear(struct rep *r)
{
	for (size_t i = 0; i < r->nr_cgs; i++) {
		free(r->cgs[i].chain);
		free(r->cgs[i].frames);
	}
	r->nr_cgs = 0;
	r->cg_last = 0;
	r->cg_new = 0;
	r->cg_mem = 0;
}

void chains__flush(struct rep *r)
{
	if (!r->nr_cgs)
		return;
	for (size_t i = 0; i < r->nr_cgs; i++) {
		const struct rep_cg *c = &r->cgs[i];
		if (c->nr_samples)
			add_callgraph(r, c->ev, c->comm, c->frames, c->n, c->w, c->nr_samples);
	}
	cg_clear(r);
	htab__free(r->h_cg);
	r->h_cg = htab__new(2); /* NULL: none kept from now on */
}

void chains__free(struct rep *r)
{
	cg_clear(r);
	free(r->cgs);
	r->cgs = NULL;
	r->cap_cgs = 0;
}

/* Keep the stack of @s, its frames in r->frames (@n of them), under @key,
 * with no sample waiting yet. */
static struct rep_cg *cg_keep(struct rep *r, const struct hpm_sample *s, uint32_t comm,
			      uint32_t leaf, size_t n, const uint64_t key[2])
{
	uint64_t cost = rep_cost(sizeof(struct rep_cg), 2,
				 s->nr_chain * sizeof(uint64_t) + n * sizeof(uint32_t), 2);
	if (cost > CG_WAIT_MAX)
		return NULL;
	if (r->cg_mem + cost > CG_WAIT_MAX)
		chains__flush(r);
	if (!r->h_cg)
		return NULL;
	struct rep_cg *v = vec__grow(r->cgs, &r->cap_cgs, r->nr_cgs, sizeof(*v));
	if (!v)
		return NULL;
	r->cgs = v;
	struct rep_cg *c = &v[r->nr_cgs];
	*c = (struct rep_cg){ .nr_chain = s->nr_chain, .gen = r->sb_gen, .comm = comm,
			      .leaf = leaf, .ev = s->ev, .pid = s->pid, .ip = s->ip,
			      .mode = s->mode, .n = n, .cost = cost };
	c->chain = s->nr_chain ? malloc(s->nr_chain * sizeof(uint64_t)) : NULL;
	c->frames = malloc(n * sizeof(uint32_t));
	if ((s->nr_chain && !c->chain) || !c->frames || htab__put(r->h_cg, key, r->nr_cgs)) {
		free(c->chain);
		free(c->frames);
		return NULL;
	}
	if (s->nr_chain)
		memcpy(c->chain, s->chain, s->nr_chain * sizeof(uint64_t));
	memcpy(c->frames, r->frames, n * sizeof(uint32_t));
	r->cg_mem += cost;
	r->nr_cgs++;
	return c;
}

void chains__wait(struct rep *r, const struct hpm_sample *s, uint32_t comm, uint32_t leaf,
		  uint64_t n)
{
	double w = (double)n * (double)s->period;
	uint64_t key[2] = { 0, 0 };
	long i = -1;

	if (r->h_cg) {
		key[0] = cg_hash(s, r->sb_gen, comm, leaf);
		key[1] = (uint64_t)(uint32_t)s->pid << 32 | s->nr_chain;
		i = htab__get(r->h_cg, key);
	}
	bool hit = i >= 0 && cg_same(r, &r->cgs[i], s, comm, leaf);
	/* a new stack's run is added when another stack comes, as it always
	 * was: the graph's tables fill in the same order under the cap */
	if (r->cg_new && !(hit && (size_t)i + 1 == r->cg_new)) {
		struct rep_cg *p = &r->cgs[r->cg_new - 1];
		add_callgraph(r, p->ev, p->comm, p->frames, p->n, p->w, p->nr_samples);
		p->w = 0;
		p->nr_samples = 0;
		r->cg_new = 0;
	}
	if (hit) {
		struct rep_cg *c = &r->cgs[i];
		c->w += w;
		c->nr_samples += n;
		r->cg_last = (size_t)i + 1;
		return;
	}
	r->cg_last = 0;
	size_t frames = chains__syms(r, s, leaf); /* into r->frames */
	if (!frames)
		return;
	/* kept unless another stack holds its key, or it is too large: then
	 * each of its samples is added at once */
	struct rep_cg *c = i < 0 && r->h_cg ? cg_keep(r, s, comm, leaf, frames, key) : NULL;
	if (!c) {
		add_callgraph(r, s->ev, comm, r->frames, frames, w, n);
		return;
	}
	c->w = w;
	c->nr_samples = n;
	r->cg_last = r->cg_new = (size_t)(c - r->cgs) + 1;
}
