/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/attach/ owns putting events on targets; may use events, location, core, sys.
 *
 * Attaching location events (exec:...) to a target, for the two kinds of
 * session that open them: counting (lib/count/location-session.c, for struct
 * hpm_session) and sampling (lib/sample/record-open.c, for struct hpm_record).
 *
 * This part knows the locations: it resolves them (lib/location/location.c),
 * chooses each one's mechanism (a hardware breakpoint or a uprobe),
 * defines and removes the uprobes in tracefs, stops a command at its exec
 * and runs it on to its entry point so that runtime addresses are known,
 * and fills in the location's fields of a perf_event_attr. The owner
 * knows its events: it builds the rest of the attribute (counting or
 * sampling, inherit, enable_on_exec ...) and opens it on its threads and
 * CPUs, when called back with hpm_loc_open_fn.
 *
 * Lifecycle: hpm__loc_attach_new -> either hpm__loc_attach_seize (a
 * command that has not exec'd) ... hpm__loc_attach_complete, or
 * hpm__loc_attach_open_now (running processes, CPUs) -> the owner closes
 * its events -> hpm__loc_attach_free (removes the uprobes; lets a command
 * still stopped go).
 *
 * lib/attach sits above events/ and location/ (it needs the event list
 * and the resolver) and below the sessions that call it (count/,
 * sample/); it uses events, location, core and sys.
 *
 * Ownership: an attachment borrows its event list, which must outlive
 * it, and copies @lib_path and @debug_dir. Messages it returns are its
 * own, valid until it is freed. It never owns a perf event file
 * descriptor: the owner opens and closes them in hpm_loc_open_fn.
 */
#ifndef HPM_ATTACH_INTERNAL_H
#define HPM_ATTACH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <linux/perf_event.h>

#include "events/evlist-internal.h"

struct hpm_loc_attach;

/*
 * Open location event @idx on every target of @owner, with an attribute
 * to which hpm__loc_attach_attr() added the location. 0, or a negative
 * errno after closing whatever it opened of the event: the attachment
 * then refuses the location with a message made from that errno.
 */
typedef int (*hpm_loc_open_fn)(void *owner, size_t idx);

/*
 * The location events of @list. @lib_path and @debug_dir as in
 * struct hpm_session_opts (copied); @cpus: system-wide, where only
 * uprobes can count. NULL and errno on failure.
 */
struct hpm_loc_attach *hpm__loc_attach_new(const struct hpm_evlist *list, const char *lib_path,
					   const char *debug_dir, bool cpus);
/* Lets a command still stopped go, then removes the uprobes: the owner
 * must have closed the events first (a uprobe in use cannot be removed).
 * Accepts NULL. */
void hpm__loc_attach_free(struct hpm_loc_attach *a);

bool hpm__loc_attach_any(const struct hpm_loc_attach *a);
bool hpm__loc_attach_is_loc(const struct hpm_loc_attach *a, size_t idx);
/* Why location @idx cannot be counted (0: it can, or is not a location),
 * and the message saying so; how it is counted once open. */
int hpm__loc_attach_err(const struct hpm_loc_attach *a, size_t idx);
const char *hpm__loc_attach_message(const struct hpm_loc_attach *a, size_t idx);
const char *hpm__loc_attach_how(const struct hpm_loc_attach *a, size_t idx);
/* The owner refuses location @idx with @err and @msg. With @drop the
 * event stops being a location: it keeps @err but no message. */
void hpm__loc_attach_refuse(struct hpm_loc_attach *a, size_t idx, int err, const char *msg,
			    bool drop);

/* Ways a sample of location @idx (resolved) should have its frame-pointer
 * call chain completed: at a function's first instruction the function
 * has not saved its frame yet, so the kernel's walk starts at its
 * caller's frame and misses the caller. */
enum hpm_loc_chain {
	HPM_LOC_CHAIN_AS_IS,     /* not at a function's entry */
	HPM_LOC_CHAIN_ADD_CALLER,  /* add the return address */
	HPM_LOC_CHAIN_ADD_MISSING, /* add it unless the kernel did (uprobes:
				      recent x86 kernels do for functions
				      that start by saving the frame) */
};
enum hpm_loc_chain hpm__loc_attach_chain(const struct hpm_loc_attach *a, size_t idx);

/*
 * Put location @idx into @attr: type, config and breakpoint fields, the
 * privilege bits the mechanism needs. The owner's other fields (sample
 * period and type, inherit, disabled, read format ...) stay as they are.
 * Only inside hpm_loc_open_fn.
 */
void hpm__loc_attach_attr(struct hpm_loc_attach *a, size_t idx, struct perf_event_attr *attr);

/*
 * Stop the command @pid, which has not exec'd yet, at its exec
 * (PTRACE_SEIZE with PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL; the caller
 * must be allowed to trace it). 0, or -errno with every location refused
 * and saying why.
 */
int hpm__loc_attach_seize(struct hpm_loc_attach *a, pid_t pid);
/*
 * The seized command is exec'ing: wait for the exec, resolve the
 * locations against the program it runs, open them (@open, on the
 * stopped process), run it on to its entry point for breakpoints in
 * libraries, and let it go. Locations that fail get their error and
 * message; the rest are open. 0, or -ESRCH when the command ended first.
 */
int hpm__loc_attach_complete(struct hpm_loc_attach *a, hpm_loc_open_fn open, void *owner);
/*
 * Resolve and open now: in the running process @pid (its program and
 * mappings), or system-wide (@pid -1: locations must name their object).
 * Locations that fail get their error and message.
 */
void hpm__loc_attach_open_now(struct hpm_loc_attach *a, pid_t pid, hpm_loc_open_fn open,
			      void *owner);

/* Remove the uprobes killed hpmons left behind (core/tracefs-internal.h
 * says which those are), before this process defines its own. 0, or
 * -errno when uprobe_events cannot be read. */
int hpm__uprobes_sweep(const struct hpm_ctx *ctx);
/* The mechanisms (lib/attach/attach.c; breakpoints: core/breakpoints.c):
 * whether this kernel offers uprobes (tracefs' uprobe_events), and
 * whether the caller may define them (root). */
bool hpm__loc_uprobes_available(const struct hpm_ctx *ctx);
bool hpm__loc_uprobes_allowed(const struct hpm_ctx *ctx);

#endif
