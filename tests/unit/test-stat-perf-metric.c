// SPDX-License-Identifier: MIT
/*
 * A vendor metric as perf 6.1 prints it (tools/hpmon/stat/print-stat-perf.c):
 * "metric-unit" ("UNIT  NAME", NAME without a unit, 63 characters at
 * most) and the CSV value ("%8.1f" with a unit, "%8.2f" without, of which
 * perf keeps the leading digits and '.': a negative value prints empty).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "../../tools/hpmon/stat/print-stat-perf.c"

static void test_metric_unit(void **state)
{
	char b[128];
	(void)state;
	stat_perf_metric_unit("tma_retiring", "%", b, sizeof(b));
	assert_string_equal(b, "%  tma_retiring");
	stat_perf_metric_unit("IPC", "", b, sizeof(b));
	assert_string_equal(b, "IPC");
	stat_perf_metric_unit("llc_data_read_demand_plus_prefetch_miss_latency_for_remote_requests",
			      "ns", b, sizeof(b));
	assert_string_equal(b, "ns  llc_data_read_demand_plus_prefetch_miss_latency_for_remote_");
	assert_int_equal(strlen(b), 63);
}

static void test_csv_value(void **state)
{
	char b[64];
	(void)state;
	stat_perf_csv_value(12.345, true, b, sizeof(b));
	assert_string_equal(b, "12.3");
	stat_perf_csv_value(1.005, false, b, sizeof(b));
	assert_string_equal(b, "1.00");
	stat_perf_csv_value(123456789.5, false, b, sizeof(b));
	assert_string_equal(b, "123456789.50");
	stat_perf_csv_value(-0.5, true, b, sizeof(b));
	assert_string_equal(b, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metric_unit),
		cmocka_unit_test(test_csv_value),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
