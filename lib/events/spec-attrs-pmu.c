/* SPDX-License-Identifier: MIT */
/*
 * The PMU/terms/ form (spec-attrs-internal.h): the terms, cut by the terms
 * stage, applied to the event's attr as the PMU's format fields, sysfs
 * aliases (also written bare, without their PMU) and generic names as
 * terms of a core PMU; the record terms; the closest names when one is
 * unknown.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/suggest-internal.h"
#include "events/generic-internal.h"
#include "events/spec-attrs-internal.h"
#include "events/vendor-internal.h"
#include "events/spec-terms-internal.h"
#include "events/spec-tokens-internal.h"

static void pending_add(struct hpm_resolver *p, const char *key)
{
	if (p->nr_pending < 4)
		snprintf(p->pending[p->nr_pending++], sizeof(p->pending[0]), "%s", key);
}

static void pending_done(struct hpm_resolver *p, const char *key)
{
	for (unsigned i = 0; i < p->nr_pending; i++)
		if (!strcmp(p->pending[i], key)) {
			memmove(p->pending[i], p->pending[i + 1],
				(p->nr_pending - i - 1) * sizeof(p->pending[0]));
			p->nr_pending--;
			return;
		}
}

/* ---- suggestions ---- */

static int suggest_generic_cb(const struct hpm_generic_entry *e, void *arg)
{
	char name[64];
	const char *p = e->names, *end = e->names + e->names_len;
	if (e->kind != HPM_GEN_HW && e->kind != HPM_GEN_SW)
		return 0;
	/* every spelling: "cyclez" is closest to the alias "cycles" */
	while (p < end) {
		const char *bar = memchr(p, '|', (size_t)(end - p));
		size_t n = (size_t)((bar ? bar : end) - p);
		if (n < sizeof(name)) {
			memcpy(name, p, n);
			name[n] = '\0';
			hpm_suggest__offer(arg, name);
		}
		p += n + 1;
	}
	return 0;
}

static int suggest_alias_cb(const char *pmu, const char *alias, const char *terms,
			    void *arg)
{
	(void)pmu;
	(void)terms;
	hpm_suggest__offer(arg, alias);
	return 0;
}

static int suggest_pmu_cb(const char *name, void *arg)
{
	hpm_suggest__offer(arg, name);
	return 0;
}

/* A picker for a mistyped event, PMU or term: a longer word may be
 * further off. */
static void suggest_init(struct hpm_suggest *s, const char *word)
{
	size_t n = strlen(word);
	hpm_suggest__init(s, word, n <= 4 ? 2 : (unsigned)(n / 3 + 1), HPM_SUGGEST_OVERLAP);
}

void hpm_resolver__suggest(struct hpm_resolver *p, const char *word, bool pmus)
{
	struct hpm_suggest s;
	char core[HPM_PMU_NAME_MAX];

	suggest_init(&s, word);
	if (pmus) {
		hpm_pmu__foreach(p->list->ctx, suggest_pmu_cb, &s);
	} else {
		hpm_generic__foreach(suggest_generic_cb, &s);
		if (hpm_pmu__core_name(p->list->ctx, core, sizeof(core)) == 0)
			hpm_pmu__foreach_alias(p->list->ctx, core, suggest_alias_cb, &s);
		hpm_pmu__foreach_alias(p->list->ctx, "msr", suggest_alias_cb, &s);
	}
	hpm_suggest__format(&s, p->err->suggest, sizeof(p->err->suggest));
}

static void suggest_alias(struct hpm_resolver *p, const struct hpm_pmu *pmu, const char *word,
			  size_t len)
{
	struct hpm_suggest s;
	char w[64];

	snprintf(w, sizeof(w), "%.*s", (int)len, word);
	suggest_init(&s, w);
	hpm_pmu__foreach_alias(p->list->ctx, pmu->name, suggest_alias_cb, &s);
	hpm_suggest__format(&s, p->err->suggest, sizeof(p->err->suggest));
}

/* ---- terms ---- */

/*
 * Apply comma-separated terms "a=1,b,name=x" to @ev of @pmu. @from_alias:
 * the terms come from a sysfs alias file ('?' values are not allowed).
 */
static int apply_terms(struct hpm_resolver *p, struct hpm_event *ev,
		       const struct hpm_pmu *pmu, const char *terms,
		       size_t len, size_t pos, bool from_alias);

