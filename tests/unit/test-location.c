// SPDX-License-Identifier: MIT
/*
 * Location events (exec:): the specification's forms and errors, table
 * driven; resolution against the workload `calls` (ELF symbols, DWARF
 * lines, addresses, libraries) and the errors a user meets; and counting
 * sessions on a launched `calls K`, stopped at its exec so breakpoints go
 * to the position-independent program's runtime addresses: K calls,
 * exactly, with breakpoints and with uprobes, K returns, K executions of
 * a source line.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "host.h"
#include "skip.h"

#include <hpmon/session.h>
#include <hpmon/symbols.h>
#include <hpmon/sysinfo.h>
#include "location/location-internal.h"
#include "attach/attach-internal.h"
#include "core/breakpoints-internal.h"

static struct hpm_ctx *ctx;
static const char calls[] = HPM_TEST_WORKLOADS "/calls";
static const char calls_src[] = HPM_TEST_DATA "/../workloads/calls.c";

/* ---- the forms ---- */

struct parse_row {
	int line;
	const char *spec;
	int err;                /* 0 or -HPM_ERR_* */
	enum hpm_loc_kind kind;
	enum hpm_loc_mech mech;
	bool ret;
	const char *object, *func, *file;
	unsigned lineno;
	uint64_t addr;
};

#define OK(spec, kind, mech, ret, obj, func, file, ln, addr) \
	{ __LINE__, spec, 0, kind, mech, ret, obj, func, file, ln, addr }
#define BAD(spec, err) { __LINE__, spec, err, 0, 0, false, NULL, NULL, NULL, 0, 0 }

static const struct parse_row parse_rows[] = {
	OK("exec:main", HPM_LOC_FUNC, HPM_LOC_AUTO, false, "", "main", "", 0, 0),
	OK("exec:hpm_work%return", HPM_LOC_FUNC, HPM_LOC_AUTO, true, "", "hpm_work", "", 0, 0),
	OK("exec:hpm_work:bp", HPM_LOC_FUNC, HPM_LOC_BP, false, "", "hpm_work", "", 0, 0),
	OK("exec:hpm_work:uprobe", HPM_LOC_FUNC, HPM_LOC_UPROBE, false, "", "hpm_work", "", 0, 0),
	OK("exec:calls.c:42", HPM_LOC_LINE, HPM_LOC_AUTO, false, "", "", "calls.c", 42, 0),
	OK("exec:calls.c:42:bp", HPM_LOC_LINE, HPM_LOC_BP, false, "", "", "calls.c", 42, 0),
	OK("exec:0x401136", HPM_LOC_ADDR, HPM_LOC_AUTO, false, "", "", "", 0, 0x401136),
	OK("exec:0x1179%return:uprobe", HPM_LOC_ADDR, HPM_LOC_UPROBE, true, "", "", "", 0, 0x1179),
	OK("exec:libm:sqrt", HPM_LOC_FUNC, HPM_LOC_AUTO, false, "libm", "sqrt", "", 0, 0),
	OK("exec:/usr/lib/x86_64-linux-gnu/libc.so.6:getpid%return",
	   HPM_LOC_FUNC, HPM_LOC_AUTO, true, "/usr/lib/x86_64-linux-gnu/libc.so.6", "getpid", "", 0, 0),
	OK("exec:libfoo.so:foo.c:7:uprobe", HPM_LOC_LINE, HPM_LOC_UPROBE, false, "libfoo.so", "",
	   "foo.c", 7, 0),
	OK("exec:libfoo.so:0x10", HPM_LOC_ADDR, HPM_LOC_AUTO, false, "libfoo.so", "", "", 0, 0x10),
	/* "bp" alone is a function called bp */
	OK("exec:bp", HPM_LOC_FUNC, HPM_LOC_AUTO, false, "", "bp", "", 0, 0),
	BAD("exec:", -HPM_ERR_SYNTAX),
	BAD("exec::bp", -HPM_ERR_SYNTAX),
	BAD("exec:a:b:c:d:e", -HPM_ERR_SYNTAX),
	BAD("exec:a:b:c", -HPM_ERR_SYNTAX),
	BAD("exec:0xzz", -HPM_ERR_BAD_VALUE),
	BAD("exec:0x", -HPM_ERR_BAD_VALUE),
	BAD("exec:f.c:0", -HPM_ERR_BAD_VALUE),
	BAD("exec:f.c:123456789", -HPM_ERR_BAD_VALUE),
	BAD("exec:foo%ret", -HPM_ERR_BAD_MODIFIER),
	BAD("exec:fo o", -HPM_ERR_SYNTAX),
	BAD("exec:%return", -HPM_ERR_SYNTAX),
};

