// SPDX-License-Identifier: MIT
/*
 * The timeline read by the session itself (HPM_TIMELINE_POLL, the mode of
 * kernels before 6.12), forced with timeline_poll on this kernel, through
 * the public API (include/hpmon/record.h), on `phases 150 300 2`: two
 * threads side by side that fault 300 pages each after 150 ms of CPU.
 *
 *  - every READ record carries the command's pid as pid and tid (one
 *    series for the whole process), and its counts only grow per CPU;
 *  - the final readings add up to the samples of page-faults, which
 *    samples every fault: exactly, over every thread;
 *  - a group's reading holds its members, in order: page-faults and
 *    minor-faults (no major faults here) are equal in the final readings;
 *    a reading taken while a thread is inside a fault may find the first
 *    counted and not yet the second (the kernel counts them at the fault's
 *    start and end), so minor-faults may trail by a fault a thread;
 *  - readings and samples are on the reader's CLOCK_MONOTONIC, between
 *    the times taken before the session opened and after it ended;
 *  - readings come one interval apart: the median gap between two
 *    readings of a CPU is at least 0.9 intervals, and at most 2 intervals
 *    plus the latest the reading loop woke after a reading was due (on a
 *    loaded machine the loop waits for a CPU; that wait is measured, not
 *    assumed);
 *  - without timeline_poll, the mode is the kernel's: timers from Linux
 *    6.12, readings by the session before.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <hpmon/record.h>

#define PHASES HPM_TEST_WORKLOADS "/phases"
#define INTERVAL_NS 10000000ull
#define MAX_READS 20000
#define WORKERS 3 /* phases' two threads and its main thread */

static uint64_t mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The child, waiting to exec `phases 150 300 2`. */
static pid_t start_phases(int *go_fd)
{
	int go[2];
	assert_int_equal(pipe(go), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		char c, *argv[] = { (char *)PHASES, (char *)"150", (char *)"300", (char *)"2", NULL };
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0)
			dup2(null, 1);
		execv(argv[0], argv);
		_exit(127);
	}
	close(go[0]);
	*go_fd = go[1];
	return pid;
}

struct reading {
	uint64_t time;
	uint32_t cpu;
	uint64_t v[2];
	bool final;
};

struct seen {
	pid_t pid;
	uint64_t t0, t1;          /* the window every time must be in */
	uint64_t samples, bad_time, bad_task;
	uint64_t max_time;        /* of the samples and readings */
	struct reading *r;
	size_t nr;
	uint32_t width;           /* values per reading */
	uint64_t late;            /* the latest the loop woke after a reading was due */
};

static int on_rec(const struct hpm_prec *p, void *arg)
{
	struct seen *s = arg;
	if (p->type == HPM_PREC_SAMPLE) {
		s->samples++;
		s->bad_time += p->sample.time < s->t0;
		if (p->sample.time > s->max_time)
			s->max_time = p->sample.time;
		return 0;
	}
	if (p->type != HPM_PREC_READ)
		return 0;
	const struct hpm_read_rec *rd = &p->read;
	s->bad_task += rd->pid != s->pid || rd->tid != s->pid || rd->ev != 0 ||
		       rd->nr_values != s->width || rd->enabled || rd->running;
	if (!rd->final) {
		s->bad_time += rd->time < s->t0;
		if (rd->time > s->max_time)
			s->max_time = rd->time;
	}
	if (s->nr < MAX_READS && rd->nr_values >= 1) {
		struct reading *x = &s->r[s->nr++];
		*x = (struct reading){ .time = rd->time, .cpu = rd->cpu, .final = rd->final };
		for (uint32_t k = 0; k < rd->nr_values && k < 2; k++)
			x->v[k] = rd->values[k];
	}
	return 0;
}

/* Record the child with @spec, polled or as the kernel can; *@s gets
 * what was seen. Returns the mode. */
static enum hpm_timeline_mode record(const char *spec, bool poll, struct seen *s)
{
	struct hpm_ctx *ctx = hpm_ctx__new(NULL);
	struct hpm_evlist *list;
	int go, status;

