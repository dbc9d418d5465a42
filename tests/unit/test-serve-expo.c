// SPDX-License-Identifier: MIT
/*
 * hpmon serve's exposition (tools/hpmon/serve/serve-expo.c): series names from
 * event names (lower case, [a-z0-9_] only, the unit appended once), the
 * Accept header's choice of OpenMetrics, and the whole text of a small
 * snapshot in both formats, byte for byte, with label values and help
 * that hold quotes, backslashes, newlines and bytes that are not ASCII;
 * families per process and per cgroup (their series, [other], the
 * metrics per series, one counted ratio per event, the bound and the rows
 * in [other]), and label values escaped and cut without splitting an
 * escape.
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

#include "../../tools/hpmon/serve/serve-expo.c"

struct name_row {
	int line;
	const char *what, *unit, *out;
};

static const struct name_row names[] = {
	{ __LINE__, "task-clock", "seconds", "hpmon_task_clock_seconds" },
	{ __LINE__, "page-faults", "", "hpmon_page_faults" },
	{ __LINE__, "cycles:u", "", "hpmon_cycles_u" },
	{ __LINE__, "cpu/event=0x3c,umask=0/", "", "hpmon_cpu_event_0x3c_umask_0" },
	{ __LINE__, "power/energy-pkg/", "joules", "hpmon_power_energy_pkg_joules" },
	{ __LINE__, "L1-dcache-load-misses", "", "hpmon_l1_dcache_load_misses" },
	{ __LINE__, "busy_seconds", "seconds", "hpmon_busy_seconds" },  /* unit once */
	{ __LINE__, "seconds", "seconds", "hpmon_seconds" },
	{ __LINE__, "a\n\"b\\", "", "hpmon_a_b" },
	{ __LINE__, "---", "", "hpmon" },
	{ __LINE__, "\xc3\xa9t\xc3\xa9", "", "hpmon_t" },
};

static void test_names(void **state)
{
	char out[160];
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		serve_expo_name(out, sizeof(out), names[i].what, names[i].unit);
		if (strcmp(out, names[i].out))
			fail_msg("line %d: '%s' -> '%s', expected '%s'", names[i].line, names[i].what,
				 out, names[i].out);
	}
	/* cut to the buffer, still a name */
	serve_expo_name(out, 10, "task-clock", "seconds");
	assert_string_equal(out, "hpmon_tas");
}

struct accept_row {
	int line;
	const char *accept;
	bool om;
};

static const struct accept_row accepts[] = {
	{ __LINE__, NULL, false },
	{ __LINE__, "", false },
	{ __LINE__, "*/*", false },
	{ __LINE__, "text/plain", false },
	{ __LINE__, "application/openmetrics-text", true },
	{ __LINE__, "Application/OpenMetrics-Text; version=1.0.0", true },
	/* Prometheus 2.42's own */
	{ __LINE__, "application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
		    "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1", true },
	{ __LINE__, "text/plain;version=0.0.4, application/openmetrics-text ; q=0.3", true },
	{ __LINE__, "application/openmetrics-text;q=0", false },
	{ __LINE__, "application/openmetrics-text; version=1.0.0; q=0.000", false },
	{ __LINE__, "application/openmetrics-text;q=0.01", true },
	{ __LINE__, "application/openmetrics-textual", false },
	{ __LINE__, "xapplication/openmetrics-text", false },
	{ __LINE__, "application/openmetrics-text;q=0;x=1, text/plain", false },
};

static void test_accept(void **state)
{
	for (size_t i = 0; i < sizeof(accepts) / sizeof(accepts[0]); i++)
		if (serve_expo_wants_openmetrics(accepts[i].accept) != accepts[i].om)
			fail_msg("line %d: '%s' should%s take OpenMetrics", accepts[i].line,
				 accepts[i].accept ? accepts[i].accept : "(none)",
				 accepts[i].om ? "" : " not");
}

