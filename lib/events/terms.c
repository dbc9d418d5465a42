/* SPDX-License-Identifier: MIT */
/*
 * The PMU/terms/ form: format fields, sysfs aliases (also written bare,
 * without their PMU), generic names as terms of a core PMU, and the
 * closest names when one is unknown.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/suggest-internal.h"
#include "events/generic-internal.h"
#include "events/parser-internal.h"

static void pending_add(struct hpm_parser *p, const char *key)
{
	if (p->nr_pending < 4)
		snprintf(p->pending[p->nr_pending++], sizeof(p->pending[0]), "%s", key);
}

static void pending_done(struct hpm_parser *p, const char *key)
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

void hpm_parser__suggest(struct hpm_parser *p, const char *word, bool pmus)
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

/* ---- terms ---- */

/*
 * Apply comma-separated terms "a=1,b,name=x" to @ev of @pmu. @from_alias:
 * the terms come from a sysfs alias file ('?' values are not allowed).
 */
static int apply_terms(struct hpm_parser *p, struct hpm_event *ev,
		       const struct hpm_pmu *pmu, const char *terms,
		       size_t len, size_t pos, bool from_alias);

static int apply_alias(struct hpm_parser *p, struct hpm_event *ev,
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
static int apply_legacy(struct hpm_parser *p, struct hpm_event *ev, const struct hpm_pmu *pmu,
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

static int apply_term(struct hpm_parser *p, struct hpm_event *ev,
		      const struct hpm_pmu *pmu, const char *t, size_t tlen,
		      size_t pos, bool from_alias)
{
	const char *eq = memchr(t, '=', tlen);
	size_t klen = eq ? (size_t)(eq - t) : tlen;
	const char *v = eq ? eq + 1 : NULL;
	size_t vlen = eq ? tlen - klen - 1 : 0;
	char key[32];
	uint64_t val = 1;
	struct perf_event_attr *a = &ev->attr;

	if (!klen || klen >= sizeof(key))
		return hpm_parser__fail(p, -HPM_ERR_SYNTAX, pos, t, tlen, "empty or overlong term '%.*s'",
			    (int)tlen, t);
	memcpy(key, t, klen);
	key[klen] = '\0';

	if (!strcmp(key, "name")) {
		if (!v || !vlen)
			return hpm_parser__fail(p, -HPM_ERR_BAD_VALUE, pos, t, tlen, "name= needs a value");
		char *n = strndup(v, vlen);
		if (!n)
			return -ENOMEM;
		free(ev->name);
		ev->name = n;
		return 0;
	}
	if (!eq) {
		/* a bare word: a boolean format field, or an alias of this PMU */
		int rc = hpm_pmu__set_term(pmu, key, 1, a);
		if (rc != -HPM_ERR_UNKNOWN_TERM)
			return rc ? hpm_parser__fail(p, rc, pos, t, tlen, "bad term '%s'", key) : 0;
		rc = apply_alias(p, ev, pmu, t, tlen, pos);
		if (rc == -ENOENT && !from_alias)
			rc = apply_legacy(p, ev, pmu, key, pos);
		if (rc == -ENOENT)
			goto unknown;
		return rc;
	}
	if (vlen == 1 && v[0] == '?') {
		if (from_alias) {
			pending_add(p, key); /* the user's terms must give it */
			return 0;
		}
		return hpm_parser__fail(p, -HPM_ERR_BAD_VALUE, pos, t, tlen,
			    "'?' is not a value: write %s=N", key);
	}
	if (hpm__parse_u64(v, vlen, &val))
		return hpm_parser__fail(p, -HPM_ERR_BAD_VALUE, pos + klen + 1, v, vlen,
			    "'%.*s' is not a number for term '%s'", (int)vlen, v, key);

	if (!strcmp(key, "config")) a->config = val;
	else if (!strcmp(key, "config1")) a->config1 = val;
	else if (!strcmp(key, "config2")) a->config2 = val;
	else if (!strcmp(key, "period") || !strcmp(key, "sample_period")) {
		a->sample_period = val;
		a->freq = 0;
	} else if (!strcmp(key, "freq") || !strcmp(key, "sample_freq")) {
		a->sample_freq = val;
		a->freq = 1;
	} else {
		int rc = hpm_pmu__set_term(pmu, key, val, a);
		if (rc == 0)
			pending_done(p, key);
		if (rc == -HPM_ERR_UNKNOWN_TERM)
			goto unknown;
		if (rc)
			return hpm_parser__fail(p, rc, pos + klen + 1, v, vlen,
				    "value %.*s does not fit format field '%s' of PMU %s",
				    (int)vlen, v, key, pmu->name);
	}
	(void)from_alias;
	return 0;
unknown: {
		char known[160] = "";
		struct hpm_suggest sg;
		suggest_init(&sg, key);
		hpm_pmu__foreach_alias(p->list->ctx, pmu->name, suggest_alias_cb, &sg);
		for (unsigned i = 0; i < pmu->nr_formats; i++)
			hpm_suggest__offer(&sg, pmu->formats[i].name);
		size_t off = 0;
		for (unsigned i = 0; i < pmu->nr_formats && off < sizeof(known) - 40; i++)
			off += (size_t)snprintf(known + off, sizeof(known) - off, "%s%s",
						i ? ", " : "", pmu->formats[i].name);
		hpm_suggest__format(&sg, p->err->suggest, sizeof(p->err->suggest));
		return hpm_parser__fail(p, -HPM_ERR_UNKNOWN_TERM, pos, t, klen,
			    "PMU %s has no term or event '%s'%s%s%s", pmu->name, key,
			    known[0] ? " (its terms: " : "", known[0] ? known : "",
			    known[0] ? ")" : "");
	}
}

static int apply_terms(struct hpm_parser *p, struct hpm_event *ev,
		       const struct hpm_pmu *pmu, const char *terms,
		       size_t len, size_t pos, bool from_alias)
{
	size_t i = 0;
	while (i < len) {
		size_t j = i;
		while (j < len && terms[j] != ',')
			j++;
		if (j > i) {
			/* errors inside an alias's own text point at the alias */
			int rc = apply_term(p, ev, pmu, terms + i, j - i,
					    from_alias ? pos : pos + i, from_alias);
			if (rc)
				return rc;
		}
		i = j + 1;
	}
	return 0;
}

/* PMU '/' terms '/' [[:]mods], resolved on PMU @pmuname into event @idx. */
int hpm_parser__resolve_pmu(struct hpm_parser *p, size_t idx, const char *pmuname,
			     const char *s, size_t len, size_t pos)
{
	struct hpm_event *ev = &p->list->ev[idx];
	const char *slash = memchr(s, '/', len);
	size_t plen = (size_t)(slash - s);
	const char *terms = slash + 1;
	const char *end = memchr(terms, '/', len - plen - 1);
	struct hpm_pmu *pmu;
	int rc;

	pmu = malloc(sizeof(*pmu));
	if (!pmu)
		return -ENOMEM;
	rc = hpm_pmu__load(p->list->ctx, pmuname, pmu);
	if (rc == -HPM_ERR_UNKNOWN_PMU) {
		hpm_parser__suggest(p, pmuname, true);
		rc = hpm_parser__fail(p, rc, pos, s, plen, "no PMU named '%s' on this machine (see 'hpmon list')",
			  pmuname);
		goto out;
	}
	if (rc) {
		rc = hpm_parser__fail(p, rc, pos, s, plen, "cannot read PMU '%s' from sysfs: %s", pmuname,
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
		rc = hpm_parser__fail(p, -HPM_ERR_BAD_VALUE, pos, s, len,
			  "this event of PMU %s needs a value for '%s': write %.*s,%s=N/",
			  pmu->name, p->pending[0], (int)(end - s), s, p->pending[0]);
		goto out;
	}
	{
		const char *m = end + 1;
		size_t mlen = len - (size_t)(m - s);
		if (mlen && *m == ':') {
			m++;
			mlen--;
		}
		if (mlen)
			rc = hpm_parser__mods(p, ev, m, mlen, pos + (size_t)(m - s));
	}
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
int hpm_parser__bare_alias(struct hpm_parser *p, struct hpm_event *ev,
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
