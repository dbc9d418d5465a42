/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/metrics/ owns metric expressions, sets and selections; may use events, core, sys.
 *
 * Metric expressions inside the library: the syntax tree metrics/expr.c
 * builds and metrics/eval.c evaluates, with references to other metrics
 * followed during evaluation (the "second pass" of a metric set).
 *
 * Ownership: an expression owns its tree, text and names. An evaluation
 * borrows everything it is given for the one call.
 */
#ifndef HPM_EXPR_INTERNAL_H
#define HPM_EXPR_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <hpmon/metric.h>

#include "metrics/expr-names-internal.h"

/* Bounds on untrusted input (metric files, --metric), with room over what
 * perf 6.1's x86 and arm64 tables need (docs/metrics.md, "Bounds"). */
#define HPM_EXPR_MAX_LEN 8192    /* characters of one expression (tables: 1304) */
#define HPM_EXPR_MAX_DEPTH 64    /* nesting of parentheses and operators (docs/metrics.md) */
#define HPM_EXPR_MAX_NODES 1024  /* nodes of one expression */
#define HPM_EXPR_MAX_NAME 255    /* characters of one name */
/* Distinct inputs (events and context values) one evaluation may use,
 * references to other metrics followed; also the refs of one expression
 * (tables: 52 events for one metric, 19 names in one formula). */
#define HPM_EXPR_MAX_INPUTS 128
/* Metrics that refer to metrics: how deep the chain may go (tables: 7). */
#define HPM_METRIC_MAX_CHAIN 16

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

enum hpm_func {
	HPM_F_MIN, HPM_F_MAX, HPM_F_ABS,
	HPM_F_D_RATIO,      /* perf's d_ratio(a, b): a / b, 0 when b is 0 */
	HPM_F_SOURCE_COUNT, /* perf's source_count(event): counters summed into it */
};

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
	/* How many counters were summed into slot @i (source_count); NULL: 1. */
	double (*sources)(void *arg, size_t i);
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