/* Two events on two CPUs (one not counted on CPU 1), one that did not
 * open, one repeated, and a metric. */
static struct serve_event ev[4] = {
	{ .name = "hpmon_task_clock_seconds", .event = "task-clock", .unit = "seconds",
	  .shown = true },
	{ .name = "hpmon_odd_x", .event = "odd\"x\\\n\x01\xff", .shown = true },
	{ .name = "hpmon_cycles", .event = "cycles", .shown = true, .err = -2 },
	{ .name = "hpmon_task_clock_seconds", .event = "task-clock", .unit = "seconds" },
};
static char keys[2][32] = { "0", "1" };
static double vals[8] = { 1.5, 42, 0, 1.5, 2.25, 0, 0, 2.25 };
static double ratios[8] = { 1, 0.5, 0, 1, 1, 0.5, 0, 1 };
static bool oks[8] = { true, true, false, true, true, false, false, true };
static const struct serve_rows rows = {
	.label = "cpu", .nr = 2, .key = keys, .val = vals, .ratio = ratios, .ok = oks,
};
static const struct serve_metric met[2] = {
	{ .name = "hpmon_metric_ipc", .metric = "ipc", .unit = "", .desc = "per \"cycle\"",
	  .value = 1.25, .ok = true },
	{ .name = "hpmon_metric_na", .metric = "na", .unit = "%", .desc = "", .ok = false },
};
static const struct serve_snap snap = {
	.ev = ev, .nr_ev = 4, .rows = &rows, .nr_rows = 1, .metrics = met, .nr_metrics = 2,
	.lost = 3, .start_time = 1795527042, .scrapes = 7, .rejected = 1,
};

static const char want_om[] =
	"# TYPE hpmon_task_clock_seconds counter\n"
	"# UNIT hpmon_task_clock_seconds seconds\n"
	"# HELP hpmon_task_clock_seconds task-clock in seconds, counted system-wide, per CPU\n"
	"hpmon_task_clock_seconds_total{cpu=\"0\"} 1.5\n"
	"hpmon_task_clock_seconds_total{cpu=\"1\"} 2.25\n"
	"# TYPE hpmon_odd_x counter\n"
	"# HELP hpmon_odd_x odd'x\\\\\\n??, counted system-wide, per CPU\n"
	"hpmon_odd_x_total{cpu=\"0\"} 42\n"
	"# TYPE hpmon_metric_ipc gauge\n"
	"# HELP hpmon_metric_ipc ipc, over the time since the previous scrape: per 'cycle'\n"
	"hpmon_metric_ipc 1.25\n"
	"# TYPE hpmon_metric_na gauge\n"
	"# HELP hpmon_metric_na na (%), over the time since the previous scrape\n"
	"# TYPE hpmon_counted_ratio gauge\n"
	"# HELP hpmon_counted_ratio share of the time enabled that the event was on a counter "
	"(1: not multiplexed)\n"
	"hpmon_counted_ratio{event=\"task-clock\",cpu=\"0\"} 1\n"
	"hpmon_counted_ratio{event=\"task-clock\",cpu=\"1\"} 1\n"
	"hpmon_counted_ratio{event=\"odd\\\"x\\\\\\n??\",cpu=\"0\"} 0.5\n"
	"# TYPE hpmon_event_supported gauge\n"
	"# HELP hpmon_event_supported 1 when the event could be opened here, 0 when not "
	"(hpmon serve says why at start)\n"
	"hpmon_event_supported{event=\"task-clock\"} 1\n"
	"hpmon_event_supported{event=\"odd\\\"x\\\\\\n??\"} 1\n"
	"hpmon_event_supported{event=\"cycles\"} 0\n"
	"# TYPE hpmon_scrapes counter\n"
	"# HELP hpmon_scrapes requests for /metrics answered, this one included\n"
	"hpmon_scrapes_total 7\n"
	"# TYPE hpmon_rejected_requests counter\n"
	"# HELP hpmon_rejected_requests requests refused: another path, another method, too large\n"
	"hpmon_rejected_requests_total 1\n"
	"# TYPE hpmon_lost_records counter\n"
	"# HELP hpmon_lost_records records the kernel dropped\n"
	"hpmon_lost_records_total 3\n"
	"# TYPE hpmon_start_time_seconds gauge\n"
	"# UNIT hpmon_start_time_seconds seconds\n"
	"# HELP hpmon_start_time_seconds when counting began, Unix time\n"
	"hpmon_start_time_seconds 1795527042\n"
	"# EOF\n";

