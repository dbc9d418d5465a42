// SPDX-License-Identifier: MIT
/*
 * hpmon record's READ records made TIMELINE records
 * (tools/hpmon/record/record-timeline.c), written and read back: each record
 * holds the counts since the previous reading of its thread and CPU, so
 * that they add up to the last reading; a reading that counted nothing is
 * not written, but it still ends the span of the next one: a reading
 * after a quiet spell (readings at every interval, HPM_TIMELINE_POLL)
 * spans from the spell's last reading, so the spell shows as quiet once
 * the readings are spread over their spans.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../tools/hpmon/record/record-timeline.c"

#define MS 1000000ull

struct got {
	uint64_t start, time, value;
	bool final;
};

/* Cumulative readings @v[i] at (i + 1) * 10 ms (the last one final),
 * through a rec_timeline into a profile; its TIMELINE
 * records into @out. Returns how many. */
static size_t run(const uint64_t *v, size_t n, struct got *out, size_t cap)
{
	int fd = memfd_create("prof", 0);
	assert_true(fd >= 0);
	struct hpm_profile_event ev = { .name = "page-faults", .type = 1, .config = 2,
					.period = 1, .trigger = true, .leader = 0,
					.group_size = 1 };
	struct hpm_profile_meta m = { .sz = sizeof(m), .command = "c", .host = "h",
				      .arch = "x86_64", .cpu_model = "m", .kernel = "k",
				      .nr_events = 1, .events = &ev, .page_size = 4096,
				      .timeline_ns = 10 * MS };
	struct hpm_profile_writer *w = hpm_profile_writer__new(dup(fd), &m, NULL);
	assert_non_null(w);
	struct rec_timeline *t = rec_timeline__new();
	assert_non_null(t);
	for (size_t i = 0; i < n; i++) {
		uint64_t x = v[i];
		struct hpm_read_rec r = { .pid = 7, .tid = 7, .cpu = 0, .ev = 0,
					  .time = i + 1 < n ? (i + 1) * 10 * MS : 0,
					  .final = i + 1 == n, .nr_values = 1, .values = &x };
		assert_int_equal(rec_timeline__add(t, w, &r), 0);
	}
	rec_timeline__free(t);
	assert_int_equal(hpm_profile_writer__close(w, NULL), 0);
	size_t len = (size_t)lseek(fd, 0, SEEK_END);
	unsigned char *buf = malloc(len);
	assert_non_null(buf);
	assert_int_equal(pread(fd, buf, len, 0), (ssize_t)len);
	close(fd);
	struct hpm_profile *prof;
	struct hpm_prec p;
	size_t k = 0;
	assert_int_equal(hpm_profile__open_mem(buf, len, &prof), 0);
	while (hpm_profile__next(prof, &p) > 0) {
		if (p.type != HPM_PREC_TIMELINE)
			continue;
		assert_true(k < cap);
		assert_int_equal(p.read.nr_values, 1);
		out[k++] = (struct got){ p.read.start, p.read.time, p.read.values[0], p.read.final };
	}
	hpm_profile__free(prof);
	free(buf);
	return k;
}

/* busy, quiet for four readings, busy again, and the end */
static const uint64_t readings[] = { 5, 10, 10, 10, 10, 10, 15, 20, 20 };
#define NR (sizeof(readings) / sizeof(readings[0]))

static void test_counting_only(void **state)
{
	(void)state;
	struct got g[16];
	size_t n = run(readings, NR, g, 16);
	/* the quiet spell from 30 to 60 ms writes nothing, but the reading at
	 * 70 ms spans from 60 ms, its predecessor, not from 20 ms; the first
	 * has no predecessor and no sample: a span of nothing */
	const struct got want[] = {
		{ 10 * MS, 10 * MS, 5, false }, { 10 * MS, 20 * MS, 5, false },
		{ 60 * MS, 70 * MS, 5, false }, { 70 * MS, 80 * MS, 5, false },
	};
	assert_int_equal(n, 4);
	uint64_t sum = 0;
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(g[i].start, want[i].start);
		assert_int_equal(g[i].time, want[i].time);
		assert_int_equal(g[i].value, want[i].value);
		assert_int_equal(g[i].final, want[i].final);
		sum += g[i].value;
	}
	assert_int_equal(sum, 20);
}

/* Quiet from the start: the first reading that counts spans from the
 * quiet one before it; the end, which counted nothing new, is not
 * written. */
static void test_quiet_start(void **state)
{
	(void)state;
	static const uint64_t v[] = { 0, 0, 0, 4, 4 };
	struct got g[8];
	size_t n = run(v, 5, g, 8);
	assert_int_equal(n, 1);
	assert_int_equal(g[0].start, 30 * MS);
	assert_int_equal(g[0].time, 40 * MS);
	assert_int_equal(g[0].value, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counting_only),
		cmocka_unit_test(test_quiet_start),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