/*
 * @alias is no sysfs alias of @pmu: an event of the vendor's table for
 * this model that counts on it (INST_RETIRED.ANY on cpu, UNC_M_CAS_COUNT.RD
 * on uncore_imc_0), as perf 6.1 adds the table's events to the PMU's
 * aliases, after sysfs's (docs/vendor-tables.md). -ENOENT when none.
 */
static int vendor_alias(struct hpm_resolver *p, struct hpm_event *ev,
			const struct hpm_pmu *pmu, const char *alias, size_t pos)
{
	const struct hpm_vendor_event *v;
	int rc;

	if (pmu->no_sysfs ||
	    !(v = hpm__vendor_event_on(p->list->ctx, alias, pmu->name, pmu->core)))
		return -ENOENT;
	if (v->scale_unit)
		ev->scale = hpm__vendor_scale_unit(v->scale_unit, ev->unit, sizeof(ev->unit));
	rc = apply_terms(p, ev, pmu, v->terms, strlen(v->terms), pos, true);
	if (rc && p->err->err) {
		snprintf(p->err->msg, sizeof(p->err->msg),
			 "the vendor's event %s has terms '%s' that PMU %s cannot take "
			 "(its format has no such field)", v->name, v->terms, pmu->name);
		p->err->err = -HPM_ERR_SYSFS;
		return -HPM_ERR_SYSFS;
	}
	return rc;
}

static int apply_alias(struct hpm_resolver *p, struct hpm_event *ev,
		       const struct hpm_pmu *pmu, const char *name,
		       size_t len, size_t pos)
{
	char alias[128];
	struct hpm_alias a;
	int rc;

	if (len >= sizeof(alias))
		return -ENOENT;
	memcpy(alias, name, len);
	alias[len] = '\0';
	rc = hpm_pmu__alias(p->list->ctx, pmu, alias, &a);
	if (rc == -ENOENT)
		return vendor_alias(p, ev, pmu, alias, pos);
	if (rc)
		return rc;
	ev->scale = a.scale;
	snprintf(ev->unit, sizeof(ev->unit), "%s", a.unit);
	rc = apply_terms(p, ev, pmu, a.terms, strlen(a.terms), pos, true);
	if (rc && p->err->err) {
		/* the alias itself is bad: say which file */
		snprintf(p->err->msg, sizeof(p->err->msg),
			 "sysfs alias %s/%s has terms '%s' that cannot be applied",
			 pmu->name, alias, a.terms);
		p->err->err = -HPM_ERR_SYSFS;
		return -HPM_ERR_SYSFS;
	}
	return rc;
}

struct canon_find {
	uint64_t config;
	char name[64];
};

static int canon_hw_cb(const struct hpm_generic_entry *e, void *arg)
{
	struct canon_find *f = arg;
	if (e->kind != HPM_GEN_HW || e->config != f->config)
		return 0;
	hpm_generic__canonical(e, f->name, sizeof(f->name));
	return 1;
}

/*
 * Arm PMUv3 names the generic hardware events by its architected events:
 * the kernel's own mapping (armv8_pmuv3_perf_map), by sysfs alias name,
 * indexed by PERF_COUNT_HW_*.
 */
static const char *const armv8_generic[] = {
	[PERF_COUNT_HW_CPU_CYCLES] = "cpu_cycles",
	[PERF_COUNT_HW_INSTRUCTIONS] = "inst_retired",
	[PERF_COUNT_HW_CACHE_REFERENCES] = "l1d_cache",
	[PERF_COUNT_HW_CACHE_MISSES] = "l1d_cache_refill",
	[PERF_COUNT_HW_BRANCH_INSTRUCTIONS] = "br_retired",
	[PERF_COUNT_HW_BRANCH_MISSES] = "br_mis_pred",
	[PERF_COUNT_HW_BUS_CYCLES] = "bus_cycles",
	[PERF_COUNT_HW_STALLED_CYCLES_FRONTEND] = "stall_frontend",
	[PERF_COUNT_HW_STALLED_CYCLES_BACKEND] = "stall_backend",
};

