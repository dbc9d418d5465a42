/* SPDX-License-Identifier: MIT */
/*
 * The timeline model's builder (timeline.h), shared by its constructors:
 * timeline.c (profiles) and timeline-stat.c (stat -I JSON lines). It
 * bins values by time into series keyed by (event, thread), halving its
 * resolution when the data runs past the bin cap.
 * Room: tools/hpmon/timeline/ owns the timeline model; may use report, output.
 * Ownership: a builder owns its series, names and arrays until
 * tl_build__finish copies them into a timeline; tl_build__release frees
 * them. Names passed in are copied.
 */
#ifndef HPMON_TOOL_TIMELINE_BUILD_H
#define HPMON_TOOL_TIMELINE_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "timeline/timeline.h"

#define TL_MAX_EVENTS 1024
#define TL_SLOT_ALL 0
#define TL_SLOT_OTHER 1
#define TL_SLOT_FIRST 2
#define TL_NAMES_CAP 65536   /* task names remembered before a thread shows up */
#define TL_SAMPLE_BIN_NS 1000000ull

struct tl_acc {             /* one series while it is built */
	double *sum, *en, *run; /* [cap_bins]; a metric: run counts its values */
	/* [cap_bins + 1]: what spans add to each of the bins they cover
	 * whole, as differences from the bin before (one step per span, not
	 * one per bin); summed into sum, en and run by build_settle */
	double *dsum, *den, *drun;
	double total;           /* of the values added, as they came (a count's
				   total is exact however it was spread) */
};

struct tl_name {            /* a task's last name, by tid */
	pid_t tid;              /* 0: empty */
	char *comm;
};

struct tl_build {
	struct timeline_opts o;
	uint64_t start_ns, bin_ns;
	bool started;
	size_t nr_bins, cap_bins;
	/* events by name, each with its series per thread slot (index + 1) */
	char *ev_name[TL_MAX_EVENTS];
	char *ev_unit[TL_MAX_EVENTS];
	bool ev_metric[TL_MAX_EVENTS];
	uint32_t *slot_series;  /* [TL_MAX_EVENTS][nr_slots_max] */
	size_t nr_ev;
	/* thread slots: 0 all, 1 other, then threads in order of appearance */
	pid_t *slot_tid;
	char **slot_comm;
	size_t nr_slots, slots_max;
	size_t last_slot;
	bool spread;            /* the differences (dsum ...) hold something */
	/* series */
	struct tl_acc *acc;
	uint32_t *acc_ev, *acc_slot;
	size_t nr_acc, cap_acc;
	struct tl_name *names;  /* open addressing, TL_NAMES_CAP */
	size_t nr_names;
};

/* A sentence into @why (may be NULL), printf-style. */
void tl_say(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* 0 or -ENOMEM. */
int tl_build__init(struct tl_build *b, const struct timeline_opts *o);
void tl_build__release(struct tl_build *b);
/* The event named @name (added when new): its index, or -1 when there
 * are TL_MAX_EVENTS already (later names are left out) or no memory. */
long tl_build__event(struct tl_build *b, const char *name, const char *unit, bool metric);
/* The slot of thread @tid (@comm its name, or NULL): a new one while
 * there is room, else "other". */
size_t tl_build__slot(struct tl_build *b, pid_t tid, const char *comm);
/* The series of event @ev and slot @slot, made when new: its index, or
 * -1 without memory. */
long tl_build__series(struct tl_build *b, size_t ev, size_t slot);
/* The bin of time @t (before the start: the first), halving as needed;
 * -1 without memory. */
long tl_build__bin(struct tl_build *b, uint64_t t);
/* Add @v (with @en and @run ns of enabled and running time; a metric:
 * one value) at time @t to event @ev of slot @slot and, with @also_all,
 * of "all". 0 or -ENOMEM. */
int tl_build__add(struct tl_build *b, size_t ev, size_t slot, uint64_t t, double v, double en,
		  double run, bool also_all);
/* The finished timeline (NULL without memory): per event, "all" first,
 * then the threads in the order they appeared, "[other threads]" last. */
struct timeline *tl_build__finish(struct tl_build *b, enum timeline_source src);

#endif
