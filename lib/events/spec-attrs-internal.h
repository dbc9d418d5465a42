/* SPDX-License-Identifier: MIT */
/*
 * The event parser's state while it reads one specification into a list
 * (events/spec-attrs.c), and the pieces of the grammar the files of events/
 * share: events/spec-attrs-forms.c reads lists, groups and named events, events/spec-attrs-pmu.c
 * the PMU/terms/ form and sysfs aliases, events/spec-attrs-expand.c turns one written
 * event into one per core PMU or per uncore box.
 *
 * Ownership: a parser lives on the stack of hpm_evlist__add_flags for one
 * call; it borrows the list it appends to (which owns every event and its
 * names), the specification and the caller's error report.
 */
#ifndef HPM_PARSER_INTERNAL_H
#define HPM_PARSER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "events/evlist-internal.h"
#include "events/pmu-internal.h"

struct hpm_parser {
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

/*
 * Record error @code at offset @pos (token @tok, @toklen bytes) with a
 * message, unless an error is already recorded: the first, innermost one
 * is kept. Returns the error recorded.
 */
/*
 * perf's lexer lets spaces stand around the list's punctuation: "faults :u",
 * "faults: u", "{a,b} :u", "g1 {a,b}", "sched : sched_switch". *out: a
 * copy of @spec without the spaces next to ':', '{', '}' and ',' (quoted
 * text is kept whole); (*from)[i]: the offset in @spec of its byte i (and
 * of its end), so that an error still points into what was written. Both
 * malloc'd, the caller's. 0 or -ENOMEM.
 */
int hpm_parser__tidy(const char *spec, char **out, size_t **from);
/* The '/' that closes the terms opened at @open of @s (@len bytes) into
 * *close, or the parser's error that none does; *m and *mlen: the
 * modifiers after it, without their ':'. */
int hpm_parser__terms_closed(struct hpm_parser *p, const char *s, size_t len, size_t open,
			     size_t pos, size_t *close, const char **m, size_t *mlen);
/* @ev named the first @len bytes of @s, when it is named as written (no
 * name= term): a tracepoint is SUBSYS:NAME without its modifiers, as
 * perf names it. 0 or -ENOMEM. */
int hpm_parser__rename(struct hpm_event *ev, const char *s, size_t len);
int hpm_parser__fail(struct hpm_parser *p, int code, size_t pos, const char *tok,
		     size_t toklen, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* A new event named @name (@len bytes) at the end of the list, its own
 * leader; NULL when the list is full (error recorded) or out of memory. */
struct hpm_event *hpm_parser__append(struct hpm_parser *p, const char *name, size_t len);

/* Modifier letters @m (@len bytes, at offset @pos) applied to @ev. */
int hpm_parser__mods(struct hpm_parser *p, struct hpm_event *ev, const char *m,
		     size_t len, size_t pos);
/* Are these @len bytes modifier letters only? */
bool hpm__is_mods(const char *s, size_t len);
/* The '/' that closes terms opened before offset @i of @s (@len bytes),
 * outside quotes (name='a/b'); @len when there is none. */
size_t hpm__terms_close(const char *s, size_t i, size_t len);
/* A number as perf reads one (0x... hex, else decimal): 0 or -1. */
int hpm__parse_u64(const char *s, size_t len, uint64_t *out);

/* ---- events/spec-attrs-pmu.c ---- */

/* PMU '/' terms '/' [[:]mods] (@s, @len bytes at offset @pos), resolved on
 * PMU @pmuname into event @idx. */
int hpm_parser__resolve_pmu(struct hpm_parser *p, size_t idx, const char *pmuname,
			    const char *s, size_t len, size_t pos);
/* A bare alias ("inst_retired", "tsc") of any PMU, core first: -ENOENT
 * when no PMU has it. */
int hpm_parser__bare_alias(struct hpm_parser *p, struct hpm_event *ev,
			   const char *name, size_t nlen, size_t pos);
/* The closest PMU names (@pmus) or event names to @word into the error. */
void hpm_parser__suggest(struct hpm_parser *p, const char *word, bool pmus);
/* The closest aliases of @pmu to @word (@len bytes) into the error. */
void hpm_parser__suggest_alias(struct hpm_parser *p, const struct hpm_pmu *pmu, const char *word,
			       size_t len);
/* Terms after an event that is no sysfs PMU (cycles/period=1000,name=x/,
 * r1234/name=raw/, 1:1/config1/): config, config1, config2, name, period,
 * freq and the record terms, applied to event @idx (@what, @wlen bytes,
 * names it in errors). */
int hpm_parser__event_terms(struct hpm_parser *p, size_t idx, const char *what, size_t wlen,
			    const char *terms, size_t len, size_t pos);
/* Terms after a tracepoint (sched:sched_switch/call-graph=dwarf/), as perf
 * takes them: record's own terms only (call-graph, stack-size, time),
 * applied to @ev (@what, @wlen bytes, names it in errors). */
int hpm_parser__record_terms(struct hpm_parser *p, struct hpm_event *ev, const char *what,
			     size_t wlen, const char *terms, size_t len, size_t pos);

/* ---- events/spec-attrs-tracepoints.c ---- */

/*
 * SUBSYS:NAME (@s, @len bytes at @pos; a pattern when @pattern) is no
 * other event and tracefs could not be read: fail with the reason (-EACCES:
 * closed to the caller; -ENODEV: not mounted on this machine; -ENOENT: a
 * sysfs tree without one, or a tracefs root without events/), for the
 * tool's advice to give the fix. 0 when tracefs was read, so the name is
 * simply unknown.
 */
int hpm_parser__tracefs_unreachable(struct hpm_parser *p, const char *s, size_t len,
				    size_t pos, bool pattern);

/*
 * SUBSYS:NAME[:mods] (@s, @len bytes at @pos) is no other event, and
 * tracefs has subsystem SUBSYS but no tracepoint NAME in it: fail saying
 * so, with its closest tracepoints as suggestions. 0 when the subsystem is
 * not there either (the name may be meant as another kind of event).
 */
int hpm_parser__tracepoint_unknown(struct hpm_parser *p, const char *s, size_t len, size_t pos);

/* Does the word hold a glob character (* ? [)? */
bool hpm__is_wildcard(const char *s, size_t len);
/* Tracepoints matching @sys:@name (globs; @slen, @nlen bytes), with
 * modifiers @mods (@mlen bytes, NULL for none): the first into event @idx,
 * the rest appended after it. @pos: offset of @sys in the spec. */
int hpm_parser__tracepoints(struct hpm_parser *p, size_t idx, const char *sys, size_t slen,
			    const char *name, size_t nlen, const char *mods, size_t mlen,
			    size_t pos);

/* ---- events/spec-attrs-expand.c ---- */

/* The list's core PMUs, read once (see struct hpm_evlist). */
unsigned hpm_evlist__cores(struct hpm_evlist *l);
/* PMU '/' terms '/' [[:]mods] into event @idx, one event per instance of
 * a PMU named without its number (uncore_cbox). */
int hpm_parser__pmu_event(struct hpm_parser *p, size_t idx, const char *s, size_t len,
			  size_t pos);
/* Event @idx, generic, as one event per core PMU on a hybrid CPU. */
int hpm_parser__expand_generic(struct hpm_parser *p, size_t idx);
/* The group of events [first, nr) as one group per core PMU. */
int hpm_parser__split_group(struct hpm_parser *p, size_t first);

#endif