/*
 * A generic hardware name as a term of a core PMU, as perf accepts it:
 * cpu/cycles/, armv8_pmuv3_0/instructions/. The PMU's sysfs alias under
 * the canonical name (cycles -> cpu-cycles) or, on Arm, under the
 * architected event's name (instructions -> inst_retired) when it has one;
 * otherwise the generic event aimed at this PMU by its type in config's
 * upper half (the kernel's extended hardware type, which hybrid x86 PMUs
 * and, since Linux 6.8 or so, Arm PMUs take). -ENOENT when @key is no
 * generic hardware or cache event.
 */
static int apply_legacy(struct hpm_resolver *p, struct hpm_event *ev, const struct hpm_pmu *pmu,
			const char *key, size_t pos)
{
	struct perf_event_attr g = { 0 };
	struct canon_find f = { 0 };

	if (!pmu->core || hpm_generic__resolve(key, &g) ||
	    (g.type != PERF_TYPE_HARDWARE && g.type != PERF_TYPE_HW_CACHE))
		return -ENOENT;
	if (g.type == PERF_TYPE_HARDWARE) {
		f.config = g.config;
		if (hpm_generic__foreach(canon_hw_cb, &f) && strcmp(f.name, key)) {
			int rc = apply_alias(p, ev, pmu, f.name, strlen(f.name), pos);
			if (rc != -ENOENT)
				return rc;
		}
		const char *arm = g.config < sizeof(armv8_generic) / sizeof(armv8_generic[0])
					  ? armv8_generic[g.config] : NULL;
		if (arm && !strncmp(pmu->name, "armv8_", 6)) {
			int rc = apply_alias(p, ev, pmu, arm, strlen(arm), pos);
			if (rc != -ENOENT)
				return rc;
		}
	}
	ev->attr.type = g.type;
	ev->attr.config = g.config | (uint64_t)pmu->type << 32;
	return 0;
}

/* rNNNN or r0xNNNN: a raw code written as a term (cpu_core/r1a/) */
static int raw_term(const char *key, uint64_t *val)
{
	const char *h = key + 1;

	if (key[0] != 'r' || !key[1])
		return -1;
	if (h[0] == '0' && (h[1] == 'x' || h[1] == 'X'))
		h += 2;
	if (!*h || strlen(h) > 16)
		return -1;
	for (const char *c = h; *c; c++)
		if (!isxdigit((unsigned char)*c))
			return -1;
	*val = strtoull(h, NULL, 16);
	return 0;
}

/* Terms perf keeps apart from the format fields: they need a value. */
static bool needs_value(const char *key)
{
	static const char *const k[] = { "name", "period", "sample_period", "freq",
					 "sample_freq", "call-graph", "stack-size" };
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (!strcmp(key, k[i]))
			return true;
	return false;
}

/* The terms every PMU takes besides its format fields (perf's). */
static const char *const common_terms[] = { "config", "config1", "config2", "name", "period",
					     "sample_period", "freq", "sample_freq",
					     "call-graph", "stack-size", "time" };

/* Is @key a term of @pmu: a common one or one of its format fields? */
static bool known_term(const struct hpm_pmu *pmu, const char *key)
{
	for (size_t i = 0; i < sizeof(common_terms) / sizeof(common_terms[0]); i++)
		if (!strcmp(key, common_terms[i]))
			return true;
	for (unsigned i = 0; i < pmu->nr_formats; i++)
		if (!strcmp(pmu->formats[i].name, key))
			return true;
	return false;
}

/* The index of the PMU's format file @key that hpmon cannot use, or -1. */
static int unsupported_format(const struct hpm_pmu *pmu, const char *key)
{
	for (unsigned i = 0; i < pmu->nr_unsupported; i++)
		if (!strcmp(pmu->unsupported[i].name, key))
			return (int)i;
	return -1;
}

/* Fail for term @t, whose format file hpmon could not use: name the file
 * (under the PMU's sysfs directory), what it says and what hpmon lacks. */
static int fail_unsupported(struct hpm_resolver *p, const struct hpm_pmu *pmu, int u,
			    size_t pos, const char *t, size_t klen)
{
	char why[128];

	switch (pmu->unsupported[u].why) {
	case HPM_FORMAT_NO_CONFIG3:
		snprintf(why, sizeof(why), "this build of hpmon has no attr.config3 (its kernel "
			 "headers are older than 6.3)");
		break;
	case HPM_FORMAT_TOO_MANY:
		snprintf(why, sizeof(why), "the PMU has more format fields than the %d hpmon "
			 "reads", HPM_PMU_MAX_FORMATS);
		break;
	default:
		snprintf(why, sizeof(why), "hpmon reads configN:BITS only (N none or 1-3, BITS "
			 "as 0-7,32-35)");
		break;
	}
	return hpm_resolver__fail(p, -HPM_ERR_SYSFS, pos, t, klen,
				"sysfs file %s/format/%s reads '%s', and %s: write the event with "
				"config=/config1=/config2= instead", pmu->name,
				pmu->unsupported[u].name, pmu->unsupported[u].text, why);
}

