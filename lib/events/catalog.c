/* SPDX-License-Identifier: MIT */
/*
 * The catalogue of events this machine offers, for `hpmon list`: generic
 * hardware, software and cache events (data/generic-events.txt), the
 * aliases of every sysfs PMU, the events of the vendor's tables for this
 * model (events/vendor.c), the breakpoint syntax, tracepoints from
 * tracefs and libpfm4's native events of the PMUs it detects.
 *
 * Every name handed out is a specification hpm_evlist__parse accepts
 * (except the breakpoint entry, whose address is the caller's to choose).
 * Strings of an entry live only for the duration of the callback.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perfmon/pfmlib.h>
#include <hpmon/event.h>
#include "core/ctx-internal.h"
#include "events/evlist-internal.h"
#include "events/generic-internal.h"
#include "events/pfm-internal.h"
#include "events/pmu-internal.h"
#include "events/vendor-internal.h"

#define NAME_MAX_LEN 256

/* ---- generic: hardware, software, cache ---- */

#define MAX_CACHE_WORDS 16

struct cache_word {
	unsigned config;
	char name[32];   /* canonical: "L1-dcache", "load" */
	char plural[32]; /* ops only: "loads" */
	char desc[96];
};

struct generic_walk {
	enum hpm_generic_kind want; /* HW or SW: emit those entries */
	hpm_catalog_fn fn;
	void *arg;
	/* for cache: what the data file defines */
	struct cache_word units[MAX_CACHE_WORDS], ops[MAX_CACHE_WORDS];
	size_t nr_units, nr_ops;
	bool collect;
};

/*
 * Which operations perf offers for each cache unit (PERF_COUNT_HW_CACHE_*
 * order: L1D, L1I, LL, DTLB, ITLB, BPU, NODE), a bit per op (read, write,
 * prefetch). The kernel accepts the others but no CPU counts them.
 */
#define R (1u << PERF_COUNT_HW_CACHE_OP_READ)
#define W (1u << PERF_COUNT_HW_CACHE_OP_WRITE)
#define P (1u << PERF_COUNT_HW_CACHE_OP_PREFETCH)
static const unsigned cache_ops[] = { R | W | P, R | P, R | W | P, R | W | P, R, R, R | W | P };
#undef R
#undef W
#undef P

/* The @i-th '|'-separated name of @e, or false. */
static bool nth_name(const struct hpm_generic_entry *e, unsigned i, char *buf,
		     size_t len)
{
	const char *p = e->names, *end = e->names + e->names_len;

	while (i--) {
		p = memchr(p, '|', (size_t)(end - p));
		if (!p)
			return false;
		p++;
	}
	const char *bar = memchr(p, '|', (size_t)(end - p));
	size_t n = (size_t)((bar ? bar : end) - p);
	if (n == 0 || n >= len)
		return false;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return true;
}

static void add_word(struct cache_word *w, size_t *nr,
		     const struct hpm_generic_entry *e)
{
	if (*nr == MAX_CACHE_WORDS)
		return;
	struct cache_word *c = &w[(*nr)++];
	c->config = (unsigned)e->config;
	hpm_generic__canonical(e, c->name, sizeof(c->name));
	/* perf's plural is the second name ("load|loads"), else NAMEs */
	if (!nth_name(e, 1, c->plural, sizeof(c->plural)))
		snprintf(c->plural, sizeof(c->plural), "%.30ss", c->name);
	snprintf(c->desc, sizeof(c->desc), "%s", e->desc);
}

static int generic_cb(const struct hpm_generic_entry *e, void *arg)
{
	struct generic_walk *w = arg;
	char name[64], alias[64], aliases[128], desc[256];

	if (w->collect) {
		if (e->kind == HPM_GEN_UNIT)
			add_word(w->units, &w->nr_units, e);
		else if (e->kind == HPM_GEN_OP)
			add_word(w->ops, &w->nr_ops, e);
		return 0;
	}
	if (e->kind != w->want)
		return 0;
	hpm_generic__canonical(e, name, sizeof(name));
	/* Other names of the event go into the description: "(also cycles)" */
	size_t n = 0;
	aliases[0] = '\0';
	for (unsigned i = 1; n < sizeof(aliases) && nth_name(e, i, alias, sizeof(alias)); i++)
		n += (size_t)snprintf(aliases + n, sizeof(aliases) - n, "%s%s",
				      i == 1 ? "" : ", ", alias);
	if (aliases[0])
		snprintf(desc, sizeof(desc), "%s (also %s)", e->desc, aliases);
	else
		snprintf(desc, sizeof(desc), "%s", e->desc);
	struct hpm_catalog_entry ce = {
		.name = name,
		.kind = e->kind == HPM_GEN_HW ? "hardware" : "software",
		.pmu = e->kind == HPM_GEN_HW ? "" : "software",
		.desc = desc,
	};
	return w->fn(&ce, w->arg);
}

