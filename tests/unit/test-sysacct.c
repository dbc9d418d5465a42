// SPDX-License-Identifier: MIT
/*
 * System-wide accounting per task (hpmon/sysacct.h) on software events:
 * the sum over tasks equals the total exactly, a forked child that lived
 * a few milliseconds has its own entry after it exited, and the counts
 * it is given are its own (a child that touches N more pages faults
 * exactly N more times). Needs system-wide counting (root, CAP_PERFMON
 * or perf_event_paranoid <= 0): skipped without.
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
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <hpmon/hpmon.h>
#include <hpmon/sysacct.h>

enum { EV_CLOCK, EV_FAULTS, EV_CS, NR_EV };

struct child_counts {
	uint64_t v[NR_EV];
	bool found, exited;
	size_t entries;
	uint64_t kernel_cs;  /* its switches as the kernel counted them (rusage) */
};

/* Run `switcher SLEEPS PAGES` under accounting; its counts, and check the
 * sums against the totals. */
static struct child_counts run_child(long sleeps, long pages, bool *skipped)
{
	struct child_counts out = { 0 };
	struct hpm_ctx *ctx = hpm_ctx__new(NULL);
	struct hpm_evlist *list = NULL;
	struct hpm_parse_error perr;
	assert_non_null(ctx);
	assert_int_equal(hpm_evlist__parse(ctx, "task-clock,page-faults,context-switches",
					   &list, &perr), 0);
	struct hpm_sysacct *a = hpm_sysacct__new(list, NULL);
	assert_non_null(a);
	int rc = hpm_sysacct__open(a);
	if (rc == -EACCES || rc == -EPERM) {
		*skipped = true;
		goto out;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(hpm_sysacct__enable(a), 0);

	char s[32], p[32];
	snprintf(s, sizeof(s), "%ld", sleeps);
	snprintf(p, sizeof(p), "%ld", pages);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		personality(ADDR_NO_RANDOMIZE);
		execl(HPM_TEST_WORKLOADS "/switcher", "switcher", s, p, (char *)NULL);
		_exit(8);
	}
	int status;
	struct rusage ru;
	assert_int_equal(wait4(pid, &status, 0, &ru), pid);
	out.kernel_cs = (uint64_t)(ru.ru_nvcsw + ru.ru_nivcsw);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* the child's last switch-out comes after its exit: let it land */
	usleep(20000);
	assert_true(hpm_sysacct__drain(a) >= 0);
	assert_int_equal(hpm_sysacct__stop(a), 0);

	for (size_t ev = 0; ev < NR_EV; ev++) {
		uint64_t total, sum = 0;
		assert_int_equal(hpm_sysacct__total(a, ev, &total, NULL, NULL), 0);
		for (size_t t = 0; t < hpm_sysacct__nr_tasks(a); t++)
			sum += hpm_sysacct__count(a, t, ev);
		assert_int_equal(sum, total);
		assert_true(total > 0);
	}
	for (size_t t = 0; t < hpm_sysacct__nr_tasks(a); t++) {
		const struct hpm_systask *tk = hpm_sysacct__task(a, t);
		if (tk->pid != pid)
			continue;
		out.entries++;
		if (!tk->start_ns)
			continue;
		out.found = true;
		out.exited = tk->exit_ns != 0;
		assert_string_equal(tk->comm, "switcher");
		for (size_t ev = 0; ev < NR_EV; ev++)
			out.v[ev] = hpm_sysacct__count(a, t, ev);
	}
	assert_int_equal(hpm_sysacct__lost(a), 0);
out:
	hpm_sysacct__free(a);
	hpm_evlist__free(list);
	hpm_ctx__free(ctx);
	return out;
}

static void test_child_exact(void **state)
{
	(void)state;
	bool skipped = false;
	struct child_counts base = run_child(0, 0, &skipped);
	if (skipped) {
		skip();
		return;
	}
	assert_true(base.found && base.exited);
	assert_int_equal(base.entries, 1);
	assert_true(base.v[EV_CLOCK] > 0);
	/* 100 more pages: exactly 100 more faults (the same program, the same
	 * layout: retried, as the e2e tests do, for a page of the stack or
	 * libc that differs once). 50 sleeps: as many more switches as the
	 * kernel itself counted more for the child (rusage: a busy machine
	 * preempts it), and up to 3 more (its exit's, after the count) */
	int tries = 0;
	for (;;) {
		struct child_counts more = run_child(50, 100, &skipped);
		assert_true(more.found && more.exited);
		int64_t dk = (int64_t)more.kernel_cs - (int64_t)base.kernel_cs;
		int64_t dc = (int64_t)more.v[EV_CS] - (int64_t)base.v[EV_CS];
		/* known gap (docs/hpmon-top.md): on a loaded machine a task is
		 * at times charged more switches than the kernel counted for it
		 * (up to twice as many seen); never fewer */
		if (more.v[EV_FAULTS] == base.v[EV_FAULTS] + 100 && dk >= 50 && dc >= dk - 3 &&
		    dc <= 2 * dk + 3)
			break;
		if (++tries == 3)
			fail_msg("faults %lu -> %lu (want +100), switches %lu -> %lu (want the "
				 "kernel's +%ld, at most twice)",
				 (unsigned long)base.v[EV_FAULTS], (unsigned long)more.v[EV_FAULTS],
				 (unsigned long)base.v[EV_CS], (unsigned long)more.v[EV_CS], (long)dk);
		base = run_child(0, 0, &skipped);
	}
}

static void test_bad_events(void **state)
{
	(void)state;
	struct hpm_ctx *ctx = hpm_ctx__new(NULL);
	assert_non_null(ctx);
	assert_null(hpm_sysacct__new(NULL, NULL));
	assert_int_equal(errno, EINVAL);
	struct hpm_sysacct_opts o = { .sz = sizeof(o), .ring_pages = 3 };
	struct hpm_evlist *list = NULL;
	struct hpm_parse_error perr;
	assert_int_equal(hpm_evlist__parse(ctx, "task-clock", &list, &perr), 0);
	assert_null(hpm_sysacct__new(list, &o));
	assert_int_equal(errno, EINVAL);
	hpm_evlist__free(list);
	hpm_ctx__free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_child_exact),
		cmocka_unit_test(test_bad_events),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
