/* SPDX-License-Identifier: MIT */
/*
 * Aggregation of a report's samples (report/report-internal.h): each
 * sample, filtered, resolved (addrspace.c) and keyed by the sort keys,
 * adds to its row; its call chain (its frames: chains.c) to the call
 * graph and the folded stacks; the counts read with it (groups) to its
 * row's deltas. A sample whose mapping or kernel symbols are not known
 * yet waits for the end, with its repeats.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/report-internal.h"

/* The filters on the task (report.h): its process, thread and name. */
static bool task_passes(struct rep *r, const struct hpm_sample *s, uint32_t comm)
{
	const struct rep_filter *f = r->o.filter;
	if ((f->nr_pids && !rep_ids__has(f->pids, f->nr_pids, s->pid)) ||
	    (f->nr_tids && !rep_ids__has(f->tids, f->nr_tids, s->tid)) ||
	    (f->nr_ranks && !rep_filter__has_rank(f, rep_rank_of(r, s->pid))))
		return false;
	if (!f->comms.nr)
		return true;
	/* names come in runs: the verdict on the last one is kept */
	if (comm != r->filter_comm) {
		r->filter_comm = comm;
		r->filter_comm_ok = rep_list__has(&f->comms, rep_str(r, comm));
	}
	return r->filter_comm_ok;
}

/* The filters on the place: its object and function. */
static bool place_passes(const struct rep *r, const struct rep_dso *d, const struct rep_sym *sy)
{
	const struct rep_filter *f = r->o.filter;
	return (!f->dsos.nr || rep_list__has(&f->dsos, d->base) ||
		rep_list__has(&f->dsos, d->path)) &&
	       (!f->syms.nr || rep_list__names_sym(&f->syms, sy->name));
}


static struct rep_row *row_get(struct rep *r, const uint64_t *key)
{
	if (r->last_row && htab__key_eq(r->rows[r->last_row - 1].key, key, REP_KEY_WORDS))
		return &r->rows[r->last_row - 1];
	long i = htab__get(r->h_row, key);
	if (i >= 0) {
		r->last_row = (size_t)i + 1;
		return &r->rows[i];
	}
	/* past the memory cap: one row (made uncharged) for every key not met before */
	static const uint64_t capped[REP_KEY_WORDS] = { REP_KEY_CAPPED, REP_KEY_CAPPED,
		REP_KEY_CAPPED, REP_KEY_CAPPED, REP_KEY_CAPPED, REP_KEY_CAPPED, REP_KEY_CAPPED };
	/* rows by rank and host alone are the ranks' (rep_charge_ranks) */
	bool by_ranks = r->o.nr_keys > 0;
	for (size_t k = 0; k < r->o.nr_keys; k++)
		by_ranks &= r->o.keys[k] == SK_RANK || r->o.keys[k] == SK_HOST;
	uint64_t cost = rep_cost(sizeof(struct rep_row), REP_KEY_WORDS, 3 * r->nr_ev * 8, 3);
	if (!htab__key_eq(key, capped, REP_KEY_WORDS) &&
	    !(by_ranks ? rep_charge_ranks(r, cost) : rep_charge(r, cost)))
		return row_get(r, capped);
	if (!PUSH(r, rows, nr_rows, cap_rows) || htab__put(r->h_row, key, r->nr_rows))
		return NULL;
	struct rep_row *row = &r->rows[r->nr_rows];
	memcpy(row->key, key, sizeof(row->key));
	row->samples = calloc(r->nr_ev, sizeof(uint64_t));
	row->period = calloc(r->nr_ev, sizeof(double));
	row->delta = calloc(r->nr_ev, sizeof(double));
	if (!row->samples || !row->period || !row->delta) {
		free(row->samples);
		free(row->period);
		free(row->delta);
		return NULL;
	}
	r->last_row = ++r->nr_rows;
	return row;
}

/* The counts read from @s's group since the previous read of the same
 * counter, into @d: the counter of the sample's id where the file gives it
 * (perf record's are per CPU, and its samples may not carry the CPU), else
 * the (thread, CPU) event instance. Taken in the file's order, which is
 * the order of the reads, before a sample may wait (for its mapping or
 * kallsyms) and be accounted after later ones. The number of values, or 0
 * when the memory cap leaves this counter's reads out. */
