/* SPDX-License-Identifier: MIT */
/*
 * Values with their uncertainty, and the evaluator of metric expressions
 * (the tree metrics/expr.c builds): each value carries its gradient with
 * respect to its inputs, so that the uncertainty of a result is
 * propagated to first order with every input counted once however often
 * it is used. Metrics referred to by name are evaluated in place, to a
 * bounded depth.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/expr-internal.h"


/* ---- values ---- */

void hpm_value__set(struct hpm_value *v, double value, double sigma)
{
	v->value = value;
	v->sigma = sigma;
	v->na = false;
	v->reason[0] = '\0';
}

void hpm_value__na(struct hpm_value *v, const char *fmt, ...)
{
	va_list ap;
	v->value = NAN;
	v->sigma = NAN;
	v->na = true;
	va_start(ap, fmt);
	vsnprintf(v->reason, sizeof(v->reason), fmt, ap);
	va_end(ap);
}


/* ---- evaluation ---- */

/* A value under evaluation: its gradient with respect to the inputs
 * (nr_inputs of them, from the run's pool). */
struct gval {
	double v;
	bool na;
	double *g;
};

/* Gradients are taken from a pool, one block of nr_inputs doubles per
 * value alive, in stack order: the evaluation's depth is bounded by the
 * expressions' (HPM_EXPR_MAX_DEPTH) times the chain of metrics. */
#define POOL_MAX ((HPM_EXPR_MAX_DEPTH + 4) * (HPM_METRIC_MAX_CHAIN + 1) + 4)

struct run {
	struct hpm_eval *ev;
	struct hpm_value *out; /* the reason of the first n/a goes here */
	int err;
	size_t n;              /* inputs: the gradients' length */
	double *pool[POOL_MAX];
	size_t top;
};

/* A gradient for a new value (all zero); NULL when the pool is spent or
 * memory is short (the value is then n/a). */
static bool gtake(struct run *r, struct gval *x)
{
	x->g = NULL;
	if (r->top >= POOL_MAX)
		return false;
	if (!r->pool[r->top]) {
		r->pool[r->top] = calloc(r->n ? r->n : 1, sizeof(double));
		if (!r->pool[r->top])
			return false;
	}
	x->g = r->pool[r->top++];
	memset(x->g, 0, r->n * sizeof(double));
	return true;
}

static void gdrop(struct run *r) { r->top--; }

