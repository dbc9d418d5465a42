/* SPDX-License-Identifier: MIT */
/*
 * Event specifications hpmon refuses, and that the message names the real
 * cause: a misspelt term with a non-numeric value (not "not a number"), a
 * term with '=' and no value, a hex prefix without digits, wildcards where
 * only tracepoints take them, and sysfs format files hpmon cannot use (a
 * PMU with more fields than it reads, a text it does not parse), named by
 * file, and a tracepoint its subsystem lacks (with the closest names).
 * Over the recorded Skylake tree and a made-up one in a temporary
 * directory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include <hpmon/event.h>
#include <hpmon/hpmon.h>

static struct hpm_ctx *ctx_at(const char *sysfs)
{
	struct hpm_ctx_opts o = { .sz = sizeof(o), .sysfs_root = sysfs, .procfs_root = "/proc",
				  .tracefs_root = HPM_TEST_DATA "/tracefs" };
	struct hpm_ctx *ctx = hpm_ctx__new(&o);
	assert_non_null(ctx);
	return ctx;
}

struct want {
	int line;
	const char *spec;
	int err;
	size_t pos;
	const char *msg;     /* the whole message */
	const char *suggest; /* NULL: none checked */
};

#define W .line = __LINE__

static const struct want skl_rows[] = {
	/* a misspelt term is unknown, whatever its value */
	{ W, "msr/nme=x/", -HPM_ERR_UNKNOWN_TERM, 4,
	  "PMU msr has no term or event 'nme' (its terms: event)", "name" },
	{ W, "software/nme=x/", -HPM_ERR_UNKNOWN_TERM, 9,
	  "PMU software has no term or event 'nme' (its terms: config, config1, config2, name, "
	  "period, freq)", "name" },
	{ W, "cycles/nme=x/", -HPM_ERR_UNKNOWN_TERM, 7,
	  "event cycles takes no term 'nme' (its terms: config, config1, config2, name, period, "
	  "freq, call-graph, stack-size, time)", "name" },
	{ W, "mem:0/nme=x/", -HPM_ERR_UNKNOWN_TERM, 6,
	  "event mem:0 takes no term 'nme' (its terms: config, config1, config2, name, period, "
	  "freq, call-graph, stack-size, time)", "name" },
	{ W, "mem:0:x/nme=bp/u", -HPM_ERR_UNKNOWN_TERM, 8,
	  "event mem:0:x takes no term 'nme' (its terms: config, config1, config2, name, period, "
	  "freq, call-graph, stack-size, time)", "name" },
	/* a known term with a bad value says what a value is */
	{ W, "cpu/config1=x/", -HPM_ERR_BAD_VALUE, 12,
	  "'x' is not a number for term 'config1' (write a decimal or 0x hex number)", NULL },
	{ W, "cpu/umask=0x/", -HPM_ERR_BAD_VALUE, 10,
	  "'0x' is not a number for term 'umask' (write a decimal or 0x hex number)", NULL },
	{ W, "cpu/config=0x-1/", -HPM_ERR_BAD_VALUE, 11,
	  "'0x-1' is not a number for term 'config' (write a decimal or 0x hex number)", NULL },
	/* '=' without a value; config1 alone is config1=1 */
	{ W, "cpu/config1=/", -HPM_ERR_BAD_VALUE, 4,
	  "term 'config1' has '=' but no value: write config1=N, or the term alone for 1", NULL },
	{ W, "cycles/config1=,period=10/", -HPM_ERR_BAD_VALUE, 7,
	  "term 'config1' has '=' but no value: write config1=N, or the term alone for 1", NULL },
	{ W, "cpu/event=0x3c,umask=/", -HPM_ERR_BAD_VALUE, 15,
	  "term 'umask' has '=' but no value: write umask=N, or the term alone for 1", NULL },
	{ W, "cpu/period=/", -HPM_ERR_BAD_VALUE, 4,
	  "term 'period' has '=' but no value: write period=N", NULL },
	{ W, "cpu/frob=/", -HPM_ERR_UNKNOWN_TERM, 4, NULL, NULL },
	/* wildcards match tracepoints only */
	{ W, "cycles*", -HPM_ERR_UNKNOWN_EVENT, 0,
	  "'cycles*' holds a wildcard, and wildcards match tracepoints only (SUBSYS:NAME: "
	  "sched:sched_*, *:*), not other event names", "cycles" },
	{ W, "task-clock,cpu-cl?ck:u", -HPM_ERR_UNKNOWN_EVENT, 11,
	  "no tracepoint under " HPM_TEST_DATA "/tracefs/events matches 'cpu-cl?ck:u' (see "
	  "'hpmon list tracepoint')", NULL },
	{ W, "cpu*/event=1/", -HPM_ERR_UNKNOWN_EVENT, 0,
	  "'cpu*/event=1/' holds a wildcard, and wildcards match tracepoints only (SUBSYS:NAME: "
	  "sched:sched_*, *:*), not PMU names or terms", NULL },
	{ W, "software/cpu-clock*/", -HPM_ERR_UNKNOWN_TERM, 9,
	  "'cpu-clock*' holds a wildcard, and terms take none: wildcards match tracepoints only "
	  "(SUBSYS:NAME)", NULL },
	/* spaces dropped next to ':' and ',' still leave the offset where
	 * the user wrote the bad word */
	{ W, "faults , cycles : q", -HPM_ERR_BAD_MODIFIER, 18, NULL, NULL },
	{ W, "faults :u,  cyclez", -HPM_ERR_UNKNOWN_EVENT, 12, "unknown event 'cyclez'", NULL },
	{ W, "sched:nomatch_*", -HPM_ERR_UNKNOWN_EVENT, 0,
	  "no tracepoint under " HPM_TEST_DATA "/tracefs/events matches 'sched:nomatch_*' (see "
	  "'hpmon list tracepoint')", NULL },
	/* a subsystem tracefs has, without that tracepoint: a tracepoint was
	 * meant, and the message says which part is missing, with the closest */
	{ W, "sched:sched_swich", -HPM_ERR_UNKNOWN_EVENT, 0,
	  "unknown tracepoint 'sched:sched_swich': the subsystem sched has no tracepoint "
	  "'sched_swich' (" HPM_TEST_DATA "/tracefs/events/sched; 'hpmon list tracepoint' "
	  "lists them)", "sched:sched_switch" },
	{ W, "faults,syscalls : sys_enter_opnat:u", -HPM_ERR_UNKNOWN_EVENT, 7,
	  "unknown tracepoint 'syscalls:sys_enter_opnat': the subsystem syscalls has no "
	  "tracepoint 'sys_enter_opnat' (" HPM_TEST_DATA "/tracefs/events/syscalls; 'hpmon list "
	  "tracepoint' lists them)", "syscalls:sys_enter_openat, syscalls:sys_exit_openat" },
	/* no such subsystem either: it may have been meant as any event */
	{ W, "nosys:sched_switch", -HPM_ERR_UNKNOWN_EVENT, 0,
	  "unknown event 'nosys:sched_switch': not a generic event, tracepoint, PMU alias or "
	  "native event of this CPU", "" },
	{ W, "..:sched_swich", -HPM_ERR_UNKNOWN_EVENT, 0, NULL, "" },
};

