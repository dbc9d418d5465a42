/* SPDX-License-Identifier: MIT */
/*
 * Event specifications: parse perf's event syntax and resolve each event to
 * a struct perf_event_attr. Resolution reads only the context's sysfs and
 * tracefs roots (and libpfm4's tables for native names); it never opens a
 * counter, so it can be tested against recorded trees of other machines.
 *
 * Syntax (a comma-separated list; braces make a group):
 *   cycles, instructions, task-clock, L1-dcache-load-misses, ...
 *   PMU/term=value,term,.../      cpu/event=0x3c,umask=0/  msr/tsc/
 *   PMU/alias/                    armv8_pmuv3/inst_retired/
 *   rNNNN                         raw config for the core PMU
 *   subsys:name                   tracepoint
 *   mem:ADDR[/LEN][:r|w|x|rw]     hardware breakpoint
 *   NATIVE[:UMASK...]             libpfm4 name, e.g. INST_RETIRED:ANY_P
 *   {a,b,c}                       group scheduled together
 *   NAME{a,b}                     a named group (hpm_event__group_name)
 *   subsys:name*                  every tracepoint that matches (* ? [])
 *   TYPE:CONFIG                   numeric: 1:1 is task-clock
 *   NAME/terms/                   terms after a generic event, raw code
 *                                 or TYPE:CONFIG: cycles/period=1000/
 * followed by modifiers :u :k :h :H :G :p(p,pp,ppp) :D :S
 * and, for PMU events, terms such as name=NAME, period=N, freq=N.
 * As in perf 6.1, an event without modifiers counts the host only
 * (exclude_guest), as do modifiers with u or p, and an event written for several PMUs becomes one
 * event per PMU (see hpm_event__merge_leader).
 *
 * Ownership: a list is the caller's (hpm_evlist__free) and borrows its
 * context, which must outlive it. Its events and their strings belong to
 * the list: valid until it is freed, or until events are added to it
 * (hpm_evlist__add may move them; keep indices, not pointers, across an
 * add). The specification is only read during the call.
 */
#ifndef HPMON_EVENT_H
#define HPMON_EVENT_H

#include <stdbool.h>
#include <linux/perf_event.h>
#include <hpmon/hpmon.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Where and why a specification failed. */
struct hpm_parse_error {
	int err;               /* negated HPM_ERR_* or -errno */
	size_t pos;            /* byte offset into the spec */
	char token[64];        /* the offending word */
	char msg[256];         /* what is wrong, one sentence */
	char suggest[192];     /* closest known names, comma separated, or "" */
};

/* What kind of source an event was resolved from. */
enum hpm_event_kind {
	HPM_EV_GENERIC_HW,    /* cycles, instructions ... */
	HPM_EV_GENERIC_CACHE, /* L1-dcache-load-misses ... */
	HPM_EV_SOFTWARE,      /* task-clock, page-faults ... */
	HPM_EV_PMU,           /* PMU/terms/ or PMU/alias/ from sysfs */
	HPM_EV_RAW,           /* rNNNN */
	HPM_EV_TRACEPOINT,    /* subsys:name */
	HPM_EV_BREAKPOINT,    /* mem:ADDR */
	HPM_EV_NATIVE,        /* libpfm4 native name */
	HPM_EV_LOCATION,      /* exec:FUNC ...: executions of a code location,
			       * resolved against the program by a session
			       * (docs/location-events.md) */
	HPM_EV_SWCOUNTER,     /* sw:NAME: a software counter of <hpmon/marker.h> */
};

struct hpm_event;   /* one resolved event, owned by its list */
struct hpm_evlist;  /* an ordered list of events with group structure */

/*
 * Parse and resolve @spec. On success *out owns the list. On failure returns
 * a negative error, *out is NULL and @err (if not NULL) says where and why.
 */
HPM_API int hpm_evlist__parse(struct hpm_ctx *ctx, const char *spec,
			      struct hpm_evlist **out,
			      struct hpm_parse_error *err);
/* Append the events of @spec to @list (same contract as parse). */
HPM_API int hpm_evlist__add(struct hpm_evlist *list, const char *spec,
			    struct hpm_parse_error *err);