static void test_parse(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(parse_rows) / sizeof(parse_rows[0]); i++) {
		const struct parse_row *r = &parse_rows[i];
		struct hpm_location loc;
		char msg[256] = "";
		size_t pos = 0;
		int rc = hpm__loc_parse(r->spec, strlen(r->spec), &loc, &pos, msg, sizeof(msg));
		if (rc != r->err)
			fail_msg("line %d: '%s': %d (%s), expected %d", r->line, r->spec, rc, msg,
				 r->err);
		if (rc) {
			if (!msg[0] || pos > strlen(r->spec))
				fail_msg("line %d: '%s': no message or bad position %zu", r->line,
					 r->spec, pos);
			continue;
		}
		if (loc.kind != r->kind || loc.mech != r->mech || loc.ret != r->ret ||
		    strcmp(loc.object, r->object) || strcmp(loc.func, r->func) ||
		    strcmp(loc.file, r->file) || loc.line != r->lineno || loc.addr != r->addr)
			fail_msg("line %d: '%s' parsed as kind %d mech %d ret %d object '%s' func "
				 "'%s' file '%s' line %u addr %#llx", r->line, r->spec, loc.kind,
				 loc.mech, loc.ret, loc.object, loc.func, loc.file, loc.line,
				 (unsigned long long)loc.addr);
	}
}

/* The event syntax: exec: and sw: beside other events, never in groups. */
static void test_evlist(void **state)
{
	struct hpm_evlist *list;
	struct hpm_parse_error e;
	(void)state;

	assert_int_equal(hpm_evlist__parse(ctx, "task-clock,exec:hpm_work,sw:rx_packets,"
					   "exec:calls.c:12:bp", &list, &e), 0);
	assert_int_equal(hpm_evlist__count(list), 4);
	const struct hpm_event *ev = hpm_evlist__event(list, 1);
	assert_string_equal(hpm_event__name(ev), "exec:hpm_work");
	assert_string_equal(hpm_event__pmu(ev), "exec");
	assert_int_equal(hpm_event__kind(ev), HPM_EV_LOCATION);
	ev = hpm_evlist__event(list, 2);
	assert_string_equal(hpm_event__pmu(ev), "sw");
	assert_int_equal(hpm_event__kind(ev), HPM_EV_SWCOUNTER);
	assert_false(hpm_event__is_clock(ev));
	hpm_evlist__free(list);

	static const struct {
		const char *spec;
		int err;
		size_t pos;
	} bad[] = {
		{ "{cycles,exec:main}", -HPM_ERR_SYNTAX, 8 },
		{ "{sw:x}", -HPM_ERR_SYNTAX, 1 },
		{ "sw:", -HPM_ERR_SYNTAX, 3 },
		{ "sw:a-b", -HPM_ERR_SYNTAX, 4 },
		{ "sw:x:u", -HPM_ERR_SYNTAX, 4 },
		{ "task-clock,exec:0xq", -HPM_ERR_BAD_VALUE, 16 },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		list = NULL;
		int rc = hpm_evlist__parse(ctx, bad[i].spec, &list, &e);
		if (rc != bad[i].err || e.pos != bad[i].pos || !e.msg[0])
			fail_msg("'%s': %d at %zu (%s), expected %d at %zu", bad[i].spec, rc, e.pos,
				 e.msg, bad[i].err, bad[i].pos);
		assert_null(list);
	}
}

