// SPDX-License-Identifier: MIT
/*
 * The metric expression language (lib/metrics/expr.c, eval.c): table-driven rows of
 * expressions with the values of their names, and what they must give: a
 * value and its propagated uncertainty, n/a with a reason, or a parse error
 * at a position.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <hpmon/metric.h>

#define NA NAN
#define MAXR 8

/* One name's value: value and sigma, or n/a (value NaN) with a reason. */
struct in {
	const char *name;
	double v, sigma;
};

struct row {
	int line;
	const char *text;
	struct in in[MAXR];
	double want;            /* expected value (NaN: expect n/a) */
	double want_sigma;      /* expected sigma (NaN: unknown); ignored for n/a */
	const char *na;         /* substring of the n/a reason */
	const char *refs;       /* expected refs, space separated, or NULL */
};

#define L .line = __LINE__

static const struct row rows[] = {
	/* numbers and arithmetic, precedence, associativity */
	{ L, "1 + 2 * 3", .want = 7 },
	{ L, "(1 + 2) * 3", .want = 9 },
	{ L, "10 - 4 - 3", .want = 3 },
	{ L, "64 / 4 / 2", .want = 8 },
	{ L, "-3 + +5", .want = 2 },
	{ L, "--4", .want = 4 },
	{ L, "1e3 + .5 + 0x10", .want = 1016.5 },
	{ L, "2.5e-1 * 4", .want = 1 },
	/* comparisons, logic, conditional */
	{ L, "1 < 2", .want = 1 }, { L, "2 <= 1", .want = 0 },
	{ L, "3 > 2 and 2 > 1", .want = 1 }, { L, "0 or 0", .want = 0 },
	{ L, "not 0", .want = 1 }, { L, "!(1 == 1)", .want = 0 },
	{ L, "1 != 2 && 2 >= 2 || 0", .want = 1 },
	{ L, "10 if 1 > 0 else 20", .want = 10 },
	{ L, "10 if 1 < 0 else 20", .want = 20 },
	{ L, "1 if 0 else 2 if 1 else 3", .want = 2 },
	/* functions */
	{ L, "min(3, 1, 2)", .want = 1 }, { L, "max(3, 1, 2)", .want = 3 },
	{ L, "abs(-2.5)", .want = 2.5 }, { L, "max(1)", .want = 1 },
	/* names: events with dashes, modifiers and umasks, quoted specs */
	{ L, "instructions / cycles", { { "instructions", 300, 0 }, { "cycles", 100, 0 } },
	  .want = 3, .refs = "instructions cycles" },
	{ L, "L1-dcache-load-misses / L1-dcache-loads",
	  { { "L1-dcache-load-misses", 5, 0 }, { "L1-dcache-loads", 50, 0 } }, .want = 0.1 },
	{ L, "cycles:u - INST_RETIRED:ANY_P", { { "cycles:u", 7, 0 }, { "INST_RETIRED:ANY_P", 2, 0 } },
	  .want = 5, .refs = "cycles:u INST_RETIRED:ANY_P" },
	{ L, "\"cpu/event=0x3c/\" * 2", { { "cpu/event=0x3c/", 21, 0 } }, .want = 42,
	  .refs = "cpu/event=0x3c/" },
	{ L, "'msr/tsc/' + a-1", { { "msr/tsc/", 1, 0 }, { "a", 5, 0 } }, .want = 5 },
	{ L, "page-faults / (task-clock / 1e6)", { { "page-faults", 150, 0 }, { "task-clock", 3e6, 0 } },
	  .want = 50 },
	{ L, "a + a + a", { { "a", 2, 0 } }, .want = 6, .refs = "a" },
	/* n/a: division by zero names the divisor; inputs n/a pass through */
	{ L, "a / b", { { "a", 1, 0 }, { "b", 0, 0 } }, .want = NA, .na = "division by zero: b is 0" },
	{ L, "a / (b - b)", { { "a", 1, 0 }, { "b", 4, 0 } }, .want = NA,
	  .na = "division by zero: b - b is 0" },
	{ L, "a + b", { { "a", 1, 0 }, { "b", NA, 0 } }, .want = NA, .na = "b is missing" },
	{ L, "min(a, b)", { { "a", 1, 0 }, { "b", NA, 0 } }, .want = NA, .na = "b is missing" },
	{ L, "a if b > 0 else 0", { { "a", 1, 0 }, { "b", NA, 0 } }, .want = NA, .na = "missing" },
	/* the branch not taken is never evaluated */
	{ L, "0 if b == 0 else a / b", { { "a", 1, 0 }, { "b", 0, 0 } }, .want = 0 },
	{ L, "b != 0 and a / b > 1", { { "a", 1, 0 }, { "b", 0, 0 } }, .want = 0 },
	{ L, "b == 0 or a / b > 1", { { "a", 1, 0 }, { "b", 0, 0 } }, .want = 1 },
	{ L, "1e308 * 10", .want = NA, .na = "overflows" },
	/* uncertainty: first-order propagation, each input counted once */
	{ L, "a + b", { { "a", 10, 3 }, { "b", 20, 4 } }, .want = 30, .want_sigma = 5 },
	{ L, "a - a", { { "a", 10, 3 } }, .want = 0, .want_sigma = 0 },
	{ L, "a / a", { { "a", 10, 3 } }, .want = 1, .want_sigma = 0 },
	{ L, "2 * a", { { "a", 10, 3 } }, .want = 20, .want_sigma = 6 },
	/* a / b: relative errors add in quadrature: 3% and 4% give 5% */
	{ L, "a / b", { { "a", 100, 3 }, { "b", 50, 2 } }, .want = 2, .want_sigma = 0.1 },
	{ L, "a * b", { { "a", 100, 3 }, { "b", 50, 2 } }, .want = 5000, .want_sigma = 250 },
	{ L, "a / (a + b)", { { "a", 50, 0 }, { "b", 50, 10 } }, .want = 0.5, .want_sigma = 0.05 },
	{ L, "-a", { { "a", 10, 3 } }, .want = -10, .want_sigma = 3 },
	{ L, "abs(-a)", { { "a", 10, 3 } }, .want = 10, .want_sigma = 3 },
	{ L, "max(a, b)", { { "a", 10, 3 }, { "b", 5, 1 } }, .want = 10, .want_sigma = 3 },
	{ L, "a > b", { { "a", 10, 3 }, { "b", 5, 1 } }, .want = 1, .want_sigma = 0 },
	{ L, "a + b", { { "a", 10, NAN }, { "b", 5, 1 } }, .want = 15, .want_sigma = NAN },
	{ L, "b * 2 + 0 * a", { { "a", 10, NAN }, { "b", 5, 1 } }, .want = 10, .want_sigma = 2 },
	/* perf's syntax (docs/vendor-tables.md): vendor names with '.', PMU
	 * events with '@' for '/' and '\' escapes, literals, d_ratio,
	 * source_count, 1e9 and the '1.' perf's lexer takes */
	{ L, "INST_RETIRED.ANY / CPU_CLK_UNHALTED.THREAD",
	  { { "INST_RETIRED.ANY", 300, 0 }, { "CPU_CLK_UNHALTED.THREAD", 200, 0 } }, .want = 1.5,
	  .refs = "INST_RETIRED.ANY CPU_CLK_UNHALTED.THREAD" },
	{ L, "(ICACHE_16B.IFDATA_STALL + 2 * cpu@ICACHE_16B.IFDATA_STALL\\,cmask\\=1\\,edge@) / CLKS",
	  { { "ICACHE_16B.IFDATA_STALL", 10, 0 }, { "cpu/ICACHE_16B.IFDATA_STALL,cmask=1,edge/", 3, 0 },
	    { "CLKS", 64, 0 } }, .want = 0.25,
	  .refs = "ICACHE_16B.IFDATA_STALL cpu/ICACHE_16B.IFDATA_STALL,cmask=1,edge/ CLKS" },
	{ L, "(64 * (uncore_imc@cas_count_read@ + uncore_imc@cas_count_write@) / 1000000000) / duration_time",
	  { { "uncore_imc/cas_count_read/", 1e9, 0 }, { "uncore_imc/cas_count_write/", 5e8, 0 },
	    { "duration_time", 2, 0 } }, .want = 48,
	  .refs = "uncore_imc/cas_count_read/ uncore_imc/cas_count_write/ duration_time" },
	{ L, "1e9 * a / imc_0@event\\=0x0@", { { "a", 2, 0 }, { "imc_0/event=0x0/", 4e9, 0 } },
	  .want = 0.5, .refs = "a imc_0/event=0x0/" },
	{ L, "((a / 2) if #SMT_on else b) * 4", { { "a", 10, 0 }, { "b", 7, 0 }, { "#SMT_on", 1, 0 } },
	  .want = 20, .refs = "a #SMT_on b" },
	{ L, "((a / 2) if #smt_ON else b) * 4", { { "a", 10, 0 }, { "b", 7, 0 }, { "#SMT_on", 0, 0 } },
	  .want = 28, .refs = "a #SMT_on b" },
	{ L, "a / (source_count(a) * #num_packages)",
	  { { "a", 12, 0 }, { "#num_packages", 2, 0 } }, .want = 6, .refs = "a #num_packages" },
	{ L, "d_ratio(a, b)", { { "a", 3, 0 }, { "b", 0, 0 } }, .want = 0 },
	{ L, "d_ratio(a, b)", { { "a", 3, 0 }, { "b", 4, 0 } }, .want = 0.75 },
	{ L, "d_ratio(a, b) * 100", { { "a", 3, 1 }, { "b", 4, 0 } }, .want = 75, .want_sigma = 25 },
	{ L, "min(a, 1.) + max(2., b)", { { "a", 3, 0 }, { "b", 4, 0 } }, .want = 5 },
	{ L, "#system_tsc_freq / 1e9 + #num_cpus_online * #slots + #num_dies + #num_cores + #core_wide + #num_cpus",
	  { { "#system_tsc_freq", 2.1e9, 0 }, { "#num_cpus_online", 4, 0 }, { "#slots", 4, 0 },
	    { "#num_dies", 1, 0 }, { "#num_cores", 2, 0 }, { "#core_wide", 0, 0 }, { "#num_cpus", 8, 0 } },
	  .want = 29.1 },
	/* perf stops at a division by zero and shows no value: n/a, saying why */
	{ L, "a / (b - b)", { { "a", 3, 0 }, { "b", 4, 0 } }, .want = NA,
	  .na = "division by zero: b - b is 0" },
	{ L, "a / B.C", { { "a", 3, 0 }, { "B.C", NAN, 0 } }, .want = NA, .na = "B.C is missing" },
};