/* The record terms: call-graph=fp|dwarf|lbr|no, stack-size=N, time[=0|1].
 * 1 when @key is none of them. */
static int record_term(struct hpm_resolver *p, struct hpm_event *ev, const char *key,
		       const char *v, size_t vlen, const char *t, size_t tlen, size_t pos)
{
	static const char *const modes[] = { "fp", "dwarf", "lbr", "no" };
	uint64_t val = 1;

	if (!strcmp(key, "call-graph")) {
		for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
			if (vlen == strlen(modes[i]) && !memcmp(v, modes[i], vlen)) {
				snprintf(ev->call_graph, sizeof(ev->call_graph), "%s", modes[i]);
				return 0;
			}
		return hpm_resolver__fail(p, -HPM_ERR_BAD_VALUE, pos, t, tlen,
			    "call-graph=%.*s: the call-graph mode is fp, dwarf, lbr or no",
			    (int)vlen, v);
	}
	if (!strcmp(key, "stack-size")) {
		if (hpm__parse_u64(v, vlen, &val) || !val || val > 65528)
			return hpm_resolver__fail(p, -HPM_ERR_BAD_VALUE, pos, t, tlen,
				    "stack-size=%.*s: give the bytes of stack to copy, 1 to 65528",
				    (int)vlen, v);
		ev->stack_size = (unsigned)val;
		return 0;
	}
	if (!strcmp(key, "time")) {
		if (v && (hpm__parse_u64(v, vlen, &val) || val > 1))
			return hpm_resolver__fail(p, -HPM_ERR_BAD_VALUE, pos, t, tlen,
				    "time=%.*s: write time, time=1 or time=0", (int)vlen, v);
		ev->has_time = true;
		ev->time = val;
		return 0;
	}
	return 1;
}

