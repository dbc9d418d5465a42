// SPDX-License-Identifier: MIT
/*
 * Event sets (<hpmon/counters.h>): a program counting itself with the
 * standalone API. Software events need no PMU, so page faults give exact
 * counts here; the rdpmc path needs a PMU and is checked in the arm64
 * guest lane (tests/guest/api-rdpmc.sh).
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <hpmon/counters.h>

#include "host.h"
#include "skip.h"

#if defined(__SANITIZE_ADDRESS__)
#define ASAN 1
#else
#define ASAN 0
#endif

static struct hpm_ctx *ctx;

static void touch(long n)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, (size_t)n * (size_t)page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(p != MAP_FAILED);
	madvise(p, (size_t)n * (size_t)page, MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		((volatile char *)p)[i * page] = 1;
	munmap(p, (size_t)n * (size_t)page);
}

static void expect_faults(uint64_t got, uint64_t want)
{
	if (got < want || got > want + (ASAN ? want / 4 + 64 : 0))
		fail_msg("%llu page faults, expected %llu", (unsigned long long)got,
			 (unsigned long long)want);
}

static void test_count_self(void **state)
{
	struct hpm_parse_error e;
	struct hpm_count c[3], d[3];
	(void)state;

	struct hpm_eventset *es = hpm_eventset__new(ctx, "page-faults,task-clock,minor-faults",
						    NULL, &e);
	assert_non_null(es);
	assert_int_equal(hpm_eventset__count(es), 3);
	assert_string_equal(hpm_eventset__name(es, 1), "task-clock");
	assert_null(hpm_eventset__name(es, 3));
	/* software events are never on a PMU counter: read(2) */
	assert_false(hpm_eventset__rdpmc(es, 0));
	assert_int_equal(hpm_eventset__read(es, c), -HPM_ERR_NOT_OPEN);
	touch(1);
	assert_int_equal(hpm_eventset__start(es), 0);
	touch(300);
	assert_int_equal(hpm_eventset__read(es, c), 0);
	expect_faults(c[0].value, 300);
	assert_int_equal(c[0].value, c[2].value);
	assert_true(c[1].value > 0 && c[1].enabled > 0 && c[1].running == c[1].enabled);
	touch(200);
	assert_int_equal(hpm_eventset__stop(es), 0);
	assert_int_equal(hpm_eventset__read(es, c), 0);
	expect_faults(c[0].value, 500);
	/* stopped: nothing more counts */
	touch(100);
	assert_int_equal(hpm_eventset__read(es, d), 0);
	assert_int_equal(d[0].value, c[0].value);
	/* started again: from zero */
	assert_int_equal(hpm_eventset__start(es), 0);
	touch(50);
	assert_int_equal(hpm_eventset__read(es, c), 0);
	expect_faults(c[0].value, 50);
	hpm_eventset__free(es);
	hpm_eventset__free(NULL);
}

static void test_options(void **state)
{
	struct hpm_eventset_opts o = { .sz = sizeof(o), .no_group = true, .no_rdpmc = true };
	struct hpm_count c[2];
	(void)state;

	struct hpm_eventset *es = hpm_eventset__new(ctx, "page-faults,context-switches", &o, NULL);
	assert_non_null(es);
	touch(1);
	assert_int_equal(hpm_eventset__start(es), 0);
	touch(64);
	assert_int_equal(hpm_eventset__read(es, c), 0);
	expect_faults(c[0].value, 64);
	hpm_eventset__free(es);

	/* too small an options struct */
	struct hpm_eventset_opts tiny = { .sz = 4 };
	errno = 0;
	assert_null(hpm_eventset__new(ctx, "page-faults", &tiny, NULL));
	assert_int_equal(errno, EINVAL);
}

/* From raw attributes, no parser: the markers runtime's way. */
static void test_attrs(void **state)
{
	struct perf_event_attr a[1] = { { .size = sizeof(a[0]), .type = PERF_TYPE_SOFTWARE,
					  .config = PERF_COUNT_SW_PAGE_FAULTS } };
	struct hpm_count c;
	(void)state;

	struct hpm_eventset *es = hpm_eventset__new_attrs(a, NULL, 1, NULL);
	assert_non_null(es);
	assert_string_equal(hpm_eventset__name(es, 0), "event0");
	touch(1);
	hpm_eventset__start(es);
	touch(10);
	assert_int_equal(hpm_eventset__read(es, &c), 0);
	expect_faults(c.value, 10);
	hpm_eventset__free(es);
	errno = 0;
	assert_null(hpm_eventset__new_attrs(a, NULL, 0, NULL));
	assert_int_equal(errno, EINVAL);
}

