/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/metrics/ owns metric expressions, sets and selections; may use events, core, sys.
 *
 * Metric sets inside the library (metrics/metric.c; their built-in
 * metrics metrics/metric-data.c, their files metrics/metric-file.c), as
 * selections (metrics/msel.c) use them. Their expressions are
 * metrics/expr-internal.h's.
 *
 * Ownership: a metric owns its strings and expression; a metric set owns
 * its metrics and borrows its context, which must outlive it; a selection
 * borrows its metric set, which must outlive it.
 */
#ifndef HPM_METRIC_INTERNAL_H
#define HPM_METRIC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <hpmon/metric.h>

#include "events/family-internal.h"
#include "metrics/expr-internal.h"
#include "metrics/literal-internal.h"

/* Metrics one set may hold (perf 6.1's largest table: 236, with hpmon's
 * own about 300). */
#define HPM_METRICSET_MAX 4096


struct hpm_metric {
	char *name;
	char *formula;   /* as written */
	char *unit;      /* as given, or "" */
	char *desc;
	char *groups;    /* space separated */
	char *origin;
	char *pmu;         /* the vendor's Unit (hybrid: cpu_core, cpu_atom), or "" */
	char *constraint;  /* perf's MetricConstraint (NO_NMI_WATCHDOG ...), or "" */
	double scale;      /* the value is the formula times this (1 when not given) */
	enum hpm_metric_form form;
	struct hpm_expr *expr; /* the form applied */
};

struct hpm_metricset {
	struct hpm_ctx *ctx;
	struct hpm_family fam;
	struct hpm_metric **m;
	size_t nr, cap;
	char files[16][48];
	size_t nr_files;
	char *costs_file;  /* the calibrated costs' path, when read, or NULL */
	char *costs_text;  /* their text, read at creation, applied at the load */
	/* The built-in metrics are read at the first need (metric-data.c):
	 * the family (which reads sysfs) and every file for anything that
	 * looks at the set, the software file alone while a selection only
	 * waits for a list of software events to bind (msel.c). */
	enum { HPM_MS_NONE, HPM_MS_SOFTWARE, HPM_MS_ALL } loaded;
	/* The vendor's metrics of the model (data/vendor/), read after
	 * hpmon's own and only when a name is not among them or the whole
	 * set is listed: finding the model reads /proc/cpuinfo, and a
	 * model's table is hundreds of formulas, which `stat -e cycles`,
	 * showing hpmon's own metrics beside its events, never needs. */
	bool vendor_read;
	bool fam_known;
	bool no_builtin;
	int load_err;
	struct hpm_literals lit;
	char vendor_model[48];  /* the vendor tables' model read ("skylakex"), or "" */
	char no_vendor[160];    /* why there are none, when read and none found */
};


/*
 * Read the built-in metrics not read yet: all of them (@all), or only
 * metrics-software.txt, which needs no family. Returns the first error
 * met (kept: the set then holds what was read before it).
 */
int hpm__metricset_load(const struct hpm_metricset *ms, bool all);
/* Everything hpm__metricset_load(ms, true) reads, then the vendor's
 * metrics of this model, once. Returns the first error met. */
int hpm__metricset_load_vendor(const struct hpm_metricset *ms);
/* hpm_metricset__find among the metrics read so far. */
const struct hpm_metric *hpm__metricset_find(const struct hpm_metricset *ms, const char *name);
/* hpm_metricset__add_text, __add_file and __add_inline without reading
 * the built-in metrics first (metric-file.c; metric-data.c reads them). */
int hpm__metricset_add_text(struct hpm_metricset *ms, const char *text,
			    const char *origin, struct hpm_parse_error *err);
int hpm__metricset_add_file(struct hpm_metricset *ms, const char *path,
			    struct hpm_parse_error *err);
int hpm__metricset_add_inline(struct hpm_metricset *ms, const char *def,
			      struct hpm_parse_error *err);

/* The form named @s, as hpm_metric_form__str names it: 0 or -ENOENT. */
int hpm_metric_form__parse(const char *s, enum hpm_metric_form *out);
/* Free metric @m and everything it owns (NULL: nothing). */
void hpm_metric__free(struct hpm_metric *m);
/* The expression text of @formula with form @f applied (malloc'd; NULL
 * when out of memory). */
char *hpm_metric__apply_form(const char *formula, enum hpm_metric_form f);
/* Add @m to @ms (taken), replacing a metric of the same name in place.
 * 0 or -errno (@m then freed). */
int hpm_metricset__put(struct hpm_metricset *ms, struct hpm_metric *m);

/* Is @name a context value (duration_time, interval_time, num_cpus,
 * cpu_hz, or one of perf's literals: #SMT_on ...)? */
bool hpm_metric__is_context(const char *name);

/* The unit a metric is printed with: its own, or what its form implies. */
const char *hpm_metric__shown_unit(const struct hpm_metric *m);

/*
 * The events metric @m counts, following metrics it refers to: each name
 * once, in order of first use, into @names (up to @max; pointers into the
 * expressions). Returns the number found, or -E2BIG when there are more
 * than @max, or -HPM_ERR_SYNTAX on a reference cycle.
 */
int hpm_metricset__leaves(const struct hpm_metricset *ms,
			  const struct hpm_metric *m, const char **names,
			  size_t max);

#endif
