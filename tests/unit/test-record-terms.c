// SPDX-License-Identifier: MIT
/*
 * Per-event record terms in sampling sessions (include/hpmon/record.h),
 * as perf opens them (the attr fields are those `perf evlist -v` shows
 * for the same events with perf 6.1): call-graph=fp|dwarf|no over the
 * session's mode, stack-size= rounded up to 8 bytes, time=0 without
 * PERF_SAMPLE_TIME, period= and freq= over -c/-F; dwarf chains ask for
 * the kernel's part (PERF_SAMPLE_CALLCHAIN, exclude_callchain_user);
 * call-graph=lbr refused with a reason. Then a session on this process:
 * samples of a time=0 event carry no time while its mappings keep
 * theirs, and the lost-sample count reads as 0 when nothing was lost.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <linux/perf_event.h>

#include <hpmon/record.h>

#define DWARF_TYPE (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)

struct fix {
	struct hpm_ctx *ctx;
	struct hpm_evlist *list;
	struct hpm_record *r;
	int rc;
};

/* A session of @spec on this process with the session options @o (sz,
 * target and mmap_pages filled here), opened: f->rc its result. */
static void open_spec(struct fix *f, const char *spec, struct hpm_record_opts o)
{
	static pid_t self;
	self = getpid();
	f->ctx = hpm_ctx__new(NULL);
	assert_non_null(f->ctx);
	assert_int_equal(hpm_evlist__parse(f->ctx, spec, &f->list, NULL), 0);
	o.sz = sizeof(o);
	o.target = HPM_TARGET_PIDS;
	o.ids = &self;
	o.nr_ids = 1;
	o.mmap_pages = 8;
	f->r = hpm_record__new(f->list, &o);
	assert_non_null(f->r);
	f->rc = hpm_record__open(f->r);
}

static void close_fix(struct fix *f)
{
	hpm_record__free(f->r);
	hpm_evlist__free(f->list);
	hpm_ctx__free(f->ctx);
}

static void test_callgraph_terms(void **state)
{
	(void)state;
	struct fix f;

	/* perf record -e 'task-clock/call-graph=dwarf,stack-size=8192/,page-faults/call-graph=no/' */
	open_spec(&f, "task-clock/call-graph=dwarf,stack-size=8192/,page-faults/call-graph=no/",
		  (struct hpm_record_opts){ 0 });
	assert_int_equal(f.rc, 0);
	const struct perf_event_attr *a = hpm_record__attr(f.r, 0), *b = hpm_record__attr(f.r, 1);
	assert_int_equal(a->sample_type & DWARF_TYPE, DWARF_TYPE);
	assert_int_equal(a->exclude_callchain_user, 1);
	assert_int_equal(a->exclude_callchain_kernel, 0);
	assert_int_equal(a->sample_stack_user, 8192);
	assert_true(a->sample_regs_user != 0);
	assert_int_equal(hpm_record__callchain(f.r, 0), HPM_CALLCHAIN_DWARF);
	assert_int_equal(b->sample_type & DWARF_TYPE, 0);
	assert_int_equal(hpm_record__callchain(f.r, 1), HPM_CALLCHAIN_NONE);
	assert_true(a->sample_type & PERF_SAMPLE_TIME);
	/* every event counts its lost samples (Linux 6.0), as perf's do */
	assert_true(a->read_format & PERF_FORMAT_LOST);
	close_fix(&f);

	/* perf record -g -e 'task-clock/call-graph=no/,page-faults' */
	open_spec(&f, "task-clock/call-graph=no/,page-faults",
		  (struct hpm_record_opts){ .callchain = HPM_CALLCHAIN_FP });
	assert_int_equal(f.rc, 0);
	assert_int_equal(hpm_record__attr(f.r, 0)->sample_type & PERF_SAMPLE_CALLCHAIN, 0);
	assert_int_equal(hpm_record__attr(f.r, 1)->sample_type & DWARF_TYPE, PERF_SAMPLE_CALLCHAIN);
	assert_int_equal(hpm_record__attr(f.r, 1)->exclude_callchain_user, 0);
	assert_int_equal(hpm_record__callchain(f.r, 1), HPM_CALLCHAIN_FP);
	close_fix(&f);

	/* --call-graph dwarf,4096 with an event's own size: rounded up to 8 */
	open_spec(&f, "task-clock/stack-size=100/,page-faults/call-graph=fp/",
		  (struct hpm_record_opts){ .callchain = HPM_CALLCHAIN_DWARF, .stack_bytes = 4096 });
	assert_int_equal(f.rc, 0);
	assert_int_equal(hpm_record__attr(f.r, 0)->sample_stack_user, 104);
	assert_int_equal(hpm_record__attr(f.r, 0)->sample_type & DWARF_TYPE, DWARF_TYPE);
	assert_int_equal(hpm_record__attr(f.r, 1)->sample_type & DWARF_TYPE, PERF_SAMPLE_CALLCHAIN);
	close_fix(&f);
}

