/* SPDX-License-Identifier: MIT */
/*
 * Event specifications in perf's syntax, parsed and resolved to
 * perf_event_attr. Pure: reads sysfs/tracefs under the context's roots and
 * libpfm4's tables, never opens a counter.
 *
 *   list   := item (',' item)*
 *   item   := '{' list '}' [':' mods] | event
 *   event  := PMU '/' terms '/' [[':'] mods]
 *           | 'mem:' ADDR ['/' LEN] [':' ACCESS] [':' mods]
 *           | NAME [':' mods]           generic, rNNNN, sysfs alias
 *           | SUBSYS ':' NAME [':' mods] tracepoint
 *           | NATIVE(':' UMASK)*        libpfm4
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <linux/hw_breakpoint.h>

#include "core/suggest-internal.h"
#include "events/evlist-internal.h"
#include "events/generic-internal.h"
#include "events/pfm-internal.h"
#include "location/location-internal.h"
#include "events/preset-internal.h"

struct parser {
	struct hpm_evlist *list;
	const char *spec;
	size_t pos;
	struct hpm_parse_error *err;
	struct hpm_parse_error local;
	/* terms an alias leaves to the user ("cmask=?"), not yet given */
	char pending[4][32];
	unsigned nr_pending;
	bool in_group;    /* the event being parsed is inside braces */
	unsigned flags;   /* HPM_EVLIST_* */
};

static void pending_add(struct parser *p, const char *key)
{
	if (p->nr_pending < 4)
		snprintf(p->pending[p->nr_pending++], sizeof(p->pending[0]), "%s", key);
}

static void pending_done(struct parser *p, const char *key)
{
	for (unsigned i = 0; i < p->nr_pending; i++)
		if (!strcmp(p->pending[i], key)) {
			memmove(p->pending[i], p->pending[i + 1],
				(p->nr_pending - i - 1) * sizeof(p->pending[0]));
			p->nr_pending--;
			return;
		}
}

static int fail(struct parser *p, int code, size_t pos, const char *tok,
		size_t toklen, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static int fail(struct parser *p, int code, size_t pos, const char *tok,
		size_t toklen, const char *fmt, ...)
{
	struct hpm_parse_error *e = p->err;
	va_list ap;

	if (e->err) /* keep the first, innermost error */
		return e->err;
	e->err = code;
	e->pos = pos;
	if (toklen >= sizeof(e->token))
		toklen = sizeof(e->token) - 1;
	memcpy(e->token, tok ? tok : "", tok ? toklen : 0);
	e->token[tok ? toklen : 0] = '\0';
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return code;
}

/* ---- list object ---- */

struct hpm_evlist *hpm_evlist__new(struct hpm_ctx *ctx)
{
	struct hpm_evlist *l;
	if (!ctx) {
		errno = EINVAL;
		return NULL;
	}
	l = calloc(1, sizeof(*l));
	if (l)
		l->ctx = ctx;
	return l;
}

void hpm_evlist__free(struct hpm_evlist *list)
{
	if (!list)
		return;
	for (size_t i = 0; i < list->nr; i++) {
		free(list->ev[i].name);
		free(list->ev[i].merged_name);
	}
	free(list->ev);
	free(list);
}

size_t hpm_evlist__count(const struct hpm_evlist *list) { return list->nr; }

struct hpm_event *hpm_evlist__event(const struct hpm_evlist *list, size_t idx)
{
	return idx < list->nr ? &list->ev[idx] : NULL;
}

const char *hpm_event__name(const struct hpm_event *ev) { return ev->name; }
enum hpm_event_kind hpm_event__kind(const struct hpm_event *ev) { return ev->kind; }
const struct perf_event_attr *hpm_event__attr(const struct hpm_event *ev) { return &ev->attr; }
size_t hpm_event__leader(const struct hpm_event *ev) { return ev->leader; }
const char *hpm_event__pmu(const struct hpm_event *ev) { return ev->pmu; }
const char *hpm_event__unit(const struct hpm_event *ev) { return ev->unit; }
double hpm_event__scale(const struct hpm_event *ev) { return ev->scale; }

size_t hpm_event__merge_leader(const struct hpm_event *ev) { return ev->merge; }
const char *hpm_event__cpus(const struct hpm_event *ev) { return ev->cpus; }

const char *hpm_event__merged_name(const struct hpm_event *ev)
{
	return ev->merged_name ? ev->merged_name : ev->name;
}

bool hpm__cpu_in_list(const char *cpus, int cpu)
{
	const char *p = cpus;

	if (!cpus[0])
		return true;
	while (*p) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;
		if (end == p)
			return false;
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			if (end == p + 1)
				return false;
			p = end;
		}
		if (cpu >= lo && cpu <= hi)
			return true;
		if (*p != ',')
			return false;
		p++;
	}
	return false;
}

bool hpm_event__on_cpu(const struct hpm_event *ev, int cpu)
{
	return hpm__cpu_in_list(ev->cpus, cpu);
}

bool hpm_event__is_clock(const struct hpm_event *ev)
{
	return ev->attr.type == PERF_TYPE_SOFTWARE &&
	       (ev->attr.config == PERF_COUNT_SW_TASK_CLOCK ||
		ev->attr.config == PERF_COUNT_SW_CPU_CLOCK);
}

int hpm_event__describe(const struct hpm_event *ev, char *buf, size_t len)
{
	const struct perf_event_attr *a = &ev->attr;
	char full[128];
	int n = snprintf(full, sizeof(full), "type=%u,config=%#llx", a->type,
			 (unsigned long long)a->config);
	if (a->config1)
		n += snprintf(full + n, sizeof(full) - (size_t)n, ",config1=%#llx",
			      (unsigned long long)a->config1);
	if (a->config2)
		n += snprintf(full + n, sizeof(full) - (size_t)n, ",config2=%#llx",
			      (unsigned long long)a->config2);
	if (len)
		snprintf(buf, len, "%s", full);
	return n;
}