static uint32_t take_deltas(struct rep *r, const struct hpm_sample *s, uint64_t *d)
{
	const struct hpm_profile_event *e = &r->meta.events[s->ev];
	uint64_t k[3] = { s->id ? s->id : (uint32_t)s->tid, s->id ? UINT64_MAX : s->cpu, s->ev };
	/* samples of one thread on one CPU come in runs: the last one first */
	long i = r->nr_prev && htab__key_eq(k, r->last_prev, 3) ? (long)r->last_prev_i
							   : htab__get(r->h_prev, k);
	uint32_t n = s->nr_values < e->group_size ? s->nr_values : e->group_size;

	if (i < 0) {
		if (!rep_charge(r, rep_cost(0, 3, 2 * 8 * r->nr_ev, 0))) {
			r->cap_records++; /* this thread's group counts are left out */
			return 0;
		}
		size_t need = (r->nr_prev + 1) * r->nr_ev;
		if (need > r->cap_prev) {
			size_t nc = r->cap_prev ? r->cap_prev * 2 : 64 * r->nr_ev;
			while (nc < need)
				nc *= 2;
			uint64_t *v = realloc(r->prev, nc * sizeof(*v));
			if (!v)
				return 0;
			r->prev = v;
			r->cap_prev = nc;
		}
		if (htab__put(r->h_prev, k, r->nr_prev))
			return 0;
		i = (long)r->nr_prev++;
		memset(&r->prev[(size_t)i * r->nr_ev], 0, r->nr_ev * sizeof(uint64_t));
	}
	memcpy(r->last_prev, k, sizeof(k));
	r->last_prev_i = (size_t)i;
	uint64_t *prev = &r->prev[(size_t)i * r->nr_ev];
	/* members follow their leader in list order */
	uint32_t m = 0;
	for (; m < n && s->ev + m < r->nr_ev; m++) {
		uint64_t v = s->values[m];
		d[m] = v >= prev[m] ? v - prev[m] : v;
		prev[m] = v;
	}
	return m;
}

/* The group counts take_deltas() gave @s (its values), added to the row. */
static void add_deltas(struct rep *r, const struct hpm_sample *s, struct rep_row *row)
{
	for (uint32_t m = 0; m < s->nr_values && s->ev + m < r->nr_ev; m++) {
		double d = (double)s->values[m];
		row->delta[s->ev + m] += d;
		r->xdelta[s->ev + m] = d;
		r->ev_read[s->ev + m] = true;
	}
}

/*
 * A sample copied aside until the whole file is read (its mapping may be
 * in a record of another CPU's buffer written after it), with the samples
 * that repeat it (hpm_profile__repeats: the same task, CPU, event,
 * period, address and call chain, nothing between them), which wait with
 * it: a crafted file may repeat a 4096-entry chain in 2 bytes a sample,
 * and each decoded, copied aside and compared made report -g cost 17 s of
 * CPU for 1M of them (1.2 KB of file), more than linearly. They are
 * placed at the first one's time: nothing between them can have mapped
 * their address, and a profile hpmon writes is in time order. A chain
 * equal to the previous waiting sample's is not copied again: it points
 * at that one's (@own false).
 */
struct deferred {
	struct hpm_sample s;
	uint64_t *chain, *vals;
	uint32_t comm;            /* its task's name at its time */
	bool own;                 /* chain is this entry's (else an earlier one's) */
	uint64_t n;               /* samples: this one and its repeats */
	uint64_t cost;            /* charged for it */
};

static void sample_as(struct rep *r, const struct hpm_sample *s, uint32_t comm,
		      bool may_defer, uint64_t n);

static uint64_t deferred_cost(const struct hpm_sample *s, bool chain)
{
	uint64_t nr_chain = chain ? s->nr_chain : 0; /* 0: shared, charged to its owner */
	return 2 * sizeof(struct deferred) + 8 * (nr_chain + s->nr_values) + (nr_chain ? 32 : 0) +
	       (s->nr_values ? 32 : 0);
}