/*
 * Flags of hpm_evlist__add_flags.
 * HPM_EVLIST_MAIN_CORE: on a machine with several core PMUs (a hybrid CPU:
 * cpu_core and cpu_atom), a generic hardware or cache event (cycles,
 * L1-dcache-load-misses) becomes one event, of the main core PMU (the one
 * the kernel gives PERF_TYPE_RAW: cpu_core), instead of one per core PMU.
 * Metrics use it: their formulas and native events describe one core.
 */
#define HPM_EVLIST_MAIN_CORE 0x1u
/* hpm_evlist__add with HPM_EVLIST_* @flags (unknown flags: -EINVAL). */
HPM_API int hpm_evlist__add_flags(struct hpm_evlist *list, const char *spec,
				  unsigned flags, struct hpm_parse_error *err);
HPM_API struct hpm_evlist *hpm_evlist__new(struct hpm_ctx *ctx);
HPM_API void hpm_evlist__free(struct hpm_evlist *list);
HPM_API size_t hpm_evlist__count(const struct hpm_evlist *list);
HPM_API struct hpm_event *hpm_evlist__event(const struct hpm_evlist *list,
					    size_t idx);

/* The name as the user wrote it (or as name= set it), e.g. "cycles:u". */
HPM_API const char *hpm_event__name(const struct hpm_event *ev);
HPM_API enum hpm_event_kind hpm_event__kind(const struct hpm_event *ev);
/* The resolved attribute; counting sessions copy and adjust it. */
HPM_API const struct perf_event_attr *hpm_event__attr(const struct hpm_event *ev);
/* Index of this event's group leader in the list (itself if it leads). */
HPM_API size_t hpm_event__leader(const struct hpm_event *ev);
/* The PMU's sysfs name ("cpu", "software", "armv8_pmuv3_0", ...). */
HPM_API const char *hpm_event__pmu(const struct hpm_event *ev);
/* Unit and scale from sysfs (msr, power ...); "" and 1.0 when none. */
HPM_API const char *hpm_event__unit(const struct hpm_event *ev);
HPM_API double hpm_event__scale(const struct hpm_event *ev);
/* True for time-valued software events counted in ns (task-clock ...). */
HPM_API bool hpm_event__is_clock(const struct hpm_event *ev);

/*
 * One written event can stand for several PMUs, as in perf:
 *  - on a hybrid CPU a generic hardware or cache event (cycles) becomes one
 *    event per core PMU, each aimed at it by the extended hardware type
 *    (config | type << 32) and named as perf prints it: cpu_core/cycles/,
 *    cpu_atom/cycles/; a group with such events becomes one group per core
 *    PMU. Each is an event of its own (shown on its own line).
 *  - a PMU named without its instance number that has several
 *    (uncore_cbox/clockticks/ on uncore_cbox_0 ... uncore_cbox_3) becomes
 *    one event per instance, named uncore_cbox_0/clockticks/ ...; perf
 *    shows them merged, one line with the sum of their counts (hpm_count__merge).
 * hpm_event__merge_leader: the index of the first event of the instances
 * @ev belongs to, which stands for the merged line; @ev's own index when it
 * was not expanded so (hybrid copies included).
 */
HPM_API size_t hpm_event__merge_leader(const struct hpm_event *ev);
/* The merged line's name: the event as written (uncore_cbox/clockticks/),
 * or its name= value; hpm_event__name() for events not merged. */
HPM_API const char *hpm_event__merged_name(const struct hpm_event *ev);
/*
 * The CPUs the event's PMU counts on, as sysfs lists them ("0-15" for
 * cpu_core, "0" for an uncore PMU's cpumask), or "" for every CPU. A
 * session counting CPUs opens the event on these only.
 */
HPM_API const char *hpm_event__cpus(const struct hpm_event *ev);
/* Does the event count on CPU @cpu (hpm_event__cpus)? */
HPM_API bool hpm_event__on_cpu(const struct hpm_event *ev, int cpu);

/* The name of the group @ev leads, as written before its braces
 * (group1{cycles,instructions}); "" when none or @ev does not lead one. */
HPM_API const char *hpm_event__group_name(const struct hpm_event *ev);