/* Term @term (at offset @pos) applied to @ev of @pmu. */
static int apply_term(struct hpm_resolver *p, struct hpm_event *ev,
		      const struct hpm_pmu *pmu, const struct hpm_spec_term *term,
		      size_t pos, bool from_alias)
{
	const char *t = term->t, *v = term->v;
	size_t tlen = term->tlen, klen = term->klen, vlen = term->vlen;
	char key[128]; /* a vendor's event names up to 79 bytes */
	uint64_t val = 1;
	struct perf_event_attr *a = &ev->attr;
	int rc;

	/* where the value starts, for messages about it */
	size_t vpos = pos + (v ? (size_t)(v - t) : klen + 1);

	if (!klen || klen >= sizeof(key))
		return hpm_resolver__fail(p, -HPM_ERR_SYNTAX, pos, t, tlen, "empty or overlong term '%.*s'",
			    (int)tlen, t);
	memcpy(key, t, klen);
	key[klen] = '\0';

	if (!v && needs_value(key))
		return hpm_resolver__fail(p, -HPM_ERR_BAD_VALUE, pos, t, tlen,
			    "term '%s' needs a value: write %s=%s", key, key,
			    !strcmp(key, "name") ? "NAME" : !strcmp(key, "call-graph") ? "fp" : "N");
	if (!strcmp(key, "name")) {
		/* perf's quotes let a name hold ',' and '/': name='a,b' */
		if (vlen >= 2 && (v[0] == '\'' || v[0] == '"') && v[vlen - 1] == v[0]) {
			v++;
			vlen -= 2;
		}
		if (!vlen)
			return hpm_resolver__fail(p, -HPM_ERR_BAD_VALUE, pos, t, tlen, "name= needs a value");
		char *n = strndup(v, vlen);
		if (!n)
			return -ENOMEM;
		free(ev->name);
		ev->name = n;
		return 0;
	}
	rc = record_term(p, ev, key, v, vlen, t, tlen, pos);
	if (rc <= 0)
		return rc;
	if (!v) {
		/* a bare word: config, config1, config2 as flags (=1), a boolean
		 * format field, an alias of this PMU, a generic name, a raw code */
		if (!strcmp(key, "config") || !strcmp(key, "config1") || !strcmp(key, "config2"))
			goto set;
		rc = hpm_pmu__set_term(pmu, key, 1, a);
		if (rc != -HPM_ERR_UNKNOWN_TERM)
			return rc ? hpm_resolver__fail(p, rc, pos, t, tlen, "bad term '%s'", key) : 0;
		rc = pmu->no_sysfs ? -ENOENT : apply_alias(p, ev, pmu, t, tlen, pos);
		if (rc == -ENOENT && !from_alias)
			rc = apply_legacy(p, ev, pmu, key, pos);
		if (rc == -ENOENT && !from_alias && !pmu->no_sysfs && raw_term(key, &val) == 0) {
			a->config = val;
			return 0;
		}
		if (rc == -ENOENT)
			goto unknown;
		return rc;
	}
	if (!vlen) {
		/* config1= : the value is missing (config1 alone means 1) */
		if (!known_term(pmu, key))
			goto unknown;
		return hpm_resolver__fail(p, -HPM_ERR_BAD_VALUE, pos, t, tlen,
			    "term '%s' has '=' but no value: write %s=N%s", key, key,
			    needs_value(key) ? "" : ", or the term alone for 1");
	}
	if (vlen == 1 && v[0] == '?') {
		if (from_alias) {
			pending_add(p, key); /* the user's terms must give it */
			return 0;
		}
		return hpm_resolver__fail(p, -HPM_ERR_BAD_VALUE, pos, t, tlen,
			    "'?' is not a value: write %s=N", key);
	}
	if (hpm__parse_u64(v, vlen, &val)) {
		/* event=ALIAS names an alias of the PMU, as perf takes it
		 * (msr/event=tsc/ is msr/tsc/) */
		if (!strcmp(key, "event") && !from_alias && !pmu->no_sysfs && vlen &&
		    (isalpha((unsigned char)v[0]) || v[0] == '_')) {
			rc = apply_alias(p, ev, pmu, v, vlen, vpos);
			if (rc != -ENOENT)
				return rc;
			suggest_alias(p, pmu, v, vlen);
			return hpm_resolver__fail(p, -HPM_ERR_UNKNOWN_EVENT, vpos, v, vlen,
				    "PMU %s has no event '%.*s' (event= takes a number or one of "
				    "its events)", pmu->name, (int)vlen, v);
		}
		/* a misspelt term says so, not that its value is no number */
		if (!known_term(pmu, key))
			goto unknown;
		return hpm_resolver__fail(p, -HPM_ERR_BAD_VALUE, vpos, v, vlen,
			    "'%.*s' is not a number for term '%s' (write a decimal or 0x hex "
			    "number)", (int)vlen, v, key);
	}
set:
	if (!strcmp(key, "config")) a->config = val;
	else if (!strcmp(key, "config1")) a->config1 = val;
	else if (!strcmp(key, "config2")) a->config2 = val;
	else if (!strcmp(key, "period") || !strcmp(key, "sample_period")) {
		a->sample_period = val;
		a->freq = 0;
		ev->rate_given = true;
	} else if (!strcmp(key, "freq") || !strcmp(key, "sample_freq")) {
		a->sample_freq = val;
		a->freq = 1;
		ev->rate_given = true;
	} else {
		rc = hpm_pmu__set_term(pmu, key, val, a);
		if (rc == 0)
			pending_done(p, key);
		if (rc == -HPM_ERR_UNKNOWN_TERM)
			goto unknown;
		if (rc)
			return hpm_resolver__fail(p, rc, vpos, v, vlen,
				    "value %.*s does not fit format field '%s' of PMU %s",
				    (int)vlen, v, key, pmu->name);
	}
	return 0;
unknown: {
		char known[160] = "";
		struct hpm_suggest sg;
		int u = unsupported_format(pmu, key);

		if (hpm__is_wildcard(key, klen))
			return hpm_resolver__fail(p, -HPM_ERR_UNKNOWN_TERM, pos, t, klen,
				    "'%s' holds a wildcard, and terms take none: wildcards match "
				    "tracepoints only (SUBSYS:NAME)", key);

		if (u >= 0)
			return fail_unsupported(p, pmu, u, pos, t, klen);
		suggest_init(&sg, key);
		for (size_t i = 0; i < sizeof(common_terms) / sizeof(common_terms[0]); i++)
			hpm_suggest__offer(&sg, common_terms[i]);
		if (pmu->no_sysfs) {
			hpm_suggest__format(&sg, p->err->suggest, sizeof(p->err->suggest));
			return hpm_resolver__fail(p, -HPM_ERR_UNKNOWN_TERM, pos, t, klen,
				    "event %s takes no term '%s' (its terms: config, config1, "
				    "config2, name, period, freq, call-graph, stack-size, time)",
				    pmu->name, key);
		}
		hpm_pmu__foreach_alias(p->list->ctx, pmu->name, suggest_alias_cb, &sg);
		for (unsigned i = 0; i < pmu->nr_formats; i++)
			hpm_suggest__offer(&sg, pmu->formats[i].name);
		size_t off = 0;
		for (unsigned i = 0; i < pmu->nr_formats && off < sizeof(known) - 40; i++)
			off += (size_t)snprintf(known + off, sizeof(known) - off, "%s%s",
						i ? ", " : "", pmu->formats[i].name);
		if (!off) /* no format fields (software, tracepoint): perf's own terms */
			snprintf(known, sizeof(known), "config, config1, config2, name, period, "
				 "freq");
		hpm_suggest__format(&sg, p->err->suggest, sizeof(p->err->suggest));
		return hpm_resolver__fail(p, -HPM_ERR_UNKNOWN_TERM, pos, t, klen,
			    "PMU %s has no term or event '%s' (its terms: %s)", pmu->name, key,
			    known);
	}
}