static int foreach_cache(struct generic_walk *w)
{
	char name[NAME_MAX_LEN], desc[256];
	int rc;

	w->collect = true;
	rc = hpm_generic__foreach(generic_cb, w);
	w->collect = false;
	if (rc)
		return rc;
	for (size_t u = 0; u < w->nr_units; u++) {
		const struct cache_word *unit = &w->units[u];
		if (unit->config >= sizeof(cache_ops) / sizeof(cache_ops[0]))
			continue;
		for (size_t o = 0; o < w->nr_ops; o++) {
			const struct cache_word *op = &w->ops[o];
			if (op->config >= 8 || !(cache_ops[unit->config] & (1u << op->config)))
				continue;
			struct hpm_catalog_entry ce = {
				.name = name, .kind = "cache", .pmu = "", .desc = desc,
			};
			snprintf(name, sizeof(name), "%s-%s", unit->name, op->plural);
			snprintf(desc, sizeof(desc), "%s: %s", unit->desc, op->desc);
			if ((rc = w->fn(&ce, w->arg)))
				return rc;
			snprintf(name, sizeof(name), "%s-%s-misses", unit->name, op->name);
			snprintf(desc, sizeof(desc), "%s: %s that missed", unit->desc, op->desc);
			if ((rc = w->fn(&ce, w->arg)))
				return rc;
		}
	}
	return 0;
}

/* ---- PMU aliases ---- */

struct fn_arg {
	hpm_catalog_fn fn;
	void *arg;
	const struct hpm_ctx *ctx;
};

static int alias_cb(const char *pmu, const char *alias, const char *terms,
		    void *arg)
{
	struct fn_arg *fa = arg;
	char name[NAME_MAX_LEN];

	if (snprintf(name, sizeof(name), "%s/%s/", pmu, alias) >= (int)sizeof(name))
		return 0;
	struct hpm_catalog_entry ce = {
		.name = name, .kind = "pmu", .pmu = pmu, .desc = terms,
	};
	return fa->fn(&ce, fa->arg);
}

static int pmu_cb(const char *pmu, void *arg)
{
	struct fn_arg *fa = arg;
	int rc = hpm_pmu__foreach_alias(fa->ctx, pmu, alias_cb, fa);
	return rc < 0 ? 0 : rc; /* an unreadable events/ hides that PMU only */
}

/* ---- the vendor's tables for this model ---- */

struct pmu_seen {
	const struct hpm_ctx *ctx;
	const char *table_pmu;
	bool found;
};

static int pmu_seen_cb(const char *name, void *arg)
{
	struct pmu_seen *ps = arg;

	if (hpm__vendor_pmu_match(ps->table_pmu, name, hpm_pmu__is_core(ps->ctx, name))) {
		ps->found = true;
		return 1;
	}
	return 0;
}

#define MAX_TABLE_PMUS 64

/* Whether this machine has a PMU that table PMU @pmu names, remembered
 * in @names/@have (a model's table names a few dozen). */
static bool machine_has(const struct hpm_ctx *ctx, const char *pmu, const char **names,
			bool *have, size_t *nr)
{
	struct pmu_seen ps = { .ctx = ctx, .table_pmu = pmu };

	for (size_t i = 0; i < *nr; i++)
		if (!strcmp(names[i], pmu))
			return have[i];
	hpm_pmu__foreach(ctx, pmu_seen_cb, &ps);
	if (*nr < MAX_TABLE_PMUS) {
		names[*nr] = pmu;
		have[(*nr)++] = ps.found;
	}
	return ps.found;
}