	assert_int_equal(hpm_evlist__parse(ctx, spec, &list, NULL), 0);
	s->width = (uint32_t)hpm_evlist__count(list);
	s->r = calloc(MAX_READS, sizeof(*s->r));
	assert_non_null(s->r);
	s->t0 = mono();
	pid_t pid = start_phases(&go);
	s->pid = pid;
	struct hpm_record_opts o = { .sz = sizeof(o), .target = HPM_TARGET_EXEC, .ids = &pid,
				     .nr_ids = 1, .timeline_ns = INTERVAL_NS, .timeline_poll = poll };
	struct hpm_record *r = hpm_record__new(list, &o);
	assert_non_null(r);
	assert_int_equal(hpm_record__open(r), 0);
	enum hpm_timeline_mode mode = hpm_record__timeline_mode(r);
	assert_true(hpm_record__timeline(r));
	assert_int_equal(write(go, "g", 1), 1);
	close(go);
	while (waitpid(pid, &status, WNOHANG) == 0) {
		assert_true(hpm_record__drain(r, on_rec, s) >= 0);
		/* as hpmon record's loop: wake when the next reading is due */
		uint64_t due = hpm_record__timeline_due(r), now = mono();
		if (mode == HPM_TIMELINE_POLL)
			assert_true(due > 0);
		usleep(due > now && due - now < 100000000 ? (useconds_t)((due - now) / 1000) : 1000);
		uint64_t woke = mono();
		if (due && woke > due && woke - due > s->late)
			s->late = woke - due;
	}
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	hpm_record__disable(r);
	assert_true(hpm_record__drain(r, on_rec, s) >= 0);
	assert_int_equal(hpm_record__read_final(r, on_rec, s), 0);
	s->t1 = mono();
	hpm_record__free(r);
	hpm_evlist__free(list);
	hpm_ctx__free(ctx);
	return mode;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void check_polled(struct seen *s)
{
	uint64_t final = 0, last[64] = { 0 };
	size_t nr_final = 0, nr_gaps = 0;
	uint64_t *gaps = calloc(s->nr + 1, sizeof(*gaps)), prev = 0;
	assert_non_null(gaps);

	assert_int_equal(s->bad_task, 0);
	assert_int_equal(s->bad_time, 0);
	assert_true(s->max_time <= s->t1);
	assert_true(s->samples >= 600); /* the workers' faults at least */
	for (size_t i = 0; i < s->nr; i++) {
		const struct reading *x = &s->r[i];
		assert_true(x->cpu < 64);
		assert_true(x->v[0] >= last[x->cpu]); /* counts so far: they only grow */
		last[x->cpu] = x->v[0];
		if (s->width == 2) {
			assert_true(x->v[1] <= x->v[0]);
			if (x->final)
				assert_int_equal(x->v[0], x->v[1]);
			else
				assert_true(x->v[0] - x->v[1] <= WORKERS);
		}
		if (x->final) {
			final += x->v[0];
			nr_final++;
			continue;
		}
		/* one reading a round on the first CPU seen: the gaps */
		if (x->cpu != s->r[0].cpu)
			continue;
		if (prev)
			gaps[nr_gaps++] = x->time - prev;
		prev = x->time;
	}
	assert_true(nr_final >= 1);
	assert_int_equal(final, s->samples);
	/* 300 ms of CPU time at least: many readings */
	assert_true(nr_gaps >= 10);
	qsort(gaps, nr_gaps, sizeof(*gaps), cmp_u64);
	uint64_t median = gaps[nr_gaps / 2];
	print_message("# %zu readings, median gap %.2f ms, %llu samples\n", s->nr,
		      (double)median / 1e6, (unsigned long long)s->samples);
	assert_true(median >= INTERVAL_NS * 9 / 10);
	assert_true(median <= INTERVAL_NS * 2 + s->late);
	free(gaps);
}

static void test_polled(void **state)
{
	(void)state;
	struct seen s = { 0 };
	assert_int_equal(record("page-faults", true, &s), HPM_TIMELINE_POLL);
	check_polled(&s);
	free(s.r);
}

static void test_polled_group(void **state)
{
	(void)state;
	struct seen s = { 0 };
	assert_int_equal(record("{page-faults,minor-faults}", true, &s), HPM_TIMELINE_POLL);
	check_polled(&s);
	free(s.r);
}

/* Linux 6.12 or later: the kernel's timers; before: the session's
 * readings, without being asked. */
static void test_mode_of_kernel(void **state)
{
	(void)state;
	struct utsname u;
	unsigned major = 0, minor = 0;
	assert_int_equal(uname(&u), 0);
	assert_int_equal(sscanf(u.release, "%u.%u", &major, &minor), 2);
	struct seen s = { 0 };
	enum hpm_timeline_mode mode = record("page-faults", false, &s);
	bool timers = major > 6 || (major == 6 && minor >= 12);
	assert_int_equal(mode, timers ? HPM_TIMELINE_TIMERS : HPM_TIMELINE_POLL);
	free(s.r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_polled),
		cmocka_unit_test(test_polled_group),
		cmocka_unit_test(test_mode_of_kernel),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
