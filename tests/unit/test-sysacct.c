// SPDX-License-Identifier: MIT
/*
 * System-wide accounting per task (hpmon/sysacct.h) on software events:
 * the sum over tasks equals the total exactly, a forked child that lived
 * a few milliseconds has its own entry after it exited, and the counts
 * it is given are its own (a child that touches N more pages faults
 * exactly N more times), its switches the kernel's own count of them.
 * Needs system-wide counting (root, CAP_PERFMON or perf_event_paranoid
 * <= 0): skipped without. And, on a record stream made here (no
 * privilege needed), the split of a read whose interval holds switches
 * the kernel counted without writing their sample, and the last switch
 * of a task already reaped.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

extern char **environ;

#include <hpmon/hpmon.h>
#include <hpmon/sysacct.h>
#include "count/sysacct-internal.h"
#include "sys/perf.h"

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
	/* spawned (the child shares this process's memory until its exec),
	 * not forked: a forked child of this process, in the sanitizers'
	 * build above all, faults a varying number of copy-on-write pages
	 * before its exec, and the faults compared are the program's own */
	char *args[] = { "switcher", s, p, NULL };
	int persona = personality(0xffffffff);
	pid_t pid;
	assert_int_equal(personality((unsigned long)persona | ADDR_NO_RANDOMIZE), persona);
	int src = posix_spawn(&pid, HPM_TEST_WORKLOADS "/switcher", NULL, NULL, args, environ);
	personality((unsigned long)persona);
	assert_int_equal(src, 0);
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
	 * libc that differs once). 50 sleeps: the switches the kernel counted
	 * for the child (wait4's rusage, its preemptions included), each run
	 * exactly, but for the exit's own switch: the kernel adds it as the
	 * child leaves the CPU, which may come after the parent's wait4 has
	 * read the count (then the row has one more) */
	int tries = 0;
	for (;;) {
		struct child_counts more = run_child(50, 100, &skipped);
		assert_true(more.found && more.exited);
		int64_t d0 = (int64_t)base.v[EV_CS] - (int64_t)base.kernel_cs;
		int64_t d1 = (int64_t)more.v[EV_CS] - (int64_t)more.kernel_cs;
		if (more.v[EV_FAULTS] == base.v[EV_FAULTS] + 100 && more.kernel_cs >= 50 &&
		    d0 >= 0 && d0 <= 1 && d1 >= 0 && d1 <= 1)
			break;
		if (++tries == 3)
			fail_msg("faults %lu -> %lu (want +100), switches %lu and %lu where the "
				 "kernel counted %lu and %lu (want the same, or one more)",
				 (unsigned long)base.v[EV_FAULTS], (unsigned long)more.v[EV_FAULTS],
				 (unsigned long)base.v[EV_CS], (unsigned long)more.v[EV_CS],
				 (unsigned long)base.kernel_cs, (unsigned long)more.kernel_cs);
		base = run_child(0, 0, &skipped);
	}
}

/* ---- a record stream made here, fed to the attribution ---- */

#define T_A 99000001 /* tids no task has: their names stay empty */
#define T_B 99000003
#define T_C 99000004
#define T_D 99000005

struct stream {
	struct hpm_sysacct *a;
	uint64_t time;
};

/* A switch-out sample of @tid on CPU slot @slot with the group's values
 * cs, faults: no time stamp, as the kernel writes it. */
static void put_sample_on(struct stream *st, int slot, uint32_t pid, uint32_t tid, uint64_t cs,
			  uint64_t faults)
{
	uint64_t r[2 + 1 + 2];
	struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, sizeof(r) };
	memcpy(r, &h, 8);
	r[1] = (uint64_t)tid << 32 | pid;
	r[2] = 2;
	r[3] = cs;
	r[4] = faults;
	assert_int_equal(sa_rec_time(r, sizeof(r)), 0);
	assert_int_equal(sa_queue(st->a, slot, r, sizeof(r), 0), 0);
}

static void put_sample(struct stream *st, uint32_t tid, uint64_t cs, uint64_t faults)
{
	put_sample_on(st, 0, tid, tid, cs, faults);
}

/* The fork record of @tid (a process of its own) by @ptid at @time, on
 * slot @slot: pid, ppid, tid, ptid, time, then pid/tid and time. */