/* Parse errors: the expression, a substring of the message, the position. */
struct erow {
	int line;
	const char *text;
	const char *msg;
	size_t pos;
};

static const struct erow erows[] = {
	{ __LINE__, "", "empty expression", 0 },
	{ __LINE__, "   ", "empty expression", 0 },
	{ __LINE__, "1 +", "expected a number, a name or '(', but the expression ends", 3 },
	{ __LINE__, "(1 + 2", "'(' is never closed", 0 },
	{ __LINE__, "1 + 2)", "expected an operator or the end, found ')'", 5 },
	{ __LINE__, "a b", "'b' follows a complete expression: an operator is missing", 2 },
	{ __LINE__, "a = b", "'=' is not an operator here (compare with '==')", 2 },
	{ __LINE__, "1 < 2 < 3", "comparisons do not chain", 6 },
	{ __LINE__, "foo(1)", "unknown function 'foo'", 0 },
	{ __LINE__, "abs(1, 2)", "abs takes at most 1 argument", 7 },
	{ __LINE__, "min()", "expected a number, a name or '(', found ')'", 4 },
	{ __LINE__, "min(1 2)", "expected ',' or ')'", 6 },
	{ __LINE__, "1 if 2", "expected 'else'", 6 },
	{ __LINE__, "if", "expected a number, a name or '(', found 'if'", 0 },
	{ __LINE__, "a + \"cpu/x", "the quoted event is never closed", 4 },
	{ __LINE__, "a + ''", "empty quoted event name", 4 },
	{ __LINE__, "12abc", "'12abc' is not a number", 0 },
	{ __LINE__, "1 $ 2", "unexpected character '$'", 2 },
	{ __LINE__, "a & b", "unexpected character '&'", 2 },
	{ __LINE__, "1.2.3", "is not a number", 0 },
	{ __LINE__, "a + #foo", "unknown literal '#foo'", 4 },
	{ __LINE__, "d_ratio(a)", "d_ratio takes 2 arguments", 9 },
	{ __LINE__, "d_ratio(a, b, c)", "d_ratio takes at most 2 arguments", 14 },
	{ __LINE__, "source_count(1)", "source_count takes an event", 13 },
	{ __LINE__, "source_count(#SMT_on)", "source_count takes an event", 13 },
	{ __LINE__, "cpu@event\\=1 + 2", "(pmu@terms@) that is never closed", 3 },
};

