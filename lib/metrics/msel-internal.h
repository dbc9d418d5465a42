/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/metrics/ owns metric expressions, sets and selections; may use events, core, sys.
 *
 * A selection's state (struct hpm_msel, hpmon/metric.h), shared by the
 * files that work on it in turn: metrics/msel.c chooses the metrics,
 * metrics/msel-plan.c works out their events and packs them into groups,
 * metrics/msel-bind.c binds them to a resolved event list and evaluates
 * them.
 *
 * Ownership: a selection borrows its metric set, which must outlive it,
 * and owns its specs, instances and notes; a leaf's name points into the
 * metric's expression (the set's).
 */
#ifndef HPM_MSEL_INTERNAL_H
#define HPM_MSEL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/perf_event.h>

#include "metrics/metric-internal.h"

#define MAX_SEL 1024
#define MAX_NOTES 64
#define MAX_PENDING 8
#define MAX_MODS 15
#define MAX_SUBEV 8     /* events one name resolves to (a derived preset) */

/* What an event needs on the machine. */
enum need {
	NEED_CORE,   /* a counter of the core PMU: grouped with its metric */
	NEED_FREE,   /* software: never multiplexed, counted once alone */
	NEED_OTHER,  /* another PMU (uncore, msr, power): alone */
};

/* One distinct event spec the selection counts ("instructions:u"). */
struct spec {
	char *text;
	int err;               /* it does not resolve here */
	char why[224];
	enum need need;
	unsigned nr_ev;        /* events it resolves to */
	bool fixed_known;      /* fixed[] worked out (only the plan needs it) */
	int fixed[MAX_SUBEV];  /* fixed slot of each, or -1 */
	int sign[MAX_SUBEV];   /* +1, or -1 for a derived preset's subtracted term */
	struct perf_event_attr attr[MAX_SUBEV];
};

/* One instance of a spec in the plan: in a group, or alone (group -1). */
struct inst {
	size_t spec;
	int group;
	/* bound */
	size_t ev[MAX_SUBEV];
	int sign[MAX_SUBEV];
	unsigned nr_ev;
	bool bound;
};

struct leaf {
	const char *name;      /* as written in the formula */
	size_t spec;           /* index of name + the selection's modifiers */
	size_t inst;           /* bound instance, SIZE_MAX until bound */
};

struct sel {
	const struct hpm_metric *m;
	char mods[MAX_MODS + 1];
	bool bound_only;
	bool dropped;          /* bound-only, inputs missing: not shown */
	char why[224];         /* n/a for every evaluation, when set */
	struct leaf leaf[HPM_EXPR_MAX_INPUTS];
	unsigned nr_leaves;
	size_t anchor;
};

struct hpm_msel {
	struct hpm_metricset *ms;
	struct sel *s;
	size_t nr, cap;
	struct spec *spec;
	size_t nr_spec, cap_spec;
	struct inst *inst;
	size_t nr_inst, cap_inst;
	int nr_groups;
	char *notes[MAX_NOTES];
	size_t nr_notes;
	bool planned;
	/* Groups hpm_msel__add_bound chose from the software metrics alone,
	 * the rest of the set not read: if the bound list holds an event
	 * that is not a software event, the whole set is read and these
	 * groups chosen again (hpm_msel__bind_pending). */
	char *pending[MAX_PENDING];
	size_t nr_pending;
};

/*
 * Before binding to @list (NULL: to a profile's events, whatever they
 * are): when groups are pending and the list has an event that is not
 * a software event, read every metric and choose those groups again.
 * 0 or -errno.
 */
int hpm_msel__bind_pending(struct hpm_msel *sel, const struct hpm_evlist *list);

/* Add a note (once: a repeated one is dropped; at most MAX_NOTES). */
void hpm_msel__add_note(struct hpm_msel *sel, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Room for one more of @sz-byte items in *@v (@nr used of *@cap). 0 or -ENOMEM. */
int hpm_msel__grow(void **v, size_t *cap, size_t nr, size_t sz);
/* Are @m event modifier letters (at most MAX_MODS of them) that a metric
 * name may carry ("ipc:u")? */
bool hpm_msel__valid_mods(const char *m);

/* Collect the leaves of selection @s and resolve their specs
 * (msel-plan.c). 0 or -errno; a leaf that does not resolve sets @s->why. */
int hpm_msel__leaves(struct hpm_msel *sel, struct sel *s);

#endif
