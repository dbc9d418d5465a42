// SPDX-License-Identifier: MIT
/*
 * Unit tests of the library's small modules: the data tokenizer, generic
 * event names, sysfs format fields, errors and the context.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <hpmon/hpmon.h>
#include "core/data-internal.h"
#include "events/generic-internal.h"
#include "events/pmu-internal.h"

static void test_data_tokenizer(void **state)
{
	const char *text = "# comment\n\n  a  b   rest of line  \nx y # trailing\nlast";
	struct hpm_data_line l = { 0 };
	size_t pos = 0;
	(void)state;

	assert_int_equal(hpm_data__next(text, &pos, 3, &l), 1);
	assert_int_equal(l.nr, 3);
	assert_string_equal(l.field[0], "a");
	assert_string_equal(l.field[1], "b");
	assert_string_equal(l.field[2], "rest of line");
	assert_int_equal(l.lineno, 3);
	assert_int_equal(hpm_data__next(text, &pos, 3, &l), 1);
	assert_int_equal(l.nr, 2);
	assert_string_equal(l.field[1], "y");
	assert_int_equal(hpm_data__next(text, &pos, 3, &l), 1);
	assert_string_equal(l.field[0], "last");
	assert_int_equal(hpm_data__next(text, &pos, 3, &l), 0);
	assert_non_null(hpm_data__get("generic-events.txt"));
	assert_null(hpm_data__get("no-such-file.txt"));
}

static const struct {
	int line;
	const char *name;
	int rc;
	uint32_t type;
	uint64_t config;
} generic_rows[] = {
	{ __LINE__, "cycles", 0, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ __LINE__, "cpu-cycles", 0, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ __LINE__, "instructions", 0, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ __LINE__, "branches", 0, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ __LINE__, "ref-cycles", 0, PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ __LINE__, "task-clock", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ __LINE__, "faults", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ __LINE__, "cs", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ __LINE__, "L1-dcache-load-misses", 0, PERF_TYPE_HW_CACHE,
	  PERF_COUNT_HW_CACHE_L1D | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
	  (PERF_COUNT_HW_CACHE_RESULT_MISS << 16) },
	{ __LINE__, "L1-dcache-loads", 0, PERF_TYPE_HW_CACHE,
	  PERF_COUNT_HW_CACHE_L1D | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
	  (PERF_COUNT_HW_CACHE_RESULT_ACCESS << 16) },
	{ __LINE__, "L1-dcache-misses", 0, PERF_TYPE_HW_CACHE,
	  PERF_COUNT_HW_CACHE_L1D | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
	  (PERF_COUNT_HW_CACHE_RESULT_MISS << 16) },
	{ __LINE__, "LLC-store-misses", 0, PERF_TYPE_HW_CACHE,
	  PERF_COUNT_HW_CACHE_LL | (PERF_COUNT_HW_CACHE_OP_WRITE << 8) |
	  (PERF_COUNT_HW_CACHE_RESULT_MISS << 16) },
	{ __LINE__, "dTLB-prefetches", 0, PERF_TYPE_HW_CACHE,
	  PERF_COUNT_HW_CACHE_DTLB | (PERF_COUNT_HW_CACHE_OP_PREFETCH << 8) },
	{ __LINE__, "branch-load-misses", 0, PERF_TYPE_HW_CACHE,
	  PERF_COUNT_HW_CACHE_BPU | (PERF_COUNT_HW_CACHE_RESULT_MISS << 16) },
	{ __LINE__, "l1-d-loads", 0, PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_L1D },
	{ __LINE__, "Cycles", -HPM_ERR_UNKNOWN_EVENT, 0, 0 },
	{ __LINE__, "L1-dcache-load-hits", -HPM_ERR_UNKNOWN_EVENT, 0, 0 },
	{ __LINE__, "L1-dcache", -HPM_ERR_UNKNOWN_EVENT, 0, 0 },
	{ __LINE__, "", -HPM_ERR_UNKNOWN_EVENT, 0, 0 },
};

static void test_generic(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(generic_rows) / sizeof(generic_rows[0]); i++) {
		struct perf_event_attr a = { 0 };
		int rc = hpm_generic__resolve(generic_rows[i].name, &a);
		if (rc != generic_rows[i].rc)
			fail_msg("line %d: '%s': rc %d, expected %d", generic_rows[i].line,
				 generic_rows[i].name, rc, generic_rows[i].rc);
		if (rc)
			continue;
		if (a.type != generic_rows[i].type || a.config != generic_rows[i].config)
			fail_msg("line %d: '%s': type %u config %#llx, expected %u %#llx",
				 generic_rows[i].line, generic_rows[i].name, a.type,
				 (unsigned long long)a.config, generic_rows[i].type,
				 (unsigned long long)generic_rows[i].config);
	}
}

static int count_cb(const struct hpm_generic_entry *e, void *arg)
{
	(*(int *)arg) += e->kind == HPM_GEN_HW || e->kind == HPM_GEN_SW;
	return 0;
}

static void test_generic_table(void **state)
{
	int n = 0;
	(void)state;
	assert_int_equal(hpm_generic__foreach(count_cb, &n), 0);
	assert_int_equal(n, 10 + 12); /* PERF_COUNT_HW_MAX, PERF_COUNT_SW_MAX */
}