static struct hpm_event *append(struct parser *p, const char *name, size_t len)
{
	struct hpm_evlist *l = p->list;
	struct hpm_event *ev;

	if (l->nr >= HPM_MAX_EVENTS) {
		fail(p, -HPM_ERR_TOO_MANY, p->pos, name, len,
		     "more than %d events in one list", HPM_MAX_EVENTS);
		return NULL;
	}
	if (l->nr == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;
		struct hpm_event *v = realloc(l->ev, cap * sizeof(*v));
		if (!v)
			return NULL;
		l->ev = v;
		l->cap = cap;
	}
	ev = &l->ev[l->nr];
	memset(ev, 0, sizeof(*ev));
	ev->name = strndup(name, len);
	if (!ev->name)
		return NULL;
	ev->attr.size = sizeof(ev->attr);
	ev->scale = 1.0;
	ev->leader = l->nr;
	ev->merge = l->nr;
	ev->nr_copies = 1;
	l->nr++;
	return ev;
}

/* ---- PMUs an event stands for ---- */

/* The CPUs PMU @name counts on: its "cpus" (core PMUs) or "cpumask"
 * (uncore) file; "" when it has neither or the list does not fit. */
static void read_cpus(const struct hpm_ctx *ctx, const char *name, char *buf, size_t len)
{
	static const char *const files[] = { "cpus", "cpumask" };
	char path[PATH_MAX];

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (hpm__path(path, sizeof(path), ctx->sysfs, "bus/event_source/devices/%s/%s",
			      name, files[i]))
			return;
		int n = hpm__read_text(path, buf, len);
		if (n > 0)
			return;
		buf[0] = '\0';
		if (n == -EFBIG)
			return;
	}
}

struct cores_find {
	const struct hpm_ctx *ctx;
	struct hpm_core_pmu *core;
	unsigned nr;
};

static int cores_cb(const char *name, void *arg)
{
	struct cores_find *cf = arg;
	char path[PATH_MAX];
	long type;

	if (!hpm_pmu__is_core(cf->ctx, name))
		return 1; /* core PMUs come first: the rest are not */
	if (cf->nr == HPM_MAX_CORE_PMUS || strlen(name) >= HPM_PMU_NAME_MAX ||
	    hpm__path(path, sizeof(path), cf->ctx->sysfs, "bus/event_source/devices/%s/type",
		      name) ||
	    hpm__read_long(path, &type) || type < 0 || type > UINT32_MAX)
		return 0;
	struct hpm_core_pmu *c = &cf->core[cf->nr++];
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->type = (uint32_t)type;
	read_cpus(cf->ctx, name, c->cpus, sizeof(c->cpus));
	return 0;
}

/* The core PMUs of @ctx, the one of type PERF_TYPE_RAW (the kernel's
 * default for hardware events: cpu_core) first. */
static unsigned read_cores(const struct hpm_ctx *ctx, struct hpm_core_pmu *core)
{
	struct cores_find cf = { .ctx = ctx, .core = core };

	hpm_pmu__foreach(ctx, cores_cb, &cf);
	for (unsigned i = 1; i < cf.nr; i++)
		if (core[i].type == PERF_TYPE_RAW) {
			struct hpm_core_pmu main = core[i];
			memmove(&core[1], &core[0], i * sizeof(core[0]));
			core[0] = main;
			break;
		}
	return cf.nr;
}

static unsigned list_cores(struct hpm_evlist *l)
{
	if (!l->cores_known) {
		l->nr_cores = read_cores(l->ctx, l->core);
		l->cores_known = true;
	}
	return l->nr_cores;
}

void hpm__attr_main_core(struct hpm_ctx *ctx, struct perf_event_attr *a)
{
	struct hpm_core_pmu core[HPM_MAX_CORE_PMUS];

	if ((a->type != PERF_TYPE_HARDWARE && a->type != PERF_TYPE_HW_CACHE) || a->config >> 32)
		return;
	if (read_cores(ctx, core) > 1)
		a->config |= (uint64_t)core[0].type << 32;
}

/* A generic hardware or cache event not yet aimed at a PMU. */
static bool generic_unaimed(const struct hpm_event *ev)
{
	return (ev->kind == HPM_EV_GENERIC_HW || ev->kind == HPM_EV_GENERIC_CACHE) &&
	       (ev->attr.type == PERF_TYPE_HARDWARE || ev->attr.type == PERF_TYPE_HW_CACHE) &&
	       !(ev->attr.config >> 32);
}

/*
 * On a machine with several core PMUs, event @idx (generic, as written)
 * becomes one event per core PMU, consecutive from @idx, as perf opens it:
 * each aimed at its PMU by the extended hardware type and named
 * "PMU/NAME/". With HPM_EVLIST_MAIN_CORE only the main core PMU's.
 */