static void set_na(struct run *r, struct gval *x, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_na(struct run *r, struct gval *x, const char *fmt, ...)
{
	va_list ap;
	x->na = true;
	x->v = NAN;
	if (r->out->reason[0])
		return;
	va_start(ap, fmt);
	vsnprintf(r->out->reason, sizeof(r->out->reason), fmt, ap);
	va_end(ap);
}

static void constant_n(struct gval *x, double v, size_t n)
{
	x->v = v;
	x->na = false;
	memset(x->g, 0, n * sizeof(double));
}

#define constant(x, val) constant_n((x), (val), r->n)

/* The text of node @n, shortened for a message. */
static void node_text(const struct hpm_expr *e, const struct hpm_node *n, char *buf,
		      size_t len)
{
	size_t l = n->len;
	if (l > 60)
		snprintf(buf, len, "%.57s...", e->text + n->pos);
	else
		snprintf(buf, len, "%.*s", (int)l, e->text + n->pos);
}

static void eval_node(struct run *r, const struct hpm_expr *e,
		      const struct hpm_node *n, struct gval *out);

static void eval_ref(struct run *r, const struct hpm_expr *e, const struct hpm_node *n,
		     struct gval *out)
{
	struct hpm_eval *ev = r->ev;
	const char *name = e->refs[n->ref];
	const struct hpm_expr *sub = NULL;
	size_t slot = SIZE_MAX;
	char why[192] = "";
	int rc = ev->resolve(ev->arg, name, &slot, &sub, why, sizeof(why));

	if (rc) {
		set_na(r, out, "%s", why[0] ? why : "unknown name");
		return;
	}
	if (sub) {
		for (unsigned i = 0; i <= ev->chain; i++)
			if (ev->stack[i] == sub) {
				set_na(r, out, "metric '%s' refers to itself", name);
				r->err = -HPM_ERR_SYNTAX;
				return;
			}
		if (ev->chain >= HPM_METRIC_MAX_CHAIN) {
			set_na(r, out, "metric '%s': more than %d metrics refer to each other in a chain",
			       name, HPM_METRIC_MAX_CHAIN);
			r->err = -HPM_ERR_SYNTAX;
			return;
		}
		ev->stack[++ev->chain] = sub;
		eval_node(r, sub, sub->root, out);
		ev->chain--;
		return;
	}
	if (slot >= ev->nr_inputs || slot >= r->n) {
		set_na(r, out, "'%s': more inputs than %d", name, HPM_EXPR_MAX_INPUTS);
		r->err = -HPM_ERR_SYNTAX;
		return;
	}
	const struct hpm_value *in = &ev->inputs[slot];
	if (in->na || !isfinite(in->value)) {
		set_na(r, out, "%s", in->reason[0] ? in->reason : "no value");
		return;
	}
	constant(out, in->value);
	out->g[slot] = 1.0;
}

static void eval_bin_with(struct run *r, const struct hpm_expr *e, const struct hpm_node *n,
			  struct gval *out, struct gval b)
{
	int op = n->op;

	eval_node(r, e, n->kids[0], out);
	if (out->na)
		return;
	if (op == HPM_OP_AND || op == HPM_OP_OR) {
		bool a = out->v != 0;
		if ((op == HPM_OP_AND && !a) || (op == HPM_OP_OR && a)) {
			constant(out, a);
			return;
		}
		eval_node(r, e, n->kids[1], &b);
		if (b.na) {
			out->na = true;
			return;
		}
		constant(out, b.v != 0);
		return;
	}
	eval_node(r, e, n->kids[1], &b);
	if (b.na) {
		out->na = true;
		return;
	}
	double a = out->v, q;
	switch (op) {
	case HPM_OP_ADD:
		out->v = a + b.v;
		for (size_t i = 0; i < r->n; i++)
			out->g[i] += b.g[i];
		break;
	case HPM_OP_SUB:
		out->v = a - b.v;
		for (size_t i = 0; i < r->n; i++)
			out->g[i] -= b.g[i];
		break;
	case HPM_OP_MUL:
		out->v = a * b.v;
		for (size_t i = 0; i < r->n; i++)
			out->g[i] = b.v * out->g[i] + a * b.g[i];
		break;
	case HPM_OP_DIV:
		if (b.v == 0) {
			char txt[80];
			node_text(e, n->kids[1], txt, sizeof(txt));
			set_na(r, out, "division by zero: %s is 0", txt);
			return;
		}
		q = a / b.v;
		out->v = q;
		for (size_t i = 0; i < r->n; i++)
			out->g[i] = (out->g[i] - q * b.g[i]) / b.v;
		break;
	case HPM_OP_LT: constant(out, a < b.v); break;
	case HPM_OP_LE: constant(out, a <= b.v); break;
	case HPM_OP_GT: constant(out, a > b.v); break;
	case HPM_OP_GE: constant(out, a >= b.v); break;
	case HPM_OP_EQ: constant(out, a == b.v); break;
	case HPM_OP_NE: constant(out, a != b.v); break;
	}
	if (!isfinite(out->v)) {
		char txt[80];
		node_text(e, n, txt, sizeof(txt));
		set_na(r, out, "%s overflows", txt);
	}
}

/* How many counters were summed into the event @n names (a leaf). */
static void eval_source_count(struct run *r, const struct hpm_expr *e,
			      const struct hpm_node *n, struct gval *out)
{
	struct hpm_eval *ev = r->ev;
	const char *name = e->refs[n->ref];
	const struct hpm_expr *sub = NULL;
	size_t slot = SIZE_MAX;
	char why[192] = "";

	if (ev->resolve(ev->arg, name, &slot, &sub, why, sizeof(why))) {
		set_na(r, out, "%s", why[0] ? why : "unknown name");
		return;
	}
	if (sub || slot >= ev->nr_inputs) {
		set_na(r, out, "source_count(%s): '%s' is not an event", name, name);
		return;
	}
	constant(out, ev->sources ? ev->sources(ev->arg, slot) : 1);
}

static void eval_call_with(struct run *r, const struct hpm_expr *e, const struct hpm_node *n,
			   struct gval *out, struct gval b)
{
	if (n->op == HPM_F_SOURCE_COUNT) {
		eval_source_count(r, e, n->kids[0], out);
		return;
	}
	eval_node(r, e, n->kids[0], out);
	if (out->na)
		return;
	if (n->op == HPM_F_D_RATIO) {
		/* perf's: a / b, and 0 when b is 0 */
		eval_node(r, e, n->kids[1], &b);
		if (b.na) {
			out->na = true;
			return;
		}
		if (b.v == 0) {
			constant(out, 0);
			return;
		}
		double q = out->v / b.v;
		out->v = q;
		for (size_t i = 0; i < r->n; i++)
			out->g[i] = (out->g[i] - q * b.g[i]) / b.v;
		if (!isfinite(q)) {
			char txt[80];
			node_text(e, n, txt, sizeof(txt));
			set_na(r, out, "%s overflows", txt);
		}
		return;
	}
	if (n->op == HPM_F_ABS) {
		if (out->v < 0) {
			out->v = -out->v;
			for (size_t i = 0; i < r->n; i++)
				out->g[i] = -out->g[i];
		}
		return;
	}
	for (unsigned k = 1; k < n->nr_kids; k++) {
		eval_node(r, e, n->kids[k], &b);
		if (b.na) {
			out->na = true;
			return;
		}
		if (n->op == HPM_F_MIN ? b.v < out->v : b.v > out->v) {
			out->v = b.v;
			memcpy(out->g, b.g, r->n * sizeof(double));
		}
	}
}

/* eval_bin_with and eval_call_with, with a second value from the pool. */
static void eval_bin(struct run *r, const struct hpm_expr *e, const struct hpm_node *n,
		     struct gval *out)
{
	struct gval b;
	if (!gtake(r, &b)) {
		set_na(r, out, "expression too deep to evaluate");
		return;
	}
	eval_bin_with(r, e, n, out, b);
	gdrop(r);
}

static void eval_call(struct run *r, const struct hpm_expr *e, const struct hpm_node *n,
		      struct gval *out)
{
	struct gval b;
	if (n->nr_kids < 2 && n->op != HPM_F_SOURCE_COUNT) {
		b.g = NULL;
		eval_call_with(r, e, n, out, b);
		return;
	}
	if (!gtake(r, &b)) {
		set_na(r, out, "expression too deep to evaluate");
		return;
	}
	eval_call_with(r, e, n, out, b);
	gdrop(r);
}

static void eval_node(struct run *r, const struct hpm_expr *e,
		      const struct hpm_node *n, struct gval *out)
{
	switch (n->kind) {
	case HPM_N_NUM:
		constant(out, n->num);
		return;
	case HPM_N_REF:
		eval_ref(r, e, n, out);
		return;
	case HPM_N_NEG:
		eval_node(r, e, n->kids[0], out);
		if (!out->na) {
			out->v = -out->v;
			for (size_t i = 0; i < r->n; i++)
				out->g[i] = -out->g[i];
		}
		return;
	case HPM_N_NOT:
		eval_node(r, e, n->kids[0], out);
		if (!out->na)
			constant(out, out->v == 0);
		return;
	case HPM_N_BIN:
		eval_bin(r, e, n, out);
		return;
	case HPM_N_COND:
		eval_node(r, e, n->kids[1], out);
		if (out->na)
			return;
		eval_node(r, e, n->kids[out->v != 0 ? 0 : 2], out);
		return;
	case HPM_N_CALL:
		eval_call(r, e, n, out);
		return;
	}
	set_na(r, out, "bad expression");
	r->err = -HPM_ERR_SYNTAX;
}

static int finish(struct run *r, const struct gval *xp, struct hpm_value *out);

int hpm_eval__run(struct hpm_eval *ev, const struct hpm_expr *e,
		  struct hpm_value *out)
{
	struct gval x;
	struct run r = { .ev = ev, .out = out };
	int rc;

	memset(out, 0, sizeof(*out));
	if (!e || !e->root || ev->nr_inputs > HPM_EXPR_MAX_INPUTS)
		return -EINVAL;
	/* room for context values the resolver adds while evaluating */
	r.n = ev->nr_inputs + 16 < HPM_EXPR_MAX_INPUTS ? ev->nr_inputs + 16 : HPM_EXPR_MAX_INPUTS;
	ev->chain = 0;
	ev->stack[0] = e;
	if (!gtake(&r, &x)) {
		hpm_value__na(out, "out of memory");
		return -ENOMEM;
	}
	eval_node(&r, e, e->root, &x);
	rc = finish(&r, &x, out);
	for (size_t i = 0; i < POOL_MAX && r.pool[i]; i++)
		free(r.pool[i]);
	return rc;
}

/* The result @x of run @r into @out, with its uncertainty. */
static int finish(struct run *r, const struct gval *xp, struct hpm_value *out)
{
	struct hpm_eval *ev = r->ev;
	const struct gval x = *xp;

	if (x.na) {
		char reason[sizeof(out->reason)];
		memcpy(reason, out->reason, sizeof(reason));
		hpm_value__na(out, "%s", reason[0] ? reason : "no value");
		return r->err;
	}
	/* sigma^2 = sum over inputs i, j of d result / d input i *
	 * d result / d input j * cov(i, j), with cov(i, i) = sigma_i^2: the
	 * square terms alone when the inputs are independent */
	double var = 0, mag = 0;
	for (size_t i = 0; i < ev->nr_inputs && i < r->n; i++) {
		double s = ev->inputs[i].sigma;
		if (x.g[i] == 0 || s == 0)
			continue;
		if (!isfinite(s)) {
			var = NAN;
			break;
		}
		var += (x.g[i] * s) * (x.g[i] * s);
		mag += (x.g[i] * s) * (x.g[i] * s);
		for (size_t j = i + 1; ev->cov && j < ev->nr_inputs && j < r->n; j++) {
			if (x.g[j] == 0 || ev->inputs[j].sigma == 0)
				continue;
			double t = 2 * x.g[i] * x.g[j] * ev->cov(ev->arg, i, j);
			var += t;
			mag += fabs(t);
		}
	}
	/* perfectly correlated inputs cancel to what rounding leaves, a tiny
	 * difference of either sign (a ratio inside one group): that is 0,
	 * not an uncertainty of 1e-8 */
	if (var < 1e-12 * mag)
		var = 0;
	hpm_value__set(out, x.v, isfinite(var) ? sqrt(var) : NAN);
	return r->err;
}

/* The public evaluator: the expression's refs are its inputs, in order. */
static int refs_resolve(void *arg, const char *name, size_t *slot,
			const struct hpm_expr **sub, char *why, size_t why_len)
{
	const struct hpm_expr *e = arg;
	(void)sub;
	for (size_t i = 0; i < e->nr_refs; i++)
		if (!strcmp(e->refs[i], name)) {
			*slot = i;
			return 0;
		}
	snprintf(why, why_len, "'%s' has no value", name);
	return -ENOENT;
}

int hpm_expr__eval(const struct hpm_expr *e, const struct hpm_value *refs,
		   struct hpm_value *out)
{
	struct hpm_eval ev = {
		.resolve = refs_resolve,
		.arg = (void *)e,
		.inputs = refs,
		.nr_inputs = e ? e->nr_refs : 0,
	};
	if (!e || !out || (e->nr_refs && !refs))
		return -EINVAL;
	return hpm_eval__run(&ev, e, out);
}
