/* SPDX-License-Identifier: MIT */
/*
 * Which form an event is written in, and the named forms resolved
 * (spec-attrs-internal.h): generic names and raw codes, TYPE:CONFIG,
 * tracepoints, sysfs aliases written bare, libpfm4 natives, PAPI presets,
 * breakpoints; NAME/terms/ and SUBSYS:NAME/terms/. Pure: reads sysfs and
 * tracefs under the context's roots and libpfm4's tables, never opens a
 * counter.
 *
 *   event  := PMU '/' terms '/' [[':'] mods]
 *           | 'mem:' ADDR ['/' LEN] [':' ACCESS] [':' mods]
 *           | NAME [':' mods]           generic, rNNNN, sysfs alias
 *           | SUBSYS ':' NAME [':' mods] tracepoint
 *           | NATIVE(':' UMASK)*        libpfm4
 *           | 'exec:' ... | 'sw:' NAME  (events/program-event.c)
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/hw_breakpoint.h>

#include "events/generic-internal.h"
#include "events/spec-attrs-internal.h"
#include "events/spec-terms-internal.h"
#include "events/spec-tokens-internal.h"
#include "events/pfm-internal.h"
#include "events/preset-internal.h"

/* ---- event forms ---- */

/* mem:ADDR[/LEN][:ACCESS][:mods] */
static int parse_breakpoint(struct hpm_resolver *p, struct hpm_event *ev,
			    const char *s, size_t len, size_t pos)
{
	const char *a = s + 4, *e = s + len;
	const char *colon = memchr(a, ':', (size_t)(e - a));
	const char *slash = memchr(a, '/', (size_t)((colon ? colon : e) - a));
	const char *aend = slash ? slash : (colon ? colon : e);
	uint64_t addr, blen = 0;
	unsigned type = HW_BREAKPOINT_R | HW_BREAKPOINT_W;

	if (hpm__parse_u64(a, (size_t)(aend - a), &addr))
		return hpm_resolver__fail(p, -HPM_ERR_BAD_VALUE, pos + 4, a, (size_t)(aend - a),
			    "breakpoint address '%.*s' is not a number (write mem:0xADDR)",
			    (int)(aend - a), a);
	if (slash) {
		const char *lend = colon ? colon : e;
		if (hpm__parse_u64(slash + 1, (size_t)(lend - slash - 1), &blen) ||
		    (blen != 1 && blen != 2 && blen != 4 && blen != 8))
			return hpm_resolver__fail(p, -HPM_ERR_BAD_VALUE, pos + (size_t)(slash + 1 - s), slash + 1,
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
		if (!ok && !c2 && hpm__is_mods(acc, alen)) {
			/* mem:ADDR:u -- modifiers without an access type */
			c2 = colon;
		} else if (!ok) {
			return hpm_resolver__fail(p, -HPM_ERR_BAD_MODIFIER, pos + (size_t)(acc - s), acc, alen,
				    "breakpoint access '%.*s' must be r, w, rw or x",
				    (int)alen, acc);
		} else {
			type = x ? HW_BREAKPOINT_X
				 : (unsigned)((r ? HW_BREAKPOINT_R : 0) | (w ? HW_BREAKPOINT_W : 0));
		}
		if (c2) {
			int rc = hpm_resolver__mods(p, ev, c2 + 1, (size_t)(e - c2 - 1),
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
	/* as perf 6.1 names it: its event name ends at the first '/', so
	 * mem:0/1 and mem:0/4:rw:u are mem:0 */
	return slash ? hpm_resolver__rename(ev, s, (size_t)(slash - s)) : 0;
}

/* rNNNN or, as perf also takes it, r0xNNNN */
static int parse_raw(const char *s, size_t len, uint64_t *cfg)
{
	size_t from = 1;

	if (len >= 4 && s[0] == 'r' && s[1] == '0' && (s[2] == 'x' || s[2] == 'X'))
		from = 3;
	if (len <= from || len - from > 16 || s[0] != 'r')
		return -1;
	for (size_t i = from; i < len; i++)
		if (!isxdigit((unsigned char)s[i]))
			return -1;
	char buf[20];
	memcpy(buf, s + from, len - from);
	buf[len - from] = '\0';
	*cfg = strtoull(buf, NULL, 16);
	return 0;
}

struct type_find {
	const struct hpm_ctx *ctx;
	uint32_t type;
	char *pmu;
};

static int type_find_cb(const char *name, void *arg)
{
	struct type_find *tf = arg;
	uint32_t type;

	if (hpm_pmu__type(tf->ctx, name, &type) || type != tf->type)
		return 0;
	snprintf(tf->pmu, HPM_PMU_NAME_MAX, "%s", name);
	return 1;
}

/*
 * TYPE:CONFIG, perf's numeric form (1:1 is task-clock, 4:0x3c a raw code
 * of the PMU of type 4): -ENOENT when @s is not two numbers.
 */
static int parse_numeric(struct hpm_resolver *p, struct hpm_event *ev, const char *s,
			 size_t tlen, const char *c, size_t clen, size_t pos)
{
	uint64_t type, config;
	struct type_find tf = { .ctx = p->list->ctx, .pmu = ev->pmu };

	if (hpm__parse_u64(s, tlen, &type) || hpm__parse_u64(c, clen, &config))
		return -ENOENT;
	if (type > UINT32_MAX)
		return hpm_resolver__fail(p, -HPM_ERR_BAD_VALUE, pos, s, tlen,
			    "PMU type %.*s is out of range (the types are 32-bit)", (int)tlen, s);
	ev->attr.type = tf.type = (uint32_t)type;
	ev->attr.config = config;
	switch (type) {
	case PERF_TYPE_HARDWARE: ev->kind = HPM_EV_GENERIC_HW; break;
	case PERF_TYPE_HW_CACHE: ev->kind = HPM_EV_GENERIC_CACHE; break;
	case PERF_TYPE_SOFTWARE: ev->kind = HPM_EV_SOFTWARE; break;
	case PERF_TYPE_TRACEPOINT: ev->kind = HPM_EV_TRACEPOINT; break;
	case PERF_TYPE_BREAKPOINT: ev->kind = HPM_EV_BREAKPOINT; break;
	case PERF_TYPE_RAW: ev->kind = HPM_EV_RAW; break;
	default: ev->kind = HPM_EV_PMU; break;
	}
	if (type == PERF_TYPE_TRACEPOINT)
		ev->attr.sample_period = 1;
	/* the PMU of that type, for display and its CPUs; the kernel is the
	 * judge of a type no sysfs PMU has */
	if (type == PERF_TYPE_SOFTWARE)
		snprintf(ev->pmu, sizeof(ev->pmu), "software");
	else if ((type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE) &&
		 hpm_pmu__core_name(p->list->ctx, ev->pmu, sizeof(ev->pmu)) == 0)
		;
	else if (hpm_pmu__foreach(p->list->ctx, type_find_cb, &tf) == 1)
		hpm_pmu__cpus(p->list->ctx, ev->pmu, ev->cpus, sizeof(ev->cpus));
	else
		snprintf(ev->pmu, sizeof(ev->pmu), "%s",
			 type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE ? "cpu" : "");
	return 0;
}

static int try_tracepoint(struct hpm_resolver *p, struct hpm_event *ev,
			  const char *sys, size_t slen, const char *name, size_t nlen)
{
	const char *root = hpm__ctx_tracefs(p->list->ctx); /* may mount it */
	char path[PATH_MAX];
	long id;

	if (!root || !slen || !nlen)
		return -ENOENT;
	for (size_t i = 0; i < slen; i++)
		if (!hpm__is_ident_char(sys[i]) || sys[i] == '.')
			return -ENOENT;
	for (size_t i = 0; i < nlen; i++)
		if (!hpm__is_ident_char(name[i]) || name[i] == '.')
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
static int parse_preset(struct hpm_resolver *p, struct hpm_event *ev, const char *s,
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
		rc = hpm_resolver__fail(p, rc, pos, s, len, "%s", x->msg);
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
		    p->parse_list(p->list->ctx, x->term[i].spec, p->flags | HPM_EVLIST_MAIN_CORE,
				  &sub, &se) ||
		    sub->nr != 1) {
			rc = hpm_resolver__fail(p, sub ? -HPM_ERR_UNKNOWN_EVENT : se.err, pos, s, len,
				  "%.*s is counted with '%s' here: %s", (int)len, s,
				  x->term[i].spec, sub ? "not one event" : se.msg);
			hpm_evlist__free(sub);
			goto out;
		}
		dst = i ? hpm_resolver__append(p, x->term[i].name, strlen(x->term[i].name)) : &p->list->ev[idx];
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
static int parse_named(struct hpm_resolver *p, struct hpm_event *ev,
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
		return hpm_resolver__fail(p, -HPM_ERR_SYNTAX, pos, s, 1, "missing event name");
	if (nlen >= sizeof(name))
		return hpm_resolver__fail(p, -HPM_ERR_UNKNOWN_EVENT, pos, s, nlen, "event name too long");
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
		if (hpm_evlist__cores(p->list) > 1) {
			snprintf(ev->pmu, sizeof(ev->pmu), "%s", p->list->core[0].name);
			snprintf(ev->cpus, sizeof(ev->cpus), "%s", p->list->core[0].cpus);
		}
		goto mods;
	}
	/* 2. tracepoint subsys:name[:mods] */
	if (colon) {
		const char *c2 = memchr(mods, ':', mlen);
		size_t tlen = c2 ? (size_t)(c2 - mods) : mlen;
		rc = parse_numeric(p, ev, s, nlen, mods, tlen, pos);
		if (rc != -ENOENT) {
			if (rc || !c2)
				return rc;
			return hpm_resolver__mods(p, ev, c2 + 1, len - (size_t)(c2 + 1 - s),
					  pos + (size_t)(c2 + 1 - s));
		}
		if (hpm__is_wildcard(s, nlen) || hpm__is_wildcard(mods, tlen))
			return hpm_resolver__tracepoints(p, (size_t)(ev - p->list->ev), s, nlen, mods,
						       tlen, c2 ? c2 + 1 : NULL,
						       c2 ? len - (size_t)(c2 + 1 - s) : 0, pos);
		if (try_tracepoint(p, ev, s, nlen, mods, tlen) == 0) {
			if (!c2)
				return 0;
			rc = hpm_resolver__mods(p, ev, c2 + 1, len - (size_t)(c2 + 1 - s),
					      pos + (size_t)(c2 + 1 - s));
			/* as perf: a tracepoint is named SUBSYS:NAME, its
			 * modifiers not part of the name */
			return rc ? rc : hpm_resolver__rename(ev, s, (size_t)(c2 - s));
		}
	}
	/* 3. an alias of some PMU, written without the PMU */
	p->nr_pending = 0;
	rc = hpm_resolver__bare_alias(p, ev, s, nlen, pos);
	if (rc == 0 && p->nr_pending)
		return hpm_resolver__fail(p, -HPM_ERR_BAD_VALUE, pos, s, nlen,
			    "event '%s' needs a value for '%s': write %s/%s,%s=N/", name,
			    p->pending[0], ev->pmu, name, p->pending[0]);
	if (rc == 0)
		goto mods;
	if (rc != -ENOENT)
		return rc;
	/* 3b. an event of the vendor's table for this model (INST_RETIRED.ANY) */
	rc = hpm_resolver__vendor_event(p, (size_t)(ev - p->list->ev), s, len, nlen, pos);
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
		if (last && hpm__is_mods(last + 1, strlen(last + 1))) {
			size_t cut = (size_t)(last - full);
			full[cut] = '\0';
			if (resolve_native(ev, full) == 0)
				return hpm_resolver__mods(p, ev, s + cut + 1, len - cut - 1, pos + cut + 1);
		}
	}
	hpm_resolver__suggest(p, name, false);
	if (hpm__is_wildcard(name, nlen))
		return hpm_resolver__fail(p, -HPM_ERR_UNKNOWN_EVENT, pos, s, nlen,
			    "'%s' holds a wildcard, and wildcards match tracepoints only "
			    "(SUBSYS:NAME: sched:sched_*, *:*), not %s", name,
			    memchr(name, '/', nlen) ? "PMU names or terms" : "other event names");
	if (colon && !hpm__is_mods(mods, mlen)) {
		rc = hpm_resolver__tracefs_unreachable(p, s, len, pos, false);
		if (!rc)
			rc = hpm_resolver__tracepoint_unknown(p, s, len, pos);
		if (rc)
			return rc;
		return hpm_resolver__fail(p, -HPM_ERR_UNKNOWN_EVENT, pos, s, len,
			    "unknown event '%.*s': not a generic event, tracepoint, PMU alias "
			    "or native event of this CPU", (int)len, s);
	}
	return hpm_resolver__fail(p, -HPM_ERR_UNKNOWN_EVENT, pos, s, nlen,
		    "unknown event '%s'", name);
mods:
	if (!colon)
		return 0;
	rc = hpm_resolver__mods(p, ev, mods, mlen, pos + nlen + 1);
	/* as perf 6.1: a cache event is named by its words, without the
	 * modifiers (L1-dcache-load-miss:kp is L1-dcache-load-miss) */
	if (!rc && ev->kind == HPM_EV_GENERIC_CACHE)
		rc = hpm_resolver__rename(ev, s, nlen);
	return rc;
}

/*
 * Does the word before '/' name an event that takes terms though it is no
 * sysfs PMU: a generic event, a raw code, TYPE:CONFIG (perf's
 * cycles/period=1000/, r1234/name=x/, 4:0x3c/name=y/)?
 */
static bool takes_event_terms(const char *s, size_t len)
{
	struct perf_event_attr a = { 0 };
	char name[64];
	const char *colon = memchr(s, ':', len);
	uint64_t v;

	if (!len || len >= sizeof(name))
		return false;
	memcpy(name, s, len);
	name[len] = '\0';
	if (colon)
		return !hpm__parse_u64(s, (size_t)(colon - s), &v) &&
		       !hpm__parse_u64(colon + 1, len - (size_t)(colon - s) - 1, &v);
	return hpm_generic__resolve(name, &a) == 0 || parse_raw(name, len, &v) == 0;
}

/* The terms of @e are closed, or the error that they are not. */
static int terms_closed(struct hpm_resolver *p, const struct hpm_spec_event *e)
{
	if (e->close == e->len)
		return hpm_resolver__fail(p, -HPM_ERR_SYNTAX, e->pos + e->len, e->s, e->len,
					  "'%.*s' lacks the '/' that closes its terms",
					  (int)e->len, e->s);
	return 0;
}

/* BASE '/' terms '/' [[:]mods]: @base is a breakpoint or an event
 * takes_event_terms accepts. */
static int parse_with_terms(struct hpm_resolver *p, size_t idx, const struct hpm_spec_event *e)
{
	struct hpm_event *ev = &p->list->ev[idx];
	const char *s = e->s, *m = e->mods;
	size_t open = e->open, close = e->close, mlen = e->mlen, pos = e->pos;
	int rc = terms_closed(p, e);

	if (rc)
		return rc;
	if (!strncmp(s, "mem:", 4))
		rc = parse_breakpoint(p, ev, s, open, pos);
	else
		rc = parse_named(p, ev, s, open, pos);
	if (rc)
		return rc;
	rc = hpm_resolver__event_terms(p, idx, s, open, s + open + 1, close - open - 1,
				     pos + open + 1);
	if (rc)
		return rc;
	return mlen ? hpm_resolver__mods(p, &p->list->ev[idx], m, mlen, pos + (size_t)(m - s)) : 0;
}

/* SUBSYS:NAME before a '/' (wildcards too): a tracepoint with terms, as
 * perf takes record's terms on one (sched:sched_switch/call-graph=dwarf/).
 * TYPE:CONFIG, mem:, exec: and sw: are other forms. */
static bool tracepoint_base(const char *s, size_t len)
{
	const char *colon = memchr(s, ':', len);
	uint64_t v;

	if (!colon || colon == s || (size_t)(colon - s) + 1 == len ||
	    memchr(colon + 1, ':', len - (size_t)(colon - s) - 1))
		return false;
	if (!strncmp(s, "mem:", 4) || !strncmp(s, "exec:", 5) || !strncmp(s, "sw:", 3))
		return false;
	return hpm__parse_u64(s, (size_t)(colon - s), &v) != 0;
}

/* SUBSYS:NAME '/' terms '/' [[:]mods]: the tracepoint, or every one a
 * pattern matches, each with the terms and the modifiers. */
static int parse_tracepoint_terms(struct hpm_resolver *p, size_t idx,
				  const struct hpm_spec_event *e)
{
	const char *s = e->s, *m = e->mods;
	size_t open = e->open, close = e->close, mlen = e->mlen, pos = e->pos;
	int rc = terms_closed(p, e);

	if (!rc)
		rc = parse_named(p, &p->list->ev[idx], s, open, pos);
	if (rc)
		return rc;
	for (size_t i = idx; i < p->list->nr; i++) {
		struct hpm_event *ev = &p->list->ev[i];
		if (ev->kind != HPM_EV_TRACEPOINT)
			return hpm_resolver__fail(p, -HPM_ERR_UNKNOWN_TERM, pos + open, s + open,
				    close - open + 1, "'%.*s' is no tracepoint, and takes no terms",
				    (int)open, s);
		rc = hpm_resolver__record_terms(p, ev, s, open, s + open + 1, close - open - 1,
					      pos + open + 1);
		if (!rc && mlen)
			rc = hpm_resolver__mods(p, ev, m, mlen, pos + (size_t)(m - s));
		if (rc)
			return rc;
	}
	return 0;
}

int hpm_resolver__event(struct hpm_resolver *p, size_t idx, const struct hpm_spec_event *e)
{
	struct hpm_event *ev = &p->list->ev[idx];
	const char *s = e->s;
	size_t len = e->len, pos = e->pos;

	if (!strncmp(s, "mem:", 4) && e->open == len)
		return parse_breakpoint(p, ev, s, len, pos);
	if (!strncmp(s, "exec:", 5) || !strncmp(s, "sw:", 3)) {
		/* executions of code, software counters: events/program-event.c */
		char msg[256];
		size_t epos = 0;
		int rc = hpm__parse_program_event(ev, s, len, p->in_group, &epos, msg, sizeof(msg));
		if (rc)
			return hpm_resolver__fail(p, rc, pos + epos, s + epos, len - epos, "%s", msg);
		return 0;
	}
	if (e->open < len && (!strncmp(s, "mem:", 4) || takes_event_terms(s, e->open)))
		return parse_with_terms(p, idx, e);
	if (e->open < len && tracepoint_base(s, e->open))
		return parse_tracepoint_terms(p, idx, e);
	if (e->ident < len && s[e->ident] == '/')
		return hpm_resolver__pmu_event(p, idx, e);
	return parse_named(p, ev, s, len, pos);
}