static void flush_deferred(struct rep *r)
{
	for (size_t i = 0; i < r->nr_deferred; i++) {
		struct deferred *d = &r->deferred[i];
		rep_uncharge(r, d->cost); /* the tables may have it now */
		r->mem_deferred -= d->cost;
		sample_as(r, &d->s, d->comm, false, d->n);
	}
	/* after them all: a chain may be several entries' */
	for (size_t i = 0; i < r->nr_deferred; i++) {
		if (r->deferred[i].own)
			free(r->deferred[i].chain);
		free(r->deferred[i].vals);
	}
	r->nr_deferred = 0;
	r->last_deferred = false;
}

static bool defer(struct rep *r, const struct hpm_sample *s, uint32_t comm)
{
	/* the previous waiting sample's chain, when it is the same */
	const struct deferred *prev = r->nr_deferred ? &r->deferred[r->nr_deferred - 1] : NULL;
	uint64_t *prev_chain = prev ? prev->chain : NULL; /* (the array may move) */
	bool shared = prev && s->nr_chain && prev->s.nr_chain == s->nr_chain &&
		      !memcmp(prev_chain, s->chain, s->nr_chain * sizeof(uint64_t));
	uint64_t cost = deferred_cost(s, !shared);
	/* the samples waiting get half the cap: the tables keep the rest */
	if (r->mem_deferred + cost > rep_cap(r) / 2 || !rep_charge(r, cost)) {
		/* what waits is resolved now, with the mappings known so far,
		 * and the waiting starts over */
		for (size_t i = 0; i < r->nr_deferred; i++)
			r->cap_early += r->deferred[i].n;
		flush_deferred(r);
		shared = false; /* the chain it would share is gone */
		cost = deferred_cost(s, true);
		if (cost > rep_cap(r) / 2 || !rep_charge(r, cost))
			return false;
	}
	r->mem_deferred += cost;
	struct deferred *v = vec__grow(r->deferred, &r->cap_deferred, r->nr_deferred, sizeof(*v));
	if (!v) {
		rep_uncharge(r, cost);
		r->mem_deferred -= cost;
		return false;
	}
	r->deferred = v;
	struct deferred *d = &v[r->nr_deferred];
	d->s = *s;
	d->comm = comm;
	d->s.regs = NULL;
	d->s.nr_regs = 0;
	d->s.stack = NULL;
	d->s.stack_len = 0;
	d->n = 1;
	d->cost = cost;
	d->own = !shared;
	d->chain = shared ? prev_chain
			  : s->nr_chain ? malloc(s->nr_chain * sizeof(uint64_t)) : NULL;
	d->vals = s->nr_values ? malloc(s->nr_values * sizeof(uint64_t)) : NULL;
	if ((s->nr_chain && !d->chain) || (s->nr_values && !d->vals)) {
		if (d->own)
			free(d->chain);
		free(d->vals);
		rep_uncharge(r, cost);
		r->mem_deferred -= cost;
		return false;
	}
	if (s->nr_chain && d->own)
		memcpy(d->chain, s->chain, s->nr_chain * sizeof(uint64_t));
	if (s->nr_values)
		memcpy(d->vals, s->values, s->nr_values * sizeof(uint64_t));
	d->s.chain = d->chain;
	d->s.values = d->vals;
	r->nr_deferred++;
	r->last_deferred = true;
	return true;
}

/* Where the previous sample went: the next one at the same address of the
 * same thread, CPU and mode goes to the same place while no side-band
 * record has changed mappings or names, and its time is in the mapping's
 * (addrspace__find_map's own cache takes the same shortcut). */
struct rep_memo {
	uint32_t gen;                 /* r->sb_gen it holds for; 0: empty */
	pid_t pid, tid;
	uint32_t cpu, comm, loc;
	enum hpm_mode mode;
	uint64_t ip, t0, t1;
	size_t row;
	bool out;                     /* left out by the filters */
};

/* The sample as the sink sees it: its frames as locs, its group's deltas.
 * A run of samples with the same call chain of the same process, address
 * and mode, with no side-band record between, is resolved once (a
 * crafted file may repeat a 4096-entry chain in 2 bytes a sample). */