static void test_openmetrics(void **state)
{
	size_t len = 0;
	char *t = serve_expo(&snap, true, &len);
	assert_non_null(t);
	assert_int_equal(len, strlen(t));
	if (strcmp(t, want_om))
		fail_msg("got:\n%s\nexpected:\n%s", t, want_om);
	free(t);
}

/* Text 0.0.4: _total in HELP and TYPE, HELP first, no UNIT, no EOF. */
static void test_text(void **state)
{
	size_t len = 0;
	char *t = serve_expo(&snap, false, &len);
	assert_non_null(t);
	assert_null(strstr(t, "# UNIT"));
	assert_null(strstr(t, "# EOF"));
	assert_non_null(strstr(t, "# HELP hpmon_task_clock_seconds_total task-clock in seconds, "
				  "counted system-wide, per CPU\n"
				  "# TYPE hpmon_task_clock_seconds_total counter\n"
				  "hpmon_task_clock_seconds_total{cpu=\"0\"} 1.5\n"));
	assert_non_null(strstr(t, "# HELP hpmon_metric_ipc ipc, over the time since the previous "
				  "scrape: per 'cycle'\n# TYPE hpmon_metric_ipc gauge\nhpmon_metric_ipc 1.25\n"));
	assert_non_null(strstr(t, "# TYPE hpmon_scrapes_total counter\nhpmon_scrapes_total 7\n"));
	/* every line is printable ASCII */
	for (const char *p = t; *p; p++)
		if (*p != '\n' && (*p < 0x20 || *p >= 0x7f))
			fail_msg("byte 0x%02x at %td", (unsigned char)*p, p - t);
	free(t);
}

/* Values: integers as integers, others with 15 digits, never locale-dependent. */
static void test_numbers(void **state)
{
	struct sbuf b = { 0 };
	sb_num(&b, 0);
	sb_putc(&b, ' ');
	sb_num(&b, 18446744073709551615.0);
	sb_putc(&b, ' ');
	sb_num(&b, 1234567.000000001);
	sb_putc(&b, ' ');
	sb_num(&b, NAN);
	sb_putc(&b, ' ');
	sb_num(&b, -INFINITY);
	assert_false(b.failed);
	assert_string_equal(b.p, "0 1.84467440737096e+19 1234567 NaN -Inf");
	free(b.p);
}

/* Label values: escapes, '?' for what is not printable ASCII, cut to the
 * buffer but never inside an escape. */
static void test_label(void **state)
{
	char out[16];
	assert_int_equal(serve_expo_label(out, sizeof(out), "a\"b\\c\nd\xc3\xa9"), 12);
	assert_string_equal(out, "a\\\"b\\\\c\\nd??");
	assert_int_equal(serve_expo_label(out, 5, "abc\"d"), 3);
	assert_string_equal(out, "abc");
	assert_int_equal(serve_expo_label(out, 1, "abc"), 0);
	assert_string_equal(out, "");
}

/* One event per CPU and per process: two processes shown (a pinned one
 * among them), [other], a metric per series (n/a for one), one counted
 * ratio per event. */
