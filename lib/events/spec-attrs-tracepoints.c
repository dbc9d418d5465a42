/* SPDX-License-Identifier: MIT */
/*
 * Tracepoint wildcards (spec-attrs-internal.h), as perf takes them: syscalls:*, sched:sched_*,
 * *:* (with modifiers) stand for every tracepoint of the context's tracefs
 * root whose subsystem and name match, one event each, in name order. And
 * why a tracepoint cannot be looked up: tracefs cannot be read, or its
 * subsystem has no tracepoint of that name.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/suggest-internal.h"
#include "events/spec-attrs-internal.h"
#include "events/spec-tokens-internal.h"

struct tp_expand {
	struct hpm_resolver *p;
	size_t idx, matched;
	const char *mods;
	size_t mlen, mpos;
};

/* Tracepoint @sys:@name (id @id) as the next event of the expansion. */
static int add_one(struct tp_expand *x, const char *sys, const char *name, long id)
{
	struct hpm_resolver *p = x->p;
	struct hpm_event *ev;
	char *full = NULL;
	int rc;

	/* as perf: SUBSYS:NAME, the modifiers not part of the name */
	if (asprintf(&full, "%s:%s", sys, name) < 0)
		return -ENOMEM;
	if (x->matched == 0) {
		ev = &p->list->ev[x->idx];
		free(ev->name);
		ev->name = full;
	} else {
		size_t lead = p->list->ev[x->idx].leader;
		ev = hpm_resolver__append(p, full, strlen(full));
		free(full);
		if (!ev)
			return p->err->err ? p->err->err : -ENOMEM;
		/* each its own leader, or a member of the group it is written in */
		ev->leader = p->in_group ? lead : (size_t)(ev - p->list->ev);
	}
	x->matched++;
	ev->kind = HPM_EV_TRACEPOINT;
	ev->attr.type = PERF_TYPE_TRACEPOINT;
	ev->attr.config = (uint64_t)id;
	ev->attr.sample_period = 1;
	snprintf(ev->pmu, sizeof(ev->pmu), "tracepoint");
	rc = x->mlen ? hpm_resolver__mods(p, ev, x->mods, x->mlen, x->mpos) : 0;
	return rc;
}

int hpm_resolver__tracefs_unreachable(struct hpm_resolver *p, const char *s, size_t len,
				    size_t pos, bool pattern)
{
	const struct hpm_ctx *ctx = p->list->ctx;
	const char *root = hpm_ctx__tracefs_root(ctx);
	int why = hpm__ctx_tracefs_err(ctx);
	char lead[160], events[PATH_MAX];
	struct stat st;

	if (pattern)
		snprintf(lead, sizeof(lead), "tracepoint pattern '%.*s' needs tracefs", (int)len, s);
	else
		snprintf(lead, sizeof(lead), "cannot tell whether '%.*s' is a tracepoint",
			 (int)len, s);
	if (why == -EACCES) {
		unsigned mode = stat(ctx->tracefs_closed, &st) ? 0700 : st.st_mode & 07777;
		return hpm_resolver__fail(p, -EACCES, pos, s, len,
			"%s: tracefs (%s) is open to root only (mode %04o)", lead,
			ctx->tracefs_closed, mode);
	}
	/* not mounted on this machine */
	if (why && strcmp(ctx->sysfs, "/sys") == 0)
		return hpm_resolver__fail(p, -ENODEV, pos, s, len,
			"%s: tracefs is not mounted, and only root may mount it", lead);
	/* a recorded sysfs tree without one: the tool says how to give one */
	if (why)
		return hpm_resolver__fail(p, -ENOENT, pos, s, len,
			"%s: the sysfs root %s has none (looked for kernel/tracing/events and "
			"kernel/debug/tracing/events under it)", lead, ctx->sysfs);
	/* a tracefs root given that is none */
	if (root && (hpm__path(events, sizeof(events), root, "events") || stat(events, &st) ||
		     !S_ISDIR(st.st_mode)))
		return hpm_resolver__fail(p, -ENOENT, pos, s, len,
			"%s: the tracefs root %s has no events/ directory", lead, root);
	return 0;
}