/* Each event of the model's table whose PMU this machine has, as perf
 * makes them the aliases of the PMUs there are, but the deprecated (perf
 * lists those only when asked): bare, as it resolves; a hybrid model's
 * as PMU/NAME/, one entry per core PMU. */
static int foreach_vendor(struct hpm_ctx *ctx, hpm_catalog_fn fn, void *arg)
{
	const struct hpm_vendor_event *v;
	const char *names[MAX_TABLE_PMUS];
	bool have[MAX_TABLE_PMUS];
	size_t nr, nr_pmus = 0;
	char name[NAME_MAX_LEN];
	int rc = 0;

	if (hpm__vendor_events(ctx, &v, &nr))
		return 0;
	for (size_t i = 0; i < nr && !rc; i++) {
		const char *n = v[i].name;
		if (v[i].deprecated || !machine_has(ctx, v[i].pmu, names, have, &nr_pmus))
			continue;
		if (!strcmp(v[i].pmu, "cpu_core") || !strcmp(v[i].pmu, "cpu_atom")) {
			if (snprintf(name, sizeof(name), "%s/%s/", v[i].pmu, n) >= (int)sizeof(name))
				continue;
			n = name;
		}
		struct hpm_catalog_entry ce = {
			.name = n, .kind = "vendor", .pmu = v[i].pmu, .desc = v[i].desc,
		};
		rc = fn(&ce, arg);
	}
	return rc;
}

static int foreach_breakpoint(const struct hpm_ctx *ctx, hpm_catalog_fn fn,
			      void *arg)
{
	struct hpm_pmu pmu;

	if (hpm_pmu__load(ctx, "breakpoint", &pmu))
		return 0;
	struct hpm_catalog_entry ce = {
		.name = "mem:ADDR[/LEN][:r|w|x|rw]",
		.kind = "breakpoint",
		.pmu = "breakpoint",
		.desc = "Accesses to a data or code address (debug registers)",
	};
	return fn(&ce, arg);
}

/* ---- tracepoints ---- */

static int foreach_tracepoint(const struct hpm_ctx *ctx, hpm_catalog_fn fn,
			      void *arg)
{
	const char *root = hpm_ctx__tracefs_root(ctx);
	char dir[PATH_MAX], name[NAME_MAX_LEN];
	char **sys, **evs;
	size_t nsys, nev;
	int rc;

	if (!root || hpm__path(dir, sizeof(dir), root, "events"))
		return 0;
	rc = hpm__list_dir(dir, true, &sys, &nsys);
	if (rc)
		return rc == -ENOMEM ? rc : 0; /* unreadable: nothing to offer */
	for (size_t s = 0; s < nsys && rc == 0; s++) {
		if (hpm__path(dir, sizeof(dir), root, "events/%s", sys[s]))
			continue;
		if (hpm__list_dir(dir, true, &evs, &nev))
			continue;
		for (size_t e = 0; e < nev && rc == 0; e++) {
			/* Without an id (ftrace's internal records such as
			 * ftrace:bprint) perf cannot open it. */
			if (hpm__path(dir, sizeof(dir), root, "events/%s/%s/id",
				      sys[s], evs[e]) || access(dir, F_OK))
				continue;
			if (snprintf(name, sizeof(name), "%s:%s", sys[s], evs[e]) >=
			    (int)sizeof(name))
				continue;
			struct hpm_catalog_entry ce = {
				.name = name, .kind = "tracepoint",
				.pmu = "tracepoint", .desc = "",
			};
			rc = fn(&ce, arg);
		}
		hpm__free_names(evs, nev);
	}
	hpm__free_names(sys, nsys);
	return rc;
}

/* ---- libpfm4 natives ---- */

/* libpfm4 descriptions may run over several lines: keep the first. */
static const char *first_line(const char *s, char *buf, size_t len)
{
	if (!s)
		return "";
	const char *nl = strchr(s, '\n');
	if (!nl)
		return s;
	snprintf(buf, len, "%.*s", (int)(nl - s), s);
	return buf;
}