/* Another process, with its children (inherit). */
static void test_other_process(void **state)
{
	int go[2];
	(void)state;

	assert_int_equal(pipe(go), 0);
	pid_t p = fork();
	if (p == 0) {
		char ch;
		close(go[1]);
		if (read(go[0], &ch, 1) != 1)
			_exit(1);
		pid_t q = fork();
		if (q == 0) {
			touch(70);
			_exit(0);
		}
		waitpid(q, NULL, 0);
		touch(30);
		_exit(0);
	}
	close(go[0]);
	struct hpm_eventset_opts o = { .sz = sizeof(o), .pid = p, .inherit = true };
	struct hpm_eventset *es = hpm_eventset__new(ctx, "page-faults:u", &o, NULL);
	assert_non_null(es);
	assert_int_equal(hpm_eventset__start(es), 0);
	assert_int_equal(write(go[1], "g", 1), 1);
	waitpid(p, NULL, 0);
	struct hpm_count c;
	assert_int_equal(hpm_eventset__read(es, &c), 0);
	/* 100 pages and the two processes' own first-time faults */
	assert_true(c.value >= 100 && c.value < 200);
	hpm_eventset__free(es);
	close(go[1]);
}

static void test_errors(void **state)
{
	struct hpm_parse_error e;
	(void)state;

	errno = 0;
	assert_null(hpm_eventset__new(ctx, "page-fault", NULL, &e));
	assert_int_equal(errno, HPM_ERR_UNKNOWN_EVENT);
	assert_int_equal(e.err, -HPM_ERR_UNKNOWN_EVENT);
	assert_non_null(strstr(e.suggest, "page-faults"));
	/* a tracepoint of another process's ... no: a PID that does not exist */
	struct hpm_eventset_opts o = { .sz = sizeof(o), .pid = 0x3ffffff0 };
	errno = 0;
	assert_null(hpm_eventset__new(ctx, "task-clock,page-faults", &o, &e));
	assert_int_equal(errno, ESRCH);
	assert_int_equal(e.err, -ESRCH);
	assert_string_equal(e.token, "task-clock");
	assert_non_null(strstr(e.msg, "cannot open 'task-clock'"));
}

/* A hardware event where the machine has no hardware PMU: the error says
 * that cause and what to count instead, as hpmon stat says it, not the
 * kernel's "No such file or directory". Where the host counts it, the
 * set opens. */
static void test_no_pmu(void **state)
{
	struct hpm_parse_error e;
	int host = host_hw_errno();
	(void)state;

	errno = 0;
	struct hpm_eventset *es = hpm_eventset__new(ctx, "instructions:u", NULL, &e);
	if (host == 0) {
		assert_non_null(es);
		assert_string_equal(hpm_eventset__name(es, 0), "instructions:u");
		hpm_eventset__free(es);
		return;
	}
	if (host != ENOENT && host != EOPNOTSUPP && host != ENODEV)
		hpm_skip_test("instructions:u is refused here for another reason: %s",
			      strerror(host));
	assert_null(es);
	assert_int_equal(errno, host);
	assert_int_equal(e.err, -host);
	assert_string_equal(e.token, "instructions:u");
	assert_string_equal(e.msg, "cannot open 'instructions:u': this machine exposes no "
				   "hardware PMU (a virtual machine without PMU passthrough?): "
				   "count software events (task-clock, page-faults) instead");
}

/* Paranoia 2 refuses kernel counting to users: the set falls back to
 * user mode, as hpmon stat does, and says so; ':k' is not changed. */
static void test_unprivileged(void **state)
{
	(void)state;
	if (getuid() != 0)
		skip();
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int par = 0;
	if (f) {
		if (fscanf(f, "%d", &par) != 1)
			par = 0;
		fclose(f);
	}
	if (par < 2)
		skip();
	pid_t p = fork();
	if (p == 0) {
		struct hpm_parse_error e;
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(10);
		struct hpm_eventset *es = hpm_eventset__new(ctx, "page-faults", NULL, &e);
		if (!es || !hpm_eventset__user_only(es, 0))
			_exit(11);
		hpm_eventset__free(es);
		es = hpm_eventset__new(ctx, "page-faults:k", NULL, &e);
		if (es || e.err != -EACCES)
			_exit(12);
		_exit(0);
	}
	int st;
	assert_int_equal(waitpid(p, &st, 0), p);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void)
{
	ctx = hpm_ctx__new(NULL);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_count_self),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_attrs),
		cmocka_unit_test(test_other_process),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_no_pmu),
		cmocka_unit_test(test_unprivileged),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	hpm_ctx__free(ctx);
	return rc;
}
