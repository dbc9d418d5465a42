// SPDX-License-Identifier: MIT
/*
 * hpmon validate's verdicts (tools/hpmon/validate/validate-judge.c), from
 * counts made up to land on each side of each line: exact, the second
 * model's exact answer, within the tolerance, biased (every repeat off the
 * same way), broken (off and varying, or counting nothing), and an answer
 * of 0 judged with an absolute tolerance. The tool is not a library: its
 * file is compiled into this test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../tools/hpmon/validate/validate-judge.c"

static const struct vcheck loop_ins = { "instructions", "loop", 8, 0, 0, false, "m", NULL, { "x" } };
static const struct vcheck loop_cyc = { "cycles", "loop", 6, 8, 0.05, false, "m", "one a cycle",
					{ "x" } };
static const struct vcheck misses = { "misses", "chase", 1, 0, 0.15, false, "m", NULL, { "x" } };
static const struct vcheck zero = { "fixed", "branch", 0, 0, 0.01, false, "m", NULL, { "x" } };

#define N 1000

static void test_exact(void **state)
{
	uint64_t val[3] = { 8 * N, 8 * N, 8 * N };
	double exp[3] = { 8 * N, 8 * N, 8 * N };
	struct vjudgement j;
	(void)state;

	vjudge(&loop_ins, "iteration", N, val, exp, 3, &j);
	assert_int_equal(j.v, V_EXACT);
	assert_true(j.deterministic);
	assert_false(j.alt);
	assert_true(j.measured == 8 && j.expected == 8 && j.error == 0);
	assert_string_equal(j.detail, "exact");

	/* one count more in one repeat: no longer exact, nor deterministic;
	 * with no tolerance and a spread as large as the bias: broken */
	val[1] += 1;
	vjudge(&loop_ins, "iteration", N, val, exp, 3, &j);
	assert_int_not_equal(j.v, V_EXACT);
	assert_false(j.deterministic);
	assert_int_equal(j.v, V_BROKEN);
}

static void test_alt_model(void **state)
{
	uint64_t val[2] = { 8 * N, 8 * N };
	double exp[2] = { 6 * N, 6 * N };
	struct vjudgement j;
	(void)state;

	vjudge(&loop_cyc, "iteration", N, val, exp, 2, &j);
	assert_int_equal(j.v, V_EXACT);
	assert_true(j.alt);
	assert_true(j.expected == 8 && j.error == 0);
	assert_string_equal(j.detail, "exact, one a cycle");

	/* 6.1 cycles an iteration: within 5 % of the latency model */
	val[0] = val[1] = 6100;
	vjudge(&loop_cyc, "iteration", N, val, exp, 2, &j);
	assert_int_equal(j.v, V_WITHIN);
	assert_string_equal(j.detail, "within 5 %");
}

static void test_biased(void **state)
{
	/* Weaver's overcount: one more instruction every 4 iterations, in
	 * every repeat alike */
	uint64_t val[3] = { 8 * N + N / 4, 8 * N + N / 4 + 1, 8 * N + N / 4 };
	double exp[3] = { 8 * N, 8 * N, 8 * N };
	struct vjudgement j;
	(void)state;

	vjudge(&loop_ins, "iteration", N, val, exp, 3, &j);
	assert_int_equal(j.v, V_BIASED);
	assert_false(j.deterministic);
	assert_string_equal(j.detail, "biased +0.2503 per iteration");
}

static void test_within_and_broken(void **state)
{
	uint64_t val[3] = { 900, 1100, 1000 };
	double exp[3] = { N, N, N };
	struct vjudgement j;
	(void)state;

	vjudge(&misses, "hop", N, val, exp, 3, &j);
	assert_int_equal(j.v, V_WITHIN);
	assert_string_equal(j.detail, "within 15 %");

	/* 30 % low on average, spread wide: broken, saying by how much */
	val[0] = 400, val[1] = 1000, val[2] = 700;
	vjudge(&misses, "hop", N, val, exp, 3, &j);
	assert_int_equal(j.v, V_BROKEN);
	assert_string_equal(j.detail, "broken: -30.0 % off, varies");

	/* counts nothing */
	val[0] = val[1] = val[2] = 0;
	vjudge(&misses, "hop", N, val, exp, 3, &j);
	assert_int_equal(j.v, V_BROKEN);
	assert_string_equal(j.detail, "broken: counts nothing");
}

static void test_zero_answer(void **state)
{
	uint64_t val[2] = { 5, 3 };
	double exp[2] = { 0, 0 };
	struct vjudgement j;
	(void)state;

	vjudge(&zero, "iteration", N, val, exp, 2, &j);
	assert_int_equal(j.v, V_WITHIN);
	assert_true(j.error > 0.0039 && j.error < 0.0041); /* absolute, per unit */
	assert_string_equal(j.detail, "within 0.01 per iteration");
	val[0] = val[1] = 0;
	vjudge(&zero, "iteration", N, val, exp, 2, &j);
	assert_int_equal(j.v, V_EXACT);
	val[0] = val[1] = 50; /* 0.05 a unit, every time: a bias */
	vjudge(&zero, "iteration", N, val, exp, 2, &j);
	assert_int_equal(j.v, V_BIASED);
	assert_true(j.deterministic);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact),
		cmocka_unit_test(test_alt_model),
		cmocka_unit_test(test_biased),
		cmocka_unit_test(test_within_and_broken),
		cmocka_unit_test(test_zero_answer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
