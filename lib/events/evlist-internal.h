/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/events/ owns event syntax to perf_event_attr; may use location, core, runtime, sys.
 *
 * The event list and its events inside the library (hpmon/event.h), for
 * the specification's stages that fill it (events/spec.c and the files it
 * names) and the stages that open or inspect events.
 *
 * Ownership: a list owns its events and their names (name, merged_name:
 * malloc'd) and borrows its context, which must outlive it. Adding events
 * may move them (the array grows): keep indices across an add.
 */
#ifndef HPM_EVLIST_INTERNAL_H
#define HPM_EVLIST_INTERNAL_H

#include <hpmon/event.h>
#include "core/ctx-internal.h"
#include "events/pmu-internal.h"

/* perf's *:* is every tracepoint of the machine: some thousands */
#define HPM_MAX_EVENTS 16384
/* Core PMUs a generic event is expanded to (cpu_core and cpu_atom; Arm
 * big.LITTLE has two or three). */
#define HPM_MAX_CORE_PMUS 8
/* sysfs cpus/cpumask text kept with an event; a longer list is not kept
 * (the event then opens on every CPU of the target, as before). */
#define HPM_CPUS_MAX 128

struct hpm_event {
	char *name;               /* as written, or from name=; for an event
				     expanded from one written for several
				     PMUs, perf's name of the one (cpu_core/cycles/,
				     uncore_cbox_0/clockticks/) */
	enum hpm_event_kind kind;
	struct perf_event_attr attr;
	size_t leader;            /* index in the list */
	char pmu[HPM_PMU_NAME_MAX];
	char unit[32];
	double scale;
	bool explicit_priv;       /* the user chose u/k/h: no fallback */
	bool explicit_gh;         /* the user chose H/G: exclude_guest is theirs */
	bool own_mods;            /* modifiers written on the event itself: its
				     exclude_guest comes from them, as perf's */
	/* The instances of a PMU that one written event stands for
	 * (uncore_cbox/clockticks/ on uncore_cbox_0..3): the index of the
	 * first, whose line perf's merged output shows, and the event as
	 * written (malloc'd, on each of them); merge is the event's own index
	 * and merged_name NULL for every other event. */
	size_t merge;
	char *merged_name;
	/* CPUs its PMU counts on (sysfs "cpus" of a core PMU of a hybrid CPU,
	 * "cpumask" of an uncore PMU), "" for any */
	char cpus[HPM_CPUS_MAX];
	/* the name of the group this event leads (group1{a,b}), "" when none */
	char group[64];
	/* per-event record terms, as perf keeps them apart from the attr
	 * (cpu/config=1,call-graph=dwarf,stack-size=8192,time=0/): the
	 * call-graph mode ("fp", "dwarf", "lbr", "no"; "" when not given),
	 * the dwarf stack size (0: default), time= (has_time: given) */
	char call_graph[8];
	unsigned stack_size;
	bool has_time, time;
	/* a period= or freq= term set the sampling rate: it wins over the
	 * session's -c/-F, as perf's terms do */
	bool rate_given;
	/* while parsing: this is event @copy of the @nr_copies one written
	 * event became (0 of 1 when it was not expanded) */
	unsigned copy, nr_copies;
};

/* A core PMU, as generic events are expanded to it. */
struct hpm_core_pmu {
	char name[HPM_PMU_NAME_MAX];
	uint32_t type;
	char cpus[HPM_CPUS_MAX];
};

struct hpm_evlist {
	struct hpm_ctx *ctx;
	struct hpm_event *ev;
	size_t nr, cap;
	/* the core PMUs, read once: the one the kernel gives PERF_TYPE_RAW
	 * (cpu_core) first, then the others in name order */
	bool cores_known;
	unsigned nr_cores;
	struct hpm_core_pmu core[HPM_MAX_CORE_PMUS];
};

/*
 * hpm_evlist__parse with HPM_EVLIST_* @flags (hpmon/event.h), for the
 * library's own look-ups (metric selections resolve their events with
 * HPM_EVLIST_MAIN_CORE, as the tool adds them).
 */
int hpm__evlist_parse_flags(struct hpm_ctx *ctx, const char *spec, unsigned flags,
			    struct hpm_evlist **out, struct hpm_parse_error *err);

/*
 * Aim the generic hardware or cache event @a at the main core PMU when the
 * machine has several (a hybrid CPU): the PMU's type in config's upper
 * half, as HPM_EVLIST_MAIN_CORE resolves it. Other events and machines
 * with one core PMU: unchanged.
 */
void hpm__attr_main_core(struct hpm_ctx *ctx, struct perf_event_attr *a);

/* Is @cpu in the CPU list @cpus ("0-3,8", "" for every CPU)? */
bool hpm__cpu_in_list(const char *cpus, int cpu);

/* ---- events counted in the program (events/program-event.c) ---- */

/*
 * The attrs stage's hook for "exec:" locations and "sw:" software counters
 * (@s, @len bytes; @grouped: inside braces, which they cannot be): fill
 * @ev, or a negative HPM_ERR_* with *@errpos (offset into @s) and @msg.
 */
int hpm__parse_program_event(struct hpm_event *ev, const char *s, size_t len, bool grouped,
			     size_t *errpos, char *msg, size_t msglen);

/* True for events the sessions open late (exec:) or read elsewhere (sw:). */
bool hpm__event_is_location(const struct hpm_event *ev);
bool hpm__event_is_marker(const struct hpm_event *ev);

#endif
