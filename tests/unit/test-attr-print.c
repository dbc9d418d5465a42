/* SPDX-License-Identifier: MIT */
/*
 * hpm_attr__format and hpm_attr__format_open: perf 6.1's -vv text
 * (util/perf_event_attr_fprintf.c, util/evsel.c), written here from its
 * rules: each non-zero field by perf's name, in perf's order, "  %-32s %s",
 * flags by name joined with '|' (bits perf has no name for left out),
 * between lines of 60 '-'; and snprintf's way with a short buffer.
 * tests/e2e/stat-attrs.sh compares the same text with perf's own.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <linux/hw_breakpoint.h>

#include <hpmon/event.h>

#define DASHES "------------------------------------------------------------\n"

static void test_fields(void **state)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_BREAKPOINT, .size = 128, .config = 0,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | (1ull << 62),
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_ID,
		.disabled = 1, .exclude_hv = 1, .precise_ip = 2, .exclude_guest = 1,
		.sample_period = 1000, .bp_type = HW_BREAKPOINT_RW, .bp_addr = 0x1000,
		.bp_len = 4, .clockid = -1, .branch_sample_type = PERF_SAMPLE_BRANCH_ANY |
		PERF_SAMPLE_BRANCH_USER,
	};
	const char *want = DASHES
		"perf_event_attr:\n"
		"  type                             5\n"
		"  size                             128\n"
		"  { sample_period, sample_freq }   1000\n"
		"  sample_type                      TID|IDENTIFIER\n"
		"  read_format                      TOTAL_TIME_ENABLED|ID\n"
		"  disabled                         1\n"
		"  exclude_hv                       1\n"
		"  precise_ip                       2\n"
		"  exclude_guest                    1\n"
		"  bp_type                          3\n"
		"  { bp_addr, config1 }             0x1000\n"
		"  { bp_len, config2 }              0x4\n"
		"  branch_sample_type               USER|ANY\n"
		"  clockid                          -1\n"
		DASHES;
	char buf[2048];

	(void)state;
	size_t n = hpm_attr__format(buf, sizeof(buf), &a);
	assert_string_equal(buf, want);
	assert_int_equal(n, strlen(want));
}

static void test_short_buffer(void **state)
{
	struct perf_event_attr a = { .type = 1, .size = 128, .config = 0x1 };
	char full[1024], cut[40];

	(void)state;
	size_t n = hpm_attr__format(full, sizeof(full), &a);
	assert_int_equal(hpm_attr__format(cut, sizeof(cut), &a), n);
	assert_int_equal(strlen(cut), sizeof(cut) - 1);
	assert_memory_equal(cut, full, sizeof(cut) - 1);
	assert_int_equal(hpm_attr__format(NULL, 0, &a), n);
}

static void test_open_line(void **state)
{
	char buf[256];

	(void)state;
	hpm_attr__format_open(buf, sizeof(buf), 1234, -1, 3, 8, 4);
	assert_string_equal(buf,
			    "sys_perf_event_open: pid 1234  cpu -1  group_fd 3  flags 0x8 = 4\n");
	hpm_attr__format_open(buf, sizeof(buf), -1, 2, -1, 8, -2);
	assert_string_equal(buf, "sys_perf_event_open: pid -1  cpu 2  group_fd -1  flags 0x8\n"
				 "sys_perf_event_open failed, error -2\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_short_buffer),
		cmocka_unit_test(test_open_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