static const struct {
	int line;
	const char *text;
	int rc;
	unsigned word, nr, lo0, hi0, lo1, hi1;
} format_rows[] = {
	{ __LINE__, "config:0-7", 0, 0, 1, 0, 7, 0, 0 },
	{ __LINE__, "config:0-7,32-35", 0, 0, 2, 0, 7, 32, 35 },
	{ __LINE__, "config1:0-15", 0, 1, 1, 0, 15, 0, 0 },
	{ __LINE__, "config2:63", 0, 2, 1, 63, 63, 0, 0 },
	{ __LINE__, "config:21\n", 0, 0, 1, 21, 21, 0, 0 },
	{ __LINE__, "config:7-0", -HPM_ERR_SYSFS, 0, 0, 0, 0, 0, 0 },
	{ __LINE__, "config:64", -HPM_ERR_SYSFS, 0, 0, 0, 0, 0, 0 },
	{ __LINE__, "config", -HPM_ERR_SYSFS, 0, 0, 0, 0, 0, 0 },
	{ __LINE__, "cfg:1", -HPM_ERR_SYSFS, 0, 0, 0, 0, 0, 0 },
	{ __LINE__, "config:1,2,3,4,5", 0, 0, 5, 1, 1, 2, 2 },
	{ __LINE__, "config1:0,2,4,6,8,20-28", 0, 1, 6, 0, 0, 2, 2 },
	/* one range per bit: the most a field can have */
	{ __LINE__, "config:0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,"
		    "26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,"
		    "52,53,54,55,56,57,58,59,60,61,62,63", 0, 0, 64, 0, 0, 1, 1 },
	{ __LINE__, "config:", -HPM_ERR_SYSFS, 0, 0, 0, 0, 0, 0 },
};

static void test_formats(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(format_rows) / sizeof(format_rows[0]); i++) {
		struct hpm_format f = { 0 };
		int rc = hpm_format__parse(format_rows[i].text, &f);
		if (rc != format_rows[i].rc)
			fail_msg("line %d: rc %d, expected %d", format_rows[i].line, rc,
				 format_rows[i].rc);
		if (rc)
			continue;
		assert_int_equal(f.word, format_rows[i].word);
		assert_int_equal(f.nr, format_rows[i].nr);
		assert_int_equal(f.lo[0], format_rows[i].lo0);
		assert_int_equal(f.hi[0], format_rows[i].hi0);
		if (f.nr > 1) {
			assert_int_equal(f.lo[1], format_rows[i].lo1);
			assert_int_equal(f.hi[1], format_rows[i].hi1);
		}
	}
}

static void test_set_term(void **state)
{
	struct hpm_pmu pmu = { .name = "cpu", .type = 4, .nr_formats = 3 };
	struct perf_event_attr a = { 0 };
	(void)state;
	hpm_format__parse("config:0-7,32-35", &pmu.formats[0]);
	strcpy(pmu.formats[0].name, "event");
	hpm_format__parse("config:8-15", &pmu.formats[1]);
	strcpy(pmu.formats[1].name, "umask");
	hpm_format__parse("config1:0-15", &pmu.formats[2]);
	strcpy(pmu.formats[2].name, "ldlat");

	/* a 12-bit AMD event: low 8 bits at 0-7, high 4 at 32-35 */
	assert_int_equal(hpm_pmu__set_term(&pmu, "event", 0xabc, &a), 0);
	assert_int_equal(a.config, 0xbcull | (0xaull << 32));
	assert_int_equal(hpm_pmu__set_term(&pmu, "umask", 0xff, &a), 0);
	assert_int_equal(a.config, 0xffbcull | (0xaull << 32));
	/* setting again replaces, does not OR */
	assert_int_equal(hpm_pmu__set_term(&pmu, "umask", 0x01, &a), 0);
	assert_int_equal(a.config, 0x01bcull | (0xaull << 32));
	assert_int_equal(hpm_pmu__set_term(&pmu, "ldlat", 3, &a), 0);
	assert_int_equal(a.config1, 3);
	assert_int_equal(hpm_pmu__set_term(&pmu, "umask", 0x100, &a), -HPM_ERR_BAD_VALUE);
	assert_int_equal(hpm_pmu__set_term(&pmu, "event", 0x1000, &a), -HPM_ERR_BAD_VALUE);
	assert_int_equal(hpm_pmu__set_term(&pmu, "cmask", 1, &a), -HPM_ERR_UNKNOWN_TERM);
}

static void test_errors_and_ctx(void **state)
{
	struct hpm_ctx_opts o = { .sz = sizeof(o), .sysfs_root = "/tmp/x/",
				  .procfs_root = "/p", .tracefs_root = "/t" };
	struct hpm_ctx *ctx;
	(void)state;

	assert_string_equal(hpm_strerror(0), "success");
	assert_string_equal(hpm_strerror(-HPM_ERR_UNKNOWN_EVENT), "unknown event");
	assert_string_equal(hpm_strerror(HPM_ERR_UNKNOWN_EVENT), "unknown event");
	assert_string_equal(hpm_strerror(-ENOENT), strerror(ENOENT));
	assert_string_equal(hpm_strerror(-99999), "unknown error");
	for (int e = HPM_ERR_BASE; e < HPM_ERR_MAX; e++)
		assert_string_not_equal(hpm_strerror(-e), "unknown error");

	ctx = hpm_ctx__new(&o);
	assert_non_null(ctx);
	assert_string_equal(hpm_ctx__sysfs_root(ctx), "/tmp/x");
	assert_string_equal(hpm_ctx__procfs_root(ctx), "/p");
	assert_string_equal(hpm_ctx__tracefs_root(ctx), "/t");
	hpm_ctx__free(ctx);
	ctx = hpm_ctx__new(NULL);
	assert_non_null(ctx);
	assert_string_equal(hpm_ctx__sysfs_root(ctx), "/sys");
	hpm_ctx__free(ctx);
	hpm_ctx__free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_data_tokenizer),
		cmocka_unit_test(test_generic),
		cmocka_unit_test(test_generic_table),
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_set_term),
		cmocka_unit_test(test_errors_and_ctx),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