/* ---- resolution ---- */

/* The line of calls.c that holds @text. */
static unsigned source_line(const char *text)
{
	FILE *f = fopen(calls_src, "r");
	char buf[512];
	unsigned n = 0, found = 0;
	assert_non_null(f);
	while (!found && fgets(buf, sizeof(buf), f)) {
		n++;
		if (strstr(buf, text))
			found = n;
	}
	fclose(f);
	assert_true(found > 0);
	return found;
}

static int resolve(const char *spec, struct hpm_loc_result *r, char *msg, size_t len)
{
	struct hpm_location loc;
	struct hpm_loc_env env = { .program = calls };
	size_t pos;
	int rc = hpm__loc_parse(spec, strlen(spec), &loc, &pos, msg, len);
	assert_int_equal(rc, 0);
	return hpm__loc_resolve(&loc, &env, r, msg, len);
}

static void test_resolve(void **state)
{
	struct hpm_loc_result r;
	struct hpm_dso *d = hpm_dso__open(calls, NULL);
	uint64_t addr, size, off;
	char msg[320], spec[128];
	(void)state;

	assert_non_null(d);
	assert_int_equal(hpm_dso__find_function(d, "hpm_work", &addr, &size), 0);
	assert_int_equal(hpm_dso__addr_to_offset(d, addr, &off), 0);

	assert_int_equal(resolve("exec:hpm_work", &r, msg, sizeof(msg)), 0);
	assert_int_equal(r.addr, addr);
	assert_int_equal(r.offset, off);
	assert_true(r.in_program);
	assert_non_null(strstr(r.where, "hpm_work+0x0 in calls"));
	/* Debian builds position-independent executables by default */
	assert_true(r.dyn);

	/* the same place by address */
	snprintf(spec, sizeof(spec), "exec:0x%llx", (unsigned long long)addr);
	assert_int_equal(resolve(spec, &r, msg, sizeof(msg)), 0);
	assert_int_equal(r.offset, off);

	/* by line: the line inside hpm_work */
	unsigned line = source_line("hpm_sink += i;");
	snprintf(spec, sizeof(spec), "exec:calls.c:%u", line);
	assert_int_equal(resolve(spec, &r, msg, sizeof(msg)), 0);
	assert_true(r.addr >= addr && r.addr < addr + size);
	struct hpm_symbol sym;
	hpm_dso__lookup(d, r.addr, HPM_SYM_LINES, &sym);
	assert_int_equal(sym.line, line);

	/* errors say what is wrong */
	assert_int_equal(resolve("exec:no_such_function", &r, msg, sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, "no function 'no_such_function'"));
	assert_non_null(strstr(msg, "or its libraries"));
	unsigned empty = source_line(" * calls K: call hpm_work() exactly K times.");
	snprintf(spec, sizeof(spec), "exec:calls.c:%u", empty);
	assert_int_equal(resolve(spec, &r, msg, sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, "has no code"));
	assert_int_equal(resolve("exec:nosuch.c:10", &r, msg, sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, "no source file 'nosuch.c'"));
	assert_int_equal(resolve("exec:0x7fffffff0000", &r, msg, sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, "not in the code of"));
	assert_int_equal(resolve("exec:libnosuch:f", &r, msg, sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, "no library 'libnosuch'"));
	assert_non_null(strstr(msg, "libc.so.6"));

	/* libraries by short name, and functions found in them */
	assert_int_equal(resolve("exec:libc:getpid", &r, msg, sizeof(msg)), 0);
	assert_false(r.in_program);
	assert_non_null(strstr(r.path, "libc.so"));
	assert_int_equal(resolve("exec:strtol", &r, msg, sizeof(msg)), 0);
	assert_non_null(strstr(r.path, "libc.so"));
	assert_int_equal(resolve("exec:c:no_such_function", &r, msg, sizeof(msg)), -ENOENT);
	hpm_dso__free(d);
}

/* ---- counting ---- */

