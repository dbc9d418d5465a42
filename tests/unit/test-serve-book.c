// SPDX-License-Identifier: MIT
/*
 * hpmon serve's bounded families (tools/hpmon/serve/serve-book.c): at most N
 * series besides the pinned ones, the best by rate; a new series starts
 * at its increase, one shown before adds its increase, one that leaves
 * moves its whole value into [other]; rows with the same labels are one;
 * a shown series keeps its best rate for the hold time (an exited process
 * stays), then yields. Over a long random run: the bound holds at every
 * step, every series grows while shown, [other] only grows, and the
 * series plus [other] equal the sum of every increase, exactly.
 * The tool is not a library: its file is compiled into this test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../tools/hpmon/serve/serve-book.c"

#define SEC 1000000000ull

static void add(struct serve_book *b, const char *labels, bool pinned, uint64_t d0, uint64_t d1)
{
	uint64_t d[2] = { d0, d1 };
	assert_int_equal(serve_book__add(b, labels, pinned, d), 0);
}

/* The series with @labels now, or NULL. */
static const struct serve_series *find(struct serve_book *b, const char *labels)
{
	struct serve_set v;
	serve_book__view(b, &v);
	for (size_t i = 0; i < v.nr; i++)
		if (!strcmp(v.s[i].labels, labels))
			return &v.s[i];
	return NULL;
}

static uint64_t sum_ev(struct serve_book *b, size_t ev)
{
	struct serve_set v;
	serve_book__view(b, &v);
	uint64_t s = v.other[ev];
	for (size_t i = 0; i < v.nr; i++)
		s += v.s[i].v[ev];
	return s;
}

static void test_bound_and_other(void **state)
{
	struct serve_book *b = serve_book__new("process", 2, 0, 3, 0, 60 * SEC);
	char l[32];
	uint64_t all = 0;
	for (int i = 1; i <= 10; i++) {
		snprintf(l, sizeof(l), "pid=\"%d\"", i);
		add(b, l, false, (uint64_t)i * 10, 1);
		all += (uint64_t)i * 10;
	}
	add(b, "comm=\"[idle]\"", true, 1, 1);
	assert_int_equal(serve_book__step(b, SEC, 1.0), 0);
	struct serve_set v;
	serve_book__view(b, &v);
	assert_int_equal(v.nr, 4); /* 3 + the pinned one */
	assert_int_equal(v.folded, 7);
	assert_non_null(find(b, "pid=\"10\""));
	assert_non_null(find(b, "pid=\"9\""));
	assert_non_null(find(b, "pid=\"8\""));
	assert_non_null(find(b, "comm=\"[idle]\""));
	assert_int_equal(find(b, "pid=\"10\"")->v[0], 100); /* new: its whole increase */
	assert_int_equal(v.other[0], 10 + 20 + 30 + 40 + 50 + 60 + 70);
	assert_int_equal(v.other[1], 7);
	assert_int_equal(sum_ev(b, 0), all + 1);
	assert_string_equal(v.other_labels, "comm=\"[other]\"");
	/* sorted by labels */
	for (size_t i = 1; i < v.nr; i++)
		assert_true(strcmp(v.s[i - 1].labels, v.s[i].labels) < 0);
	serve_book__free(b);

	b = serve_book__new("cgroup", 1, 0, 1, 0, SEC);
	serve_book__view(b, &v);
	assert_string_equal(v.other_labels, "cgroup=\"[other]\"");
	serve_book__free(b);
}

static void test_leave_and_return(void **state)
{
	struct serve_book *b = serve_book__new("process", 2, 0, 1, 0, 0);
	struct serve_set v;
	add(b, "a", false, 100, 5);
	add(b, "b", false, 10, 5);
	assert_int_equal(serve_book__step(b, 1 * SEC, 1.0), 0);
	assert_int_equal(find(b, "a")->v[0], 100);
	serve_book__view(b, &v);
	assert_int_equal(v.other[0], 10);
	/* a grows slower than b now: b takes the one place; a's whole value
	 * (100 + 1) moves into [other], b starts at its increase (50) */
	add(b, "a", false, 1, 0);
	add(b, "b", false, 50, 0);
	assert_int_equal(serve_book__step(b, 2 * SEC, 1.0), 0);
	assert_null(find(b, "a"));
	assert_int_equal(find(b, "b")->v[0], 50);
	assert_int_equal(find(b, "b")->d[0], 50);
	serve_book__view(b, &v);
	assert_int_equal(v.other[0], 10 + 101);
	assert_int_equal(v.other[1], 10);
	assert_int_equal(sum_ev(b, 0), 100 + 10 + 1 + 50);
	/* b keeps its place and adds; a series that does not grow stays
	 * while nothing outranks it */
	add(b, "b", false, 7, 0);
	assert_int_equal(serve_book__step(b, 3 * SEC, 1.0), 0);
	assert_int_equal(find(b, "b")->v[0], 57);
	assert_int_equal(serve_book__step(b, 4 * SEC, 1.0), 0);
	assert_int_equal(find(b, "b")->v[0], 57);
	assert_int_equal(find(b, "b")->d[0], 0);
	/* a comes back: it starts again at its increase */
	add(b, "a", false, 30, 0);
	assert_int_equal(serve_book__step(b, 5 * SEC, 1.0), 0);
	assert_int_equal(find(b, "a")->v[0], 30);
	assert_null(find(b, "b"));
	serve_book__view(b, &v);
	assert_int_equal(v.other[0], 10 + 101 + 57);
	assert_int_equal(sum_ev(b, 0), 100 + 10 + 1 + 50 + 7 + 30);
	serve_book__free(b);
}

