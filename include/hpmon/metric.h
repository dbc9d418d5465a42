/* SPDX-License-Identifier: MIT */
/*
 * Metrics: from raw counts to answers (CPI, miss rates, stall rates, where
 * the cycles went). Knowledge lives in data/ as text: one metric file per
 * processor family plus a generic and a software-only one, PAPI presets
 * (hpmon/preset.h) and typical event costs. Users add their own metrics.
 *
 * Four objects:
 *  - struct hpm_expr: one parsed formula, evaluated with n/a and reasons;
 *  - struct hpm_metricset: named metrics with unit, description, groups and
 *    form, from the shipped files of this machine's family and the user's;
 *  - struct hpm_msel: the metrics chosen for one measurement: which events
 *    they need, scheduled in groups that fit the core PMU's counters, then
 *    bound to a resolved event list and evaluated from its counts;
 *  - struct hpm_slices: the uncertainty of a multiplexed count, from the
 *    variation of its rate across the slices the kernel gave it.
 *
 * The expression language (docs/metrics.md):
 *   numbers      12  0.5  1e9  0x40
 *   names        instructions  L1-dcache-load-misses  cycles:u  PAPI_L1_DCM
 *                INST_RETIRED:ANY_P  ipc (another metric)  duration_time
 *   quoted       "cpu/event=0x3c,umask=0/"  'msr/tsc/'   (any event spec)
 *   arithmetic   + - * /  unary -  ( )
 *   comparison   < <= > >= == !=    logic  and or not (&& || !)
 *   conditional  A if COND else B
 *   functions    min(a, b, ...)  max(a, b, ...)  abs(a)
 * A '-' between two letters belongs to the name (page-faults): write
 * "a - b" with spaces to subtract. Context values: duration_time (seconds
 * the counts cover), interval_time (the -I length, seconds), num_cpus,
 * cpu_hz (nominal clock, where known).
 *
 * Ownership: every object is the caller's, freed with its __free. A
 * metric set borrows its context, and a selection its metric set: each
 * must outlive what borrows it. The metrics of a set (and their strings)
 * belong to the set. A selection keeps only indices of the event list it
 * is bound to, not the list.
 */
#ifndef HPMON_METRIC_H
#define HPMON_METRIC_H

#include <stdbool.h>
#include <hpmon/event.h>
#include <hpmon/session.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A value with its uncertainty, or n/a with the reason. */
struct hpm_value {
	double value;     /* NaN when n/a */
	double sigma;     /* standard uncertainty, in the value's unit: 0 exact,
			     NaN unknown */
	bool na;
	char reason[224]; /* why it is n/a, one sentence; "" otherwise */
};

