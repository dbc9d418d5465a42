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

/* A value under evaluation: its gradient with respect to the inputs. */
struct gval {
	double v;
	bool na;
	double g[HPM_EXPR_MAX_INPUTS];
};

struct run {
	struct hpm_eval *ev;
	struct hpm_value *out; /* the reason of the first n/a goes here */
	int err;
};

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

static void constant(struct gval *x, double v)
{
	x->v = v;
	x->na = false;
	memset(x->g, 0, sizeof(x->g));
}

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
	if (slot >= ev->nr_inputs || slot >= HPM_EXPR_MAX_INPUTS) {
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

static void eval_bin(struct run *r, const struct hpm_expr *e, const struct hpm_node *n,
		     struct gval *out)
{
	struct gval b;
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
		for (size_t i = 0; i < HPM_EXPR_MAX_INPUTS; i++)
			out->g[i] += b.g[i];
		break;
	case HPM_OP_SUB:
		out->v = a - b.v;
		for (size_t i = 0; i < HPM_EXPR_MAX_INPUTS; i++)
			out->g[i] -= b.g[i];
		break;
	case HPM_OP_MUL:
		out->v = a * b.v;
		for (size_t i = 0; i < HPM_EXPR_MAX_INPUTS; i++)
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
		for (size_t i = 0; i < HPM_EXPR_MAX_INPUTS; i++)
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

static void eval_call(struct run *r, const struct hpm_expr *e, const struct hpm_node *n,
		      struct gval *out)
{
	struct gval b;

	eval_node(r, e, n->kids[0], out);
	if (out->na)
		return;
	if (n->op == HPM_F_ABS) {
		if (out->v < 0) {
			out->v = -out->v;
			for (size_t i = 0; i < HPM_EXPR_MAX_INPUTS; i++)
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
		if (n->op == HPM_F_MIN ? b.v < out->v : b.v > out->v)
			*out = b;
	}
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
			for (size_t i = 0; i < HPM_EXPR_MAX_INPUTS; i++)
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

int hpm_eval__run(struct hpm_eval *ev, const struct hpm_expr *e,
		  struct hpm_value *out)
{
	struct gval x;
	struct run r = { .ev = ev, .out = out };

	memset(out, 0, sizeof(*out));
	if (!e || !e->root || ev->nr_inputs > HPM_EXPR_MAX_INPUTS)
		return -EINVAL;
	ev->chain = 0;
	ev->stack[0] = e;
	eval_node(&r, e, e->root, &x);
	if (x.na) {
		char reason[sizeof(out->reason)];
		memcpy(reason, out->reason, sizeof(reason));
		hpm_value__na(out, "%s", reason[0] ? reason : "no value");
		return r.err;
	}
	/* sigma^2 = sum over inputs i, j of d result / d input i *
	 * d result / d input j * cov(i, j), with cov(i, i) = sigma_i^2: the
	 * square terms alone when the inputs are independent */
	double var = 0, mag = 0;
	for (size_t i = 0; i < ev->nr_inputs; i++) {
		double s = ev->inputs[i].sigma;
		if (x.g[i] == 0 || s == 0)
			continue;
		if (!isfinite(s)) {
			var = NAN;
			break;
		}
		var += (x.g[i] * s) * (x.g[i] * s);
		mag += (x.g[i] * s) * (x.g[i] * s);
		for (size_t j = i + 1; ev->cov && j < ev->nr_inputs; j++) {
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
	return r.err;
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