static void check_row(const struct row *r)
{
	struct hpm_expr *e = NULL;
	struct hpm_parse_error err;
	struct hpm_value refs[MAXR], out;
	char where[64];
	int rc = hpm_expr__parse(r->text, &e, &err);

	snprintf(where, sizeof(where), "test-metric-expr.c:%d", r->line);
	if (rc) {
		fprintf(stderr, "%s: '%s' does not parse: %s\n", where, r->text, err.msg);
		fail();
	}
	assert_string_equal(hpm_expr__text(e), r->text);
	if (r->refs) {
		char got[256] = "";
		for (size_t i = 0; i < hpm_expr__nr_refs(e); i++)
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", i ? " " : "",
				 hpm_expr__ref(e, i));
		if (strcmp(got, r->refs)) {
			fprintf(stderr, "%s: refs '%s', expected '%s'\n", where, got, r->refs);
			fail();
		}
	}
	for (size_t i = 0; i < hpm_expr__nr_refs(e); i++) {
		const char *name = hpm_expr__ref(e, i);
		size_t k;
		for (k = 0; k < MAXR && r->in[k].name; k++)
			if (!strcmp(r->in[k].name, name))
				break;
		if (k == MAXR || !r->in[k].name) {
			fprintf(stderr, "%s: no value for '%s'\n", where, name);
			fail();
		}
		if (isnan(r->in[k].v))
			hpm_value__na(&refs[i], "%s is missing", name);
		else
			hpm_value__set(&refs[i], r->in[k].v, r->in[k].sigma);
	}
	assert_int_equal(hpm_expr__eval(e, refs, &out), 0);
	if (isnan(r->want)) {
		if (!out.na || !isnan(out.value) || !strstr(out.reason, r->na)) {
			fprintf(stderr, "%s: '%s' gave %g (na %d, '%s'), expected n/a '%s'\n", where,
				r->text, out.value, out.na, out.reason, r->na);
			fail();
		}
	} else {
		bool sig_ok = isnan(r->want_sigma) ? isnan(out.sigma)
						   : fabs(out.sigma - r->want_sigma) <= 1e-9 * (1 + r->want_sigma);
		if (out.na || fabs(out.value - r->want) > 1e-12 * (1 + fabs(r->want)) || !sig_ok) {
			fprintf(stderr, "%s: '%s' gave %.17g +- %g (na %d: %s), expected %.17g +- %g\n",
				where, r->text, out.value, out.sigma, out.na, out.reason, r->want,
				r->want_sigma);
			fail();
		}
		assert_string_equal(out.reason, "");
	}
	hpm_expr__free(e);
}