static void test_same_labels_are_one(void **state)
{
	struct serve_book *b = serve_book__new("process", 2, 0, 2, 0, 0);
	add(b, "x", false, 1, 2);
	add(b, "y", false, 5, 0);
	add(b, "x", false, 3, 4);   /* a reused pid of the same name and cgroup */
	assert_int_equal(serve_book__step(b, SEC, 1.0), 0);
	struct serve_set v;
	serve_book__view(b, &v);
	assert_int_equal(v.nr, 2);
	assert_int_equal(find(b, "x")->v[0], 4);
	assert_int_equal(find(b, "x")->v[1], 6);
	assert_int_equal(v.folded, 0);
	serve_book__free(b);
}

/* A process that exited (no increase any more) keeps its series for the
 * hold time at the rate it had, against a newcomer with a lower rate;
 * after the hold the newcomer takes its place. */
static void test_hold(void **state)
{
	struct serve_book *b = serve_book__new("process", 1, 0, 1, 0, 10 * SEC);
	uint64_t one[1] = { 1000 }, low[1] = { 10 };
	assert_int_equal(serve_book__add(b, "exited", false, one), 0);
	assert_int_equal(serve_book__step(b, 1 * SEC, 1.0), 0);
	for (uint64_t t = 2; t <= 10; t++) {
		assert_int_equal(serve_book__add(b, "new", false, low), 0);
		assert_int_equal(serve_book__step(b, t * SEC, 1.0), 0);
		assert_non_null(find(b, "exited"));
		assert_int_equal(find(b, "exited")->v[0], 1000);
	}
	assert_int_equal(serve_book__add(b, "new", false, low), 0);
	assert_int_equal(serve_book__step(b, 11 * SEC, 1.0), 0);
	assert_null(find(b, "exited"));
	assert_int_equal(find(b, "new")->v[0], 10);
	struct serve_set v;
	serve_book__view(b, &v);
	assert_int_equal(v.other[0], 1000 + 9 * 10);
	serve_book__free(b);
}

/* A step with nothing added and nothing shown; max 0: all in [other]. */
static void test_edges(void **state)
{
	struct serve_book *b = serve_book__new("cgroup", 2, 1, 0, 5, 0);
	struct serve_set v;
	assert_int_equal(serve_book__step(b, SEC, 0), 0);
	serve_book__view(b, &v);
	assert_int_equal(v.nr, 0);
	add(b, "cgroup=\"/a\"", false, 3, 4);
	add(b, "cgroup=\"[lost]\"", true, 0, 1);
	assert_int_equal(serve_book__step(b, 2 * SEC, 1.0), 0);
	serve_book__view(b, &v);
	assert_int_equal(v.nr, 1);
	assert_string_equal(v.s[0].labels, "cgroup=\"[lost]\"");
	assert_int_equal(v.other[0], 3);
	assert_int_equal(v.other[1], 4);
	serve_book__free(b);
	serve_book__free(NULL);
}

/* xorshift: the same run every time */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void test_random_invariants(void **state)
{
	enum { LABELS = 40, MAX = 5, STEPS = 400 };
	struct serve_book *b = serve_book__new("process", 2, 0, MAX, 0, 3 * SEC);
	uint64_t seed = 0x9e3779b97f4a7c15ull, added[2] = { 0, 0 }, prev_other[2] = { 0, 0 };
	uint64_t last[LABELS][2];
	bool was_shown[LABELS] = { false };
	char l[32];

	for (int step = 1; step <= STEPS; step++) {
		int rows = (int)(rnd(&seed) % 30);
		for (int r = 0; r < rows; r++) {
			int who = (int)(rnd(&seed) % LABELS);
			uint64_t d0 = rnd(&seed) % 1000, d1 = rnd(&seed) % 7;
			snprintf(l, sizeof(l), "pid=\"%d\"", who);
			add(b, l, who == 0, d0, d1);
			added[0] += d0;
			added[1] += d1;
		}
		assert_int_equal(serve_book__step(b, (uint64_t)step * SEC / 2, 0.5), 0);
		struct serve_set v;
		serve_book__view(b, &v);
		size_t unpinned = 0;
		bool shown[LABELS] = { false };
		for (size_t i = 0; i < v.nr; i++) {
			int who = (int)strtol(v.s[i].labels + 5, NULL, 10);
			unpinned += !v.s[i].pinned;
			shown[who] = true;
			for (int e = 0; e < 2; e++) {
				if (was_shown[who] && v.s[i].v[e] < last[who][e])
					fail_msg("step %d: %s went down on event %d", step, v.s[i].labels, e);
				last[who][e] = v.s[i].v[e];
			}
		}
		if (unpinned > MAX)
			fail_msg("step %d: %zu series, more than %d", step, unpinned, MAX);
		for (int e = 0; e < 2; e++) {
			if (v.other[e] < prev_other[e])
				fail_msg("step %d: [other] went down", step);
			prev_other[e] = v.other[e];
			if (sum_ev(b, (size_t)e) != added[e])
				fail_msg("step %d: series + [other] = %llu, added %llu", step,
					 (unsigned long long)sum_ev(b, (size_t)e),
					 (unsigned long long)added[e]);
		}
		memcpy(was_shown, shown, sizeof(shown));
	}
	serve_book__free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bound_and_other),
		cmocka_unit_test(test_leave_and_return),
		cmocka_unit_test(test_same_labels_are_one),
		cmocka_unit_test(test_hold),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_random_invariants),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