static void put_fork(struct stream *st, int slot, uint32_t tid, uint32_t ptid, uint64_t time)
{
	uint64_t r[6];
	struct perf_event_header h = { PERF_RECORD_FORK, 0, sizeof(r) };
	memcpy(r, &h, 8);
	r[1] = (uint64_t)ptid << 32 | tid;
	r[2] = (uint64_t)ptid << 32 | tid;
	r[3] = time;
	r[4] = (uint64_t)ptid << 32 | ptid;
	r[5] = time;
	assert_int_equal(sa_rec_time(r, sizeof(r)), time);
	assert_int_equal(sa_queue(st->a, slot, r, sizeof(r), time), 0);
}

/* The exit record of @tid, written in its context: pid, ppid, tid,
 * ptid, time, then sample_id_all's pid/tid and time. */
static void put_exit(struct stream *st, uint32_t tid)
{
	uint64_t r[6];
	struct perf_event_header h = { PERF_RECORD_EXIT, 0, sizeof(r) };
	memcpy(r, &h, 8);
	r[1] = (uint64_t)tid << 32 | tid;
	r[2] = (uint64_t)tid << 32 | tid;
	r[3] = ++st->time;
	r[4] = (uint64_t)tid << 32 | tid;
	r[5] = st->time;
	assert_int_equal(sa_rec_time(r, sizeof(r)), st->time);
	assert_int_equal(sa_queue(st->a, 0, r, sizeof(r), st->time), 0);
}

static uint64_t count_of(const struct hpm_sysacct *a, pid_t tid, size_t ev)
{
	for (size_t t = 0; t < hpm_sysacct__nr_tasks(a); t++)
		if (hpm_sysacct__task(a, t)->tid == tid &&
		    (tid != 0 || hpm_sysacct__task(a, t)->cpu == 0))
			return hpm_sysacct__count(a, t, ev);
	fail_msg("no row for tid %d", (int)tid);
	return 0;
}

/*
 * Tasks take turns on CPU 0. The kernel writes nothing in the context of
 * some tasks (their samples are missing: as it does for some tasks on
 * Linux 6.18) but counts their switches: one before B's sample, two
 * before C's. D exits, and its last switch comes after its parent
 * reaped it: the kernel names it -1. So does another's, whose exit
 * record this CPU did not write.
 */
static void test_unsampled_switches(void **state)
{
	(void)state;
	struct hpm_ctx *ctx = hpm_ctx__new(NULL);
	struct hpm_evlist *list = NULL;
	struct hpm_parse_error perr;
	int cpu0 = 0;
	assert_non_null(ctx);
	assert_int_equal(hpm_evlist__parse(ctx, "context-switches,page-faults", &list, &perr), 0);
	struct hpm_sysacct_opts o = { .sz = sizeof(o), .cpus = &cpu0, .nr_cpus = 1 };
	struct stream st = { .a = hpm_sysacct__new(list, &o) };
	assert_non_null(st.a);

	put_sample(&st, T_A, 1, 10);  /* A: its switch, 10 faults */
	put_sample(&st, T_B, 3, 25);  /* a silent switch, then B's */
	put_sample(&st, T_C, 6, 30);  /* two silent, then C's */
	put_sample(&st, T_D, 7, 30);
	put_exit(&st, T_D);
	put_sample(&st, T_D, 8, 30);  /* preempted on its way out */
	put_sample(&st, UINT32_MAX, 9, 31); /* D's last, reaped already */
	put_sample(&st, 0, 10, 31);   /* idle's own */
	put_sample(&st, UINT32_MAX, 11, 31); /* reaped, no exit record here */
	put_sample(&st, T_B, 12, 40); /* nothing missing: all B's */
	assert_true(sa_process(st.a, UINT64_MAX) > 0);

	struct hpm_sysacct *a = st.a;
	enum { CS, PF };
	assert_int_equal(count_of(a, T_A, CS), 1);
	assert_int_equal(count_of(a, T_B, CS), 2);
	assert_int_equal(count_of(a, T_C, CS), 1);
	assert_int_equal(count_of(a, T_D, CS), 3);
	assert_int_equal(count_of(a, 0, CS), 1);
	assert_int_equal(count_of(a, HPM_SYSTASK_LOST, CS), 3 + 1);
	/* a merged turn's faults go to the sample's task (the silent
	 * tasks seen count next to nothing): only switches are LOST's */
	assert_int_equal(count_of(a, T_A, PF), 10);
	assert_int_equal(count_of(a, T_B, PF), 15 + 9);
	assert_int_equal(count_of(a, T_C, PF), 5);
	assert_int_equal(count_of(a, T_D, PF), 1);
	assert_int_equal(count_of(a, HPM_SYSTASK_LOST, PF), 0);
	assert_int_equal(hpm_sysacct__unsampled(a), 1 + 2);
	/* no row but the known ones: -1 is no task's name */
	for (size_t t = 0; t < hpm_sysacct__nr_tasks(a); t++)
		assert_true(hpm_sysacct__task(a, t)->pid != -1 ||
			    !strcmp(hpm_sysacct__task(a, t)->comm, "[lost]"));
	assert_int_equal(hpm_sysacct__lost(a), 0);
	/* the sum over tasks is the CPU's count, as ever */
	for (size_t ev = 0; ev < 2; ev++) {
		uint64_t sum = 0, total;
		for (size_t t = 0; t < hpm_sysacct__nr_tasks(a); t++)
			sum += hpm_sysacct__count(a, t, ev);
		assert_int_equal(hpm_sysacct__total(a, ev, &total, NULL, NULL), 0);
		assert_int_equal(sum, total);
		assert_int_equal(total, ev == CS ? 12 : 40);
	}
	hpm_sysacct__free(a);
	hpm_evlist__free(list);
	hpm_ctx__free(ctx);
}

