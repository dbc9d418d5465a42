/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/events/ owns event syntax to perf_event_attr; may use location, core, runtime, sys.
 *
 * An event specification's third stage (lib/events/spec.c runs them):
 * the attrs. An event's parts (spec-terms-internal.h) resolved against
 * the machine's PMUs, generic events, tracepoints and libpfm4 into
 * perf_event_attr, as events appended to the list, with the errors the
 * user sees. Its files, each called only by those above it here:
 *
 *   spec-attrs-forms.c   which form an event is written in, and the
 *                        named forms: generic, raw, TYPE:CONFIG,
 *                        tracepoint, libpfm4 native, PAPI preset, mem:
 *   spec-attrs-vendor.c  an event of the vendor's table written bare
 *                        (INST_RETIRED.ANY), as PMU/NAME/ on its PMUs
 *   spec-attrs-expand.c  one written event as several: per core PMU of
 *                        a hybrid CPU, per uncore box; a group so split
 *   spec-attrs-pmu.c     the PMU/terms/ form: format fields, sysfs
 *                        aliases (also written bare), record terms
 *   spec-attrs-tracepoints.c  tracepoint wildcards, and why a tracepoint
 *                        cannot be found
 *   spec-attrs.c         the resolver's state (below): its errors, the
 *                        events it appends, modifiers applied
 *
 * It calls the terms stage to cut the text it is handed (an alias's terms
 * from sysfs too), never the other way round.
 *
 * Ownership: a resolver lives on the stack of hpm_evlist__add_flags for
 * one call; it borrows the list it appends to (which owns every event and
 * its names) and the caller's error report.
 */
#ifndef HPM_SPEC_ATTRS_INTERNAL_H
#define HPM_SPEC_ATTRS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "events/evlist-internal.h"
#include "events/pmu-internal.h"
#include "events/spec-terms-internal.h"

/* How a list is parsed whole (hpm__evlist_parse_flags): a preset's terms
 * are lists of their own, parsed through the caller's entry, given here. */
typedef int (*hpm_spec_parse_fn)(struct hpm_ctx *ctx, const char *spec, unsigned flags,
				 struct hpm_evlist **out, struct hpm_parse_error *err);

struct hpm_resolver {
	struct hpm_evlist *list;
	size_t pos;       /* the event being resolved: its offset in the spec */
	struct hpm_parse_error *err;
	struct hpm_parse_error local;
	/* terms an alias leaves to the user ("cmask=?"), not yet given */
	char pending[4][32];
	unsigned nr_pending;
	bool in_group;    /* the event being resolved is inside braces */
	unsigned flags;   /* HPM_EVLIST_* */
	hpm_spec_parse_fn parse_list;
};

/* ---- events/spec-attrs.c ---- */

/*
 * Record error @code at offset @pos (token @tok, @toklen bytes) with a
 * message, unless an error is already recorded: the first, innermost one
 * is kept. Returns the error recorded.
 */
