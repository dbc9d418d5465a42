/* SPDX-License-Identifier: MIT */
/*
 * `hpmon report --pprof`: pprof's profile.proto, gzipped (docs/formats.md
 * lists the messages and field numbers used). Samples are summed by
 * stack and labels (pid, tid, cpu, comm, event); the values are the
 * number of samples, then one per event of the profile: the periods of
 * the samples it triggered, or the counts read from its group at the
 * samples of its leader. A location is an address of an object with its
 * line and the functions inlined there; a mapping is an object, laid out
 * as the first process that ran it mapped it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export/export-internal.h"
#include "export/pb.h"

/* profile.proto's field numbers (docs/formats.md) */
enum { P_SAMPLE_TYPE = 1, P_SAMPLE, P_MAPPING, P_LOCATION, P_FUNCTION, P_STRING_TABLE,
       P_TIME_NANOS = 9, P_DURATION_NANOS, P_PERIOD_TYPE, P_PERIOD, P_COMMENT,
       P_DEFAULT_SAMPLE_TYPE };
enum { VT_TYPE = 1, VT_UNIT };
enum { S_LOCATION_ID = 1, S_VALUE, S_LABEL };
enum { L_KEY = 1, L_STR, L_NUM, L_NUM_UNIT };
enum { M_ID = 1, M_START, M_LIMIT, M_OFFSET, M_FILENAME, M_BUILD_ID, M_HAS_FUNCTIONS,
       M_HAS_FILENAMES, M_HAS_LINE_NUMBERS, M_HAS_INLINE_FRAMES };
enum { LOC_ID = 1, LOC_MAPPING_ID, LOC_ADDRESS, LOC_LINE };
enum { LN_FUNCTION_ID = 1, LN_LINE };
enum { F_ID = 1, F_NAME, F_SYSTEM_NAME, F_FILENAME, F_START_LINE };

void pprof_sample(struct export *x, struct rep *r, const struct rep_xsample *xs, uint32_t node,
		  uint32_t thread)
{
	const struct hpm_sample *s = xs->s;
	size_t nv = r->nr_ev + 1;
	uint64_t k[1 + PPROF_LABELS] = { node, (uint32_t)s->pid, (uint32_t)thread, s->cpu, xs->comm,
					 s->ev };
	long i = htab__get(x->h_agg, k);

	if (i < 0) {
		/* past the memory cap, the sample counts for the "[memory cap]"
		 * thread, whose entries (a stack, CPU, comm and event each) the
		 * stacks' and names' bounds bound */
		uint64_t cost = 2 * (sizeof(k) + nv * 8) + 3 * (8 * sizeof(k) / 8 + 4);
		if (thread + 1 != x->capped_thread && !rep_reserve(r, cost)) {
			uint32_t t = x_capped_thread(x);
			if (t == UINT32_MAX) {
				x->dropped++;
				return;
			}
			k[1] = (uint32_t)-1;
			k[2] = t;
			i = htab__get(x->h_agg, k);
		}
	}
	if (i < 0) {
		/* avals grows with akeys, entry for entry */
		size_t cap = x->cap_agg;
		if (!x_grow((void **)&x->akeys, &cap, (x->nr_agg + 1) * (1 + PPROF_LABELS),
			    sizeof(uint64_t))) {
			x->dropped++;
			return;
		}
		if (cap != x->cap_agg) {
			int64_t *v = realloc(x->avals, cap / (1 + PPROF_LABELS) * nv * sizeof(int64_t));
			if (!v) {
				x->dropped++;
				return;
			}
			x->avals = v;
			x->cap_agg = cap;
		}
		if (htab__put(x->h_agg, k, x->nr_agg)) {
			x->dropped++;
			return;
		}
		memcpy(&x->akeys[x->nr_agg * (1 + PPROF_LABELS)], k, sizeof(k));
		memset(&x->avals[x->nr_agg * nv], 0, nv * sizeof(int64_t));
		i = (long)x->nr_agg++;
	}
	int64_t *v = &x->avals[(size_t)i * nv];
	v[0]++;
	v[1 + s->ev] += (int64_t)s->period;
	for (uint32_t e = 0; xs->delta && e < r->nr_ev; e++)
		if (e != s->ev)
			v[1 + e] += (int64_t)xs->delta[e];
	/* each object laid out as where it was first seen: runtime - offset */
	size_t cap = x->cap_bias;
	if (!x_grow((void **)&x->bias, &cap, r->nr_dsos, sizeof(*x->bias)))
		return;
	if (cap != x->cap_bias) {
		uint8_t *set = realloc(x->bias_set, cap);
		if (!set)
			return;
		memset(set + x->cap_bias, 0, cap - x->cap_bias);
		x->bias_set = set;
		x->cap_bias = cap;
	}
	for (size_t f = 0; f < xs->nr; f++) {
		const struct rep_loc *l = &r->locs[xs->locs[f]];
		if (!x->bias_set[l->dso]) {
			x->bias[l->dso] = xs->ips[f] - x_loc_off(r, l);
			x->bias_set[l->dso] = 1;
		}
	}
}