static void to_sink(struct rep *r, const struct hpm_sample *s, uint32_t comm, uint32_t li)
{
	struct rep_xsample x = { .s = s, .comm = comm, .delta = s->nr_values ? r->xdelta : NULL };
	struct rep_cg *c = &r->xlast;
	uint32_t leaf = li;
	uint64_t ip = s->ip;

	if (r->o.callgraph && c->nr_samples && c->gen == r->sb_gen && c->pid == s->pid &&
	    c->ip == s->ip && c->mode == s->mode && c->leaf == li && c->nr_chain == s->nr_chain &&
	    (!s->nr_chain || !memcmp(c->chain, s->chain, s->nr_chain * sizeof(uint64_t)))) {
		x.nr = c->n;
		x.same = true;
	} else if (r->o.callgraph) {
		c->nr_samples = 0;
		x.nr = chains__locs(r, s, li);
		if (x.nr && s->nr_chain > c->cap) {
			uint64_t *v = realloc(c->chain, s->nr_chain * sizeof(uint64_t));
			if (v) {
				c->chain = v;
				c->cap = s->nr_chain;
			}
		}
		if (x.nr && s->nr_chain <= c->cap) {
			if (s->nr_chain)
				memcpy(c->chain, s->chain, s->nr_chain * sizeof(uint64_t));
			*c = (struct rep_cg){ .chain = c->chain, .nr_chain = s->nr_chain, .cap = c->cap,
					      .gen = r->sb_gen, .leaf = li, .pid = s->pid, .ip = s->ip,
					      .mode = s->mode, .n = x.nr, .nr_samples = 1 };
		}
	}
	x.locs = r->xlocs;
	x.ips = r->xips;
	if (!x.nr) { /* no call graph, or no memory for it: the leaf alone */
		c->nr_samples = 0;
		x.nr = 1;
		x.locs = &leaf;
		x.ips = &ip;
	}
	r->o.sink->sample(r->o.sink->arg, r, &x);
}

/* The memo holds @s's place (or its being left out). */
static bool memo_holds(const struct rep *r, const struct hpm_sample *s)
{
	const struct rep_memo *mo = r->memo;
	return mo->gen == r->sb_gen && mo->ip == s->ip && mo->tid == s->tid && mo->pid == s->pid &&
	       mo->cpu == s->cpu && mo->mode == s->mode && s->time >= mo->t0 && s->time < mo->t1;
}

/* Remember where @s went (row index @row), or that the filters left it out
 * (@out): the filters' verdict holds as long as its place does. */
static void memo_set(struct rep *r, const struct hpm_sample *s, uint32_t comm, uint32_t li,
		     const struct rep_map *m, size_t row, bool out)
{
	if (rep_kernel_mode(s->mode) || m)
		*r->memo = (struct rep_memo){ r->sb_gen, s->pid, s->tid, s->cpu, comm, li, s->mode,
					      s->ip, m ? m->time : 0, m ? m->dead : UINT64_MAX,
					      row, out };
}

/* @n samples like @s at loc @li, in @row: the counts. */
static void count(struct rep *r, const struct hpm_sample *s, uint32_t li, struct rep_row *row,
		  uint64_t n)
{
	struct rep_loc *l = &r->locs[li];
	struct rep_dso *d = &r->dsos[l->dso];
	double w = n == 1 ? (double)s->period : (double)n * (double)s->period;

	row->samples[s->ev] += n;
	row->period[s->ev] += w;
	r->ev_samples[s->ev] += n;
	r->ev_period[s->ev] += w;
	l->count[s->ev] += n;
	/* (only the capped row has a comm id that large) */
	if (l->capped || row->key[SK_COMM] == REP_KEY_CAPPED)
		r->cap_samples += n;
	d->samples += n;
	if (!r->syms[l->sym].resolved)
		d->nosym += n;
}

/* @n samples like @s (more than one only for samples that waited with
 * their repeats, which carry no group counts and never go to a sink). */
static void account(struct rep *r, const struct hpm_sample *s, uint32_t comm, uint32_t li,
		    struct rep_row *row, uint64_t n)
{
	const struct rep_opts *o = &r->o;

	count(r, s, li, row, n);
	if (s->nr_values) {
		r->have_groups = true;
		if (o->sink)
			memset(r->xdelta, 0, r->nr_ev * sizeof(double));
		add_deltas(r, s, row);
	}
	if (s->nr_chain > 2 || (s->nr_chain && !s->stack_len))
		r->have_chains = true;
	if (o->callgraph && (s->ev == r->main_ev || o->all_stacks))
		chains__wait(r, s, comm, li, n);
	for (uint64_t k = 0; o->sink && k < n; k++)
		to_sink(r, s, comm, li);
}