struct launched {
	pid_t pid;
	int go;
};

static struct launched launch(long k)
{
	struct launched l = { 0 };
	int p[2];
	assert_int_equal(pipe(p), 0);
	l.pid = fork();
	assert_true(l.pid >= 0);
	if (l.pid == 0) {
		char a[32], c;
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(9);
		snprintf(a, sizeof(a), "%ld", k);
		execl(calls, "calls", a, (char *)NULL);
		_exit(8);
	}
	close(p[0]);
	l.go = p[1];
	return l;
}

/* Count @spec while `calls K` runs; the session is returned for more
 * checks when @keep, else freed. */
static struct hpm_session *count(const char *spec, long k, struct hpm_count *c, size_t nc,
				 bool keep, struct hpm_evlist **listp)
{
	struct hpm_evlist *list;
	struct launched l = launch(k);
	struct hpm_session_opts o = { .sz = sizeof(o), .target = HPM_TARGET_EXEC,
				      .ids = &l.pid, .nr_ids = 1, .stop_at_exec = true };
	int status;

	assert_int_equal(hpm_evlist__parse(ctx, spec, &list, NULL), 0);
	struct hpm_session *s = hpm_session__new(list, &o);
	assert_non_null(s);
	assert_int_equal(hpm_session__open(s), 0);
	assert_int_equal(write(l.go, "g", 1), 1);
	close(l.go);
	assert_int_equal(hpm_session__complete_exec(s), 0);
	assert_int_equal(waitpid(l.pid, &status, 0), l.pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	for (size_t i = 0; i < nc; i++)
		assert_int_equal(hpm_session__read(s, i, &c[i]), 0);
	if (keep) {
		*listp = list;
		return s;
	}
	hpm_session__free(s);
	hpm_evlist__free(list);
	return NULL;
}

static void expect_count(const char *spec, long k, uint64_t want)
{
	struct hpm_count c;
	count(spec, k, &c, 1, false, NULL);
	if (c.err || c.value != want)
		fail_msg("%s with calls %ld: %llu (err %d), expected %llu", spec, k,
			 (unsigned long long)c.value, c.err, (unsigned long long)want);
}

/* The library's measure agrees with the test's own (host.h). */
static void test_bp_probe(void **state)
{
	(void)state;
	struct hpm_bp_fact f = hpm_sysinfo__breakpoints(ctx, HPM_BP_EXEC);
	assert_int_equal(f.fires, host_bp_fires() ? HPM_YES : HPM_NO);
	assert_int_equal(f.used, 3);
	assert_true(f.fires == HPM_YES ? f.counted == 3 : f.counted < 3);
	/* measured once: the same answer again */
	struct hpm_bp_fact g = hpm_sysinfo__breakpoints(ctx, HPM_BP_EXEC);
	assert_memory_equal(&f, &g, sizeof(f));
}

/* Where breakpoints do not fire: ':bp' is refused with the reason, and
 * hpmon's own choice is a uprobe. */
static void bp_silent_cases(void)
{
	struct hpm_evlist *list;
	struct hpm_parse_error e;
	assert_int_equal(hpm_evlist__parse(ctx, "exec:hpm_work:bp", &list, NULL), 0);
	assert_int_equal(hpm_evlist__check_locations(list, calls, NULL, &e), -EOPNOTSUPP);
	assert_non_null(strstr(e.msg, "hardware breakpoints do not fire on this host"));
	assert_non_null(strstr(e.msg, "':uprobe'"));
	hpm_evlist__free(list);
	if (!hpm__loc_uprobes_allowed(ctx)) {
		assert_int_equal(hpm_evlist__parse(ctx, "exec:hpm_work", &list, NULL), 0);
		assert_int_equal(hpm_evlist__check_locations(list, calls, NULL, &e), -EACCES);
		assert_non_null(strstr(e.msg, "do not fire"));
		hpm_evlist__free(list);
		return;
	}
	struct hpm_count c;
	struct hpm_session *s = count("exec:hpm_work", 3, &c, 1, true, &list);
	assert_int_equal(c.value, 3);
	assert_non_null(strstr(hpm_session__event_how(s, 0), "uprobe at "));
	hpm_session__free(s);
	hpm_evlist__free(list);
}

static void test_count_bp(void **state)
{
	(void)state;
	if (!host_bp_fires()) {
		bp_silent_cases();
		return;
	}
	for (long k = 0; k <= 1000; k += 333)
		expect_count("exec:hpm_work:bp", k, (uint64_t)k);
	char spec[64];
	snprintf(spec, sizeof(spec), "exec:calls.c:%u", source_line("hpm_sink += i;"));
	expect_count(spec, 777, 777);
	/* how it was counted */
	struct hpm_count c;
	struct hpm_evlist *list;
	struct hpm_session *s = count("exec:hpm_work", 3, &c, 1, true, &list);
	assert_int_equal(c.value, 3);
	assert_non_null(hpm_session__event_how(s, 0));
	assert_non_null(strstr(hpm_session__event_how(s, 0), "breakpoint at 0x"));
	assert_null(hpm_session__event_message(s, 0));
	hpm_session__free(s);
	hpm_evlist__free(list);
}

static void test_count_uprobe(void **state)
{
	(void)state;
	if (!hpm__loc_uprobes_allowed(ctx))
		skip(); /* needs CAP_PERFMON: the e2e tests check the message */
	expect_count("exec:hpm_work:uprobe", 0, 0);
	expect_count("exec:hpm_work:uprobe", 1234, 1234);
	expect_count("exec:hpm_work%return", 555, 555);
	/* both mechanisms at once, in one run (where breakpoints fire) */
	struct hpm_count c[3];
	count(host_bp_fires() ? "exec:hpm_work:bp,exec:hpm_work:uprobe,exec:hpm_work%return"
			     : "exec:hpm_work,exec:hpm_work:uprobe,exec:hpm_work%return",
	      4321, c, 3, false, NULL);
	for (int i = 0; i < 3; i++)
		assert_int_equal(c[i].value, 4321);
}

static void test_slots(void **state)
{
	unsigned slots = hpm__bp_slots();
	char spec[512] = "";
	size_t off = 0;
	(void)state;

	if (!slots)
		hpm_skip_test("no hardware breakpoint opens here");
	if (!host_bp_fires())
		hpm_skip_test("hardware breakpoints do not fire here: test_count_bp checks "
			      "their refusal, and no slot is used");
	/* one breakpoint more than a thread has */
	for (unsigned i = 0; i <= slots; i++)
		off += (size_t)snprintf(spec + off, sizeof(spec) - off, "%sexec:hpm_work:bp",
					i ? "," : "");
	struct hpm_evlist *list;
	struct hpm_parse_error e;
	assert_int_equal(hpm_evlist__parse(ctx, spec, &list, NULL), 0);
	assert_int_equal(hpm_evlist__check_locations(list, calls, NULL, &e), -ENOSPC);
	assert_non_null(strstr(e.msg, "no hardware breakpoint left"));
	assert_non_null(strstr(e.msg, ":uprobe"));
	hpm_evlist__free(list);

	struct hpm_count c[33];
	struct hpm_session *s = count(spec, 10, c, slots + 1, true, &list);
	for (unsigned i = 0; i < slots; i++)
		assert_int_equal(c[i].value, 10);
	assert_int_equal(c[slots].err, -ENOSPC);
	assert_non_null(strstr(hpm_session__event_message(s, slots), "no hardware breakpoint"));
	hpm_session__free(s);
	hpm_evlist__free(list);
}

/* Errors found before the program runs. */
static void test_check(void **state)
{
	struct hpm_evlist *list;
	struct hpm_parse_error e;
	(void)state;

	assert_int_equal(hpm_evlist__parse(ctx, "task-clock,exec:hpm_work,exec:strtol", &list,
					   NULL), 0);
	assert_int_equal(hpm_evlist__check_locations(list, calls, NULL, &e), 0);
	hpm_evlist__free(list);
	assert_int_equal(hpm_evlist__parse(ctx, "exec:hpm_work:bp,exec:nope", &list, NULL), 0);
	assert_int_equal(hpm_evlist__check_locations(list, calls, NULL, &e), -ENOENT);
	assert_string_equal(e.token, "exec:nope");
	assert_non_null(strstr(e.msg, "exec:nope: no function 'nope'"));
	hpm_evlist__free(list);
	assert_int_equal(hpm_evlist__parse(ctx, "exec:hpm_work%return:bp", &list, NULL), 0);
	assert_int_equal(hpm_evlist__check_locations(list, calls, NULL, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "cannot count a function's returns"));
	hpm_evlist__free(list);
}

/* Without privilege: breakpoints still count one's own process, uprobes
 * are refused with advice. Run in a child that drops root. */
static void test_unprivileged(void **state)
{
	(void)state;
	if (getuid() != 0)
		skip();
	pid_t p = fork();
	assert_true(p >= 0);
	if (p == 0) {
		struct hpm_evlist *list;
		struct hpm_parse_error e;
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(10);
		if (hpm__loc_uprobes_allowed(ctx))
			_exit(11);
		if (hpm_evlist__parse(ctx, "exec:hpm_work:uprobe", &list, NULL))
			_exit(12);
		if (hpm_evlist__check_locations(list, calls, NULL, &e) != -EACCES ||
		    !strstr(e.msg, "uprobes need root"))
			_exit(13);
		hpm_evlist__free(list);
		if (hpm_evlist__parse(ctx, "exec:hpm_work%return", &list, NULL))
			_exit(14);
		if (hpm_evlist__check_locations(list, calls, NULL, &e) != -EACCES ||
		    !strstr(e.msg, "returns needs a uprobe"))
			_exit(15);
		hpm_evlist__free(list);
		/* a breakpoint, where they fire; else neither mechanism */
		if (hpm_evlist__parse(ctx, "exec:hpm_work", &list, NULL) ||
		    hpm_evlist__check_locations(list, calls, NULL, &e) !=
			    (host_bp_fires() ? 0 : -EACCES))
			_exit(16);
		hpm_evlist__free(list);
		_exit(0);
	}
	int st;
	assert_int_equal(waitpid(p, &st, 0), p);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* A tool that does not stop the command at its exec gets an error, not
 * a command stopped for ever. */
static void test_no_stop(void **state)
{
	struct hpm_evlist *list;
	struct launched l = launch(5);
	struct hpm_session_opts o = { .sz = sizeof(o), .target = HPM_TARGET_EXEC,
				      .ids = &l.pid, .nr_ids = 1 };
	struct hpm_count c;
	int status;
	(void)state;

	assert_int_equal(hpm_evlist__parse(ctx, "exec:hpm_work,task-clock", &list, NULL), 0);
	struct hpm_session *s = hpm_session__new(list, &o);
	assert_int_equal(hpm_session__open(s), 0);
	assert_int_equal(hpm_session__event_error(s, 0), -EOPNOTSUPP);
	assert_non_null(strstr(hpm_session__event_message(s, 0), "stop_at_exec"));
	assert_int_equal(hpm_session__complete_exec(s), 0);
	assert_int_equal(write(l.go, "g", 1), 1);
	close(l.go);
	assert_int_equal(waitpid(l.pid, &status, 0), l.pid);
	assert_int_equal(hpm_session__read(s, 1, &c), 0);
	assert_true(c.value > 0);
	hpm_session__free(s);
	hpm_evlist__free(list);
}

int main(void)
{
	ctx = hpm_ctx__new(NULL);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_evlist),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_bp_probe),
		cmocka_unit_test(test_count_bp),
		cmocka_unit_test(test_count_uprobe),
		cmocka_unit_test(test_slots),
		cmocka_unit_test(test_unprivileged),
		cmocka_unit_test(test_no_stop),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	hpm_ctx__free(ctx);
	return rc;
}