static struct serve_event ev1[1] = {
	{ .name = "hpmon_page_faults", .event = "page-faults", .shown = true, .factor = 1 },
};
static double vals1[2] = { 10, 20 };
static double ratios1[2] = { 0.5, 0.5 };
static bool oks1[2] = { true, true };
static const struct serve_rows rows1 = {
	.label = "cpu", .nr = 2, .key = keys, .val = vals1, .ratio = ratios1, .ok = oks1,
};
static uint64_t v_idle[1] = { 4 }, v_p[1] = { 25 }, other1[1] = { 1 };
static double mv_idle[1] = { 9 }, mv_p[1] = { 2.5 };
static struct serve_series series1[2] = {
	{ .labels = "comm=\"[idle]\"", .pinned = true, .v = v_idle, .mv = mv_idle },
	{ .labels = "pid=\"7\",comm=\"a\\\"b\",cgroup=\"/x\"", .v = v_p, .mv = mv_p },
};
static const struct serve_set set1 = {
	.by = "process", .s = series1, .nr = 2, .other = other1,
	.other_labels = "comm=\"[other]\"", .max = 20, .folded = 3,
};
static const struct serve_metric met1[1] = {
	{ .name = "hpmon_metric_pf", .metric = "pf", .unit = "", .desc = "", .value = 30, .ok = true },
};
static const struct serve_snap snap1 = {
	.ev = ev1, .nr_ev = 1, .rows = &rows1, .nr_rows = 1, .sets = &set1, .nr_sets = 1,
	.one_ratio = true, .metrics = met1, .nr_metrics = 1, .start_time = 1, .scrapes = 1,
};

static void test_sets(void **state)
{
	static const char want[] =
		"# TYPE hpmon_page_faults counter\n"
		"# HELP hpmon_page_faults page-faults, counted system-wide, per CPU\n"
		"hpmon_page_faults_total{cpu=\"0\"} 10\n"
		"hpmon_page_faults_total{cpu=\"1\"} 20\n"
		"# TYPE hpmon_process_page_faults counter\n"
		"# HELP hpmon_process_page_faults page-faults, per process: the 20 most active, "
		"[other] the rest\n"
		"hpmon_process_page_faults_total{comm=\"[idle]\"} 4\n"
		"hpmon_process_page_faults_total{pid=\"7\",comm=\"a\\\"b\",cgroup=\"/x\"} 25\n"
		"hpmon_process_page_faults_total{comm=\"[other]\"} 1\n"
		"# TYPE hpmon_metric_pf gauge\n"
		"# HELP hpmon_metric_pf pf, over the time since the previous scrape\n"
		"hpmon_metric_pf 30\n"
		"# TYPE hpmon_process_metric_pf gauge\n"
		"# HELP hpmon_process_metric_pf pf per process, over the time since the previous "
		"scrape\n"
		"hpmon_process_metric_pf{pid=\"7\",comm=\"a\\\"b\",cgroup=\"/x\"} 2.5\n"
		"# TYPE hpmon_counted_ratio gauge\n"
		"# HELP hpmon_counted_ratio share of the time enabled that the event was on a counter "
		"(1: not multiplexed)\n"
		"hpmon_counted_ratio{event=\"page-faults\"} 0.5\n"
		"# TYPE hpmon_series_max gauge\n"
		"# HELP hpmon_series_max the most series shown per process or cgroup, besides "
		"[other], [idle], [lost] and [unattributed] (--per-process=N, --per-cgroup=N)\n"
		"hpmon_series_max{by=\"process\"} 20\n"
		"# TYPE hpmon_other_rows gauge\n"
		"# HELP hpmon_other_rows processes or cgroups that grew since the previous scrape "
		"and counted in [other], having no series of their own\n"
		"hpmon_other_rows{by=\"process\"} 3\n";
	size_t len = 0;
	char *t = serve_expo(&snap1, true, &len);
	assert_non_null(t);
	if (strncmp(t, want, strlen(want)))
		fail_msg("got:\n%s\nexpected to start with:\n%s", t, want);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_accept),
		cmocka_unit_test(test_openmetrics),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_label),
		cmocka_unit_test(test_sets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