void aggregate__sample(struct rep *r, const struct hpm_sample *s, bool may_defer)
{
	const struct rep_opts *o = &r->o;
	struct rep_memo *mo = r->memo;
	struct hpm_sample unwound;
	uint64_t chain[UNWIND_MAX];

	r->last_deferred = false;
	/* a stack copy (DWARF) is unwound now, while the process's mappings
	 * are those of the sample's time, and before a kernel sample waits
	 * for kallsyms (what waits keeps its chain, not its copy) */
	if (o->callgraph && s->stack_len && s->nr_regs && addrspace__unwind(r, s, &unwound, chain))
		s = &unwound;
	/* a group read becomes what it counted since the last read now, in
	 * the reads' order: what waits keeps its counts, not its reads */
	struct hpm_sample counted;
	if (s->nr_values) {
		r->have_groups = true;
		counted = *s;
		counted.values = r->taken;
		counted.nr_values = take_deltas(r, s, r->taken);
		s = &counted;
	}

	if (memo_holds(r, s)) {
		if (mo->out)
			r->filtered++;
		else
			account(r, s, mo->comm, mo->loc, &r->rows[mo->row], 1);
		return;
	}
	/* the name now: a sample kept aside keeps it, whatever renames follow */
	sample_as(r, s, addrspace__comm_of(r, s->tid, s->pid), may_defer, 1);
}

/* @n samples like @s, of the task named @comm. */
static void sample_as(struct rep *r, const struct hpm_sample *s, uint32_t comm, bool may_defer,
		      uint64_t n)
{
	const struct rep_opts *o = &r->o;
	const struct rep_map *m = NULL;

	/* kernel samples wait for kallsyms, which another thread reads (it
	 * takes the kernel tens of ms to list) while the file is decoded */
	if (rep_kernel_mode(s->mode)) {
		if (may_defer && !r->kallsyms_tried) {
			if (!r->ksym_thread_up && !r->ksym_thread_failed)
				r->ksym_thread_failed = !addrspace__kallsyms_start(r);
			if (r->ksym_thread_up && defer(r, s, comm))
				return;
		}
	} else {
		m = addrspace__find_map(r, s->pid, s->ip, s->time);
		if (!m && may_defer && defer(r, s, comm))
			return;
	}

	if (o->filter && !task_passes(r, s, comm)) {
		memo_set(r, s, comm, 0, m, 0, true);
		r->filtered += n;
		return;
	}
	uint32_t li = addrspace__resolve_in(r, s->pid, s->ip, s->mode, m);
	if (li == UINT32_MAX)
		return;
	struct rep_loc *l = &r->locs[li];
	if (o->filter && !place_passes(r, &r->dsos[l->dso], &r->syms[l->sym])) {
		memo_set(r, s, comm, li, m, 0, true);
		r->filtered += n;
		return;
	}
	struct rep_row *row;
	if (l->row) { /* rows by place: the loc knows its row */
		row = &r->rows[l->row - 1];
		memo_set(r, s, comm, li, m, l->row - 1, false);
		account(r, s, comm, li, row, n);
		return;
	}
	uint64_t key[REP_KEY_WORDS] = { 0 };
	bool by_place = true;
	for (size_t i = 0; i < o->nr_keys; i++) {
		uint64_t v = 0;
		switch (o->keys[i]) {
		case SK_COMM: v = comm; break;
		case SK_PID: v = (uint32_t)s->pid; break;
		case SK_TID: v = (uint32_t)s->tid; break;
		case SK_DSO: v = l->dso; break;
		case SK_SYM: v = l->sym; break;
		case SK_LINE: v = l->line; break;
		case SK_CPU: v = s->cpu; break;
		case SK_RANK: /* (report.h: REP_KEY_WORDS) */
			v = (uint64_t)(uint32_t)(rep_rank_of(r, s->pid) + 1) << 32;
			break;
		case SK_HOST: v = r->by_rank ? 0 : (uint64_t)ranks__host_of(r, s->pid) << 32; break;
		default: break;
		}
		key[rep_key_word(o->keys[i])] |= v;
		by_place &= o->keys[i] == SK_DSO || o->keys[i] == SK_SYM || o->keys[i] == SK_LINE;
	}
	row = row_get(r, key);
	if (!row)
		return;
	/* a row keyed by the place alone is the same for every sample there:
	 * the next ones skip the key and its look-up */
	if (by_place && (size_t)(row - r->rows) < (1u << 31) - 1)
		r->locs[li].row = ((uint32_t)(row - r->rows) + 1) & 0x7fffffffu;
	memo_set(r, s, comm, li, m, (size_t)(row - r->rows), false);
	account(r, s, comm, li, row, n);
}