int hpm_resolver__tracepoint_unknown(struct hpm_resolver *p, const char *s, size_t len, size_t pos)
{
	const char *root = hpm__ctx_tracefs(p->list->ctx);
	const char *colon = memchr(s, ':', len), *end;
	char sys[128], word[256], path[PATH_MAX], full[256];
	char **evs = NULL;
	size_t nevs = 0, slen, nlen;
	struct hpm_suggest sg;
	struct stat st;

	if (!root || !colon)
		return 0;
	slen = (size_t)(colon - s);
	end = memchr(colon + 1, ':', len - slen - 1);
	nlen = (size_t)((end ? end : s + len) - (colon + 1));
	if (!slen || !nlen || slen >= sizeof(sys) || slen + 1 + nlen >= sizeof(word) ||
	    hpm__is_wildcard(s, slen + 1 + nlen))
		return 0;
	snprintf(sys, sizeof(sys), "%.*s", (int)slen, s);
	/* a subsystem that is none ('..', 'a/b') or that tracefs lacks: the
	 * name may be meant as anything, and the caller says so */
	if (strchr(sys, '/') || sys[0] == '.' ||
	    hpm__path(path, sizeof(path), root, "events/%s", sys) || stat(path, &st) ||
	    !S_ISDIR(st.st_mode))
		return 0;
	/* the subsystem is there, so a tracepoint was meant: its closest
	 * names, written whole for the user to copy */
	snprintf(word, sizeof(word), "%.*s", (int)(slen + 1 + nlen), s);
	hpm_suggest__init(&sg, word, nlen <= 4 ? 2 : (unsigned)(nlen / 3 + 1),
			  HPM_SUGGEST_WHOLE);
	if (hpm__list_dir(path, true, &evs, &nevs) == 0) {
		for (size_t i = 0; i < nevs; i++) {
			snprintf(full, sizeof(full), "%s:%s", sys, evs[i]);
			hpm_suggest__offer(&sg, full);
		}
		hpm__free_names(evs, nevs);
	}
	hpm_suggest__format(&sg, p->err->suggest, sizeof(p->err->suggest));
	return hpm_resolver__fail(p, -HPM_ERR_UNKNOWN_EVENT, pos, s, len,
		"unknown tracepoint '%s': the subsystem %s has no tracepoint '%.*s' (%s; "
		"'hpmon list tracepoint' lists them)", word, sys, (int)nlen, colon + 1, path);
}

int hpm_resolver__tracepoints(struct hpm_resolver *p, size_t idx, const char *sys, size_t slen,
			    const char *name, size_t nlen, const char *mods, size_t mlen,
			    size_t pos)
{
	const char *root = hpm__ctx_tracefs(p->list->ctx); /* may mount it */
	struct tp_expand x = { .p = p, .idx = idx, .mods = mods, .mlen = mlen,
			       .mpos = mods ? pos + (size_t)(mods - sys) : 0 };
	char sglob[128], nglob[128], dir[PATH_MAX], path[PATH_MAX];
	char **subs = NULL, **evs = NULL;
	size_t nsubs = 0, nevs = 0;
	int rc;

	if (slen >= sizeof(sglob) || nlen >= sizeof(nglob))
		return hpm_resolver__fail(p, -HPM_ERR_UNKNOWN_EVENT, pos, sys, slen + 1 + nlen,
			    "tracepoint pattern too long");
	snprintf(sglob, sizeof(sglob), "%.*s", (int)slen, sys);
	snprintf(nglob, sizeof(nglob), "%.*s", (int)nlen, name);
	rc = hpm_resolver__tracefs_unreachable(p, sys, slen + 1 + nlen, pos, true);
	if (rc)
		return rc;
	if (!root || hpm__path(dir, sizeof(dir), root, "events"))
		return hpm_resolver__fail(p, -HPM_ERR_UNKNOWN_EVENT, pos, sys, slen + 1 + nlen,
			    "tracepoint pattern '%s:%s' needs tracefs, and none is known",
			    sglob, nglob);
	rc = hpm__list_dir(dir, true, &subs, &nsubs);
	if (rc)
		return hpm_resolver__fail(p, -HPM_ERR_UNKNOWN_EVENT, pos, sys, slen + 1 + nlen,
			    "cannot list the tracepoints of %s for '%s:%s': %s", dir, sglob,
			    nglob, strerror(-rc));
	for (size_t i = 0; i < nsubs && !rc; i++) {
		if (fnmatch(sglob, subs[i], 0))
			continue;
		if (hpm__path(path, sizeof(path), root, "events/%s", subs[i]) ||
		    hpm__list_dir(path, true, &evs, &nevs))
			continue;
		for (size_t j = 0; j < nevs && !rc; j++) {
			char idpath[PATH_MAX];
			long id;
			if (fnmatch(nglob, evs[j], 0) ||
			    hpm__path(idpath, sizeof(idpath), root, "events/%s/%s/id", subs[i],
				      evs[j]) ||
			    hpm__read_long(idpath, &id) || id < 0)
				continue; /* as perf: what cannot be read is left out */
			rc = add_one(&x, subs[i], evs[j], id);
		}
		hpm__free_names(evs, nevs);
		evs = NULL;
		nevs = 0;
	}
	hpm__free_names(subs, nsubs);
	if (rc)
		return rc;
	if (!x.matched)
		return hpm_resolver__fail(p, -HPM_ERR_UNKNOWN_EVENT, pos, sys, slen + 1 + nlen,
			    "no tracepoint under %s matches '%s:%s' (see 'hpmon list "
			    "tracepoint')", dir, sglob, nglob);
	return 0;
}
