// SPDX-License-Identifier: MIT
/*
 * Software counters, their mask, marks and regions: the runtime in a
 * program (<hpmon/marker.h>, <hpmon/region.h>) and hpmon's side of the
 * area it publishes in (<hpmon/counters.h>), and sessions that report sw:
 * events and marked counts.
 *
 * The runtime keeps process-wide state and looks for the area once, so
 * every case runs its program in a child: forked for the area's own
 * tests, or this test binary exec'd again with a workload name (see
 * main) for sessions, which count a command from its exec.
 *
 * Page faults are exact when this binary is built plainly; under ASan the
 * shadow memory faults too, so the checks allow for it there.
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
#include <hpmon/marker.h>
#include <hpmon/region.h>
#include <hpmon/session.h>

#if defined(__SANITIZE_ADDRESS__)
#define ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN 1
#endif
#endif
#ifndef ASAN
#define ASAN 0
#endif

static struct hpm_ctx *ctx;

/* N fresh pages written once each: N page faults. */
static void touch(long n)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, (size_t)(n ? n : 1) * (size_t)page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(90);
	madvise(p, (size_t)(n ? n : 1) * (size_t)page, MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		((volatile char *)p)[i * page] = 1;
	munmap(p, (size_t)(n ? n : 1) * (size_t)page);
}

static void expect_faults(const char *what, uint64_t got, uint64_t want)
{
	uint64_t slack = ASAN ? want / 4 + 64 : 0;
	if (got < want || got > want + slack)
		fail_msg("%s: %llu page faults, expected %llu%s", what, (unsigned long long)got,
			 (unsigned long long)want, ASAN ? " (+ ASan's shadow)" : "");
}

/* Run @fn in a child whose environment points at @m (or has no area).
 * The child's exit status must be 0; it ends with exit(), so the runtime
 * publishes the main thread's last numbers as a program's would. */
static void in_child(struct hpm_markers *m, int (*fn)(void))
{
	fflush(NULL);
	pid_t p = fork();
	assert_true(p >= 0);
	if (p == 0) {
		char env[64];
		if (m) {
			hpm_markers__env(m, env, sizeof(env));
			putenv(env);
		} else {
			unsetenv("HPMON_MARKERS");
		}
		exit(fn());
	}
	int st;
	assert_int_equal(waitpid(p, &st, 0), p);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		fail_msg("child failed: status %#x", st);
}

/* ---- without hpmon ---- */

#define K 10000

static void *count_thread(void *arg)
{
	long n = (long)(intptr_t)arg;
	for (long i = 0; i < n; i++)
		HPM_COUNT(ticks);
	HPM_ADD(bytes, 3 * n);
	return (void *)(intptr_t)(hpm_counter_get("ticks") == (uint64_t)n &&
				  hpm_counter_get("bytes") == 3 * (uint64_t)n);
}

static int private_counters(void)
{
	pthread_t t[4];
	void *ok;
	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, count_thread, (void *)(intptr_t)(K * (i + 1)));
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], &ok);
		if (!ok)
			return 1;
	}
	/* the mask: a masked increment goes nowhere */
	HPM_COUNT(masked);
	if (hpm_counter_enable("masked", false) || hpm_counter_get("masked") != 1)
		return 2;
	HPM_COUNT(masked);
	hpm_counter_enable("masked", true);
	HPM_COUNT(masked);
	hpm_counters_enable(false);
	HPM_COUNT(masked);
	hpm_counters_enable(true);
	if (hpm_counter_get("masked") != 2)
		return 3;
	if (hpm_counter_get("never") != 0 || hpm_counter_enable("", true) != -EINVAL)
		return 4;
	/* marks and regions do nothing without hpmon */
	hpm_mark(true);
	if (!hpm_marked() || hpm_region_begin("r") || hpm_region_end("r"))
		return 5;
	return 0;
}

static void test_private(void **state)
{
	(void)state;
	in_child(NULL, private_counters);
}

/* ---- the area ---- */

static int area_counters(void)
{
	pthread_t t[4];
	for (long i = 0; i < 4; i++) {
		pthread_create(&t[i], NULL, count_thread, (void *)(intptr_t)(K * (i + 1)));
		pthread_join(t[i], NULL); /* one after the other: slots in order */
	}
	/* masked by hpmon: starts off, the program turns it on */
	HPM_COUNT(later);
	hpm_counter_enable("later", true);
	HPM_ADD(later, 5);
	return 0;
}