static void check(struct hpm_ctx *ctx, const struct want *w)
{
	struct hpm_evlist *l = NULL;
	struct hpm_parse_error err;
	int rc = hpm_evlist__parse(ctx, w->spec, &l, &err);

	if (rc != w->err || err.pos != w->pos || (w->msg && strcmp(err.msg, w->msg)) ||
	    (w->suggest && strcmp(err.suggest, w->suggest))) {
		print_error("line %d: '%s': %d at %zu, '%s' (suggest '%s'); expected %d at %zu, "
			    "'%s' (suggest '%s')\n", w->line, w->spec, rc, err.pos, err.msg,
			    err.suggest, w->err, w->pos, w->msg ? w->msg : "-",
			    w->suggest ? w->suggest : "-");
		fail();
	}
	hpm_evlist__free(l);
}

static void test_skl_messages(void **state)
{
	struct hpm_ctx *ctx = ctx_at(HPM_TEST_DATA "/sysfs-intel-skl");
	struct hpm_evlist *l = NULL;
	struct hpm_parse_error err;
	(void)state;

	for (size_t i = 0; i < sizeof(skl_rows) / sizeof(skl_rows[0]); i++)
		check(ctx, &skl_rows[i]);
	/* config1 alone is a flag, as perf: config1=1 */
	assert_int_equal(hpm_evlist__parse(ctx, "cpu/event=0x3c,config1/", &l, &err), 0);
	assert_int_equal(hpm_event__attr(hpm_evlist__event(l, 0))->config1, 1);
	hpm_evlist__free(l);
	hpm_ctx__free(ctx);
}

