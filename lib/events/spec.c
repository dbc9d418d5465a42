/* SPDX-License-Identifier: MIT */
/*
 * Event specifications in perf's syntax into the event list
 * (hpmon/event.h: hpm_evlist__parse, hpm_evlist__add): the way of one
 * specification through the three stages, one way, each handing its
 * output to the next and none calling an earlier one back:
 *
 *   tokens  (spec-tokens.c)  the list and its groups read: each event's
 *                            text, each group's name and modifiers, the
 *                            syntax errors in their place
 *   terms   (spec-terms.c)   an event's text cut: the word, the terms
 *                            between its '/'s, the modifiers
 *   attrs   (spec-attrs*.c)  those parts resolved against the machine's
 *                            PMUs into perf_event_attr, appended to the
 *                            list; a group's modifiers, and the group split
 *                            per core PMU
 *
 * This file only runs them, in the order the specification is read, and
 * undoes the list when one fails: the first error met is the one said, at
 * the offset it was written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/spec-attrs-internal.h"
#include "events/spec-terms-internal.h"
#include "events/spec-tokens-internal.h"

_Static_assert(HPM_SPEC_GROUP_MAX == sizeof(((struct hpm_event *)0)->group),
	       "a group's name as the tokens read it fits an event's");
_Static_assert(HPM_SPEC_MSG_MAX == sizeof(((struct hpm_parse_error *)0)->msg),
	       "a syntax error's sentence as the tokens say it fits the report");

/* Event token @tok: appended to the list (its own leader, or a member of
 * the group that starts at @leader), resolved, then aimed at each core
 * PMU it stands for. */
static int event(struct hpm_resolver *p, const struct hpm_spec_token *tok, size_t leader)
{
	struct hpm_spec_event e;
	struct hpm_event *ev;
	int rc;

	hpm_spec_event__cut(&e, tok->s, tok->len, tok->pos);
	p->pos = e.pos;
	ev = hpm_resolver__append(p, e.s, e.len);
	if (!ev)
		return p->err->err ? p->err->err : -ENOMEM;
	size_t idx = p->list->nr - 1;
	ev->leader = leader == SIZE_MAX ? idx : leader;
	p->in_group = leader != SIZE_MAX;
	rc = hpm_resolver__event(p, idx, &e);
	if (rc)
		return rc;
	if (!hpm__event_is_location(&p->list->ev[idx]) && !hpm__event_is_marker(&p->list->ev[idx]))
		/* as perf: host only unless modifiers say otherwise
		 * (hpm_resolver__mods) */
		for (size_t i = idx; i < p->list->nr; i++)
			if (!p->list->ev[i].explicit_gh && !p->list->ev[i].own_mods)
				p->list->ev[i].attr.exclude_guest = 1;
	if (leader != SIZE_MAX && idx != leader &&
	    (p->list->ev[idx].attr.pinned || p->list->ev[idx].attr.exclusive))
		return hpm_resolver__fail(p, -HPM_ERR_BAD_MODIFIER, e.pos, e.s, e.len,
			    "'%.*s': only a group's leader can be pinned (D) or exclusive (e); "
			    "the kernel refuses a member so: put it on the group, {...}:%c",
			    (int)e.len, e.s, p->list->ev[idx].attr.pinned ? 'D' : 'e');
	return hpm_resolver__expand_generic(p, idx);
}

/* The group of events [first, nr) closes (@tok: its modifiers), named
 * @group. */
static int group_end(struct hpm_resolver *p, const struct hpm_spec_token *tok, size_t first,
		     const char *group)
{
	int rc;

	if (tok->s)
		for (size_t i = first; i < p->list->nr; i++) {
			rc = hpm_resolver__group_mods(p, &p->list->ev[i], tok->s, tok->len,
						      tok->pos);
			if (rc)
				return rc;
		}
	rc = hpm_resolver__split_group(p, first);
	if (rc)
		return rc;
	/* :D and :e on a group pin or reserve the group through its leader:
	 * the kernel refuses either on a member (as perf, leaders only) */
	for (size_t i = first; i < p->list->nr; i++)
		if (p->list->ev[i].leader != i)
			p->list->ev[i].attr.pinned = p->list->ev[i].attr.exclusive = 0;
		else /* each copy of a group split over core PMUs keeps the name */
			snprintf(p->list->ev[i].group, sizeof(p->list->ev[i].group), "%s", group);
	return 0;
}

int hpm_evlist__add(struct hpm_evlist *list, const char *spec,
		    struct hpm_parse_error *err)
{
	return hpm_evlist__add_flags(list, spec, 0, err);
}

int hpm_evlist__add_flags(struct hpm_evlist *list, const char *spec, unsigned flags,
			  struct hpm_parse_error *err)
{
	struct hpm_resolver p = { .list = list, .flags = flags,
				  .parse_list = hpm__evlist_parse_flags };
	struct hpm_spec_tokens tk;
	struct hpm_spec_token tok;
	size_t start_nr = list->nr, first = SIZE_MAX;
	char group[HPM_SPEC_GROUP_MAX] = "";
	int rc = 0;

	p.err = err ? err : &p.local;
	memset(p.err, 0, sizeof(*p.err));
	if (flags & ~HPM_EVLIST_MAIN_CORE)
		return p.err->err = -EINVAL;
	if (!spec) {
		return hpm_resolver__fail(&p, -HPM_ERR_SYNTAX, 0, NULL, 0, "no event specification");
	}
	if (hpm_spec_tokens__init(&tk, spec))
		return p.err->err = -ENOMEM;
	for (hpm_spec_tokens__next(&tk, &tok); tok.kind != HPM_TOK_END && !rc;
	     hpm_spec_tokens__next(&tk, &tok)) {
		switch (tok.kind) {
		case HPM_TOK_EVENT:
			rc = event(&p, &tok, first);
			break;
		case HPM_TOK_GROUP:
			first = list->nr;
			snprintf(group, sizeof(group), "%.*s", (int)tok.len, tok.s);
			break;
		case HPM_TOK_GROUP_END:
			rc = group_end(&p, &tok, first, group);
			first = SIZE_MAX;
			break;
		case HPM_TOK_ERROR:
			rc = hpm_resolver__fail(&p, tok.err, tok.pos, tok.s, tok.len, "%s", tok.msg);
			break;
		case HPM_TOK_END:
			break;
		}
	}
	if (rc) {
		for (size_t i = start_nr; i < list->nr; i++) {
			free(list->ev[i].name);
			free(list->ev[i].merged_name);
		}
		list->nr = start_nr;
		if (!p.err->err)
			p.err->err = rc;
		p.err->pos = hpm_spec_tokens__written(&tk, p.err->pos); /* where it was written */
	}
	hpm_spec_tokens__release(&tk);
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