static int native_event(const pfm_pmu_info_t *pi, int idx, hpm_catalog_fn fn,
			void *arg)
{
	pfm_event_info_t ei;
	char name[NAME_MAX_LEN], prefix[72], desc[256];
	int nr_umasks = 0, rc;
	bool has_default = false;

	memset(&ei, 0, sizeof(ei));
	ei.size = sizeof(ei);
	if (pfm_get_event_info(idx, PFM_OS_NONE, &ei) != PFM_SUCCESS)
		return 0;
	/* The default PMU's events resolve without the "pmu::" prefix. */
	if (pi->is_dfl)
		prefix[0] = '\0';
	else
		snprintf(prefix, sizeof(prefix), "%s::", pi->name);

	for (int a = 0; a < ei.nattrs; a++) {
		pfm_event_attr_info_t ai;
		memset(&ai, 0, sizeof(ai));
		ai.size = sizeof(ai);
		if (pfm_get_event_attr_info(idx, a, PFM_OS_NONE, &ai) == PFM_SUCCESS &&
		    ai.type == PFM_ATTR_UMASK) {
			nr_umasks++;
			has_default |= ai.is_dfl;
		}
	}
	struct hpm_catalog_entry ce = {
		.name = name, .kind = "native", .pmu = pi->name,
	};
	/* An event with umasks but no default one needs a umask to encode. */
	if (!nr_umasks || has_default) {
		snprintf(name, sizeof(name), "%s%s", prefix, ei.name);
		ce.desc = first_line(ei.desc, desc, sizeof(desc));
		if ((rc = fn(&ce, arg)))
			return rc;
	}
	for (int a = 0; a < ei.nattrs && nr_umasks; a++) {
		pfm_event_attr_info_t ai;
		memset(&ai, 0, sizeof(ai));
		ai.size = sizeof(ai);
		if (pfm_get_event_attr_info(idx, a, PFM_OS_NONE, &ai) != PFM_SUCCESS ||
		    ai.type != PFM_ATTR_UMASK)
			continue;
		if (snprintf(name, sizeof(name), "%s%s:%s", prefix, ei.name, ai.name) >=
		    (int)sizeof(name))
			continue;
		ce.desc = first_line(ai.desc, desc, sizeof(desc));
		if ((rc = fn(&ce, arg)))
			return rc;
	}
	return 0;
}

static int foreach_native(hpm_catalog_fn fn, void *arg)
{
	pfm_pmu_info_t pi;
	int rc;

	if (hpm_pfm__init())
		return 0; /* libpfm4 could not start: no natives to offer */
	for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; p++) {
		memset(&pi, 0, sizeof(pi));
		pi.size = sizeof(pi);
		if (pfm_get_pmu_info((pfm_pmu_t)p, &pi) != PFM_SUCCESS || !pi.is_present)
			continue;
		/* "perf" and "perf_raw" repeat the generic events */
		if (pi.type == PFM_PMU_TYPE_OS_GENERIC)
			continue;
		for (int idx = pi.first_event; idx != -1; idx = pfm_get_event_next(idx))
			if ((rc = native_event(&pi, idx, fn, arg)))
				return rc;
	}
	return 0;
}

int hpm_catalog__foreach(struct hpm_ctx *ctx, unsigned flags,
			 hpm_catalog_fn fn, void *arg)
{
	struct generic_walk *w = calloc(1, sizeof(*w));
	struct fn_arg fa = { .fn = fn, .arg = arg, .ctx = ctx };
	int rc;

	if (!w)
		return -ENOMEM;
	w->fn = fn;
	w->arg = arg;
	w->want = HPM_GEN_HW;
	rc = hpm_generic__foreach(generic_cb, w);
	if (!rc) {
		w->want = HPM_GEN_SW;
		rc = hpm_generic__foreach(generic_cb, w);
	}
	if (!rc)
		rc = foreach_cache(w);
	free(w);
	if (!rc)
		rc = hpm_pmu__foreach(ctx, pmu_cb, &fa);
	if (!rc)
		rc = foreach_vendor(ctx, fn, arg);
	if (!rc)
		rc = foreach_breakpoint(ctx, fn, arg);
	if (!rc && (flags & HPM_CATALOG_TRACEPOINTS))
		rc = foreach_tracepoint(ctx, fn, arg);
	if (!rc && (flags & HPM_CATALOG_NATIVE))
		rc = foreach_native(fn, arg);
	return rc;
}