/*
 * Samples have no time stamp: a child's first switch-out on one CPU may
 * be attributed before its fork record, written by its parent on
 * another, is read. The entry the sample made is the child's, and its
 * fork record names it: one row, with its start. A tid reused later
 * (its first sample read after its fork) is another row.
 */
static void test_fork_after_sample(void **state)
{
	(void)state;
	struct hpm_ctx *ctx = hpm_ctx__new(NULL);
	struct hpm_evlist *list = NULL;
	struct hpm_parse_error perr;
	int cpus[] = { 0, 1 };
	assert_non_null(ctx);
	assert_int_equal(hpm_evlist__parse(ctx, "context-switches,page-faults", &list, &perr), 0);
	struct hpm_sysacct_opts o = { .sz = sizeof(o), .cpus = cpus, .nr_cpus = 2 };
	struct stream st = { .a = hpm_sysacct__new(list, &o) };
	struct hpm_sysacct *a = st.a;
	assert_non_null(a);

	put_sample_on(&st, 0, T_A, T_A, 1, 4);   /* the child, on CPU 0 */
	put_sample_on(&st, 1, T_B, T_B, 1, 2);   /* its parent, on CPU 1 */
	put_fork(&st, 1, T_A, T_B, 5);           /* read after the child's */
	assert_true(sa_process(a, 3) > 0);       /* the child's sample only */
	assert_true(sa_process(a, UINT64_MAX) > 0);
	put_sample_on(&st, 0, T_A, T_A, 2, 7);   /* the child again: 3 faults */
	assert_true(sa_process(a, UINT64_MAX) > 0);

	size_t rows = 0;
	for (size_t t = 0; t < hpm_sysacct__nr_tasks(a); t++) {
		const struct hpm_systask *tk = hpm_sysacct__task(a, t);
		if (tk->tid != T_A)
			continue;
		rows++;
		assert_int_equal(tk->start_ns, 5);
		assert_int_equal(hpm_sysacct__count(a, t, 0), 2);
		assert_int_equal(hpm_sysacct__count(a, t, 1), 7);
	}
	assert_int_equal(rows, 1);

	/* the child exits on CPU 0; its tid is reused by a fork at 9, and
	 * the new task's first sample is read after it */
	st.time = 7;
	put_exit(&st, T_A);
	put_fork(&st, 1, T_A, T_B, 9);
	assert_true(sa_process(a, UINT64_MAX) > 0);
	put_sample_on(&st, 0, T_A, T_A, 3, 8);
	assert_true(sa_process(a, UINT64_MAX) > 0);
	rows = 0;
	for (size_t t = 0; t < hpm_sysacct__nr_tasks(a); t++) {
		const struct hpm_systask *tk = hpm_sysacct__task(a, t);
		if (tk->tid != T_A)
			continue;
		rows++;
		uint64_t want = tk->start_ns == 5 ? 2 : 1;
		assert_true(tk->start_ns == 5 || tk->start_ns == 9);
		assert_int_equal(hpm_sysacct__count(a, t, 0), want);
	}
	assert_int_equal(rows, 2);
	hpm_sysacct__free(a);
	hpm_evlist__free(list);
	hpm_ctx__free(ctx);
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
		cmocka_unit_test(test_unsampled_switches),
		cmocka_unit_test(test_fork_after_sample),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
