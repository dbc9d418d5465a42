/* SPDX-License-Identifier: MIT */
/*
 * Metric expressions: a tokenizer and a recursive-descent parser to a
 * syntax tree (metrics/metric-internal.h); metrics/eval.c evaluates it.
 *
 *   cond   := or ['if' or 'else' cond]
 *   or     := and (('or' | '||') and)*
 *   and    := not (('and' | '&&') not)*
 *   not    := ('not' | '!') not | cmp
 *   cmp    := add [('<' | '<=' | '>' | '>=' | '==' | '!=') add]
 *   add    := mul (('+' | '-') mul)*
 *   mul    := unary (('*' | '/') unary)*
 *   unary  := ('-' | '+') unary | primary
 *   primary:= NUMBER | NAME | STRING | LITERAL | FUNC '(' cond (',' cond)* ')'
 *           | '(' cond ')'
 *
 * perf's metric syntax is accepted as well (docs/vendor-tables.md): a
 * name may hold '\' escapes and a PMU event written with '@' for '/'
 * (cpu@EVENT\,cmask\=1@ is the event cpu/EVENT,cmask=1/), a LITERAL is
 * '#' and a name (#SMT_on, a context value), and the functions d_ratio
 * and source_count are perf's.
 *
 * Everything is bounded (length, nesting, nodes, names), so a file or a
 * command line cannot make the parser recurse without end.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "metrics/expr-internal.h"

/* ---- tokens ---- */

enum tok_kind { T_END, T_NUM, T_NAME, T_STR, T_OP, T_LP, T_RP, T_COMMA, T_BAD };

struct tok {
	enum tok_kind kind;
	size_t pos, len;   /* in the text; for T_STR without the quotes */
	double num;
	char op[3];
};

struct parser {
	struct hpm_expr *e;
	const char *s;
	size_t pos;
	struct tok t;      /* current token */
	struct hpm_parse_error *err;
	struct hpm_parse_error local;
};

static int fail(struct parser *p, size_t pos, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(struct parser *p, size_t pos, size_t len, const char *fmt, ...)
{
	struct hpm_parse_error *e = p->err;
	va_list ap;

	if (e->err)
		return e->err;
	e->err = -HPM_ERR_SYNTAX;
	e->pos = pos;
	if (len >= sizeof(e->token))
		len = sizeof(e->token) - 1;
	memcpy(e->token, p->s + pos, len);
	e->token[len] = '\0';
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return e->err;
}

static bool name_start(char c) { return isalpha((unsigned char)c) || c == '_'; }
static bool name_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '.'; }
/* after ':' in cycles:u, INST_RETIRED:ANY_P, MEM_TRANS_RETIRED:ldlat=3 */
static bool mod_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '=' || c == '.'; }

static size_t scan_name(const char *s)
{
	size_t i = 0;
	for (;;) {
		if (name_char(s[i]) ||
		    /* a '-' between letters is part of the name: page-faults */
		    (s[i] == '-' && i > 0 && name_char(s[i - 1]) && isalpha((unsigned char)s[i + 1]))) {
			i++;
		} else if (s[i] == '\\' && s[i + 1] && strchr("-,=", s[i + 1])) {
			i += 2; /* perf's escapes: \, \= \- */
		} else if (s[i] == '@' && i > 0) {
			/* perf's PMU event, pmu@terms@: to the closing '@' */
			size_t j = i + 1;
			while (s[j] && s[j] != '@' && !isspace((unsigned char)s[j]) &&
			       !strchr("()", s[j]))
				j += s[j] == '\\' && s[j + 1] ? 2 : 1;
			if (s[j] != '@')
				break;
			i = j + 1;
		} else {
			break;
		}
	}
	while (s[i] == ':' && mod_char(s[i + 1])) {
		i++;
		while (mod_char(s[i]))
			i++;
	}
	return i;
}

/* A literal: '#' and letters, digits, '_', '.' and '-' (perf's). */
static size_t scan_literal(const char *s)
{
	size_t i = 1;
	while (isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '.' || s[i] == '-')
		i++;
	return i;
}