/*
 * Record terms of one event, as perf takes them and keeps them out of the
 * attr (the session applies them when it opens the event for sampling):
 * cpu/config=1,call-graph=dwarf,stack-size=8192,time=0/.
 * hpm_event__call_graph: "fp", "dwarf", "lbr" or "no"; "" when not given.
 * hpm_event__stack_size: the dwarf stack size in bytes; 0 when not given.
 * hpm_event__time: 1 (time or time=1), 0 (time=0), -1 when not given.
 */
HPM_API const char *hpm_event__call_graph(const struct hpm_event *ev);
HPM_API unsigned hpm_event__stack_size(const struct hpm_event *ev);
HPM_API int hpm_event__time(const struct hpm_event *ev);

/*
 * Describe a resolved attr in perf's canonical words ("type=4,config=0x3c"),
 * for diagnostics. Returns the length written (snprintf semantics).
 */
HPM_API int hpm_event__describe(const struct hpm_event *ev, char *buf,
				size_t len);

/*
 * @attr as perf -vv prints it before it opens an event (perf 6.1: a line
 * of 60 '-', "perf_event_attr:", each field that is not zero as
 * "  %-32s %s" under perf's name and in perf's order, the flags of
 * sample_type, read_format and branch_sample_type by name joined with
 * '|', and the line of '-' again), so that hpmon's attrs and perf's can
 * be compared with diff. Into @buf (@len bytes, NUL-terminated when @len
 * is not 0, cut when short); returns the length of the whole text, as
 * snprintf does.
 */
HPM_API size_t hpm_attr__format(char *buf, size_t len, const struct perf_event_attr *attr);
/*
 * The line perf -vv prints for one perf_event_open(2) call: "sys_perf_event_open:
 * pid P  cpu C  group_fd G  flags 0xF", then " = FD" when @fd is one, else
 * "sys_perf_event_open failed, error -E" on a line of its own (@fd: the
 * call's result or -errno). Buffer and result as hpm_attr__format.
 */
HPM_API size_t hpm_attr__format_open(char *buf, size_t len, int pid, int cpu, int group_fd,
				     unsigned long flags, int fd);

/* ---- The catalogue: what this machine offers, for `hpmon list`. ---- */

struct hpm_catalog_entry {
	const char *name;   /* spec that resolves it, e.g. "msr/tsc/" */
	const char *kind;   /* "hardware", "software", "cache", "pmu",
			       "vendor" (the model's tables), "tracepoint",
			       "native", "breakpoint" */
	const char *pmu;    /* PMU name or "" */
	const char *desc;   /* one line, may be "" */
};

/*
 * Call @fn for every event the context's machine offers, in a stable order.
 * Stops early and returns @fn's value if it returns non-zero. @flags: bit 0
 * includes tracepoints (slow: thousands), bit 1 includes libpfm4 natives.
 */
#define HPM_CATALOG_TRACEPOINTS 0x1u
#define HPM_CATALOG_NATIVE 0x2u
typedef int (*hpm_catalog_fn)(const struct hpm_catalog_entry *e, void *arg);
HPM_API int hpm_catalog__foreach(struct hpm_ctx *ctx, unsigned flags,
				 hpm_catalog_fn fn, void *arg);

/* The processor model whose vendor tables (docs/vendor-tables.md) name
 * this machine's events: found once per context, from
 * hpm_ctx_opts.cpuid or the machine's cpuid string. */
struct hpm_vendor_info {
	const char *cpuid;   /* "GenuineIntel-6-55-4"; NULL when none could be read */
	const char *model;   /* "x86/skylakex"; NULL when the model has no tables */
	const char *version; /* the table's version, "v1.28"; "-" when it has none */
};
/* 0 with @out filled; -ENOENT when the model has no tables (@out->cpuid
 * still says which it is); -ENOMEM. The strings are the context's. */
HPM_API int hpm_vendor__model(struct hpm_ctx *ctx, struct hpm_vendor_info *out);

/*
 * The name of the machine's first core (CPU) PMU into @buf: "cpu",
 * "cpu_core", "armv8_pmuv3_0" ... 0, -ENOENT when sysfs shows none (a
 * virtual machine without PMU passthrough), or -errno. The context reads
 * the PMU list once and keeps it, so asking again costs nothing.
 */
HPM_API int hpm_pmu__core_name(const struct hpm_ctx *ctx, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