static void test_rate_and_time_terms(void **state)
{
	(void)state;
	struct fix f;

	/* perf record -F 4000 -e 'task-clock/time=0,period=100000/,page-faults/freq=100/'
	 * and -c 5000 -e ...,page-faults/period=7/: the terms win */
	open_spec(&f, "task-clock/time=0,period=100000/,page-faults/freq=100/,cpu-clock",
		  (struct hpm_record_opts){ .freq = 4000 });
	assert_int_equal(f.rc, 0);
	const struct perf_event_attr *a = hpm_record__attr(f.r, 0);
	assert_int_equal(a->sample_type & PERF_SAMPLE_TIME, 0);
	assert_int_equal(a->freq, 0);
	assert_int_equal(a->sample_period, 100000);
	assert_int_equal(hpm_record__attr(f.r, 1)->freq, 1);
	assert_int_equal(hpm_record__attr(f.r, 1)->sample_freq, 100);
	assert_true(hpm_record__attr(f.r, 1)->sample_type & PERF_SAMPLE_TIME);
	assert_int_equal(hpm_record__attr(f.r, 2)->freq, 1);
	assert_int_equal(hpm_record__attr(f.r, 2)->sample_freq, 4000);
	close_fix(&f);

	open_spec(&f, "task-clock,page-faults/period=7/", (struct hpm_record_opts){ .period = 5000 });
	assert_int_equal(f.rc, 0);
	assert_int_equal(hpm_record__attr(f.r, 0)->sample_period, 5000);
	assert_int_equal(hpm_record__attr(f.r, 1)->sample_period, 7);
	close_fix(&f);
}

static void test_lbr_refused(void **state)
{
	(void)state;
	struct fix f;

	open_spec(&f, "task-clock,page-faults/call-graph=lbr/", (struct hpm_record_opts){ 0 });
	assert_int_equal(f.rc, -EOPNOTSUPP);
	assert_int_equal(hpm_record__failed_event(f.r), 1);
	const char *m = hpm_record__event_message(f.r, 1);
	assert_non_null(m);
	assert_non_null(strstr(m, "call-graph=fp"));
	assert_null(hpm_record__event_message(f.r, 0));
	close_fix(&f);
}

struct seen {
	uint64_t samples, timed_samples, mmaps, timed_mmaps;
};

static int on_rec(const struct hpm_prec *p, void *arg)
{
	struct seen *s = arg;
	if (p->type == HPM_PREC_SAMPLE) {
		s->samples++;
		s->timed_samples += p->sample.time != 0;
	} else if (p->type == HPM_PREC_MMAP && p->mmap.time) {
		s->timed_mmaps++;
	}
	s->mmaps += p->type == HPM_PREC_MMAP;
	return 0;
}

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_time0_session(void **state)
{
	(void)state;
	struct fix f;
	struct seen s = { 0 };
	volatile unsigned long sink = 0;

	/* every 100 us of this process's CPU time, without time stamps */
	open_spec(&f, "task-clock/time=0,period=100000/", (struct hpm_record_opts){ 0 });
	assert_int_equal(f.rc, 0);
	assert_int_equal(hpm_record__enable(f.r), 0);
	/* a mapping made while recording: the side band keeps its time */
	int fd = open("/proc/self/exe", O_RDONLY);
	assert_true(fd >= 0);
	void *m = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	assert_true(m != MAP_FAILED);
	close(fd);
	for (double t0 = cpu_s(); cpu_s() - t0 < 0.03;)
		for (int i = 0; i < 10000; i++)
			sink += (unsigned long)i;
	assert_int_equal(hpm_record__disable(f.r), 0);
	assert_true(hpm_record__drain(f.r, on_rec, &s) >= 0);
	munmap(m, 4096);
	struct hpm_record_stats st;
	hpm_record__stats(f.r, &st);
	assert_true(s.samples >= 20); /* 30 ms of CPU at 100 us */
	assert_int_equal(s.timed_samples, 0);
	assert_true(s.timed_mmaps >= 1);
	assert_int_equal(st.samples, s.samples);
	assert_int_equal(st.lost_samples, 0);
	close_fix(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_callgraph_terms),
		cmocka_unit_test(test_rate_and_time_terms),
		cmocka_unit_test(test_lbr_refused),
		cmocka_unit_test(test_time0_session),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