int hpm_resolver__fail(struct hpm_resolver *p, int code, size_t pos, const char *tok,
		       size_t toklen, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* A new event named @name (@len bytes) at the end of the list, its own
 * leader; NULL when the list is full (error recorded) or out of memory. */
struct hpm_event *hpm_resolver__append(struct hpm_resolver *p, const char *name, size_t len);
/* Modifier letters @m (@len bytes, at offset @pos) applied to @ev: its
 * own (written on it), or its group's ({...}:m), which add to them. */
int hpm_resolver__mods(struct hpm_resolver *p, struct hpm_event *ev, const char *m,
		       size_t len, size_t pos);
int hpm_resolver__group_mods(struct hpm_resolver *p, struct hpm_event *ev, const char *m,
			     size_t len, size_t pos);
/* @ev named the first @len bytes of @s, when it is named as written (no
 * name= term): a tracepoint is SUBSYS:NAME without its modifiers, as
 * perf names it. 0 or -ENOMEM. */
int hpm_resolver__rename(struct hpm_event *ev, const char *s, size_t len);

/* ---- events/spec-attrs-forms.c ---- */

/* Event @idx of the list (appended for @e, its own leader or a member of
 * the group it is written in) resolved in whichever form @e is written. */
int hpm_resolver__event(struct hpm_resolver *p, size_t idx, const struct hpm_spec_event *e);

/* ---- events/spec-attrs-vendor.c ---- */

/* NAME[:mods] (@s, @len bytes at @pos, the name its first @nlen) as an
 * event of the vendor's table for this model, into event @idx and the
 * events it expands to: -ENOENT when the table has no such name. */
int hpm_resolver__vendor_event(struct hpm_resolver *p, size_t idx, const char *s, size_t len,
			       size_t nlen, size_t pos);

/* ---- events/spec-attrs-expand.c ---- */

/* The list's core PMUs, read once (see struct hpm_evlist). */
unsigned hpm_evlist__cores(struct hpm_evlist *l);
/* PMU '/' terms '/' [[:]mods] (@e) into event @idx, one event per
 * instance of a PMU named without its number (uncore_cbox). */
int hpm_resolver__pmu_event(struct hpm_resolver *p, size_t idx, const struct hpm_spec_event *e);
/* Event @idx, generic, as one event per core PMU on a hybrid CPU. */
int hpm_resolver__expand_generic(struct hpm_resolver *p, size_t idx);
/* The group of events [first, nr) as one group per core PMU. */
int hpm_resolver__split_group(struct hpm_resolver *p, size_t first);

/* ---- events/spec-attrs-pmu.c ---- */

/* PMU '/' terms '/' [[:]mods] (@e), resolved on PMU @pmuname into event
 * @idx. */
int hpm_resolver__pmu(struct hpm_resolver *p, size_t idx, const char *pmuname,
		      const struct hpm_spec_event *e);
/* A bare alias ("inst_retired", "tsc") of any PMU, core first: -ENOENT
 * when no PMU has it. */
int hpm_resolver__bare_alias(struct hpm_resolver *p, struct hpm_event *ev,
			     const char *name, size_t nlen, size_t pos);
/* The closest PMU names (@pmus) or event names to @word into the error. */
void hpm_resolver__suggest(struct hpm_resolver *p, const char *word, bool pmus);
/* Terms after an event that is no sysfs PMU (cycles/period=1000,name=x/,
 * r1234/name=raw/, 1:1/config1/): config, config1, config2, name, period,
 * freq and the record terms, applied to event @idx (@what, @wlen bytes,
 * names it in errors). */
int hpm_resolver__event_terms(struct hpm_resolver *p, size_t idx, const char *what,
			      size_t wlen, const char *terms, size_t len, size_t pos);
/* Terms after a tracepoint (sched:sched_switch/call-graph=dwarf/), as perf
 * takes them: record's own terms only (call-graph, stack-size, time),
 * applied to @ev (@what, @wlen bytes, names it in errors). */
int hpm_resolver__record_terms(struct hpm_resolver *p, struct hpm_event *ev, const char *what,
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
int hpm_resolver__tracefs_unreachable(struct hpm_resolver *p, const char *s, size_t len,
				      size_t pos, bool pattern);
/*
 * SUBSYS:NAME[:mods] (@s, @len bytes at @pos) is no other event, and
 * tracefs has subsystem SUBSYS but no tracepoint NAME in it: fail saying
 * so, with its closest tracepoints as suggestions. 0 when the subsystem is
 * not there either (the name may be meant as another kind of event).
 */
int hpm_resolver__tracepoint_unknown(struct hpm_resolver *p, const char *s, size_t len,
				     size_t pos);
/* Tracepoints matching @sys:@name (globs; @slen, @nlen bytes), with
 * modifiers @mods (@mlen bytes, NULL for none): the first into event @idx,
 * the rest appended after it. @pos: offset of @sys in the spec. */
int hpm_resolver__tracepoints(struct hpm_resolver *p, size_t idx, const char *sys, size_t slen,
			      const char *name, size_t nlen, const char *mods, size_t mlen,
			      size_t pos);

#endif