uint64_t aggregate__repeat_until(const struct rep *r, const struct hpm_sample *s)
{
	const struct rep_memo *mo = r->memo;
	const struct rep_cg *c = chains__last(r);

	/* @s waits (struct deferred): its repeats wait with it, whatever
	 * their times */
	if (r->last_deferred)
		return s->nr_values ? 0 : UINT64_MAX;

	/* @s went where the memo says (it was not kept aside), or was left
	 * out, and each repeat would too until its mapping ends */
	if (!memo_holds(r, s))
		return 0;
	if (mo->out)
		return mo->t1;
	if (s->nr_values)
		return 0;
	/* -g: its stack waits (chains__wait), to be added to */
	if (r->o.callgraph && s->ev == r->main_ev &&
	    !(c && c->gen == r->sb_gen && c->pid == s->pid && c->ip == s->ip &&
	      c->mode == s->mode && c->nr_chain == s->nr_chain && c->comm == mo->comm))
		return 0;
	return mo->t1;
}

void aggregate__repeat(struct rep *r, const struct hpm_sample *s, uint32_t n)
{
	const struct rep_memo *mo = r->memo;

	if (r->last_deferred) {
		r->deferred[r->nr_deferred - 1].n += n;
		return;
	}
	if (mo->out) {
		r->filtered += n;
		return;
	}
	count(r, s, mo->loc, &r->rows[mo->row], n);
	struct rep_cg *c = chains__last(r);
	if (r->o.callgraph && s->ev == r->main_ev && c) {
		c->w += (double)n * (double)s->period;
		c->nr_samples += n;
	}
}

void aggregate__flush(struct rep *r)
{
	flush_deferred(r);
	chains__flush(r);
}

/* ---- the tables ---- */

int aggregate__init(struct rep *r)
{
	r->sb_gen = 1;
	r->filter_comm = UINT32_MAX;
	r->memo = calloc(1, sizeof(*r->memo)); /* gen 0: empty */
	r->h_row = htab__new(REP_KEY_WORDS);
	for (size_t i = 0; i < r->o.nr_keys; i++)
		r->by_rank |= r->o.keys[i] == SK_RANK;
	r->h_edge = htab__new(2);
	r->h_stack = htab__new(3);
	r->h_prev = htab__new(3);
	r->h_cg = htab__new(2);
	if (!r->memo || !r->h_row || !r->h_edge || !r->h_stack || !r->h_prev || !r->h_cg)
		return -ENOMEM;
	return 0;
}

void aggregate__free(struct rep *r)
{
	for (size_t i = 0; i < r->nr_rows; i++) {
		free(r->rows[i].samples);
		free(r->rows[i].period);
		free(r->rows[i].delta);
	}
	for (size_t i = 0; i < r->nr_stacks; i++)
		free(r->stacks[i].syms);
	for (size_t i = 0; i < r->nr_deferred; i++) {
		if (r->deferred[i].own)
			free(r->deferred[i].chain);
		free(r->deferred[i].vals);
	}
	free(r->deferred);
	chains__free(r);
	free(r->rows);
	free(r->edges);
	free(r->stacks);
	free(r->prev);
	free(r->stamp);
	free(r->frames);
	free(r->xlocs);
	free(r->xips);
	free(r->xlast.chain);
	free(r->memo);
	htab__free(r->h_row);
	htab__free(r->h_edge);
	htab__free(r->h_stack);
	htab__free(r->h_prev);
	htab__free(r->h_cg);
}
