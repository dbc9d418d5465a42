/* SPDX-License-Identifier: MIT */
/*
 * Metric expressions inside the library: the syntax tree metrics/expr.c
 * builds and metrics/eval.c evaluates, with references to other metrics
 * followed during evaluation (the "second pass" of a metric set); and the
 * metric sets (metrics/metric.c) that selections (metrics/msel.c) use.
 *
 * Ownership: an expression owns its tree, text and names; a metric owns
 * its strings and expression; a metric set owns its metrics and borrows
 * its context, which must outlive it; a selection borrows its metric set,
 * which must outlive it. An evaluation borrows everything it is given for
 * the one call.
 */
#ifndef HPM_METRIC_INTERNAL_H
#define HPM_METRIC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <hpmon/metric.h>

/* Bounds on untrusted input (metric files, --metric). */
#define HPM_EXPR_MAX_LEN 4096    /* characters of one expression */
#define HPM_EXPR_MAX_DEPTH 64    /* nesting of parentheses and operators (docs/metrics.md) */
#define HPM_EXPR_MAX_NODES 1024  /* nodes of one expression */
#define HPM_EXPR_MAX_NAME 255    /* characters of one name */
/* Distinct inputs (events and context values) one evaluation may use,
 * references to other metrics followed; also the refs of one expression. */
#define HPM_EXPR_MAX_INPUTS 32
/* Metrics that refer to metrics: how deep the chain may go. */
#define HPM_METRIC_MAX_CHAIN 8

enum hpm_node_kind {
	HPM_N_NUM,   /* a number */
	HPM_N_REF,   /* a name: event, metric or context value */
	HPM_N_NEG,   /* -x */
	HPM_N_NOT,   /* not x */
	HPM_N_BIN,   /* x op y */
	HPM_N_COND,  /* kids[0] if kids[1] else kids[2] */
	HPM_N_CALL,  /* min(...), max(...), abs(x) */
};

enum hpm_binop {
	HPM_OP_ADD, HPM_OP_SUB, HPM_OP_MUL, HPM_OP_DIV,
	HPM_OP_LT, HPM_OP_LE, HPM_OP_GT, HPM_OP_GE, HPM_OP_EQ, HPM_OP_NE,
	HPM_OP_AND, HPM_OP_OR,
};

enum hpm_func { HPM_F_MIN, HPM_F_MAX, HPM_F_ABS };

struct hpm_node {
	enum hpm_node_kind kind;
	int op;                 /* enum hpm_binop or enum hpm_func */
	double num;             /* HPM_N_NUM */
	size_t ref;             /* HPM_N_REF: index into hpm_expr.refs */
	size_t pos, len;        /* the node's text in hpm_expr.text */
	struct hpm_node **kids;
	unsigned nr_kids;
};

struct hpm_expr {
	char *text;
	struct hpm_node *root;
	char **refs;            /* distinct names, in order of first use */
	size_t nr_refs;
	size_t nr_nodes;
};

/*
 * Evaluation. A name is looked up through @resolve, which says either
 * that it is an input (slot @*slot of @inputs) or that it is another
 * expression to evaluate in its place (@*sub, a metric), or that it is
 * unknown (a negative error; @why says why, for the n/a reason).
 */
typedef int (*hpm_eval_resolve_fn)(void *arg, const char *name, size_t *slot,
				   const struct hpm_expr **sub, char *why,
				   size_t why_len);

struct hpm_eval {
	hpm_eval_resolve_fn resolve;
	void *arg;
	const struct hpm_value *inputs; /* values of the slots */
	size_t nr_inputs;               /* at most HPM_EXPR_MAX_INPUTS */
	/* The covariance of slots i != j; NULL: independent inputs. */
	double (*cov)(void *arg, size_t i, size_t j);
	/* internal */
	unsigned chain;                 /* metric references followed */
	const struct hpm_expr *stack[HPM_METRIC_MAX_CHAIN + 1];
};

/*
 * Evaluate @e. Returns 0 with @out filled (possibly n/a with its reason),
 * or a negative error when the evaluation itself is malformed (a slot out
 * of range, a reference cycle or chain too deep: -HPM_ERR_SYNTAX).
 */
int hpm_eval__run(struct hpm_eval *ev, const struct hpm_expr *e,
		  struct hpm_value *out);

#endif

/* ---- metric sets (lib/metrics/metric.c), for selections (lib/metrics/msel.c) ---- */

#include "events/family-internal.h"

/* Metrics one set may hold. */
#define HPM_METRICSET_MAX 4096

struct hpm_metric {
	char *name;
	char *formula;   /* as written */
	char *unit;      /* as given, or "" */
	char *desc;
	char *groups;    /* space separated */
	char *origin;
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
	bool fam_known;
	bool no_builtin;
	int load_err;
};

/*
 * Read the built-in metrics not read yet: all of them (@all), or only
 * metrics-software.txt, which needs no family. Returns the first error
 * met (kept: the set then holds what was read before it).
 */
int hpm__metricset_load(const struct hpm_metricset *ms, bool all);
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
 * cpu_hz)? */
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