/* A number: digits[.digits][e[+-]digits], .digits..., or 0xHEX. */
static size_t scan_number(const char *s, double *out)
{
	char buf[64];
	size_t i = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && isxdigit((unsigned char)s[2])) {
		unsigned long long v = 0;
		i = 2;
		while (isxdigit((unsigned char)s[i])) {
			int d = isdigit((unsigned char)s[i]) ? s[i] - '0'
							     : tolower((unsigned char)s[i]) - 'a' + 10;
			if (v > (~0ull >> 4))
				return 0; /* too long */
			v = v * 16 + (unsigned)d;
			i++;
		}
		*out = (double)v;
		return i;
	}
	while (isdigit((unsigned char)s[i]))
		i++;
	if (s[i] == '.') {
		i++;
		while (isdigit((unsigned char)s[i]))
			i++;
	}
	if (i == 0 || (i == 1 && s[0] == '.'))
		return 0;
	if ((s[i] == 'e' || s[i] == 'E') &&
	    (isdigit((unsigned char)s[i + 1]) ||
	     ((s[i + 1] == '+' || s[i + 1] == '-') && isdigit((unsigned char)s[i + 2])))) {
		i += 2;
		while (isdigit((unsigned char)s[i]))
			i++;
	}
	if (i >= sizeof(buf))
		return 0;
	memcpy(buf, s, i);
	buf[i] = '\0';
	*out = strtod(buf, NULL);
	return isfinite(*out) ? i : 0;
}

static void next(struct parser *p)
{
	const char *s = p->s;
	struct tok *t = &p->t;

	while (isspace((unsigned char)s[p->pos]))
		p->pos++;
	memset(t, 0, sizeof(*t));
	t->pos = p->pos;
	char c = s[p->pos];
	if (!c) {
		t->kind = T_END;
		return;
	}
	if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)s[p->pos + 1]))) {
		size_t n = scan_number(s + p->pos, &t->num);
		t->kind = n ? T_NUM : T_BAD;
		t->len = n ? n : 1;
		/* "12abc": a number glued to a name is a mistake */
		if (n && (name_start(s[p->pos + n]) || isdigit((unsigned char)s[p->pos + n]) ||
			  s[p->pos + n] == '.')) {
			t->kind = T_BAD;
			t->len = n;
			while (name_char(s[p->pos + t->len]))
				t->len++;
		}
		p->pos += t->len;
		return;
	}
	if (c == '#' && (isalnum((unsigned char)s[p->pos + 1]) || s[p->pos + 1] == '_')) {
		t->kind = T_NAME;
		t->len = scan_literal(s + p->pos);
		p->pos += t->len;
		return;
	}
	if (name_start(c)) {
		t->kind = T_NAME;
		t->len = scan_name(s + p->pos);
		p->pos += t->len;
		return;
	}
	if (c == '"' || c == '\'') {
		const char *end = strchr(s + p->pos + 1, c);
		if (!end) {
			t->kind = T_BAD;
			t->len = strlen(s + p->pos);
			p->pos += t->len;
			return;
		}
		t->kind = T_STR;
		t->pos = p->pos + 1;
		t->len = (size_t)(end - (s + p->pos + 1));
		p->pos = (size_t)(end - s) + 1;
		return;
	}
	p->pos++;
	t->len = 1;
	switch (c) {
	case '(': t->kind = T_LP; return;
	case ')': t->kind = T_RP; return;
	case ',': t->kind = T_COMMA; return;
	case '+': case '-': case '*': case '/':
		t->kind = T_OP;
		t->op[0] = c;
		return;
	case '<': case '>': case '=': case '!': case '&': case '|': {
		char d = s[p->pos];
		t->kind = T_OP;
		t->op[0] = c;
		if ((d == '=' && c != '&' && c != '|') || (c == '&' && d == '&') ||
		    (c == '|' && d == '|')) {
			t->op[1] = d;
			t->len = 2;
			p->pos++;
		} else if (c == '=' || c == '&' || c == '|') {
			t->kind = T_BAD; /* lone '=', '&', '|' */
		}
		return;
	}
	default:
		t->kind = T_BAD;
		return;
	}
}

static bool is_word(const struct parser *p, const char *w)
{
	return p->t.kind == T_NAME && p->t.len == strlen(w) &&
	       !strncmp(p->s + p->t.pos, w, p->t.len);
}

static bool is_op(const struct parser *p, const char *op)
{
	return p->t.kind == T_OP && !strcmp(p->t.op, op);
}

