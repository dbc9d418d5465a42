// SPDX-License-Identifier: MIT
/*
 * Counting sessions on software events (no PMU needed): a launched child
 * runs the workload tests/workloads/threads, whose threads touch known
 * numbers of fresh pages, so page faults are known exactly. (The workload
 * is built without sanitizers, so its counts are its own.)
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <hpmon/session.h>

struct launched {
	pid_t pid;
	int go;
};

/* Fork a child that waits, then execs `threads NTHREADS 0 N`: thread i
 * touches (i+1)*N pages, one thread after the other. */
static struct launched launch(int nthreads, long n)
{
	struct launched l = { 0 };
	int p[2];
	assert_int_equal(pipe(p), 0);
	l.pid = fork();
	assert_true(l.pid >= 0);
	if (l.pid == 0) {
		char a[32], b[32], c;
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(9);
		snprintf(a, sizeof(a), "%d", nthreads);
		snprintf(b, sizeof(b), "%ld", n);
		/* a fixed address layout makes the first-touch faults of code and
		 * stacks the same in every run (setarch -R) */
		personality(ADDR_NO_RANDOMIZE);
		execl(HPM_TEST_WORKLOADS "/threads", "threads", a, "0", b, (char *)NULL);
		_exit(8);
	}
	close(p[0]);
	l.go = p[1];
	return l;
}

static int run_to_end(struct hpm_session *s, struct launched *l)
{
	int status;
	assert_int_equal(write(l->go, "g", 1), 1);
	close(l->go);
	while (waitpid(l->pid, &status, WNOHANG) == 0) {
		hpm_session__drain(s);
		usleep(1000);
	}
	hpm_session__disable(s);
	hpm_session__drain(s);
	return status;
}

static struct hpm_ctx *ctx;

static uint64_t faults(long n, int nthreads, bool track, struct hpm_session **keep,
		       struct hpm_evlist **keep_list)
{
	struct hpm_evlist *list;
	struct launched l = launch(nthreads, n);
	struct hpm_session_opts o = { .sz = sizeof(o), .target = HPM_TARGET_EXEC,
				      .ids = &l.pid, .nr_ids = 1, .track_tasks = track };
	struct hpm_count c;

	assert_int_equal(hpm_evlist__parse(ctx, "page-faults:u,task-clock", &list, NULL), 0);
	struct hpm_session *s = hpm_session__new(list, &o);
	assert_non_null(s);
	assert_int_equal(hpm_session__open(s), 0);
	assert_int_equal(run_to_end(s, &l), 0);
	(void)nthreads;
	assert_int_equal(hpm_session__read(s, 0, &c), 0);
	assert_int_equal(c.err, 0);
	assert_true(c.running > 0);
	assert_true(hpm_count__pct_running(&c) == 100.0);
	if (keep) {
		*keep = s; /* the caller frees session and list */
		*keep_list = list;
		return c.value;
	}
	hpm_session__free(s);
	hpm_evlist__free(list);
	return c.value;
}

static void test_exec_exact(void **state)
{
	(void)state;
	/* one worker thread touching 100, then 600 pages: exactly 500 more.
	 * The program's own faults around them (its loading, its stacks) can
	 * differ by one between two runs on a loaded machine (a file page
	 * mapped by another fault's fault-around, or not), so a pair may be
	 * off by a little: up to three pairs, each within 2 of 500, and one
	 * of them exact. hpmon miscounting the worker's faults fails every
	 * pair. */
	bool exact = false;
	for (int pair = 0; pair < 3 && !exact; pair++) {
		uint64_t a = faults(100, 1, false, NULL, NULL);
		uint64_t b = faults(600, 1, false, NULL, NULL);
		print_message("# pair %d: %llu - %llu = %lld\n", pair, (unsigned long long)b,
			      (unsigned long long)a, (long long)(b - a));
		assert_true(b >= a + 498 && b <= a + 502);
		exact = b - a == 500;
	}
	assert_true(exact);
}

