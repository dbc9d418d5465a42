/* SPDX-License-Identifier: MIT */
/*
 * The resolver's state (events/spec-attrs-internal.h), below every other
 * file of the attrs stage: its errors, the events it appends to the list,
 * and modifiers applied to an event.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/spec-attrs-internal.h"
#include "events/spec-terms-internal.h"

int hpm_resolver__fail(struct hpm_resolver *p, int code, size_t pos, const char *tok,
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

struct hpm_event *hpm_resolver__append(struct hpm_resolver *p, const char *name, size_t len)
{
	struct hpm_evlist *l = p->list;
	struct hpm_event *ev;

	if (l->nr >= HPM_MAX_EVENTS) {
		hpm_resolver__fail(p, -HPM_ERR_TOO_MANY, p->pos, name, len,
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

/* ---- modifiers ---- */

/*
 * Apply modifier letters @m (length @len) as perf does: u/k/h select
 * privilege levels (anything not named is excluded), H/G host/guest,
 * p precise (repeatable), P maximum precision, D pinned, I exclude_idle,
 * e exclusive, S sample-read, W weak group (accepted, no attr effect).
 *
 * Like perf's, modifiers add to what the event already has: a group's
 * modifiers ({faults:k,cache-references}:u) widen each member's own, so
 * faults counts kernel and user; its 'p' raises each member's precise
 * level ({cycles:u,instructions:kp}:p gives instructions pp); its H or G
 * adds to a member's own ({a,b:G}:H counts b in host and guest).
 *
 * exclude_guest as perf 6.1 sets it (util/parse-events.c,
 * get_event_modifier): an event without modifiers counts the host only;
 * its own modifiers start from 0, and only u or p (precise needs it)
 * set it, so cycles:k, instructions:I, task-clock:P or :D count guest
 * too; a group's (@group) keep what each member has, and u or p set it;
 * H or G, once written, decide it alone.
 */
static int apply_mods(struct hpm_resolver *p, struct hpm_event *ev, const char *m,
		      size_t len, size_t pos, bool group)
{
	struct perf_event_attr *a = &ev->attr;
	/* the levels already chosen (by the event's own modifiers) */
	bool priv = ev->explicit_priv, gh = ev->explicit_gh;
	unsigned eu = priv && a->exclude_user, ek = priv && a->exclude_kernel;
	unsigned eh = priv && a->exclude_hv;
	unsigned eH = gh && a->exclude_host, eG = gh && a->exclude_guest;
	struct hpm_spec_mods x;

	if (len == 0)
		return hpm_resolver__fail(p, -HPM_ERR_BAD_MODIFIER, pos, m, 0,
			    "empty modifier after ':' (valid: u k h H G p pp ppp P D I e S W)");
	hpm_spec_mods__read(m, len, &x);
	if (x.bad < len)
		return hpm_resolver__fail(p, -HPM_ERR_BAD_MODIFIER, pos + x.bad, m, len,
			    "unknown modifier '%c' in ':%.*s' (valid: u k h H G p pp ppp P D I e S W)",
			    m[x.bad], (int)len, m);
	/* 'p' raises the level, 'P' sets the highest: the 'p's after it add */
	unsigned pr = x.P ? 3 + x.p_after_P : a->precise_ip + x.p;
	if (x.D)
		a->pinned = 1;
	if (x.I)
		a->exclude_idle = 1;
	if (x.e)
		a->exclusive = 1;
	if (x.S)
		a->sample_type |= PERF_SAMPLE_READ;
	if (x.p > 3)
		return hpm_resolver__fail(p, -HPM_ERR_BAD_MODIFIER, pos, m, len,
			    "at most three 'p' (precise levels 0-3) in ':%.*s'", (int)len, m);
	if (pr > 3)
		return hpm_resolver__fail(p, -HPM_ERR_BAD_MODIFIER, pos, m, len,
			    "':%.*s' raises event '%s' above precise level 3 (its own modifiers "
			    "and its group's add up)", (int)len, m, ev->name);
	if (x.u > 1 || x.k > 1 || x.h > 1 || x.H > 1 || x.G > 1)
		return hpm_resolver__fail(p, -HPM_ERR_BAD_MODIFIER, pos, m, len,
			    "repeated modifier in ':%.*s'", (int)len, m);
	if (x.u || x.k || x.h) {
		if (!priv)
			eu = ek = eh = 1; /* the first level named excludes the others */
		a->exclude_user = eu && !x.u;
		a->exclude_kernel = ek && !x.k;
		a->exclude_hv = eh && !x.h;
		ev->explicit_priv = true;
	}
	if (x.H || x.G) {
		/* H: host only, G: guest only, both: either */
		if (!gh)
			eH = eG = 1;
		a->exclude_guest = eG && !x.G;
		a->exclude_host = eH && !x.H;
		ev->explicit_gh = true;
	} else if (!gh && !hpm__event_is_location(ev) && !hpm__event_is_marker(ev)) {
		if (!group)
			a->exclude_guest = x.u || x.p;
		else if (x.u || x.p)
			a->exclude_guest = 1;
	}
	if (!group)
		ev->own_mods = true;
	a->precise_ip = pr;
	return 0;
}

int hpm_resolver__mods(struct hpm_resolver *p, struct hpm_event *ev, const char *m,
		       size_t len, size_t pos)
{
	return apply_mods(p, ev, m, len, pos, false);
}

int hpm_resolver__group_mods(struct hpm_resolver *p, struct hpm_event *ev, const char *m,
			     size_t len, size_t pos)
{
	return apply_mods(p, ev, m, len, pos, true);
}

int hpm_resolver__rename(struct hpm_event *ev, const char *s, size_t len)
{
	if (strncmp(ev->name, s, len))
		return 0;
	char *n = strndup(s, len);
	if (!n)
		return -ENOMEM;
	free(ev->name);
	ev->name = n;
	return 0;
}