static int expand_generic(struct parser *p, size_t idx)
{
	struct hpm_evlist *l = p->list;
	unsigned n = list_cores(l);
	char *names[HPM_MAX_CORE_PMUS] = { 0 };
	int rc = 0;

	if (n < 2 || !generic_unaimed(&l->ev[idx]))
		return 0;
	if (p->flags & HPM_EVLIST_MAIN_CORE)
		n = 1;
	for (unsigned k = 0; k < n; k++)
		if (asprintf(&names[k], "%s/%s/", l->core[k].name, l->ev[idx].name) < 0) {
			names[k] = NULL;
			rc = -ENOMEM;
		}
	for (unsigned k = 1; k < n && !rc; k++) {
		struct hpm_event tmpl = l->ev[idx];
		struct hpm_event *ev = append(p, "", 0);
		if (!ev) {
			rc = p->err->err ? p->err->err : -ENOMEM;
			break;
		}
		free(ev->name);
		size_t self = (size_t)(ev - l->ev);
		*ev = tmpl;
		ev->name = names[k];
		names[k] = NULL;
		ev->leader = p->in_group ? tmpl.leader : self;
		ev->merge = self;
	}
	for (unsigned k = 0; k < n && !rc; k++) {
		struct hpm_event *ev = &l->ev[idx + k];
		ev->attr.config = (ev->attr.config & 0xffffffffull) | (uint64_t)l->core[k].type << 32;
		snprintf(ev->pmu, sizeof(ev->pmu), "%s", l->core[k].name);
		snprintf(ev->cpus, sizeof(ev->cpus), "%s", l->core[k].cpus);
		ev->copy = k;
		ev->nr_copies = n;
		if (k == 0) {
			free(ev->name);
			ev->name = names[0];
			names[0] = NULL;
		}
	}
	for (unsigned k = 0; k < n; k++)
		free(names[k]);
	return rc;
}

/* ---- modifiers ---- */

/*
 * Apply modifier letters @m (length @len) as perf does: u/k/h select
 * privilege levels (anything not named is excluded), H/G host/guest,
 * p precise (repeatable), P maximum precision, D pinned, I exclude_idle,
 * e exclusive, S sample-read, W weak group (accepted, no attr effect).
 */
static int apply_mods(struct parser *p, struct hpm_event *ev, const char *m,
		      size_t len, size_t pos)
{
	int u = 0, k = 0, h = 0, H = 0, G = 0, pr = 0;
	struct perf_event_attr *a = &ev->attr;

	if (len == 0)
		return fail(p, -HPM_ERR_BAD_MODIFIER, pos, m, 0,
			    "empty modifier after ':' (valid: u k h H G p pp ppp P D I e S W)");
	for (size_t i = 0; i < len; i++) {
		switch (m[i]) {
		case 'u': u++; break;
		case 'k': k++; break;
		case 'h': h++; break;
		case 'H': H++; break;
		case 'G': G++; break;
		case 'p': pr++; break;
		case 'P': pr = 3; break;
		case 'D': a->pinned = 1; break;
		case 'I': a->exclude_idle = 1; break;
		case 'e': a->exclusive = 1; break;
		case 'S': a->sample_type |= PERF_SAMPLE_READ; break;
		case 'W': break;
		default:
			return fail(p, -HPM_ERR_BAD_MODIFIER, pos + i, m, len,
				    "unknown modifier '%c' in ':%.*s' (valid: u k h H G p pp ppp P D I e S W)",
				    m[i], (int)len, m);
		}
	}
	if (pr > 3)
		return fail(p, -HPM_ERR_BAD_MODIFIER, pos, m, len,
			    "at most three 'p' (precise levels 0-3) in ':%.*s'", (int)len, m);
	if (u > 1 || k > 1 || h > 1 || H > 1 || G > 1)
		return fail(p, -HPM_ERR_BAD_MODIFIER, pos, m, len,
			    "repeated modifier in ':%.*s'", (int)len, m);
	if (u || k || h) {
		a->exclude_user = !u;
		a->exclude_kernel = !k;
		a->exclude_hv = !h;
		ev->explicit_priv = true;
	}
	if (H || G) {
		/* H: host only, G: guest only, both: either (the default
		 * without them, as perf's, is host only: exclude_guest) */
		a->exclude_guest = H && !G;
		a->exclude_host = G && !H;
		ev->explicit_gh = true;
	}
	if (pr)
		a->precise_ip = (unsigned)pr;
	return 0;
}

static bool is_mods(const char *s, size_t len)
{
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!strchr("ukhHGpPDIeSW", s[i]))
			return false;
	return true;
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

static void fill_suggestions(struct parser *p, const char *word, bool pmus)
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

/* ---- numbers and terms ---- */

