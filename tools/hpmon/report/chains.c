/* SPDX-License-Identifier: MIT */
/*
 * The one reading of call chains (report/report-internal.h): context
 * markers, a zero return address that ends its part, an unknown marker
 * that makes the chain corrupt; and a sample's frames resolved, each
 * return address at the byte before it but where the kernel put an
 * address that is no return address.
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