static void test_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		check_row(&rows[i]);
}

static void test_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(erows) / sizeof(erows[0]); i++) {
		const struct erow *r = &erows[i];
		struct hpm_expr *e = (struct hpm_expr *)1;
		struct hpm_parse_error err;
		int rc = hpm_expr__parse(r->text, &e, &err);
		if (rc != -HPM_ERR_SYNTAX || e || err.err != rc || !strstr(err.msg, r->msg) ||
		    err.pos != r->pos) {
			fprintf(stderr,
				"test-metric-expr.c:%d: '%s': rc %d pos %zu '%s', expected pos %zu '%s'\n",
				r->line, r->text, rc, err.pos, err.msg, r->pos, r->msg);
			fail();
		}
	}
}

/* Bounds: nesting, length, names, distinct refs; none may crash. */
static void test_limits(void **state)
{
	struct hpm_expr *e = NULL;
	struct hpm_parse_error err;
	char *s = malloc(20000);
	(void)state;

	assert_non_null(s);
	/* 40 levels of parentheses parse, 1000 do not */
	strcpy(s, "");
	for (int i = 0; i < 40; i++)
		strcat(s, "(");
	strcat(s, "1");
	for (int i = 0; i < 40; i++)
		strcat(s, ")");
	assert_int_equal(hpm_expr__parse(s, &e, &err), 0);
	hpm_expr__free(e);
	memset(s, '(', 1000);
	strcpy(s + 1000, "1");
	assert_int_equal(hpm_expr__parse(s, &e, &err), -HPM_ERR_SYNTAX);
	assert_non_null(strstr(err.msg, "nested too deeply"));
	assert_null(e);
	memset(s, '-', 2000);
	strcpy(s + 2000, "1");
	assert_int_equal(hpm_expr__parse(s, &e, &err), -HPM_ERR_SYNTAX);
	/* a long flat sum is deep in the tree: refused, not recursed into */
	s[0] = '\0';
	for (int i = 0; i < 200; i++)
		strcat(s, i ? "+1" : "1");
	assert_int_equal(hpm_expr__parse(s, &e, &err), -HPM_ERR_SYNTAX);
	/* 8192 characters parse, 8193 do not */
	memset(s, ' ', 8191);
	strcpy(s + 8191, "1");
	assert_int_equal(hpm_expr__parse(s, &e, &err), 0);
	hpm_expr__free(e);
	memset(s, ' ', 8192);
	strcpy(s + 8192, "1");
	assert_int_equal(hpm_expr__parse(s, &e, &err), -HPM_ERR_SYNTAX);
	assert_non_null(strstr(err.msg, "longer than"));
	/* 128 distinct names, not 129 (in groups of 8: 64 levels at most) */
	s[0] = '\0';
	for (int i = 0; i < 128; i++)
		sprintf(s + strlen(s), "%s%sn%d%s", i ? (i % 8 ? "*" : ")*") : "",
			i % 8 ? "" : "(", i, i == 127 ? ")" : "");
	assert_int_equal(hpm_expr__parse(s, &e, &err), 0);
	assert_int_equal(hpm_expr__nr_refs(e), 128);
	hpm_expr__free(e);
	strcat(s, "*n128");
	assert_int_equal(hpm_expr__parse(s, &e, &err), -HPM_ERR_SYNTAX);
	assert_non_null(strstr(err.msg, "distinct names"));
	/* a name of 300 characters */
	memset(s, 'a', 300);
	s[300] = '\0';
	assert_int_equal(hpm_expr__parse(s, &e, &err), -HPM_ERR_SYNTAX);
	free(s);
	/* NULL arguments */
	assert_int_equal(hpm_expr__parse(NULL, &e, &err), -EINVAL);
	assert_int_equal(hpm_expr__eval(NULL, NULL, NULL), -EINVAL);
	hpm_expr__free(NULL);
}