static int parse_u64(const char *s, size_t len, uint64_t *out)
{
	char buf[32], *end;
	if (!len || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (!isdigit((unsigned char)buf[0]))
		return -1;
	errno = 0;
	/* as perf: 0x... is hex, anything else decimal (010 is ten) */
	if (buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X'))
		*out = strtoull(buf + 2, &end, 16);
	else
		*out = strtoull(buf, &end, 10);
	return (*end || errno) ? -1 : 0;
}

/*
 * Apply comma-separated terms "a=1,b,name=x" to @ev of @pmu. @from_alias:
 * the terms come from a sysfs alias file ('?' values are not allowed).
 */
static int apply_terms(struct parser *p, struct hpm_event *ev,
		       const struct hpm_pmu *pmu, const char *terms,
		       size_t len, size_t pos, bool from_alias);

static int apply_alias(struct parser *p, struct hpm_event *ev,
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
static int apply_legacy(struct parser *p, struct hpm_event *ev, const struct hpm_pmu *pmu,
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

static int apply_term(struct parser *p, struct hpm_event *ev,
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
		return fail(p, -HPM_ERR_SYNTAX, pos, t, tlen, "empty or overlong term '%.*s'",
			    (int)tlen, t);
	memcpy(key, t, klen);
	key[klen] = '\0';

	if (!strcmp(key, "name")) {
		if (!v || !vlen)
			return fail(p, -HPM_ERR_BAD_VALUE, pos, t, tlen, "name= needs a value");
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
			return rc ? fail(p, rc, pos, t, tlen, "bad term '%s'", key) : 0;
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
		return fail(p, -HPM_ERR_BAD_VALUE, pos, t, tlen,
			    "'?' is not a value: write %s=N", key);
	}
	if (parse_u64(v, vlen, &val))
		return fail(p, -HPM_ERR_BAD_VALUE, pos + klen + 1, v, vlen,
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
			return fail(p, rc, pos + klen + 1, v, vlen,
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
		return fail(p, -HPM_ERR_UNKNOWN_TERM, pos, t, klen,
			    "PMU %s has no term or event '%s'%s%s%s", pmu->name, key,
			    known[0] ? " (its terms: " : "", known[0] ? known : "",
			    known[0] ? ")" : "");
	}
}

static int apply_terms(struct parser *p, struct hpm_event *ev,
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

/* ---- event forms ---- */

static bool is_ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

/* PMU '/' terms '/' [[:]mods], resolved on PMU @pmuname into event @idx. */
static int resolve_pmu_event(struct parser *p, size_t idx, const char *pmuname,
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
		fill_suggestions(p, pmuname, true);
		rc = fail(p, rc, pos, s, plen, "no PMU named '%s' on this machine (see 'hpmon list')",
			  pmuname);
		goto out;
	}
	if (rc) {
		rc = fail(p, rc, pos, s, plen, "cannot read PMU '%s' from sysfs: %s", pmuname,
			  hpm_strerror(rc));
		goto out;
	}
	ev->kind = HPM_EV_PMU;
	ev->attr.type = pmu->type;
	snprintf(ev->pmu, sizeof(ev->pmu), "%s", pmu->name);
	read_cpus(p->list->ctx, pmu->name, ev->cpus, sizeof(ev->cpus));
	p->nr_pending = 0;
	rc = apply_terms(p, ev, pmu, terms, (size_t)(end - terms), pos + plen + 1, false);
	if (rc)
		goto out;
	if (p->nr_pending) {
		rc = fail(p, -HPM_ERR_BAD_VALUE, pos, s, len,
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
			rc = apply_mods(p, ev, m, mlen, pos + (size_t)(m - s));
	}
out:
	free(pmu);
	return rc;
}

#define MAX_INSTANCES 256

struct instances {
	const char *prefix;
	char (*name)[HPM_PMU_NAME_MAX];
	unsigned long num[MAX_INSTANCES];
	unsigned nr;
};

/* "PREFIX_N": an instance of the PMU named PREFIX */
static int instances_cb(const char *name, void *arg)
{
	struct instances *in = arg;
	size_t n = strlen(in->prefix);
	char *end;

	if (strncmp(name, in->prefix, n) || name[n] != '_' || !isdigit((unsigned char)name[n + 1]))
		return 0;
	unsigned long num = strtoul(name + n + 1, &end, 10);
	if (*end || in->nr == MAX_INSTANCES || strlen(name) >= HPM_PMU_NAME_MAX)
		return 0;
	/* numeric order: uncore_cbox_2 before uncore_cbox_10 */
	unsigned at = in->nr;
	while (at && in->num[at - 1] > num) {
		in->num[at] = in->num[at - 1];
		memcpy(in->name[at], in->name[at - 1], sizeof(in->name[0]));
		at--;
	}
	in->num[at] = num;
	snprintf(in->name[at], sizeof(in->name[0]), "%s", name);
	in->nr++;
	return 0;
}

/*
 * PMU '/' terms '/' [[:]mods]. A PMU named without its instance number
 * that has several instances (uncore_cbox for uncore_cbox_0 ... _3) gives
 * one event per instance, as perf opens it; they are merged for display
 * (hpm_event__merge_leader).
 */
static int parse_pmu_event(struct parser *p, size_t idx, const char *s, size_t len, size_t pos)
{
	const char *slash = memchr(s, '/', len);
	size_t plen = (size_t)(slash - s);
	const char *end = memchr(slash + 1, '/', len - plen - 1);
	char pmuname[HPM_PMU_NAME_MAX], path[PATH_MAX];
	struct instances in = { .prefix = pmuname };
	char *written = NULL;
	int rc = 0;

	if (!end)
		return fail(p, -HPM_ERR_SYNTAX, pos + len, s, len,
			    "'%.*s' lacks the closing '/' (write PMU/terms/)", (int)len, s);
	if (plen == 0 || plen >= sizeof(pmuname))
		return fail(p, -HPM_ERR_SYNTAX, pos, s, plen ? plen : 1, "missing PMU name before '/'");
	memcpy(pmuname, s, plen);
	pmuname[plen] = '\0';
	/* a PMU of that very name is the one meant (armv8_pmuv3_0, cpu) */
	if (hpm__path(path, sizeof(path), p->list->ctx->sysfs, "bus/event_source/devices/%s/type",
		      pmuname) || access(path, F_OK) == 0)
		return resolve_pmu_event(p, idx, pmuname, s, len, pos);
	in.name = malloc(MAX_INSTANCES * sizeof(*in.name));
	if (!in.name)
		return -ENOMEM;
	hpm_pmu__foreach(p->list->ctx, instances_cb, &in);
	if (in.nr < 2) {
		rc = resolve_pmu_event(p, idx, pmuname, s, len, pos);
		goto out;
	}
	for (unsigned k = 0; k < in.nr && !rc; k++) {
		size_t at = idx;
		if (k) {
			struct hpm_event *ev = append(p, s, len);
			if (!ev) {
				rc = p->err->err ? p->err->err : -ENOMEM;
				break;
			}
			at = (size_t)(ev - p->list->ev);
			ev->leader = p->in_group ? p->list->ev[idx].leader : at;
			ev->merge = idx;
		}
		rc = resolve_pmu_event(p, at, in.name[k], s, len, pos);
		if (rc)
			break;
		struct hpm_event *ev = &p->list->ev[at];
		/* name= names the merged line; otherwise perf's name of the
		 * instance: uncore_cbox_0/clockticks/ */
		bool named = strlen(ev->name) != len || strncmp(ev->name, s, len);
		if (!written && !(written = strdup(ev->name))) {
			rc = -ENOMEM;
			break;
		}
		if (!(ev->merged_name = strdup(written))) {
			rc = -ENOMEM;
			break;
		}
		if (!named) {
			char *n = NULL;
			if (asprintf(&n, "%s%.*s", in.name[k], (int)(len - plen), s + plen) < 0) {
				rc = -ENOMEM;
				break;
			}
			free(ev->name);
			ev->name = n;
		}
		ev->copy = k;
		ev->nr_copies = in.nr;
	}
out:
	free(written);
	free(in.name);
	return rc;
}

/* mem:ADDR[/LEN][:ACCESS][:mods] */
static int parse_breakpoint(struct parser *p, struct hpm_event *ev,
			    const char *s, size_t len, size_t pos)
{
	const char *a = s + 4, *e = s + len;
	const char *colon = memchr(a, ':', (size_t)(e - a));
	const char *slash = memchr(a, '/', (size_t)((colon ? colon : e) - a));
	const char *aend = slash ? slash : (colon ? colon : e);
	uint64_t addr, blen = 0;
	unsigned type = HW_BREAKPOINT_R | HW_BREAKPOINT_W;

	if (parse_u64(a, (size_t)(aend - a), &addr))
		return fail(p, -HPM_ERR_BAD_VALUE, pos + 4, a, (size_t)(aend - a),
			    "breakpoint address '%.*s' is not a number (write mem:0xADDR)",
			    (int)(aend - a), a);
	if (slash) {
		const char *lend = colon ? colon : e;
		if (parse_u64(slash + 1, (size_t)(lend - slash - 1), &blen) ||
		    (blen != 1 && blen != 2 && blen != 4 && blen != 8))
			return fail(p, -HPM_ERR_BAD_VALUE, pos + (size_t)(slash + 1 - s), slash + 1,
				    (size_t)(lend - slash - 1),
				    "breakpoint length must be 1, 2, 4 or 8");
	}
	if (colon) {
		const char *acc = colon + 1;
		const char *c2 = memchr(acc, ':', (size_t)(e - acc));
		size_t alen = (size_t)((c2 ? c2 : e) - acc);
		bool r = false, w = false, x = false, ok = alen > 0;
		for (size_t i = 0; i < alen; i++) {
			if (acc[i] == 'r') r = true;
			else if (acc[i] == 'w') w = true;
			else if (acc[i] == 'x') x = true;
			else ok = false;
		}
		if (ok && x && (r || w))
			ok = false;
		if (!ok && !c2 && is_mods(acc, alen)) {
			/* mem:ADDR:u -- modifiers without an access type */
			c2 = colon;
		} else if (!ok) {
			return fail(p, -HPM_ERR_BAD_MODIFIER, pos + (size_t)(acc - s), acc, alen,
				    "breakpoint access '%.*s' must be r, w, rw or x",
				    (int)alen, acc);
		} else {
			type = x ? HW_BREAKPOINT_X
				 : (unsigned)((r ? HW_BREAKPOINT_R : 0) | (w ? HW_BREAKPOINT_W : 0));
		}
		if (c2) {
			int rc = apply_mods(p, ev, c2 + 1, (size_t)(e - c2 - 1),
					    pos + (size_t)(c2 + 1 - s));
			if (rc)
				return rc;
		}
	}
	if (!blen) {
#if defined(__aarch64__)
		blen = type == HW_BREAKPOINT_X ? 4 : HW_BREAKPOINT_LEN_4;
#else
		blen = type == HW_BREAKPOINT_X ? sizeof(long) : HW_BREAKPOINT_LEN_4;
#endif
	}
	ev->kind = HPM_EV_BREAKPOINT;
	ev->attr.type = PERF_TYPE_BREAKPOINT;
	ev->attr.bp_type = type;
	ev->attr.bp_addr = addr;
	ev->attr.bp_len = blen;
	ev->attr.sample_period = 1;
	snprintf(ev->pmu, sizeof(ev->pmu), "breakpoint");
	return 0;
}

static int parse_raw(const char *s, size_t len, uint64_t *cfg)
{
	if (len < 2 || len > 17 || s[0] != 'r')
		return -1;
	for (size_t i = 1; i < len; i++)
		if (!isxdigit((unsigned char)s[i]))
			return -1;
	char buf[20];
	memcpy(buf, s + 1, len - 1);
	buf[len - 1] = '\0';
	*cfg = strtoull(buf, NULL, 16);
	return 0;
}

static int try_tracepoint(struct parser *p, struct hpm_event *ev,
			  const char *sys, size_t slen, const char *name, size_t nlen)
{
	const char *root = hpm_ctx__tracefs_root(p->list->ctx);
	char path[PATH_MAX];
	long id;

	if (!root || !slen || !nlen)
		return -ENOENT;
	for (size_t i = 0; i < slen; i++)
		if (!is_ident_char(sys[i]) || sys[i] == '.')
			return -ENOENT;
	for (size_t i = 0; i < nlen; i++)
		if (!is_ident_char(name[i]) || name[i] == '.')
			return -ENOENT;
	if (hpm__path(path, sizeof(path), root, "events/%.*s/%.*s/id", (int)slen, sys,
		      (int)nlen, name))
		return -ENOENT;
	if (hpm__read_long(path, &id) || id < 0)
		return -ENOENT;
	ev->kind = HPM_EV_TRACEPOINT;
	ev->attr.type = PERF_TYPE_TRACEPOINT;
	ev->attr.config = (uint64_t)id;
	ev->attr.sample_period = 1;
	snprintf(ev->pmu, sizeof(ev->pmu), "tracepoint");
	return 0;
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
static int try_bare_alias(struct parser *p, struct hpm_event *ev,
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
		read_cpus(p->list->ctx, pmu->name, ev->cpus, sizeof(ev->cpus));
		rc = apply_alias(p, ev, pmu, name, nlen, pos);
	}
	free(pmu);
	return rc;
}

static int resolve_native(struct hpm_event *ev, const char *name)
{
	struct hpm_pfm_enc e;
	int rc = hpm_pfm__resolve(name, &e);
	if (rc)
		return rc;
	ev->kind = HPM_EV_NATIVE;
	ev->attr.type = e.type;
	ev->attr.config = e.config;
	ev->attr.config1 = e.config1;
	ev->attr.config2 = e.config2;
	/* libpfm4 excludes what its default privilege levels leave out
	 * (the hypervisor); keep its exclusions only when the name asked for
	 * a level (":u", ":k"), as other events do */
	ev->explicit_priv = e.exclude_user || e.exclude_kernel;
	if (ev->explicit_priv) {
		ev->attr.exclude_user = e.exclude_user;
		ev->attr.exclude_kernel = e.exclude_kernel;
		ev->attr.exclude_hv = e.exclude_hv;
	}
	ev->attr.precise_ip = e.precise_ip;
	snprintf(ev->pmu, sizeof(ev->pmu), "%s", e.pmu);
	return 0;
}

/*
 * A PAPI preset (lib/events/preset.c): its terms resolved as events in place of
 * @ev, named as lib/events/preset.c says; the terms of a derived preset form a
 * group of their own unless they are already inside one.
 */
static int parse_preset(struct parser *p, struct hpm_event *ev, const char *s,
			size_t len, size_t pos)
{
	struct hpm_preset_expansion *x = malloc(sizeof(*x));
	size_t idx = (size_t)(ev - p->list->ev);
	size_t leader = p->in_group ? ev->leader : idx;
	int rc;

	if (!x)
		return -ENOMEM;
	rc = hpm_preset__expand(p->list->ctx, s, len, x);
	if (rc) {
		rc = fail(p, rc, pos, s, len, "%s", x->msg);
		snprintf(p->err->suggest, sizeof(p->err->suggest), "%s", x->suggest);
		goto out;
	}
	for (unsigned i = 0; i < x->nr; i++) {
		struct hpm_evlist *sub = NULL;
		struct hpm_parse_error se;
		struct hpm_event *dst;
		char *name;

		/* a preset is one count: on a hybrid CPU, of the main core PMU */
		if (!strncmp(x->term[i].spec, "PAPI_", 5) ||
		    hpm__evlist_parse_flags(p->list->ctx, x->term[i].spec,
					    p->flags | HPM_EVLIST_MAIN_CORE, &sub, &se) ||
		    sub->nr != 1) {
			rc = fail(p, sub ? -HPM_ERR_UNKNOWN_EVENT : se.err, pos, s, len,
				  "%.*s is counted with '%s' here: %s", (int)len, s,
				  x->term[i].spec, sub ? "not one event" : se.msg);
			hpm_evlist__free(sub);
			goto out;
		}
		dst = i ? append(p, x->term[i].name, strlen(x->term[i].name)) : &p->list->ev[idx];
		name = strdup(x->term[i].name);
		if (!dst || !name) {
			free(name);
			hpm_evlist__free(sub);
			rc = p->err->err ? p->err->err : -ENOMEM;
			goto out;
		}
		free(dst->name);
		*dst = sub->ev[0];
		dst->name = name; /* the sub-list keeps (and frees) its own */
		dst->merged_name = NULL;
		dst->leader = leader;
		dst->merge = (size_t)(dst - p->list->ev);
		hpm_evlist__free(sub);
	}
out:
	free(x);
	return rc;
}

/* NAME[:mods], SUBSYS:NAME[:mods], rNNNN[:mods] or a libpfm4 native. */
static int parse_named(struct parser *p, struct hpm_event *ev,
		       const char *s, size_t len, size_t pos)
{
	const char *colon = memchr(s, ':', len);
	size_t nlen = colon ? (size_t)(colon - s) : len;
	const char *mods = colon ? colon + 1 : NULL;
	size_t mlen = colon ? len - nlen - 1 : 0;
	char name[128];
	uint64_t cfg;
	int rc;

	if (nlen == 0)
		return fail(p, -HPM_ERR_SYNTAX, pos, s, 1, "missing event name");
	if (nlen >= sizeof(name))
		return fail(p, -HPM_ERR_UNKNOWN_EVENT, pos, s, nlen, "event name too long");
	memcpy(name, s, nlen);
	name[nlen] = '\0';

	/* 0. PAPI presets */
	if (!strncmp(name, "PAPI_", 5))
		return parse_preset(p, ev, s, len, pos);
	/* 1. generic names and raw codes take modifiers only */
	if (hpm_generic__resolve(name, &ev->attr) == 0) {
		ev->kind = ev->attr.type == PERF_TYPE_HARDWARE ? HPM_EV_GENERIC_HW
			 : ev->attr.type == PERF_TYPE_SOFTWARE ? HPM_EV_SOFTWARE
			 : HPM_EV_GENERIC_CACHE;
		if (ev->attr.type == PERF_TYPE_SOFTWARE ||
		    hpm_pmu__core_name(p->list->ctx, ev->pmu, sizeof(ev->pmu)))
			snprintf(ev->pmu, sizeof(ev->pmu), "%s",
				 ev->attr.type == PERF_TYPE_SOFTWARE ? "software" : "cpu");
		goto mods;
	}
	if (parse_raw(name, nlen, &cfg) == 0) {
		ev->kind = HPM_EV_RAW;
		ev->attr.type = PERF_TYPE_RAW;
		ev->attr.config = cfg;
		if (hpm_pmu__core_name(p->list->ctx, ev->pmu, sizeof(ev->pmu)))
			snprintf(ev->pmu, sizeof(ev->pmu), "cpu");
		/* the kernel gives PERF_TYPE_RAW to the main core PMU, which on a
		 * hybrid CPU counts on its own CPUs only */
		if (list_cores(p->list) > 1) {
			snprintf(ev->pmu, sizeof(ev->pmu), "%s", p->list->core[0].name);
			snprintf(ev->cpus, sizeof(ev->cpus), "%s", p->list->core[0].cpus);
		}
		goto mods;
	}
	/* 2. tracepoint subsys:name[:mods] */
	if (colon) {
		const char *c2 = memchr(mods, ':', mlen);
		size_t tlen = c2 ? (size_t)(c2 - mods) : mlen;
		if (try_tracepoint(p, ev, s, nlen, mods, tlen) == 0) {
			if (c2)
				return apply_mods(p, ev, c2 + 1, len - (size_t)(c2 + 1 - s),
						  pos + (size_t)(c2 + 1 - s));
			return 0;
		}
	}
	/* 3. an alias of some PMU, written without the PMU */
	p->nr_pending = 0;
	rc = try_bare_alias(p, ev, s, nlen, pos);
	if (rc == 0 && p->nr_pending)
		return fail(p, -HPM_ERR_BAD_VALUE, pos, s, nlen,
			    "event '%s' needs a value for '%s': write %s/%s,%s=N/", name,
			    p->pending[0], ev->pmu, name, p->pending[0]);
	if (rc == 0)
		goto mods;
	if (rc != -ENOENT)
		return rc;
	/* 4. libpfm4 native: the whole string (its ':' are umasks/modifiers),
	 * then the string without a trailing hpmon modifier group. */
	if (len < 256) {
		char full[256];
		memcpy(full, s, len);
		full[len] = '\0';
		rc = resolve_native(ev, full);
		if (rc == 0)
			return 0;
		const char *last = strrchr(full, ':');
		if (last && is_mods(last + 1, strlen(last + 1))) {
			size_t cut = (size_t)(last - full);
			full[cut] = '\0';
			if (resolve_native(ev, full) == 0)
				return apply_mods(p, ev, s + cut + 1, len - cut - 1, pos + cut + 1);
		}
	}
	fill_suggestions(p, name, false);
	if (colon && !is_mods(mods, mlen))
		return fail(p, -HPM_ERR_UNKNOWN_EVENT, pos, s, len,
			    "unknown event '%.*s': not a generic event, tracepoint, PMU alias "
			    "or native event of this CPU", (int)len, s);
	return fail(p, -HPM_ERR_UNKNOWN_EVENT, pos, s, nlen,
		    "unknown event '%s'", name);
mods:
	if (colon)
		return apply_mods(p, ev, mods, mlen, pos + nlen + 1);
	return 0;
}

/* Length of the event at p->pos: up to ',' or '}' outside PMU slashes. */
static size_t event_extent(const char *s)
{
	size_t i = 0;
	bool mem = !strncmp(s, "mem:", 4);
	while (s[i] && is_ident_char(s[i]))
		i++;
	if (s[i] == '/' && !mem) {
		const char *close = strchr(s + i + 1, '/');
		if (!close)
			return strlen(s);
		i = (size_t)(close - s) + 1;
	}
	while (s[i] && s[i] != ',' && s[i] != '}' && s[i] != '{')
		i++;
	return i;
}

static int parse_event(struct parser *p, size_t leader)
{
	const char *s = p->spec + p->pos;
	size_t len = event_extent(s);
	size_t pos = p->pos;
	struct hpm_event *ev;
	int rc;

	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	if (len == 0)
		return fail(p, -HPM_ERR_SYNTAX, pos, s, s[0] ? 1 : 0,
			    "expected an event name%s%.1s%s", s[0] ? " before '" : "",
			    s, s[0] ? "'" : "");
	ev = append(p, s, len);
	if (!ev)
		return p->err->err ? p->err->err : -ENOMEM;
	size_t idx = p->list->nr - 1;
	ev->leader = leader == SIZE_MAX ? idx : leader;
	p->in_group = leader != SIZE_MAX;
	size_t ident = 0;
	while (ident < len && is_ident_char(s[ident]))
		ident++;
	if (!strncmp(s, "mem:", 4))
		rc = parse_breakpoint(p, ev, s, len, pos);
	else if (!strncmp(s, "exec:", 5) || !strncmp(s, "sw:", 3)) {
		/* executions of code, software counters: lib/location/location.c */
		char msg[256];
		size_t epos = 0;
		rc = hpm__parse_program_event(ev, s, len, leader != SIZE_MAX, &epos, msg,
					      sizeof(msg));
		if (rc)
			return fail(p, rc, pos + epos, s + epos, len - epos, "%s", msg);
	} else if (ident < len && s[ident] == '/')
		rc = parse_pmu_event(p, idx, s, len, pos);
	else
		rc = parse_named(p, ev, s, len, pos);
	if (rc)
		return rc;
	if (!hpm__event_is_location(&p->list->ev[idx]) && !hpm__event_is_marker(&p->list->ev[idx]))
		/* as perf: host only unless H or G says otherwise */
		for (size_t i = idx; i < p->list->nr; i++)
			if (!p->list->ev[i].explicit_gh)
				p->list->ev[i].attr.exclude_guest = 1;
	rc = expand_generic(p, idx);
	if (rc)
		return rc;
	p->pos += event_extent(s);
	return 0;
}

/*
 * A group some of whose events were expanded to several PMUs (parse_event)
 * becomes one group per PMU, as perf splits it: copy j holds event j of
 * each expanded one, and the events that were not expanded go with the
 * copy of their own core PMU (cpu_atom/.../ with the cpu_atom copy) or
 * else the first. Events [first, nr) of the list are the group.
 */
static int split_group(struct parser *p, size_t first)
{
	struct hpm_evlist *l = p->list;
	size_t n = l->nr - first, at = 0;
	unsigned copies = 1;
	struct hpm_event *v;
	size_t *item, *slot;

	for (size_t i = first; i < l->nr; i++)
		if (l->ev[i].nr_copies > copies)
			copies = l->ev[i].nr_copies;
	if (copies == 1)
		return 0;
	v = malloc(n * sizeof(*v));
	item = malloc(n * sizeof(*item));
	slot = malloc(n * sizeof(*slot));
	if (!v || !item || !slot) {
		free(v);
		free(item);
		free(slot);
		return -ENOMEM;
	}
	/* item[i]: the first event of the written event event i came from */
	for (size_t i = 0; i < n; i++) {
		const struct hpm_event *ev = &l->ev[first + i];
		item[i] = ev->copy ? item[i - 1] : i;
	}
	for (unsigned j = 0; j < copies; j++) {
		size_t lead = first + at;
		for (size_t i = 0; i < n; i++) {
			const struct hpm_event *ev = &l->ev[first + i];
			bool take;
			if (ev->nr_copies > 1) {
				take = ev->copy == j;
			} else {
				unsigned home = 0;
				for (unsigned c = 1; c < copies; c++)
					for (size_t k = 0; k < n; k++)
						if (l->ev[first + k].nr_copies > 1 &&
						    l->ev[first + k].copy == c &&
						    !strcmp(l->ev[first + k].pmu, ev->pmu))
							home = c;
				take = home == j;
			}
			if (!take)
				continue;
			v[at] = *ev;
			v[at].leader = lead;
			slot[i] = first + at;
			at++;
		}
	}
	/* merged instances point at their first one's new place */
	for (size_t i = 0; i < n; i++) {
		struct hpm_event *ev = &v[slot[i] - first];
		ev->merge = ev->merged_name ? slot[item[i]] : slot[i];
	}
	memcpy(&l->ev[first], v, n * sizeof(*v));
	free(v);
	free(item);
	free(slot);
	return 0;
}

static void skip_space(struct parser *p)
{
	while (isspace((unsigned char)p->spec[p->pos]))
		p->pos++;
}

static int parse_group(struct parser *p)
{
	size_t open = p->pos++;
	size_t first = p->list->nr;
	int rc;

	for (;;) {
		skip_space(p);
		rc = parse_event(p, first);
		if (rc)
			return rc;
		skip_space(p);
		char c = p->spec[p->pos];
		if (c == ',') {
			p->pos++;
			continue;
		}
		if (c == '}')
			break;
		if (c == '{')
			return fail(p, -HPM_ERR_SYNTAX, p->pos, "{", 1, "groups cannot be nested");
		return fail(p, -HPM_ERR_SYNTAX, open, "{", 1, "'{' at offset %zu is never closed",
			    open);
	}
	p->pos++; /* '}' */
	if (p->spec[p->pos] == ':') {
		const char *m = p->spec + ++p->pos;
		size_t mlen = 0;
		while (m[mlen] && m[mlen] != ',' && !isspace((unsigned char)m[mlen]))
			mlen++;
		for (size_t i = first; i < p->list->nr; i++) {
			rc = apply_mods(p, &p->list->ev[i], m, mlen, p->pos);
			if (rc)
				return rc;
		}
		p->pos += mlen;
	}
	return split_group(p, first);
}

int hpm_evlist__add(struct hpm_evlist *list, const char *spec,
		    struct hpm_parse_error *err)
{
	return hpm_evlist__add_flags(list, spec, 0, err);
}

int hpm_evlist__add_flags(struct hpm_evlist *list, const char *spec, unsigned flags,
			  struct hpm_parse_error *err)
{
	struct parser p = { .list = list, .spec = spec, .flags = flags };
	size_t start_nr = list->nr;
	int rc = 0;

	p.err = err ? err : &p.local;
	memset(p.err, 0, sizeof(*p.err));
	if (flags & ~HPM_EVLIST_MAIN_CORE)
		return p.err->err = -EINVAL;
	if (!spec) {
		return fail(&p, -HPM_ERR_SYNTAX, 0, NULL, 0, "no event specification");
	}
	for (;;) {
		skip_space(&p);
		if (!spec[p.pos]) {
			rc = fail(&p, -HPM_ERR_SYNTAX, p.pos, "", 0,
				  p.pos ? "expected an event after ','" : "empty event specification");
			break;
		}
		if (spec[p.pos] == '{')
			rc = parse_group(&p);
		else if (spec[p.pos] == '}')
			rc = fail(&p, -HPM_ERR_SYNTAX, p.pos, "}", 1, "'}' without a matching '{'");
		else
			rc = parse_event(&p, SIZE_MAX);
		if (rc)
			break;
		skip_space(&p);
		if (!spec[p.pos])
			break;
		if (spec[p.pos] != ',') {
			rc = fail(&p, -HPM_ERR_SYNTAX, p.pos, spec + p.pos, 1,
				  "unexpected '%c' after an event (separate events with ',')",
				  spec[p.pos]);
			break;
		}
		p.pos++;
	}
	if (rc) {
		for (size_t i = start_nr; i < list->nr; i++) {
			free(list->ev[i].name);
			free(list->ev[i].merged_name);
		}
		list->nr = start_nr;
		if (!p.err->err)
			p.err->err = rc;
	}
	return rc;
}

int hpm_evlist__parse(struct hpm_ctx *ctx, const char *spec,
		      struct hpm_evlist **out, struct hpm_parse_error *err)
{
	return hpm__evlist_parse_flags(ctx, spec, 0, out, err);
}

int hpm__evlist_parse_flags(struct hpm_ctx *ctx, const char *spec, unsigned flags,
			    struct hpm_evlist **out, struct hpm_parse_error *err)
{
	struct hpm_evlist *l = hpm_evlist__new(ctx);
	int rc;

	*out = NULL;
	if (!l)
		return -errno;
	rc = hpm_evlist__add_flags(l, spec, flags, err);
	if (rc) {
		hpm_evlist__free(l);
		return rc;
	}
	*out = l;
	return 0;
}