static int apply_terms(struct hpm_resolver *p, struct hpm_event *ev,
		       const struct hpm_pmu *pmu, const char *terms,
		       size_t len, size_t pos, bool from_alias)
{
	struct hpm_spec_term t;

	for (size_t i = 0; hpm_spec_terms__next(terms, len, &i, &t);) {
		if (t.tlen) {
			/* errors inside an alias's own text point at the alias */
			int rc = apply_term(p, ev, pmu, &t, from_alias ? pos : pos + t.at,
					    from_alias);
			if (rc)
				return rc;
		}
	}
	return 0;
}

int hpm_resolver__event_terms(struct hpm_resolver *p, size_t idx, const char *what, size_t wlen,
			    const char *terms, size_t len, size_t pos)
{
	struct hpm_pmu *pmu = calloc(1, sizeof(*pmu));
	int rc;

	if (!pmu)
		return -ENOMEM;
	snprintf(pmu->name, sizeof(pmu->name), "%.*s", (int)wlen, what);
	pmu->type = p->list->ev[idx].attr.type;
	pmu->no_sysfs = true;
	p->nr_pending = 0;
	rc = apply_terms(p, &p->list->ev[idx], pmu, terms, len, pos, false);
	free(pmu);
	return rc;
}

int hpm_resolver__record_terms(struct hpm_resolver *p, struct hpm_event *ev, const char *what,
			     size_t wlen, const char *terms, size_t len, size_t pos)
{
	struct hpm_spec_term term;

	for (size_t i = 0; hpm_spec_terms__next(terms, len, &i, &term);) {
		const char *t = term.t, *v = term.v;
		size_t tlen = term.tlen, klen = term.klen, vlen = term.vlen, a = term.at;
		char key[32];
		int rc;

		if (!tlen)
			continue;
		if (!klen || klen >= sizeof(key))
			return hpm_resolver__fail(p, -HPM_ERR_SYNTAX, pos + a, t, tlen,
				    "empty or overlong term '%.*s'", (int)tlen, t);
		memcpy(key, t, klen);
		key[klen] = '\0';
		if (!v && needs_value(key))
			return hpm_resolver__fail(p, -HPM_ERR_BAD_VALUE, pos + a, t, tlen,
				    "term '%s' needs a value: write %s=%s", key, key,
				    !strcmp(key, "call-graph") ? "fp" : "N");
		rc = record_term(p, ev, key, v, vlen, t, tlen, pos + a);
		if (rc > 0)
			return hpm_resolver__fail(p, -HPM_ERR_UNKNOWN_TERM, pos + a, t, klen,
				    "tracepoint %.*s takes no term '%s' (its terms: call-graph, "
				    "stack-size, time: how record samples it)", (int)wlen, what, key);
		if (rc)
			return rc;
	}
	return 0;
}