/* ---- the string table: each string once, "" first ---- */

struct strtab {
	char **v;                  /* copies */
	size_t n, cap;
	uint32_t *slot;            /* index + 1, open addressing */
	size_t nslot;
	int err;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static int64_t str_id(struct strtab *t, const char *s)
{
	if (!s)
		s = "";
	if (t->err)
		return 0;
	if (2 * (t->n + 1) > t->nslot) {
		size_t ns = t->nslot ? 2 * t->nslot : 1024;
		uint32_t *sl = calloc(ns, sizeof(*sl));
		if (!sl) {
			t->err = -ENOMEM;
			return 0;
		}
		for (size_t i = 0; i < t->n; i++) {
			size_t h = hash_str(t->v[i]) & (ns - 1);
			while (sl[h])
				h = (h + 1) & (ns - 1);
			sl[h] = (uint32_t)i + 1;
		}
		free(t->slot);
		t->slot = sl;
		t->nslot = ns;
	}
	size_t h = hash_str(s) & (t->nslot - 1);
	for (; t->slot[h]; h = (h + 1) & (t->nslot - 1))
		if (!strcmp(t->v[t->slot[h] - 1], s))
			return t->slot[h] - 1;
	char *c = strdup(s);
	if (!c || !x_grow((void **)&t->v, &t->cap, t->n + 1, sizeof(*t->v))) {
		free(c);
		t->err = -ENOMEM;
		return 0;
	}
	t->v[t->n] = c;
	t->slot[h] = (uint32_t)++t->n;
	return (int64_t)t->n - 1;
}

/* ---- what the writer keeps ---- */

struct pp {
	struct export *x;
	struct rep *r;
	struct pb pb;
	struct strtab st;
	uint32_t *loc_id;          /* [nr_locs]: pprof's id, 0 none yet */
	uint32_t *locs; size_t nr_locs, cap_locs;   /* in id order */
	uint64_t *offs; size_t cap_offs;            /* their x_loc_off */
	uint32_t *map_id;          /* [nr_dsos] */
	uint32_t *maps; size_t nr_maps, cap_maps;
	uint64_t *lo, *hi;         /* [nr_dsos]: offsets of the used locs */
	uint8_t *has;              /* [nr_dsos]: HAS_* bits below */
	struct htab *h_fn;         /* (name, system name, file) -> index */
	size_t nr_fns;
	int64_t (*fns)[4];         /* name, system name, file, start line */
	size_t cap_fns;
	char bid[2 * HPM_BUILD_ID_MAX + 1];
};

enum { HAS_FN = 1, HAS_FILE = 2, HAS_LINE = 4, HAS_INLINE = 8 };

static uint64_t fn_id(struct pp *p, const char *name, const char *sys, const char *file,
		      unsigned start)
{
	/* the system name only where it differs (a mangled C++ or Rust name) */
	int64_t k3[3] = { str_id(&p->st, name), sys && strcmp(sys, name) ? str_id(&p->st, sys) : 0,
			  str_id(&p->st, file) };
	uint64_t k[3] = { (uint64_t)k3[0], (uint64_t)k3[1], (uint64_t)k3[2] };
	long i = htab__get(p->h_fn, k);
	if (i >= 0)
		return (uint64_t)i + 1;
	if (!x_grow((void **)&p->fns, &p->cap_fns, p->nr_fns + 1, sizeof(*p->fns)) ||
	    htab__put(p->h_fn, k, p->nr_fns)) {
		p->st.err = -ENOMEM;
		return 0;
	}
	p->fns[p->nr_fns][0] = k3[0];
	p->fns[p->nr_fns][1] = k3[1];
	p->fns[p->nr_fns][2] = k3[2];
	p->fns[p->nr_fns][3] = start;
	return ++p->nr_fns;
}

static void line(struct pp *p, uint64_t fn, unsigned ln)
{
	pb_open(&p->pb, LOC_LINE);
	pb_uint(&p->pb, LN_FUNCTION_ID, fn);
	pb_int(&p->pb, LN_LINE, ln);
	pb_close(&p->pb);
}

/* A location's lines: the functions inlined at it, innermost first, then
 * the function they are in (the symbol), each at its line. */
static void loc_lines(struct pp *p, const struct rep_loc *l)
{
	struct rep *r = p->r;
	const struct rep_sym *sy = &r->syms[l->sym];
	struct rep_dso *d = &r->dsos[l->dso];
	struct hpm_symbol s = { 0 }, raw = { 0 };
	const char *ffile = NULL;
	unsigned fline = 0;

	if (!sy->resolved || l->capped || !rep_dso_open(r, d) ||
	    hpm_dso__lookup(d->d, l->addr,
			    HPM_SYM_LINES | HPM_SYM_INLINE | (r->o.no_demangle ? 0 : HPM_SYM_DEMANGLE),
			    &s) || !s.name) {
		line(p, fn_id(p, sy->name, NULL, NULL, 0), 0);
		return;
	}
	p->has[l->dso] |= HAS_FN | HAS_INLINE | (s.file ? HAS_FILE : 0) | (s.line ? HAS_LINE : 0);
	hpm_dso__lookup(d->d, l->addr, 0, &raw);
	const char *file = s.file;
	unsigned ln = s.line;
	for (unsigned i = 0; i < s.nr_inline && i < HPM_SYM_MAX_INLINE; i++) {
		line(p, fn_id(p, s.inl[i].name, NULL, file, 0), ln);
		file = s.inl[i].call_file;
		ln = s.inl[i].call_line;
	}
	x_sym_source(r, l->sym, &ffile, &fline);
	line(p, fn_id(p, s.name, raw.name, ffile ? ffile : file, fline), ln);
}

static const char *build_id_hex(struct pp *p, const struct rep_dso *d)
{
	uint8_t b[HPM_BUILD_ID_MAX];
	size_t n = d->build_id_len;
	if (n)
		memcpy(b, d->build_id, n);
	else if (d->d)
		n = hpm_dso__build_id(d->d, b, sizeof(b));
	if (n > HPM_BUILD_ID_MAX)
		n = HPM_BUILD_ID_MAX;
	for (size_t i = 0; i < n; i++)
		snprintf(p->bid + 2 * i, 3, "%02x", b[i]);
	p->bid[2 * n] = 0;
	return p->bid;
}

/* pprof's id of loc @l, given when first met; its object's too. */
static uint64_t loc_use(struct pp *p, uint32_t l)
{
	if (p->loc_id[l])
		return p->loc_id[l];
	if (!x_grow((void **)&p->locs, &p->cap_locs, p->nr_locs + 1, sizeof(*p->locs)) ||
	    !x_grow((void **)&p->offs, &p->cap_offs, p->nr_locs + 1, sizeof(*p->offs))) {
		p->st.err = -ENOMEM;
		return 0;
	}
	const struct rep_loc *lc = &p->r->locs[l];
	uint64_t off = x_loc_off(p->r, lc);
	p->locs[p->nr_locs] = l;
	p->offs[p->nr_locs] = off;
	p->loc_id[l] = (uint32_t)++p->nr_locs;
	uint32_t d = lc->dso;
	if (!p->map_id[d]) {
		if (!x_grow((void **)&p->maps, &p->cap_maps, p->nr_maps + 1, sizeof(*p->maps))) {
			p->st.err = -ENOMEM;
			return 0;
		}
		p->maps[p->nr_maps] = d;
		p->map_id[d] = (uint32_t)++p->nr_maps;
		p->lo[d] = off;
		p->hi[d] = off;
	}
	if (off < p->lo[d])
		p->lo[d] = off;
	if (off > p->hi[d])
		p->hi[d] = off;
	return p->loc_id[l];
}

static uint64_t bias_of(const struct pp *p, uint32_t d)
{
	return d < p->x->cap_bias && p->x->bias_set && p->x->bias_set[d] ? p->x->bias[d] : 0;
}

static void write_samples(struct pp *p)
{
	struct export *x = p->x;
	struct rep *r = p->r;
	size_t nv = r->nr_ev + 1;
	uint32_t *fr = malloc((x->nr_nodes + 1) * sizeof(*fr));
	uint64_t *ids = malloc((x->nr_nodes + 1) * sizeof(*ids));

	if (!fr || !ids) {
		p->st.err = -ENOMEM;
		goto out;
	}
	int64_t k_pid = str_id(&p->st, "pid"), k_tid = str_id(&p->st, "tid"),
		k_cpu = str_id(&p->st, "cpu"), k_comm = str_id(&p->st, "comm"),
		k_ev = str_id(&p->st, "event");
	for (size_t i = 0; i < x->nr_agg && !p->st.err && !p->pb.err; i++) {
		const uint64_t *k = &x->akeys[i * (1 + PPROF_LABELS)];
		size_t n = x_frames(x, (uint32_t)k[0], fr, x->nr_nodes + 1);
		for (size_t f = 0; f < n; f++) /* leaf first */
			ids[f] = loc_use(p, fr[n - 1 - f]);
		const struct xthread *t = &x->threads[k[2]];
		struct { int64_t key, str, num; } lab[] = {
			{ k_pid, 0, (int64_t)(pid_t)k[1] }, { k_tid, 0, t->tid },
			{ k_cpu, 0, (int64_t)k[3] },
			{ k_comm, str_id(&p->st, rep_str(r, k[4])), 0 },
			{ k_ev, str_id(&p->st, r->meta.events[k[5]].name), 0 },
		};
		pb_open(&p->pb, P_SAMPLE);
		pb_packed(&p->pb, S_LOCATION_ID, ids, n);
		pb_packed_int(&p->pb, S_VALUE, &x->avals[i * nv], nv);
		for (size_t j = 0; j < sizeof(lab) / sizeof(lab[0]); j++) {
			pb_open(&p->pb, S_LABEL);
			pb_int(&p->pb, L_KEY, lab[j].key);
			pb_int(&p->pb, L_STR, lab[j].str);
			pb_int(&p->pb, L_NUM, lab[j].num);
			pb_close(&p->pb);
		}
		pb_close(&p->pb);
	}
out:
	free(fr);
	free(ids);
}

static void write_locations(struct pp *p)
{
	for (size_t i = 0; i < p->nr_locs && !p->st.err; i++) {
		const struct rep_loc *l = &p->r->locs[p->locs[i]];
		pb_open(&p->pb, P_LOCATION);
		pb_uint(&p->pb, LOC_ID, i + 1);
		pb_uint(&p->pb, LOC_MAPPING_ID, p->map_id[l->dso]);
		pb_uint(&p->pb, LOC_ADDRESS, bias_of(p, l->dso) + p->offs[i]);
		loc_lines(p, l);
		pb_close(&p->pb);
	}
}

static void write_mappings(struct pp *p)
{
	for (size_t i = 0; i < p->nr_maps; i++) {
		uint32_t d = p->maps[i];
		const struct rep_dso *o = &p->r->dsos[d];
		uint64_t bias = bias_of(p, d);
		pb_open(&p->pb, P_MAPPING);
		pb_uint(&p->pb, M_ID, i + 1);
		pb_uint(&p->pb, M_START, bias + p->lo[d]);
		uint64_t last = bias + p->hi[d];
		pb_uint(&p->pb, M_LIMIT, last == UINT64_MAX ? last : last + 1);
		/* addresses minus start plus this are the objects' file offsets */
		pb_uint(&p->pb, M_OFFSET, o->kind == DK_FILE || o->kind == DK_VDSO ? p->lo[d] : 0);
		pb_int(&p->pb, M_FILENAME, str_id(&p->st, o->path));
		pb_int(&p->pb, M_BUILD_ID, str_id(&p->st, build_id_hex(p, o)));
		/* kallsyms and JIT maps name functions too */
		pb_uint(&p->pb, M_HAS_FUNCTIONS, (p->has[d] & HAS_FN) || o->kind == DK_KERNEL ||
						 (o->kind == DK_ANON && o->jit));
		pb_uint(&p->pb, M_HAS_FILENAMES, !!(p->has[d] & HAS_FILE));
		pb_uint(&p->pb, M_HAS_LINE_NUMBERS, !!(p->has[d] & HAS_LINE));
		pb_uint(&p->pb, M_HAS_INLINE_FRAMES, !!(p->has[d] & HAS_INLINE));
		pb_close(&p->pb);
	}
}

static void write_functions(struct pp *p)
{
	for (size_t i = 0; i < p->nr_fns; i++) {
		pb_open(&p->pb, P_FUNCTION);
		pb_uint(&p->pb, F_ID, i + 1);
		pb_int(&p->pb, F_NAME, p->fns[i][0]);
		pb_int(&p->pb, F_SYSTEM_NAME, p->fns[i][1]);
		pb_int(&p->pb, F_FILENAME, p->fns[i][2]);
		pb_int(&p->pb, F_START_LINE, p->fns[i][3]);
		pb_close(&p->pb);
	}
}

static void value_type(struct pp *p, unsigned field, const char *type, const char *unit)
{
	pb_open(&p->pb, field);
	pb_int(&p->pb, VT_TYPE, str_id(&p->st, type));
	pb_int(&p->pb, VT_UNIT, str_id(&p->st, unit));
	pb_close(&p->pb);
}

static void write_profile(struct pp *p)
{
	struct rep *r = p->r;
	const struct hpm_profile_event *main_ev = &r->meta.events[r->main_ev];

	str_id(&p->st, ""); /* string 0 */
	value_type(p, P_SAMPLE_TYPE, "samples", "count");
	for (uint32_t e = 0; e < r->nr_ev; e++)
		value_type(p, P_SAMPLE_TYPE, r->meta.events[e].name, x_unit(r, e));
	write_samples(p);
	/* locations before mappings: they find the objects' extents */
	write_locations(p);
	write_mappings(p);
	write_functions(p);
	pb_int(&p->pb, P_TIME_NANOS, (int64_t)r->meta.start_unix_ns);
	if (r->st.complete)
		pb_int(&p->pb, P_DURATION_NANOS, (int64_t)r->st.totals.duration_ns);
	if (r->nr_ev) {
		value_type(p, P_PERIOD_TYPE, main_ev->name, x_unit(r, r->main_ev));
		if (!main_ev->freq)
			pb_int(&p->pb, P_PERIOD, (int64_t)main_ev->period);
		pb_int(&p->pb, P_DEFAULT_SAMPLE_TYPE, str_id(&p->st, main_ev->name));
	}
	if (r->meta.command) {
		int64_t c = str_id(&p->st, r->meta.command);
		pb_packed_int(&p->pb, P_COMMENT, &c, 1);
	}
	for (size_t i = 0; i < p->st.n && !p->st.err; i++)
		pb_bytes(&p->pb, P_STRING_TABLE, p->st.v[i], strlen(p->st.v[i]));
}

int pprof_write(struct export *x, struct rep *r, FILE *f)
{
	struct pp p = { .x = x, .r = r };
	int rc;
	size_t nd = r->nr_dsos ? r->nr_dsos : 1;

	p.loc_id = calloc(r->nr_locs + 1, sizeof(*p.loc_id));
	p.map_id = calloc(nd, sizeof(*p.map_id));
	p.lo = calloc(nd, sizeof(*p.lo));
	p.hi = calloc(nd, sizeof(*p.hi));
	p.has = calloc(nd, 1);
	p.h_fn = htab__new(3);
	rc = pb_start(&p.pb, f);
	if (!rc && (!p.loc_id || !p.map_id || !p.lo || !p.hi || !p.has || !p.h_fn))
		rc = -ENOMEM;
	if (!rc) {
		write_profile(&p);
		rc = p.st.err ? p.st.err : pb_finish(&p.pb);
	}
	if (rc == -ENOMEM)
		fprintf(stderr, "hpmon report: out of memory writing the pprof profile\n");
	pb_free(&p.pb);
	free(p.loc_id);
	free(p.map_id);
	free(p.lo);
	free(p.hi);
	free(p.has);
	free(p.locs);
	free(p.offs);
	free(p.maps);
	free(p.fns);
	for (size_t i = 0; i < p.st.n; i++)
		free(p.st.v[i]);
	free(p.st.v);
	free(p.st.slot);
	htab__free(p.h_fn);
	return rc;
}