static void test_area_counters(void **state)
{
	struct hpm_markers *m = hpm_markers__new(NULL);
	struct hpm_markers_thread t;
	uint64_t v;
	(void)state;

	assert_non_null(m);
	assert_int_equal(hpm_markers__mask(m, "later", false), 0);
	in_child(m, area_counters);
	/* four threads, then main (first to touch "later") */
	assert_int_equal(hpm_markers__nr_threads(m), 5);
	assert_int_equal(hpm_markers__lost_threads(m), 0);
	assert_int_equal(hpm_markers__counter(m, "ticks", SIZE_MAX, &v), 0);
	assert_int_equal(v, K * (1 + 2 + 3 + 4));
	assert_int_equal(hpm_markers__counter(m, "bytes", SIZE_MAX, &v), 0);
	assert_int_equal(v, 3 * K * (1 + 2 + 3 + 4));
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(hpm_markers__counter(m, "ticks", i, &v), 0);
		assert_int_equal(v, K * (i + 1));
		assert_int_equal(hpm_markers__thread(m, i, &t), 0);
		assert_true(t.exited);
		assert_true(t.tid != t.pid);
		assert_int_equal(hpm_markers__counter_tid(m, "ticks", t.pid, t.tid), K * (i + 1));
	}
	assert_int_equal(hpm_markers__counter(m, "later", SIZE_MAX, &v), 0);
	assert_int_equal(v, 5);
	assert_int_equal(hpm_markers__thread(m, 4, &t), 0);
	assert_int_equal(t.tid, t.pid);
	assert_true(t.exited); /* published at exit */
	/* names: "later" first (hpmon named it), then as the program used them */
	assert_int_equal(hpm_markers__nr_counters(m), 3);
	assert_string_equal(hpm_markers__counter_name(m, 0), "later");
	assert_int_equal(hpm_markers__counter(m, "nothing", SIZE_MAX, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(hpm_markers__counter(m, "ticks", 99, &v), -ENOENT);
	hpm_markers__free(m);
}

/* One slot only: the other threads count privately and are lost. */
static int two_threads(void)
{
	pthread_t t;
	pthread_create(&t, NULL, count_thread, (void *)(intptr_t)K);
	pthread_join(t, NULL);
	HPM_COUNT(ticks);
	return 0;
}

static void test_lost_threads(void **state)
{
	struct hpm_markers_opts o = { .sz = sizeof(o), .max_threads = 1 };
	struct hpm_markers *m = hpm_markers__new(&o);
	uint64_t v;
	(void)state;

	in_child(m, two_threads);
	assert_int_equal(hpm_markers__nr_threads(m), 1);
	assert_int_equal(hpm_markers__lost_threads(m), 1);
	hpm_markers__counter(m, "ticks", SIZE_MAX, &v);
	assert_int_equal(v, K);
	hpm_markers__free(m);
}

/* ---- regions ---- */

#define PAGES 50
#define CALLS 7

static void nested(const char *outer, const char *inner)
{
	hpm_region_begin(outer);
	touch(PAGES);
	hpm_region_begin(inner);
	touch(2 * PAGES);
	for (int j = 0; j < 100; j++)
		HPM_COUNT(ticks);
	hpm_region_end(inner);
	hpm_region_end(outer);
}

static void overlapping(const char *a, const char *b, const char *rec)
{
	/* overlapping, ended out of order */
	hpm_region_begin(a);
	hpm_region_begin(b);
	touch(3);
	hpm_region_end(a);
	touch(4);
	hpm_region_end(b);
	/* recursion */
	hpm_region_begin(rec);
	hpm_region_begin(rec);
	touch(5);
	hpm_region_end(rec);
	hpm_region_end(rec);
}

static int regions(void)
{
	/* The first run faults in the code and data it uses for the first
	 * time (the site of HPM_COUNT, libc's munmap ...): the workload's
	 * own, but not what the exact checks below are about. */
	nested("warm-outer", "warm-inner");
	for (int i = 0; i < CALLS; i++)
		nested("outer", "inner");
	overlapping("warm-a", "warm-b", "warm-rec");
	overlapping("a", "b", "rec");
	/* errors */
	if (hpm_region_end("never-begun") != -ENOENT || hpm_region_begin(NULL) != -EINVAL)
		return 1;
	hpm_region_begin("left-open");
	return 0;
}

static int region_index(struct hpm_markers *m, const char *name)
{
	for (size_t r = 0; r < hpm_markers__nr_regions(m); r++)
		if (!strcmp(hpm_markers__region_name(m, r), name))
			return (int)r;
	fail_msg("no region %s", name);
	return -1;
}

static void test_regions(void **state)
{
	struct hpm_markers_opts o = { .sz = sizeof(o), .regions = true };
	struct hpm_markers *m = hpm_markers__new(&o);
	struct hpm_evlist *list;
	struct hpm_region_stats st;
	(void)state;

	assert_int_equal(hpm_evlist__parse(ctx, "page-faults:u,exec:main,sw:ticks", &list, NULL),
			 0);
	assert_int_equal(hpm_markers__set_events(m, list), 0);
	assert_int_equal(hpm_markers__nr_events(m), 2); /* exec: is hpmon's */
	assert_int_equal(hpm_markers__event_of(m, 0), 0);
	assert_int_equal(hpm_markers__event_of(m, 1), -ENOENT);
	assert_int_equal(hpm_markers__event_of(m, 2), 1);
	in_child(m, regions);

	assert_int_equal(hpm_markers__region(m, (size_t)region_index(m, "outer"), SIZE_MAX, &st), 0);
	assert_int_equal(st.calls, CALLS);
	assert_int_equal(st.flags, 0);
	expect_faults("outer", st.c[0].value, CALLS * 3 * PAGES);
	assert_true(st.c[0].running == st.c[0].enabled && st.c[0].running > 0);
	assert_int_equal(st.c[1].value, CALLS * 100);
	assert_int_equal(hpm_markers__region(m, (size_t)region_index(m, "inner"), 0, &st), 0);
	assert_int_equal(st.calls, CALLS);
	expect_faults("inner", st.c[0].value, CALLS * 2 * PAGES);
	assert_int_equal(st.c[1].value, CALLS * 100);
	hpm_markers__region(m, (size_t)region_index(m, "a"), SIZE_MAX, &st);
	expect_faults("a", st.c[0].value, 3);
	hpm_markers__region(m, (size_t)region_index(m, "b"), SIZE_MAX, &st);
	expect_faults("b", st.c[0].value, 7);
	hpm_markers__region(m, (size_t)region_index(m, "rec"), SIZE_MAX, &st);
	assert_int_equal(st.calls, 2);
	assert_int_equal(st.max_depth, 2);
	expect_faults("rec", st.c[0].value, 10); /* each instance counts */
	hpm_markers__region(m, (size_t)region_index(m, "never-begun"), SIZE_MAX, &st);
	assert_int_equal(st.calls, 0);
	assert_int_equal(st.flags, HPM_REGION_UNMATCHED);
	hpm_markers__region(m, (size_t)region_index(m, "left-open"), SIZE_MAX, &st);
	assert_int_equal(st.flags, HPM_REGION_OPEN_AT_END);
	hpm_evlist__free(list);
	hpm_markers__free(m);
}

/* ---- marks ---- */

static void *marked_thread(void *arg)
{
	(void)arg;
	touch(9);  /* never marked: counts nothing */
	HPM_COUNT(ticks);
	return NULL;
}

static int marked(void)
{
	pthread_t t;
	touch(1);
	touch(PAGES);          /* before: left out */
	HPM_ADD(ticks, 1000);
	hpm_mark(true);
	touch(2 * PAGES);      /* counted */
	HPM_ADD(ticks, 7);
	hpm_mark(false);
	touch(4 * PAGES);      /* left out */
	HPM_ADD(ticks, 1000);
	pthread_create(&t, NULL, marked_thread, NULL);
	pthread_join(t, NULL);
	hpm_mark(true);
	touch(3);              /* counted, published at exit */
	HPM_COUNT(ticks);
	return 0;
}

static void test_marked(void **state)
{
	struct hpm_markers_opts o = { .sz = sizeof(o), .marked = true };
	struct hpm_markers *m = hpm_markers__new(&o);
	struct hpm_evlist *list;
	struct hpm_count c;
	uint64_t v;
	(void)state;

	assert_int_equal(hpm_evlist__parse(ctx, "page-faults:u,sw:ticks", &list, NULL), 0);
	assert_int_equal(hpm_markers__set_events(m, list), 0);
	in_child(m, marked);
	assert_int_equal(hpm_markers__marked(m, 0, SIZE_MAX, &c), 0);
	expect_faults("marked", c.value, 2 * PAGES + 3);
	assert_int_equal(hpm_markers__counter(m, "ticks", SIZE_MAX, &v), 0);
	assert_int_equal(v, 8);
	struct hpm_markers_thread t;
	for (size_t i = 0; i < hpm_markers__nr_threads(m); i++) {
		assert_int_equal(hpm_markers__thread(m, i, &t), 0);
		assert_false(t.marked_at_end);
		hpm_markers__marked(m, 0, i, &c);
		if (t.tid != t.pid)
			assert_int_equal(c.value, 0); /* the thread never marked itself */
	}
	hpm_evlist__free(list);
	hpm_markers__free(m);
}

/* ---- sessions ---- */

/* Workload, exec'd: N increments in each of T threads. */
static int workload_sw(long t, long n)
{
	pthread_t th[16];
	for (long i = 0; i < t && i < 16; i++)
		pthread_create(&th[i], NULL, count_thread, (void *)(intptr_t)(n * (i + 1)));
	for (long i = 0; i < t && i < 16; i++)
		pthread_join(th[i], NULL);
	return 0;
}

static void test_session_sw(void **state)
{
	struct hpm_markers *m = hpm_markers__new(NULL);
	struct hpm_evlist *list;
	struct hpm_count c;
	char env[64], *argv[] = { "test-markers", "--workload-sw", "3", NULL };
	int go[2], st;
	(void)state;

	assert_int_equal(hpm_evlist__parse(ctx, "sw:ticks,task-clock,sw:bytes", &list, NULL), 0);
	assert_int_equal(pipe(go), 0);
	fflush(NULL);
	pid_t p = fork();
	if (p == 0) {
		char ch;
		close(go[1]);
		hpm_markers__env(m, env, sizeof(env));
		putenv(env);
		if (read(go[0], &ch, 1) != 1)
			_exit(9);
		execv("/proc/self/exe", argv);
		_exit(8);
	}
	close(go[0]);
	struct hpm_session_opts o = { .sz = sizeof(o), .target = HPM_TARGET_EXEC, .ids = &p,
				      .nr_ids = 1, .track_tasks = true, .markers = m };
	struct hpm_session *s = hpm_session__new(list, &o);
	assert_non_null(s);
	assert_int_equal(hpm_session__open(s), 0);
	assert_int_equal(write(go[1], "g", 1), 1);
	close(go[1]);
	while (waitpid(p, &st, WNOHANG) == 0) {
		hpm_session__drain(s);
		usleep(1000);
	}
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	hpm_session__disable(s);
	hpm_session__drain(s);
	assert_int_equal(hpm_session__read(s, 0, &c), 0);
	assert_int_equal(c.err, 0);
	assert_int_equal(c.value, K * (1 + 2 + 3));
	assert_true(hpm_count__scaled(&c) == (double)c.value);
	assert_int_equal(hpm_session__read(s, 2, &c), 0);
	assert_int_equal(c.value, 3 * K * (1 + 2 + 3));
	/* per thread: each worker its own share, the main thread none. The
	 * tasks are the tracker's (kernel records); their counts come from
	 * the area, so a short list is the tracker's loss, not the area's. */
	uint64_t sum = 0;
	size_t workers = 0;
	char seen[256] = "";
	for (size_t t = 0; t < hpm_session__nr_tasks(s); t++) {
		const struct hpm_task *task = hpm_session__task(s, t);
		assert_int_equal(hpm_session__read_task(s, 0, t, &c), 0);
		size_t n = strlen(seen);
		snprintf(seen + n, sizeof(seen) - n, " %d%s%s=%llu", (int)task->tid,
			 task->thread ? "(thread)" : "", task->exited ? "(exited)" : "",
			 (unsigned long long)c.value);
		sum += c.value;
		if (task->thread) {
			workers++;
			assert_int_equal(c.value % K, 0);
			assert_true(c.value >= K && c.value <= 3 * K);
		} else {
			assert_int_equal(c.value, 0);
		}
	}
	if (workers != 3)
		fail_msg("%zu worker threads tracked, expected 3 (records lost: %llu); tasks:%s",
			 workers, (unsigned long long)hpm_session__lost(s), seen);
	assert_int_equal(sum, K * 6);
	hpm_session__free(s);
	hpm_evlist__free(list);
	hpm_markers__free(m);
}

static void test_session_errors(void **state)
{
	struct hpm_evlist *list;
	pid_t self = getpid();
	struct hpm_session_opts o = { .sz = sizeof(o), .target = HPM_TARGET_TIDS, .ids = &self,
				      .nr_ids = 1 };
	struct hpm_count c;
	(void)state;

	/* sw: without an area: refused, with the reason */
	assert_int_equal(hpm_evlist__parse(ctx, "task-clock,sw:ticks", &list, NULL), 0);
	struct hpm_session *s = hpm_session__new(list, &o);
	assert_int_equal(hpm_session__open(s), 0);
	assert_int_equal(hpm_session__event_error(s, 1), -ENODATA);
	assert_non_null(strstr(hpm_session__event_message(s, 1), "markers area"));
	assert_null(hpm_session__event_message(s, 0));
	assert_int_equal(hpm_session__read(s, 1, &c), 0);
	assert_int_equal(c.err, -ENODATA);
	hpm_session__free(s);
	hpm_evlist__free(list);

	/* an event set cannot count them */
	struct hpm_parse_error e;
	errno = 0;
	assert_null(hpm_eventset__new(ctx, "task-clock,sw:x", NULL, &e));
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(e.msg, "needs hpmon"));
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--workload-sw"))
		return workload_sw(atol(argv[2]), K);
	ctx = hpm_ctx__new(NULL);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_private),
		cmocka_unit_test(test_area_counters),
		cmocka_unit_test(test_lost_threads),
		cmocka_unit_test(test_regions),
		cmocka_unit_test(test_marked),
		cmocka_unit_test(test_session_sw),
		cmocka_unit_test(test_session_errors),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	hpm_ctx__free(ctx);
	return rc;
}