static void test_tracking(void **state)
{
	struct hpm_session *s = NULL;
	struct hpm_evlist *list = NULL;
	struct hpm_count c, t;
	uint64_t total;
	size_t threads = 0;
	(void)state;

	total = faults(200, 3, true, &s, &list);
	assert_int_equal(hpm_session__lost(s), 0);
	/* the worker and its 3 threads */
	assert_int_equal(hpm_session__nr_tasks(s), 4);
	memset(&c, 0, sizeof(c));
	for (size_t i = 0; i < hpm_session__nr_tasks(s); i++) {
		const struct hpm_task *task = hpm_session__task(s, i);
		assert_int_equal(hpm_session__read_task(s, 0, i, &t), 0);
		assert_int_equal(t.err, 0);
		c.value += t.value;
		if (task->thread) {
			threads++;
			/* thread i touched (i+1)*200 pages, plus its stack */
			assert_true(t.value >= threads * 200);
			assert_true(t.value < threads * 200 + 20);
		}
	}
	assert_int_equal(threads, 3);
	/* the breakdown adds up to the total exactly */
	assert_int_equal(c.value, total);
	hpm_session__free(s);
	hpm_evlist__free(list);
}

static void test_errors(void **state)
{
	struct hpm_evlist *list;
	pid_t nobody = 0x3ffffff0;
	struct hpm_session_opts o = { .sz = sizeof(o), .target = HPM_TARGET_PIDS,
				      .ids = &nobody, .nr_ids = 1 };
	struct hpm_count c;
	(void)state;

	assert_int_equal(hpm_evlist__parse(ctx, "task-clock", &list, NULL), 0);
	errno = 0;
	assert_null(hpm_session__new(list, &o));
	assert_int_equal(errno, ESRCH);
	o.target = HPM_TARGET_EXEC;
	o.nr_ids = 2;
	assert_null(hpm_session__new(list, &o));
	assert_int_equal(errno, EINVAL);
	assert_null(hpm_session__new(NULL, &o));

	/* reading before opening */
	pid_t self = getpid();
	o.target = HPM_TARGET_TIDS;
	o.ids = &self;
	o.nr_ids = 1;
	struct hpm_session *s = hpm_session__new(list, &o);
	assert_non_null(s);
	assert_int_equal(hpm_session__read(s, 0, &c), -HPM_ERR_NOT_OPEN);
	assert_int_equal(hpm_session__open(s), 0);
	assert_int_equal(hpm_session__enable(s), 0);
	assert_int_equal(hpm_session__read(s, 0, &c), 0);
	assert_int_equal(hpm_session__read(s, 5, &c), -EINVAL);
	assert_int_equal(hpm_session__nr_threads(s), 1);
	assert_int_equal(hpm_session__thread(s, 0), self);
	assert_int_equal(hpm_session__nr_tasks(s), 0);
	assert_int_equal(hpm_session__poll_fd(s), -1);
	hpm_session__free(s);
	hpm_session__free(NULL);
	hpm_evlist__free(list);
}

static void test_scaling(void **state)
{
	struct hpm_count c = { .value = 100, .enabled = 1000, .running = 250 };
	(void)state;
	assert_true(hpm_count__scaled(&c) == 400.0);
	assert_true(hpm_count__pct_running(&c) == 25.0);
	c.running = 0;
	assert_true(hpm_count__scaled(&c) == 0.0);
	c.running = c.enabled = 1000;
	assert_true(hpm_count__scaled(&c) == 100.0);
	assert_true(hpm_count__pct_running(&c) == 100.0);
}

int main(void)
{
	ctx = hpm_ctx__new(NULL);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scaling),
		cmocka_unit_test(test_exec_exact),
		cmocka_unit_test(test_tracking),
		cmocka_unit_test(test_errors),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	hpm_ctx__free(ctx);
	return rc;
}