static bool is_keyword(const char *s, size_t len)
{
	static const char *const kw[] = { "if", "else", "and", "or", "not" };
	for (size_t i = 0; i < sizeof(kw) / sizeof(kw[0]); i++)
		if (len == strlen(kw[i]) && !strncmp(s, kw[i], len))
			return true;
	return false;
}

static int expected(struct parser *p, const char *what)
{
	const struct tok *t = &p->t;
	if (t->kind == T_END)
		return fail(p, t->pos, 0, "expected %s, but the expression ends", what);
	if (t->kind == T_BAD) {
		const char *s = p->s + t->pos;
		if (*s == '"' || *s == '\'')
			return fail(p, t->pos, t->len, "%c...: the quoted event is never closed", *s);
		if (isdigit((unsigned char)*s) || *s == '.')
			return fail(p, t->pos, t->len, "'%.*s' is not a number", (int)t->len, s);
		if (*s == '=')
			return fail(p, t->pos, 1, "'=' is not an operator here (compare with '==')");
		if (*s == '@')
			return fail(p, t->pos, 1, "'@' opens a PMU event in perf's syntax "
				    "(pmu@terms@) that is never closed");
		return fail(p, t->pos, t->len, "unexpected character '%c'", *s);
	}
	return fail(p, t->pos, t->len, "expected %s, found '%.*s'", what, (int)t->len,
		    p->s + t->pos);
}

/* ---- tree ---- */

static void node_free(struct hpm_node *n)
{
	if (!n)
		return;
	for (unsigned i = 0; i < n->nr_kids; i++)
		node_free(n->kids[i]);
	free(n->kids);
	free(n);
}

static unsigned height(const struct hpm_node *n)
{
	unsigned h = 0;
	for (unsigned i = 0; i < n->nr_kids; i++) {
		unsigned k = height(n->kids[i]);
		if (k > h)
			h = k;
	}
	return h + 1;
}

/* A new node of @kind spanning [pos, end) with the given kids (taken). */
static struct hpm_node *mk(struct parser *p, enum hpm_node_kind kind, int op,
			   size_t pos, size_t end, unsigned nr,
			   struct hpm_node **kids)
{
	struct hpm_node *n;

	if (p->e->nr_nodes >= HPM_EXPR_MAX_NODES) {
		fail(p, pos, end - pos, "expression too large (more than %d terms)",
		     HPM_EXPR_MAX_NODES);
		goto bad;
	}
	n = calloc(1, sizeof(*n));
	if (!n)
		goto bad;
	if (nr) {
		n->kids = malloc(nr * sizeof(*kids));
		if (!n->kids) {
			free(n);
			goto bad;
		}
		memcpy(n->kids, kids, nr * sizeof(*kids));
	}
	n->nr_kids = nr;
	n->kind = kind;
	n->op = op;
	n->pos = pos;
	n->len = end - pos;
	p->e->nr_nodes++;
	if (nr && height(n) > HPM_EXPR_MAX_DEPTH) {
		fail(p, pos, end - pos, "expression nested too deeply (more than %d levels)",
		     HPM_EXPR_MAX_DEPTH);
		node_free(n);
		return NULL;
	}
	return n;
bad:
	for (unsigned i = 0; i < nr; i++)
		node_free(kids[i]);
	if (!p->err->err)
		p->err->err = -ENOMEM;
	return NULL;
}

