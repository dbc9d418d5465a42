// SPDX-License-Identifier: MIT
/*
 * Options structs (lib/sys/opts.h): a caller's struct may be shorter than
 * the library's (older header: defaults for the rest) or longer (newer
 * header: the unknown bytes must be zero), and the public constructors
 * that take options follow that rule.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <hpmon/hpmon.h>
#include <hpmon/counters.h>
#include <hpmon/profile.h>
#include <hpmon/sysinfo.h>
#include "sys/opts.h"

struct demo_opts {
	size_t sz;
	int a;
	int b;
};

static int get_b(const struct demo_opts *o) { return HPM_OPTS_GET(o, b, 7); }

static void test_macros(void **state)
{
	(void)state;
	struct demo_opts o = { .sz = sizeof(o), .a = 1, .b = 2 };

	assert_true(HPM_OPTS_VALID((const struct demo_opts *)NULL, demo_opts));
	assert_int_equal(get_b(NULL), 7);
	assert_true(HPM_OPTS_VALID(&o, demo_opts));
	assert_int_equal(get_b(&o), 2);

	/* an older caller: b is past its struct, so the default */
	o.sz = offsetof(struct demo_opts, b);
	assert_true(HPM_OPTS_VALID(&o, demo_opts));
	assert_int_equal(HPM_OPTS_GET(&o, a, 0), 1);
	assert_int_equal(get_b(&o), 7);

	/* shorter than sz itself */
	o.sz = 3;
	assert_false(HPM_OPTS_VALID(&o, demo_opts));

	/* a newer caller: zero past what is known is fine, anything else not */
	struct {
		struct demo_opts known;
		uint64_t later;
	} big = { { sizeof(big), 1, 2 }, 0 };
	assert_true(HPM_OPTS_VALID(&big.known, demo_opts));
	big.later = 1;
	assert_false(HPM_OPTS_VALID(&big.known, demo_opts));
}

/* The public constructors refuse a newer struct asking for more. */
static void test_constructors(void **state)
{
	(void)state;
	struct {
		struct hpm_sysinfo_opts o;
		uint64_t later;
	} si = { { sizeof(si), 0 }, 1 };
	struct hpm_ctx *ctx = hpm_ctx__new(NULL);
	assert_non_null(ctx);

	errno = 0;
	assert_null(hpm_sysinfo__read(ctx, &si.o));
	assert_int_equal(errno, EINVAL);
	si.later = 0;
	struct hpm_sysinfo *s = hpm_sysinfo__read(ctx, &si.o);
	assert_non_null(s);
	hpm_sysinfo__free(s);

	struct {
		struct hpm_markers_opts o;
		uint64_t later;
	} mk = { { .sz = sizeof(mk) }, 3 };
	errno = 0;
	assert_null(hpm_markers__new(&mk.o));
	assert_int_equal(errno, EINVAL);

	struct {
		struct hpm_eventset_opts o;
		uint64_t later;
	} es = { { .sz = sizeof(es) }, 1 };
	struct hpm_parse_error err;
	memset(&err, 0, sizeof(err));
	errno = 0;
	assert_null(hpm_eventset__new(ctx, "task-clock", &es.o, &err));
	assert_int_equal(errno, EINVAL);
	es.later = 0;
	struct hpm_eventset *set = hpm_eventset__new(ctx, "task-clock", &es.o, &err);
	assert_non_null(set);
	hpm_eventset__free(set);

	/* an older, shorter markers struct: the defaults for the rest */
	struct hpm_markers_opts old = { .sz = offsetof(struct hpm_markers_opts, regions) };
	struct hpm_markers *m = hpm_markers__new(&old);
	assert_non_null(m);
	hpm_markers__free(m);
	hpm_ctx__free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_macros),
		cmocka_unit_test(test_constructors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