/* A value with standard uncertainty @sigma (0: exact, NaN: unknown). */
HPM_API void hpm_value__set(struct hpm_value *v, double value, double sigma);
/* n/a, with the reason formatted from @fmt. */
HPM_API void hpm_value__na(struct hpm_value *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- Expressions ---- */

struct hpm_expr;

/*
 * Parse @text. On success *out owns the expression. On failure returns
 * -HPM_ERR_SYNTAX (or -ENOMEM), *out is NULL and @err (if not NULL) says
 * where and why.
 */
HPM_API int hpm_expr__parse(const char *text, struct hpm_expr **out,
			    struct hpm_parse_error *err);
HPM_API void hpm_expr__free(struct hpm_expr *e);
HPM_API const char *hpm_expr__text(const struct hpm_expr *e);
/* The distinct names the expression refers to, in order of first use. */
HPM_API size_t hpm_expr__nr_refs(const struct hpm_expr *e);
HPM_API const char *hpm_expr__ref(const struct hpm_expr *e, size_t i);
/*
 * Evaluate @e with @refs[i] the value of name i (hpm_expr__ref). Inputs are
 * taken as independent for the uncertainty; a name used twice is one input.
 * Division by zero or an n/a input makes the result n/a with the reason.
 * Returns 0 (with @out set, possibly n/a) or a negative error.
 */
HPM_API int hpm_expr__eval(const struct hpm_expr *e,
			   const struct hpm_value *refs, struct hpm_value *out);

/* ---- Metric sets ---- */

/* How a metric's formula becomes its value (HAR's forms). */
enum hpm_metric_form {
	HPM_FORM_RATIO,      /* as is: a per-reference ratio (IPC, CPI) */
	HPM_FORM_PERCENT,    /* a per-reference ratio, times 100 */
	HPM_FORM_PER_SECOND, /* divided by duration_time */
	HPM_FORM_PER_KINST,  /* divided by thousands of instructions */
	HPM_FORM_VALUE,      /* as is, in the unit given */
};
/* "ratio", "percent", "per-second", "per-kinst", "value". */
HPM_API const char *hpm_metric_form__str(enum hpm_metric_form f);

struct hpm_metric;     /* owned by its set */
struct hpm_metricset;

struct hpm_metricset_opts {
	size_t sz;          /* sizeof(struct hpm_metricset_opts) */
	const char *family; /* processor family; NULL: this machine's */
	bool no_builtin;    /* load none of the shipped files */
	const char *costs_file; /* costs measured on this machine (`hpmon
				   validate --calibrate`), in the format of
				   data/costs-*.txt: its causes replace the
				   shipped typical costs; NULL: none */
	/* What is counted, for perf's #core_wide: every CPU (-a, or -C:
	 * @system_wide), on the CPUs of a list (-C: @cpu_list). */
	bool system_wide;
	bool cpu_list;
};

/*
 * A set holding the shipped metrics of the family (software, then
 * generic, then the family's own, later definitions replacing earlier
 * ones of the same name) and the generated cost metrics (group "cost").
 * NULL and errno on failure (EINVAL: malformed options or unknown family).
 * Nothing is read here: the family (from sysfs) and the files are read
 * when first needed, by any call below that looks at the set, and
 * before what hpm_metricset__add_* add.
 */
HPM_API struct hpm_metricset *hpm_metricset__new(struct hpm_ctx *ctx,
						 const struct hpm_metricset_opts *o);
HPM_API void hpm_metricset__free(struct hpm_metricset *ms);
/* The costs file the cost metrics came from (opts.costs_file) when it was
 * read, NULL when they are the shipped typical costs. */
HPM_API const char *hpm_metricset__costs_file(const struct hpm_metricset *ms);
HPM_API const char *hpm_metricset__family(const struct hpm_metricset *ms);
/*
 * Add the metrics of a metric file (docs/metrics.md), replacing metrics of
 * the same name. @origin names it in messages. On a syntax error nothing
 * is added, and @err says where (err->msg starts with "ORIGIN:LINE: ").
 */
HPM_API int hpm_metricset__add_text(struct hpm_metricset *ms, const char *text,
				    const char *origin,
				    struct hpm_parse_error *err);
/* The same, read from file @path (at most 1 MiB). */
HPM_API int hpm_metricset__add_file(struct hpm_metricset *ms, const char *path,
				    struct hpm_parse_error *err);
/* "NAME = FORMULA": a metric of group "user". */
HPM_API int hpm_metricset__add_inline(struct hpm_metricset *ms,
				      const char *def,
				      struct hpm_parse_error *err);
/* The data file (within data/) a shipped set was read from, in order. */
HPM_API size_t hpm_metricset__nr_files(const struct hpm_metricset *ms);
HPM_API const char *hpm_metricset__file(const struct hpm_metricset *ms,
					size_t i);

HPM_API size_t hpm_metricset__count(const struct hpm_metricset *ms);
HPM_API const struct hpm_metric *hpm_metricset__metric(const struct hpm_metricset *ms,
						       size_t i);
HPM_API const struct hpm_metric *hpm_metricset__find(const struct hpm_metricset *ms,
						     const char *name);
/* Is @name a group of some metric of the set? */
HPM_API bool hpm_metricset__is_group(const struct hpm_metricset *ms,
				     const char *name);

HPM_API const char *hpm_metric__name(const struct hpm_metric *m);
/* The formula as written (before the form is applied). */
HPM_API const char *hpm_metric__formula(const struct hpm_metric *m);
HPM_API const char *hpm_metric__unit(const struct hpm_metric *m);
HPM_API const char *hpm_metric__desc(const struct hpm_metric *m);
/* Groups, space separated ("l1 memory"). */
HPM_API const char *hpm_metric__groups(const struct hpm_metric *m);
HPM_API bool hpm_metric__in_group(const struct hpm_metric *m, const char *group);
HPM_API enum hpm_metric_form hpm_metric__form(const struct hpm_metric *m);
/* Where it was defined: "data/metrics-generic.txt:12", "FILE:3", "--metric". */
HPM_API const char *hpm_metric__origin(const struct hpm_metric *m);
/* The expression as evaluated (the form applied). */
HPM_API const struct hpm_expr *hpm_metric__expr(const struct hpm_metric *m);

/*
 * Check that every name @m refers to is a metric of @ms, a context value or
 * an event that resolves in @ms's context (hpm_evlist__parse). 0, or the
 * first failure with @err saying which name and why.
 */
HPM_API int hpm_metricset__check(const struct hpm_metricset *ms,
				 const struct hpm_metric *m,
				 struct hpm_parse_error *err);

/* ---- Selections: the metrics of one measurement ---- */

struct hpm_msel;

HPM_API struct hpm_msel *hpm_msel__new(struct hpm_metricset *ms);
HPM_API void hpm_msel__free(struct hpm_msel *sel);
/*
 * Select groups or metrics by name, comma separated ("ipc,l1,my_metric");
 * a name that is both a group and a metric selects the group.
 * A ":MODS" suffix on a name (ipc:u) applies the modifiers to each event
 * the selected metrics count that has none of its own. An unknown name is
 * -HPM_ERR_UNKNOWN_EVENT with @err naming it and the closest names.
 */
HPM_API int hpm_msel__add(struct hpm_msel *sel, const char *names,
			  struct hpm_parse_error *err);
/*
 * Select the metrics of @group that can be computed from events already in
 * the list (hpm_msel__bind), adding none: perf's figures next to counts.
 * On a set not read yet, only its software metrics are read until the
 * bind: a list of software events binds no other, and any other list
 * reads the whole set then.
 */
HPM_API int hpm_msel__add_bound(struct hpm_msel *sel, const char *group);

struct hpm_plan_opts {
	size_t sz;      /* sizeof(struct hpm_plan_opts) */
	int nr_general; /* general counters of the core PMU; <= 0: family's */
	int nr_fixed;   /* fixed counters (cycles, instructions, ref-cycles
			   in that order, as hpm_sysinfo counts them); < 0:
			   family's */
};

/*
 * Work out the events the selected metrics need, each metric's events in
 * one group when the counters allow it, and return them as an event
 * specification to add to the list (*spec, malloc'd; "" when nothing is
 * needed). Metrics whose events do not resolve here stay selected and
 * evaluate to n/a with the reason. Notes (hpm_msel__note) say what was
 * split across groups or could not be resolved.
 */
HPM_API int hpm_msel__plan(struct hpm_msel *sel, const struct hpm_plan_opts *o,
			   char **spec);
HPM_API size_t hpm_msel__nr_notes(const struct hpm_msel *sel);
HPM_API const char *hpm_msel__note(const struct hpm_msel *sel, size_t i);

/*
 * Bind the selection to @list, whose events from index @first on are
 * those of the plan's spec, in order. Bound-only metrics bind to any
 * equal event of the list and are dropped when one is missing.
 */
HPM_API int hpm_msel__bind(struct hpm_msel *sel, const struct hpm_evlist *list,
			   size_t first);

/* An event counted earlier (a profile's): what a metric's event is matched
 * by. */
struct hpm_event_id {
	uint32_t type;                 /* perf_event_attr.type */
	uint64_t config, config1, config2;
};

/*
 * Bind the selection to events counted earlier, as they are, adding none
 * (the events of a profile, hpm_profile_event): each event a selected
 * metric needs binds to the first of @ids (@nr) with the same type and
 * configs (modifiers are not compared), and hpm_msel__eval then takes its
 * value from env->events[that index]. Returns 0 when every one is there;
 * -ENOENT when some are not, and @missing (@len bytes, if not NULL) names
 * them as the metrics write them, separated by ", ", in order of first use;
 * metrics with a missing event evaluate to n/a. -EINVAL, -ENOMEM.
 */
HPM_API int hpm_msel__bind_recorded(struct hpm_msel *sel, const struct hpm_event_id *ids,
				    size_t nr, char *missing, size_t len);

/* Metrics selected (after bind: those kept), in selection order. */
HPM_API size_t hpm_msel__count(const struct hpm_msel *sel);
HPM_API const struct hpm_metric *hpm_msel__metric(const struct hpm_msel *sel,
						  size_t i);
/* Selected by hpm_msel__add_bound. */
HPM_API bool hpm_msel__is_bound_only(const struct hpm_msel *sel, size_t i);
/* The event the metric is shown beside (its first event), or SIZE_MAX. */
HPM_API size_t hpm_msel__anchor(const struct hpm_msel *sel, size_t i);
/* The unit to print: the metric's own, or one its form implies. */
HPM_API const char *hpm_msel__unit(const struct hpm_msel *sel, size_t i);
/*
 * Does a metric kept by the last bind read context value @name (cpu_hz,
 * num_cpus ...), directly or through the metrics it refers to? So that a
 * caller reads what the machine says of it only when a metric is shown
 * that needs it.
 */
HPM_API bool hpm_msel__uses(const struct hpm_msel *sel, const char *name);

/*
 * The covariance of the values of events @a and @b (a != b) of the bound
 * list, in the product of their units: events of one group share their
 * time on the counters, so their multiplexing errors move together
 * (hpm_slices__cov). 0 for independent events.
 */
typedef double (*hpm_cov_fn)(void *arg, size_t a, size_t b);

/* What the metrics are evaluated from. */
struct hpm_metric_env {
	size_t sz;                     /* sizeof(struct hpm_metric_env) */
	/* One per event of the bound list: the scaled count times the
	 * event's scale (ns for clocks) with its uncertainty, or n/a with
	 * the reason it was not counted. */
	const struct hpm_value *events;
	size_t nr_events;
	double duration_s;             /* seconds the counts cover; <= 0 n/a */
	double interval_s;             /* -I length; <= 0 outside -I */
	int num_cpus;                  /* <= 0 unknown */
	double cpu_hz;                 /* nominal clock; <= 0 unknown */
	hpm_cov_fn cov;                /* NULL: the events' uncertainties are
					  independent */
	void *cov_arg;
};

/*
 * Evaluate every selected metric into @out (hpm_msel__count entries).
 * Returns 0; a metric that cannot be computed is n/a with its reason.
 */
HPM_API int hpm_msel__eval(const struct hpm_msel *sel,
			   const struct hpm_metric_env *env,
			   struct hpm_value *out);

/* ---- Uncertainty of multiplexed counts ---- */

struct hpm_slices;

/* For @nr_events events. NULL and errno on failure. */
HPM_API struct hpm_slices *hpm_slices__new(size_t nr_events);
HPM_API void hpm_slices__free(struct hpm_slices *s);
/*
 * Record the cumulative count @c of event @idx (call at every sampling
 * tick, and once more with the final count): the difference to the
 * previous reading is one slice of its rate.
 */
HPM_API void hpm_slices__add(struct hpm_slices *s, size_t idx,
			     const struct hpm_count *c);
/* Forget the slices recorded so far (a new -I interval starts). */
HPM_API void hpm_slices__restart(struct hpm_slices *s);
/*
 * Standard uncertainty of the scaled count of @c (event @idx, over the
 * slices recorded since the last restart): 0 when it counted all the time
 * it was enabled, NaN when too few slices were seen to tell.
 */
HPM_API double hpm_slices__sigma(const struct hpm_slices *s, size_t idx,
				 const struct hpm_count *c);
/*
 * The covariance of the scaled counts of events @a and @b (@ca, @cb) of
 * one group: they were on the counters in the same slices, so both are
 * extrapolated over the same unseen time, and their errors are as
 * correlated as their rates were from slice to slice. Computed as
 * hpm_slices__sigma's variance with the product of the two rates'
 * deviations in place of the square, at the batch size where the two
 * vary most; 0 when either counted all the time, NaN when too few
 * slices were seen, or their slices do not line up (not one group).
 */
HPM_API double hpm_slices__cov(const struct hpm_slices *s, size_t a, size_t b,
			       const struct hpm_count *ca, const struct hpm_count *cb);

#ifdef __cplusplus
}
#endif
#endif