static int add_ref(struct parser *p, size_t pos, size_t len, bool quoted, size_t *idx)
{
	struct hpm_expr *e = p->e;
	char name[HPM_EXPR_MAX_NAME + 1];

	if (len == 0)
		return fail(p, pos ? pos - 1 : 0, 2, "empty quoted event name");
	if (len > HPM_EXPR_MAX_NAME)
		return fail(p, pos, len, "name longer than %d characters", HPM_EXPR_MAX_NAME);
	hpm_expr__ref_name(p->s + pos, len, quoted, name);
	if (name[0] == '#' && !quoted && !hpm_expr__literal(name))
		return fail(p, pos, len, "unknown literal '%s' (there are #SMT_on, #core_wide, "
			    "#num_cpus, #num_cpus_online, #num_cores, #num_dies, #num_packages, "
			    "#slots and #system_tsc_freq)", name);
	for (size_t i = 0; i < e->nr_refs; i++)
		if (!strcmp(e->refs[i], name)) {
			*idx = i;
			return 0;
		}
	if (e->nr_refs >= HPM_EXPR_MAX_INPUTS)
		return fail(p, pos, len, "more than %d distinct names in one expression",
			    HPM_EXPR_MAX_INPUTS);
	char **v = realloc(e->refs, (e->nr_refs + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	e->refs = v;
	v[e->nr_refs] = strdup(name);
	if (!v[e->nr_refs])
		return -ENOMEM;
	*idx = e->nr_refs++;
	return 0;
}

static struct hpm_node *parse_cond(struct parser *p, unsigned depth);

static struct hpm_node *parse_call(struct parser *p, unsigned depth)
{
	static const struct { const char *name; enum hpm_func f; unsigned min, max; } funcs[] = {
		{ "min", HPM_F_MIN, 1, 16 },
		{ "max", HPM_F_MAX, 1, 16 },
		{ "abs", HPM_F_ABS, 1, 1 },
		{ "d_ratio", HPM_F_D_RATIO, 2, 2 },
		{ "source_count", HPM_F_SOURCE_COUNT, 1, 1 },
	};
	struct hpm_node *args[16];
	unsigned nr = 0;
	size_t pos = p->t.pos, flen = p->t.len;
	size_t f;

	for (f = 0; f < sizeof(funcs) / sizeof(funcs[0]); f++)
		if (strlen(funcs[f].name) == flen && !strncmp(p->s + pos, funcs[f].name, flen))
			break;
	if (f == sizeof(funcs) / sizeof(funcs[0])) {
		fail(p, pos, flen, "unknown function '%.*s' (there are min, max, abs, d_ratio and "
		     "source_count)",
		     (int)flen, p->s + pos);
		return NULL;
	}
	next(p); /* name */
	next(p); /* ( */
	for (;;) {
		if (nr == funcs[f].max) {
			fail(p, p->t.pos, p->t.len, "%s takes at most %u argument%s",
			     funcs[f].name, funcs[f].max, funcs[f].max > 1 ? "s" : "");
			goto bad;
		}
		args[nr] = parse_cond(p, depth + 1);
		if (!args[nr])
			goto bad;
		nr++;
		if (p->t.kind == T_COMMA) {
			next(p);
			continue;
		}
		if (p->t.kind == T_RP)
			break;
		expected(p, "',' or ')'");
		goto bad;
	}
	if (nr < funcs[f].min) {
		fail(p, p->t.pos, p->t.len, "%s takes %u arguments", funcs[f].name, funcs[f].min);
		goto bad;
	}
	if (funcs[f].f == HPM_F_SOURCE_COUNT &&
	    (args[0]->kind != HPM_N_REF || p->e->refs[args[0]->ref][0] == '#')) {
		fail(p, args[0]->pos, args[0]->len, "source_count takes an event");
		goto bad;
	}
	size_t end = p->t.pos + 1;
	next(p);
	return mk(p, HPM_N_CALL, (int)funcs[f].f, pos, end, nr, args);
bad:
	while (nr)
		node_free(args[--nr]);
	return NULL;
}

static struct hpm_node *parse_primary(struct parser *p, unsigned depth)
{
	struct tok t = p->t;
	struct hpm_node *n;

	switch (t.kind) {
	case T_NUM:
		next(p);
		n = mk(p, HPM_N_NUM, 0, t.pos, t.pos + t.len, 0, NULL);
		if (n)
			n->num = t.num;
		return n;
	case T_STR:
	case T_NAME: {
		size_t idx = 0;
		if (t.kind == T_NAME && is_keyword(p->s + t.pos, t.len)) {
			expected(p, "a number, a name or '('");
			return NULL;
		}
		if (t.kind == T_NAME) {
			/* a call? look past spaces for '(' */
			size_t q = p->pos;
			while (isspace((unsigned char)p->s[q]))
				q++;
			if (p->s[q] == '(')
				return parse_call(p, depth);
		}
		if (add_ref(p, t.pos, t.len, t.kind == T_STR, &idx))
			return NULL;
		next(p);
		/* the node spans the quotes too */
		size_t pos = t.kind == T_STR ? t.pos - 1 : t.pos;
		size_t end = t.kind == T_STR ? t.pos + t.len + 1 : t.pos + t.len;
		n = mk(p, HPM_N_REF, 0, pos, end, 0, NULL);
		if (n)
			n->ref = idx;
		return n;
	}
	case T_LP: {
		size_t open = t.pos;
		next(p);
		n = parse_cond(p, depth + 1);
		if (!n)
			return NULL;
		if (p->t.kind != T_RP) {
			if (p->t.kind == T_END)
				fail(p, open, 1, "'(' is never closed");
			else
				expected(p, "')'");
			node_free(n);
			return NULL;
		}
		/* the parenthesised node keeps its own span; messages quote it */
		next(p);
		return n;
	}
	default:
		expected(p, "a number, a name or '('");
		return NULL;
	}
}

static struct hpm_node *parse_unary(struct parser *p, unsigned depth)
{
	if (depth > HPM_EXPR_MAX_DEPTH) {
		fail(p, p->t.pos, p->t.len, "expression nested too deeply (more than %d levels)",
		     HPM_EXPR_MAX_DEPTH);
		return NULL;
	}
	if (is_op(p, "-") || is_op(p, "+")) {
		size_t pos = p->t.pos;
		bool neg = p->t.op[0] == '-';
		next(p);
		struct hpm_node *k = parse_unary(p, depth + 1);
		if (!k || !neg)
			return k;
		return mk(p, HPM_N_NEG, 0, pos, k->pos + k->len, 1, &k);
	}
	return parse_primary(p, depth);
}

static struct hpm_node *binary(struct parser *p, int op, struct hpm_node *l,
			       struct hpm_node *r)
{
	struct hpm_node *kids[2] = { l, r };
	size_t end = r->pos + r->len;
	return mk(p, HPM_N_BIN, op, l->pos < r->pos ? l->pos : r->pos, end, 2, kids);
}

static struct hpm_node *parse_mul(struct parser *p, unsigned depth)
{
	struct hpm_node *l = parse_unary(p, depth);
	while (l && (is_op(p, "*") || is_op(p, "/"))) {
		int op = p->t.op[0] == '*' ? HPM_OP_MUL : HPM_OP_DIV;
		next(p);
		struct hpm_node *r = parse_unary(p, depth);
		if (!r) {
			node_free(l);
			return NULL;
		}
		l = binary(p, op, l, r);
	}
	return l;
}

static struct hpm_node *parse_add(struct parser *p, unsigned depth)
{
	struct hpm_node *l = parse_mul(p, depth);
	while (l && (is_op(p, "+") || is_op(p, "-"))) {
		int op = p->t.op[0] == '+' ? HPM_OP_ADD : HPM_OP_SUB;
		next(p);
		struct hpm_node *r = parse_mul(p, depth);
		if (!r) {
			node_free(l);
			return NULL;
		}
		l = binary(p, op, l, r);
	}
	return l;
}

static int cmp_op(const struct parser *p)
{
	static const struct { const char *s; int op; } ops[] = {
		{ "<", HPM_OP_LT }, { "<=", HPM_OP_LE }, { ">", HPM_OP_GT },
		{ ">=", HPM_OP_GE }, { "==", HPM_OP_EQ }, { "!=", HPM_OP_NE },
	};
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (is_op(p, ops[i].s))
			return ops[i].op;
	return -1;
}

static struct hpm_node *parse_cmp(struct parser *p, unsigned depth)
{
	struct hpm_node *l = parse_add(p, depth);
	int op = l ? cmp_op(p) : -1;
	if (op < 0)
		return l;
	next(p);
	struct hpm_node *r = parse_add(p, depth);
	if (!r) {
		node_free(l);
		return NULL;
	}
	l = binary(p, op, l, r);
	if (l && cmp_op(p) >= 0) {
		fail(p, p->t.pos, p->t.len,
		     "comparisons do not chain: write 'a < b and b < c'");
		node_free(l);
		return NULL;
	}
	return l;
}

static struct hpm_node *parse_not(struct parser *p, unsigned depth)
{
	if (is_word(p, "not") || is_op(p, "!")) {
		size_t pos = p->t.pos;
		if (depth > HPM_EXPR_MAX_DEPTH) {
			fail(p, pos, p->t.len, "expression nested too deeply (more than %d levels)",
			     HPM_EXPR_MAX_DEPTH);
			return NULL;
		}
		next(p);
		struct hpm_node *k = parse_not(p, depth + 1);
		if (!k)
			return NULL;
		return mk(p, HPM_N_NOT, 0, pos, k->pos + k->len, 1, &k);
	}
	return parse_cmp(p, depth);
}

static struct hpm_node *parse_and(struct parser *p, unsigned depth)
{
	struct hpm_node *l = parse_not(p, depth);
	while (l && (is_word(p, "and") || is_op(p, "&&"))) {
		next(p);
		struct hpm_node *r = parse_not(p, depth);
		if (!r) {
			node_free(l);
			return NULL;
		}
		l = binary(p, HPM_OP_AND, l, r);
	}
	return l;
}

static struct hpm_node *parse_or(struct parser *p, unsigned depth)
{
	struct hpm_node *l = parse_and(p, depth);
	while (l && (is_word(p, "or") || is_op(p, "||"))) {
		next(p);
		struct hpm_node *r = parse_and(p, depth);
		if (!r) {
			node_free(l);
			return NULL;
		}
		l = binary(p, HPM_OP_OR, l, r);
	}
	return l;
}

static struct hpm_node *parse_cond(struct parser *p, unsigned depth)
{
	struct hpm_node *kids[3];

	if (depth > HPM_EXPR_MAX_DEPTH) {
		fail(p, p->t.pos, p->t.len, "expression nested too deeply (more than %d levels)",
		     HPM_EXPR_MAX_DEPTH);
		return NULL;
	}
	kids[0] = parse_or(p, depth);
	if (!kids[0] || !is_word(p, "if"))
		return kids[0];
	next(p);
	kids[1] = parse_or(p, depth);
	if (!kids[1]) {
		node_free(kids[0]);
		return NULL;
	}
	if (!is_word(p, "else")) {
		expected(p, "'else' (write 'A if CONDITION else B')");
		node_free(kids[0]);
		node_free(kids[1]);
		return NULL;
	}
	next(p);
	kids[2] = parse_cond(p, depth + 1);
	if (!kids[2]) {
		node_free(kids[0]);
		node_free(kids[1]);
		return NULL;
	}
	return mk(p, HPM_N_COND, 0, kids[0]->pos, kids[2]->pos + kids[2]->len, 3, kids);
}

void hpm_expr__free(struct hpm_expr *e)
{
	if (!e)
		return;
	node_free(e->root);
	for (size_t i = 0; i < e->nr_refs; i++)
		free(e->refs[i]);
	free(e->refs);
	free(e->text);
	free(e);
}

int hpm_expr__parse(const char *text, struct hpm_expr **out,
		    struct hpm_parse_error *err)
{
	struct parser p = { 0 };
	struct hpm_expr *e;
	size_t len;

	p.err = err ? err : &p.local;
	memset(p.err, 0, sizeof(*p.err));
	if (out)
		*out = NULL;
	if (!text || !out) {
		p.err->err = -EINVAL;
		snprintf(p.err->msg, sizeof(p.err->msg), "no expression");
		return -EINVAL;
	}
	len = strnlen(text, HPM_EXPR_MAX_LEN + 1);
	if (len > HPM_EXPR_MAX_LEN) {
		p.s = text;
		return fail(&p, HPM_EXPR_MAX_LEN, 0, "expression longer than %d characters",
			    HPM_EXPR_MAX_LEN);
	}
	e = calloc(1, sizeof(*e));
	if (!e || !(e->text = strdup(text))) {
		free(e);
		p.err->err = -ENOMEM;
		return -ENOMEM;
	}
	p.e = e;
	p.s = e->text;
	next(&p);
	if (p.t.kind == T_END) {
		fail(&p, 0, 0, "empty expression");
		goto bad;
	}
	e->root = parse_cond(&p, 0);
	if (!e->root)
		goto bad;
	if (p.t.kind != T_END) {
		if (p.t.kind == T_NAME || p.t.kind == T_NUM || p.t.kind == T_STR ||
		    p.t.kind == T_LP)
			fail(&p, p.t.pos, p.t.len,
			     "'%.*s' follows a complete expression: an operator is missing",
			     (int)p.t.len, p.s + p.t.pos);
		else
			expected(&p, "an operator or the end");
		goto bad;
	}
	*out = e;
	return 0;
bad:
	if (!p.err->err)
		p.err->err = -ENOMEM;
	hpm_expr__free(e);
	return p.err->err;
}

const char *hpm_expr__text(const struct hpm_expr *e) { return e->text; }
size_t hpm_expr__nr_refs(const struct hpm_expr *e) { return e->nr_refs; }

const char *hpm_expr__ref(const struct hpm_expr *e, size_t i)
{
	return i < e->nr_refs ? e->refs[i] : NULL;
}