/* expr_parse N copies of @open, @leaf, N copies of @close */
static int parse_nested(int n, const char *open, const char *leaf, const char *close)
{
	static char s[8192];
	struct hpm_parse_error err;
	struct hpm_expr *e = NULL;
	size_t k = 0;

	for (int i = 0; i < n; i++)
		k += (size_t)snprintf(s + k, sizeof(s) - k, "%s", open);
	k += (size_t)snprintf(s + k, sizeof(s) - k, "%s", leaf);
	for (int i = 0; i < n; i++)
		k += (size_t)snprintf(s + k, sizeof(s) - k, "%s", close);
	assert_true(k < sizeof(s) - 1);
	int rc = hpm_expr__parse(s, &e, &err);
	if (rc) {
		assert_int_equal(rc, -HPM_ERR_SYNTAX);
		assert_non_null(strstr(err.msg, "nested too deeply (more than 64 levels)"));
		assert_null(e);
	}
	hpm_expr__free(e);
	return rc;
}

/* docs/metrics.md: 64 levels of nesting, no more and no fewer: 64
 * parentheses, or 64 nodes from the top of the tree to a leaf (a flat sum
 * of 64 terms, 63 signs or calls around a number) */
static void test_nesting_limit(void **state)
{
	(void)state;
	assert_int_equal(parse_nested(64, "(", "1", ")"), 0);
	assert_int_equal(parse_nested(65, "(", "1", ")"), -HPM_ERR_SYNTAX);
	assert_int_equal(parse_nested(63, "-", "1", ""), 0);
	assert_int_equal(parse_nested(64, "-", "1", ""), -HPM_ERR_SYNTAX);
	assert_int_equal(parse_nested(63, "max(", "1", ")"), 0);
	assert_int_equal(parse_nested(64, "max(", "1", ")"), -HPM_ERR_SYNTAX);
	assert_int_equal(parse_nested(63, "1+(", "a", ")"), 0);
	assert_int_equal(parse_nested(64, "1+(", "a", ")"), -HPM_ERR_SYNTAX);
	assert_int_equal(parse_nested(1, "", "1" "+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1"
					 "+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1"
					 "+1+1+1", ""), 0); /* 64 terms */
	assert_int_equal(parse_nested(1, "", "1" "+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1"
					 "+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1"
					 "+1+1+1+1", ""), -HPM_ERR_SYNTAX); /* 65 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_nesting_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