int hpm_resolver__pmu(struct hpm_resolver *p, size_t idx, const char *pmuname,
		      const struct hpm_spec_event *e)
{
	struct hpm_event *ev = &p->list->ev[idx];
	const char *s = e->s;
	size_t len = e->len, pos = e->pos, plen = e->open;
	const char *terms = s + plen + 1;
	const char *end = s + e->close;
	struct hpm_pmu *pmu;
	int rc;

	pmu = malloc(sizeof(*pmu));
	if (!pmu)
		return -ENOMEM;
	rc = hpm_pmu__load(p->list->ctx, pmuname, pmu);
	if (rc == -HPM_ERR_UNKNOWN_PMU) {
		hpm_resolver__suggest(p, pmuname, true);
		rc = hpm_resolver__fail(p, rc, pos, s, plen,
					"no PMU named '%s' on this machine (see 'hpmon list')",
					pmuname);
		goto out;
	}
	if (rc) {
		rc = hpm_resolver__fail(p, rc, pos, s, plen, "cannot read PMU '%s' from sysfs: %s", pmuname,
			  hpm_strerror(rc));
		goto out;
	}
	ev->kind = HPM_EV_PMU;
	ev->attr.type = pmu->type;
	snprintf(ev->pmu, sizeof(ev->pmu), "%s", pmu->name);
	hpm_pmu__cpus(p->list->ctx, pmu->name, ev->cpus, sizeof(ev->cpus));
	p->nr_pending = 0;
	rc = apply_terms(p, ev, pmu, terms, (size_t)(end - terms), pos + plen + 1, false);
	if (rc)
		goto out;
	if (p->nr_pending) {
		rc = hpm_resolver__fail(p, -HPM_ERR_BAD_VALUE, pos, s, len,
			  "this event of PMU %s needs a value for '%s': write %.*s,%s=N/",
			  pmu->name, p->pending[0], (int)(end - s), s, p->pending[0]);
		goto out;
	}
	if (e->mlen)
		rc = hpm_resolver__mods(p, ev, e->mods, e->mlen, pos + (size_t)(e->mods - s));
out:
	free(pmu);
	return rc;
}

struct alias_find {
	const struct hpm_ctx *ctx;
	const char *alias;
	char pmu[HPM_PMU_NAME_MAX];
};

static int alias_find_cb(const char *name, void *arg)
{
	struct alias_find *af = arg;
	char path[PATH_MAX];
	if (hpm__path(path, sizeof(path), af->ctx->sysfs,
		      "bus/event_source/devices/%s/events/%s", name, af->alias))
		return 0;
	if (access(path, R_OK) != 0)
		return 0;
	snprintf(af->pmu, sizeof(af->pmu), "%s", name);
	return 1;
}

/* A bare alias ("inst_retired", "tsc"): search every PMU, core first. */
int hpm_resolver__bare_alias(struct hpm_resolver *p, struct hpm_event *ev,
			  const char *name, size_t nlen, size_t pos)
{
	struct alias_find af = { .ctx = p->list->ctx };
	char buf[128];
	struct hpm_pmu *pmu;
	int rc;

	if (nlen >= sizeof(buf) || memchr(name, '/', nlen))
		return -ENOENT;
	memcpy(buf, name, nlen);
	buf[nlen] = '\0';
	if (buf[0] == '.')
		return -ENOENT;
	af.alias = buf;
	if (hpm_pmu__foreach(p->list->ctx, alias_find_cb, &af) != 1)
		return -ENOENT;
	pmu = malloc(sizeof(*pmu));
	if (!pmu)
		return -ENOMEM;
	rc = hpm_pmu__load(p->list->ctx, af.pmu, pmu);
	if (!rc) {
		ev->kind = HPM_EV_PMU;
		ev->attr.type = pmu->type;
		snprintf(ev->pmu, sizeof(ev->pmu), "%s", pmu->name);
		hpm_pmu__cpus(p->list->ctx, pmu->name, ev->cpus, sizeof(ev->cpus));
		rc = apply_alias(p, ev, pmu, name, nlen, pos);
	}
	free(pmu);
	return rc;
}