static char dir[64];

static void put(const char *rel, const char *text)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void mk(const char *rel)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	assert_int_equal(mkdir(path, 0700), 0);
}

/* PMU fmt (type 200): 50 valid fields f00..f49, two more than hpmon reads,
 * and two it does not parse. */
static int setup(void **state)
{
	char rel[128];
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/hpm-evmsg.XXXXXX");
	assert_non_null(mkdtemp(dir));
	mk("bus");
	mk("bus/event_source");
	mk("bus/event_source/devices");
	mk("bus/event_source/devices/fmt");
	mk("bus/event_source/devices/fmt/format");
	put("bus/event_source/devices/fmt/type", "200\n");
	for (int i = 0; i < 50; i++) {
		snprintf(rel, sizeof(rel), "bus/event_source/devices/fmt/format/f%02d", i);
		put(rel, "config:0\n");
	}
	put("bus/event_source/devices/fmt/format/wide", "config4:0-3\n");
	put("bus/event_source/devices/fmt/format/odd", "config:0-7:5\n");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_format_files_named(void **state)
{
	struct hpm_ctx *ctx = ctx_at(dir);
	struct hpm_evlist *l = NULL;
	struct hpm_parse_error err;
	char spec[64], want[256];
	int past = 0;
	(void)state;

	/* two of the fifty fields are past what hpmon reads (which two
	 * depends on the directory's order): each says so, by file */
	for (int i = 0; i < 50; i++) {
		snprintf(spec, sizeof(spec), "fmt/f%02d=1/", i);
		int rc = hpm_evlist__parse(ctx, spec, &l, &err);
		if (rc == 0) {
			assert_int_equal(hpm_event__attr(hpm_evlist__event(l, 0))->config, 1);
			hpm_evlist__free(l);
			continue;
		}
		past++;
		assert_int_equal(rc, -HPM_ERR_SYSFS);
		assert_int_equal(err.pos, 4);
		snprintf(want, sizeof(want), "sysfs file fmt/format/f%02d reads 'config:0', and the "
			 "PMU has more format fields than the 48 hpmon reads: write the event with "
			 "config=/config1=/config2= instead", i);
		assert_string_equal(err.msg, want);
	}
	assert_int_equal(past, 2);
	/* texts hpmon does not parse */
	assert_int_equal(hpm_evlist__parse(ctx, "fmt/wide=1/", &l, &err), -HPM_ERR_SYSFS);
	assert_string_equal(err.msg, "sysfs file fmt/format/wide reads 'config4:0-3', and hpmon "
			    "reads configN:BITS only (N none or 1-3, BITS as 0-7,32-35): write the "
			    "event with config=/config1=/config2= instead");
	assert_int_equal(hpm_evlist__parse(ctx, "fmt/config=2,odd/", &l, &err), -HPM_ERR_SYSFS);
	assert_int_equal(err.pos, 13);
	assert_string_equal(err.msg, "sysfs file fmt/format/odd reads 'config:0-7:5', and hpmon "
			    "reads configN:BITS only (N none or 1-3, BITS as 0-7,32-35): write the "
			    "event with config=/config1=/config2= instead");
	/* a name no file has is simply unknown */
	assert_int_equal(hpm_evlist__parse(ctx, "fmt/f50=1/", &l, &err), -HPM_ERR_UNKNOWN_TERM);
	assert_non_null(strstr(err.msg, "PMU fmt has no term or event 'f50'"));
	hpm_ctx__free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_skl_messages),
		cmocka_unit_test_setup_teardown(test_format_files_named, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
