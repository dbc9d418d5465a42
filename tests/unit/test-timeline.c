// SPDX-License-Identifier: MIT
/*
 * The timeline model (tools/hpmon/timeline/timeline.h): stat -I JSON lines
 * binned by interval, with a metric's event listed twice counted once, a
 * null count as no running time, a null metric as a bin without a value,
 * and per-thread rows as their own series; the bin cap halves the
 * resolution with the sums kept exactly; a profile's samples binned by time
 * per thread and in "all", named by their COMM records (or their parent's,
 * or their process's); a software group never scaled; bad input refused
 * with the reason. The tool is not a library: its files are compiled into
 * this test.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <linux/perf_event.h>

#include "../../tools/hpmon/output/json-read.c"
#include "../../tools/hpmon/timeline/timeline.c"
#include "../../tools/hpmon/timeline/timeline-stat.c"

static char dir[] = "/tmp/test-timeline-XXXXXX";

static const char *write_file(const char *name, const char *text)
{
	static char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static const struct timeline_series *find(const struct timeline *t, const char *ev,
					  const char *thread)
{
	for (size_t i = 0; i < t->nr_series; i++)
		if (!strcmp(t->series[i].event, ev) && !strcmp(t->series[i].thread, thread))
			return &t->series[i];
	return NULL;
}

#define EV(name, count, en, run) \
	"{\"name\":\"" name "\",\"count\":" count ",\"enabled_ns\":" en ",\"running_ns\":" run \
	",\"unit\":\"\"}"

/* Four intervals of 100 ms, then the summary. */
static const char stat4[] =
	"{\"time_ns\":100000000,\"interval_ns\":100000000,\"span_ns\":100000000,\"events\":["
	EV("page-faults", "10", "1000", "1000") "," EV("cycles", "200", "1000", "500") ","
	EV("page-faults", "10", "1000", "1000") "],\"metrics\":[{\"name\":\"ipc\",\"value\":1.5}],"
	"\"threads\":[{\"pid\":7,\"tid\":7,\"comm\":\"main\",\"events\":[" EV("page-faults", "4", "9", "9")
	"],\"metrics\":[]},{\"pid\":7,\"tid\":8,\"comm\":\"worker\",\"events\":["
	EV("page-faults", "6", "9", "9") "],\"metrics\":[]}]}\n"
	"{\"time_ns\":200000000,\"interval_ns\":100000000,\"span_ns\":100000000,\"events\":["
	EV("page-faults", "0", "0", "0") "," EV("cycles", "null", "1000", "0")
	"],\"metrics\":[{\"name\":\"ipc\",\"value\":null}]}\n"
	"\n"
	"{\"time_ns\":300000000,\"interval_ns\":100000000,\"span_ns\":100000000,\"events\":["
	EV("page-faults", "30", "1000", "1000") "," EV("cycles", "100", "1000", "1000")
	"],\"metrics\":[{\"name\":\"ipc\",\"value\":0.5}]}\n"
	"{\"time_ns\":350000000,\"interval_ns\":100000000,\"span_ns\":50000000,\"events\":["
	EV("page-faults", "1", "1000", "1000") "],\"metrics\":[{\"name\":\"ipc\",\"value\":2.5}]}\n"
	"{\"command\":[\"x\"],\"events\":[" EV("page-faults", "41", "1", "1") "]}\n";

static void test_stat_bins(void **state)
{
	(void)state;
	char why[200] = "";
	struct timeline *t = timeline__from_stat_json(write_file("s.json", stat4), NULL, why,
						      sizeof(why));
	assert_non_null(t);
	assert_int_equal(t->source, TL_SRC_STAT);
	assert_int_equal(t->start_ns, 0);
	assert_int_equal(t->bin_ns, 100000000);
	assert_int_equal(t->nr_bins, 4);
	assert_int_equal(t->nr_events, 3);
	/* all first, then the threads in order */
	assert_string_equal(t->series[0].event, "page-faults");
	assert_string_equal(t->series[0].thread, "all");
	assert_string_equal(t->series[1].thread, "main/7");
	assert_string_equal(t->series[2].thread, "worker/8");

	const struct timeline_series *pf = find(t, "page-faults", "all");
	double want_pf[4] = {10, 0, 30, 1};
	for (int i = 0; i < 4; i++) {
		assert_true(pf->count[i] == want_pf[i]);
		assert_true(pf->coverage[i] == 1);
	}
	assert_true(pf->total == 41); /* the listing twice counted once; the summary not binned */
	assert_true(pf->min == 0 && pf->max == 30);

	const struct timeline_series *cy = find(t, "cycles", "all");
	assert_true(cy->count[0] == 200 && cy->coverage[0] == 0.5);
	assert_true(cy->count[1] == 0 && cy->coverage[1] == 0); /* null: enabled, never ran */
	assert_true(cy->count[2] == 100 && cy->coverage[2] == 1);
	assert_true(cy->count[3] == 0 && cy->coverage[3] == 1); /* not listed: nothing */

	const struct timeline_series *ipc = find(t, "ipc", "all");
	assert_true(ipc->metric);
	assert_true(ipc->count[0] == 1.5 && ipc->coverage[0] == 1);
	assert_true(ipc->coverage[1] == 0);
	assert_true(ipc->count[3] == 2.5);
	assert_true(ipc->total == 1.5); /* the mean of the bins with a value */
	assert_true(ipc->min == 0.5 && ipc->max == 2.5);

	const struct timeline_series *w = find(t, "page-faults", "worker/8");
	assert_true(w->count[0] == 6 && w->total == 6);
	assert_null(find(t, "page-faults", "[other threads]"));
	timeline__free(t);
}

/* Past the cap, bins merge two by two: sums exact, metrics their mean. */
static void test_stat_cap(void **state)
{
	(void)state;
	char text[8192] = "", why[200];
	size_t n = 0;
	for (int i = 0; i < 10; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n,
				      "{\"time_ns\":%d00000000,\"interval_ns\":100000000,\"span_ns\":"
				      "100000000,\"events\":[" EV("page-faults", "%d", "1", "1")
				      "],\"metrics\":[{\"name\":\"m\",\"value\":%d}],\"threads\":["
				      "{\"tid\":%d,\"comm\":\"t\",\"events\":[" EV("page-faults", "1", "1", "1")
				      "]}]}\n", i + 1, i + 1, i, 100 + i % 3);
	struct timeline_opts o = { .max_bins = 4, .max_threads = 2 };
	struct timeline *t = timeline__from_stat_json(write_file("c.json", text), &o, why,
						      sizeof(why));
	assert_non_null(t);
	assert_int_equal(t->bin_ns, 400000000); /* 10 intervals in at most 4 bins */
	assert_int_equal(t->nr_bins, 3);
	const struct timeline_series *pf = find(t, "page-faults", "all");
	assert_true(pf->count[0] == 1 + 2 + 3 + 4);
	assert_true(pf->count[1] == 5 + 6 + 7 + 8);
	assert_true(pf->count[2] == 9 + 10);
	assert_true(pf->total == 55);
	const struct timeline_series *m = find(t, "m", "all");
	assert_true(m->count[0] == 1.5 && m->count[2] == 8.5);
	/* two threads by name, the third in "[other threads]" */
	assert_non_null(find(t, "page-faults", "t/100"));
	assert_non_null(find(t, "page-faults", "t/101"));
	const struct timeline_series *ot = find(t, "page-faults", "[other threads]");
	assert_non_null(ot);
	assert_true(ot->total == 3); /* tid 102 in intervals 3, 6, 9 */
	timeline__free(t);
}

static void test_stat_bad(void **state)
{
	(void)state;
	char why[200] = "";
	struct timeline *t = timeline__from_stat_json(write_file("b.json", "{\"time_ns\":1}\n{oops\n"),
						      NULL, why, sizeof(why));
	assert_null(t);
	assert_int_equal(errno, EBADMSG);
	assert_non_null(strstr(why, "line 2"));
	t = timeline__from_stat_json(write_file("e.json", ""), NULL, why, sizeof(why));
	assert_null(t);
	assert_int_equal(errno, EBADMSG);
	t = timeline__from_stat_json(write_file("n.json", "{\"command\":[\"x\"]}\n"), NULL, why,
				     sizeof(why));
	assert_null(t);
	assert_non_null(strstr(why, "stat -I"));
	t = timeline__from_stat_json(dir, NULL, why, sizeof(why));
	assert_null(t);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(why, "not a regular file"));
	char fifo[300];
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	t = timeline__from_stat_json(fifo, NULL, why, sizeof(why)); /* must not block */
	assert_null(t);
	assert_int_equal(errno, EINVAL);
	unlink(fifo);
	assert_true(timeline__is_stat_json(" \n{\"time", 8));
	assert_false(timeline__is_stat_json("HPMPROF", 7));
	assert_false(timeline__is_stat_json("  ", 2));
}

static const struct hpm_profile_event pevents[2] = {
	{ .name = "cpu-clock", .type = 1, .period = 1000, .trigger = true,
	  .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME, .leader = 0,
	  .group_size = 1 },
	{ .name = "page-faults", .type = 1, .config = 2, .period = 1, .trigger = true,
	  .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME, .leader = 1,
	  .group_size = 1 },
};

/* Samples binned by time: 1 ms bins from the first sample. */
static void test_profile_samples(void **state)
{
	(void)state;
	int fd = memfd_create("prof", 0);
	assert_true(fd >= 0);
	struct hpm_profile_meta m = { .sz = sizeof(m), .command = "c", .host = "h", .arch = "x86_64",
				      .cpu_model = "m", .kernel = "k", .nr_events = 2,
				      .events = pevents, .page_size = 4096 };
	struct hpm_profile_writer *w = hpm_profile_writer__new(dup(fd), &m, NULL);
	assert_non_null(w);
	struct hpm_prec p = { .type = HPM_PREC_COMM };
	p.comm = (struct hpm_comm_rec){ .pid = 5, .tid = 6, .time = 0, .comm = "worker" };
	assert_int_equal(hpm_profile_writer__add(w, &p), 0);
	const uint64_t t0 = 5000000000ull;
	for (int i = 0; i < 100; i++) { /* cpu-clock: 1000 every 0.1 ms, 10 ms long */
		p = (struct hpm_prec){ .type = HPM_PREC_SAMPLE };
		p.sample = (struct hpm_sample){ .ev = 0, .pid = 5, .tid = i % 2 ? 6 : 5,
						.time = t0 + (uint64_t)i * 100000, .ip = 0x1000,
						.period = 1000, .mode = HPM_MODE_USER };
		assert_int_equal(hpm_profile_writer__add(w, &p), 0);
	}
	for (int i = 0; i < 7; i++) { /* page faults in the last millisecond only */
		p = (struct hpm_prec){ .type = HPM_PREC_SAMPLE };
		p.sample = (struct hpm_sample){ .ev = 1, .pid = 5, .tid = 6,
						.time = t0 + 9000000 + (uint64_t)i, .ip = 0x2000,
						.period = 1, .mode = HPM_MODE_USER };
		assert_int_equal(hpm_profile_writer__add(w, &p), 0);
	}
	assert_int_equal(hpm_profile_writer__close(w, NULL), 0);
	size_t len = (size_t)lseek(fd, 0, SEEK_END);
	unsigned char *buf = malloc(len);
	assert_non_null(buf);
	assert_int_equal(pread(fd, buf, len, 0), (ssize_t)len);
	close(fd);
	struct hpm_profile *prof;
	assert_int_equal(hpm_profile__open_mem(buf, len, &prof), 0);
	char why[200];
	struct timeline *t = timeline__from_profile(prof, NULL, why, sizeof(why));
	assert_non_null(t);
	assert_int_equal(t->source, TL_SRC_SAMPLES);
	assert_int_equal(t->start_ns, t0);
	assert_int_equal(t->bin_ns, 1000000);
	assert_int_equal(t->nr_bins, 10);
	const struct timeline_series *all = find(t, "cpu-clock", "all");
	const struct timeline_series *w6 = find(t, "cpu-clock", "worker/6");
	const struct timeline_series *m5 = find(t, "cpu-clock", "5");
	assert_non_null(all);
	assert_non_null(w6);
	assert_non_null(m5); /* no COMM record: the tid alone */
	for (size_t i = 0; i < 10; i++) {
		assert_true(all->count[i] == 10000);
		assert_true(w6->count[i] == 5000);
		assert_true(all->coverage[i] == 1);
	}
	const struct timeline_series *pf = find(t, "page-faults", "all");
	for (size_t i = 0; i < 9; i++)
		assert_true(pf->count[i] == 0);
	assert_true(pf->count[9] == 7 && pf->total == 7 && pf->max == 7);
	timeline__free(t);
	hpm_profile__free(prof);
	free(buf);
}

/* The profile in @fd as a buffer (the caller frees it). */
static unsigned char *slurp(int fd, size_t *len)
{
	*len = (size_t)lseek(fd, 0, SEEK_END);
	unsigned char *buf = malloc(*len);
	assert_non_null(buf);
	assert_int_equal(pread(fd, buf, *len, 0), (ssize_t)*len);
	close(fd);
	return buf;
}

/* TIMELINE records, written and read back: every field, times in the
 * header's unit (a hundredth of the 10 ms interval: 100 us), enabled and
 * running in us, the span's start, values of every size; the timeline is
 * made of them (not of the samples), each reading spread over its span,
 * and each thread's bins add up to its records. A header with the
 * interval says minor version 2. */
static void test_profile_records(void **state)
{
	(void)state;
	int fd = memfd_create("prof", 0);
	assert_true(fd >= 0);
	struct hpm_profile_event ev[2] = { pevents[0], pevents[1] };
	ev[0].group_size = 2; /* {cpu-clock, page-faults} */
	/* a hardware event's type, so that the group may be multiplexed
	 * (a software group never is: test_profile_software) */
	ev[0].type = PERF_TYPE_HARDWARE;
	ev[1].leader = 0;
	ev[1].group_size = 2;
	ev[1].trigger = false;
	struct hpm_profile_meta m = { .sz = sizeof(m), .command = "c", .host = "h", .arch = "x86_64",
				      .cpu_model = "m", .kernel = "k", .nr_events = 2,
				      .events = ev, .page_size = 4096, .timeline_ns = 10000000 };
	struct hpm_profile_writer *w = hpm_profile_writer__new(dup(fd), &m, NULL);
	assert_non_null(w);
	const uint64_t t0 = 1000000000ull, ms = 1000000;
	struct hpm_prec p = { .type = HPM_PREC_SAMPLE };
	p.sample = (struct hpm_sample){ .ev = 0, .pid = 5, .tid = 5, .time = t0, .ip = 1,
					.period = 1000, .mode = HPM_MODE_USER };
	assert_int_equal(hpm_profile_writer__add(w, &p), 0);
	for (int i = 0; i < 40; i++) { /* two threads, a reading each 10 ms */
		uint64_t v[2] = { 10000000, (uint64_t)(i >= 20 ? 3 : 0) };
		uint64_t at = t0 + (uint64_t)(i / 2 + 1) * 10 * ms;
		p = (struct hpm_prec){ .type = HPM_PREC_TIMELINE };
		/* 99 ns past: the unit's rounding */
		p.read = (struct hpm_read_rec){ .pid = 5, .tid = 5 + i % 2, .cpu = (uint32_t)i % 2,
						.time = at + 99, .start = at - 10 * ms + 99,
						.ev = 0, .final = i >= 38, .enabled = 4 * ms,
						.running = i % 2 ? 2 * ms + 400 : 4 * ms, .nr_values = 2,
						.values = v };
		assert_int_equal(hpm_profile_writer__add(w, &p), 0);
	}
	uint64_t one = 4;
	p = (struct hpm_prec){ .type = HPM_PREC_TIMELINE };
	p.read = (struct hpm_read_rec){ .pid = 5, .tid = 6, .cpu = 1, .time = t0 + 199999999,
					.ev = 1, .final = true, .nr_values = 1, .values = &one };
	assert_int_equal(hpm_profile_writer__add(w, &p), 0);
	/* values of every size, exactly: the shifts and their differences */
	uint64_t odd[2] = { UINT64_MAX, 1ull << 63 }, odd2[2] = { 0, 0xfff000 };
	p.read = (struct hpm_read_rec){ .pid = 9, .tid = 9, .cpu = 0, .time = t0 + 300 * ms,
					.start = t0 + 400 * ms, /* after it: none */
					.ev = 0, .nr_values = 2, .values = odd };
	assert_int_equal(hpm_profile_writer__add(w, &p), 0);
	p.read.values = odd2;
	assert_int_equal(hpm_profile_writer__add(w, &p), 0);
	uint64_t three[3] = { 1, 2, 3 };
	p.read.ev = 0;
	p.read.nr_values = 3; /* more events than the header has: refused */
	p.read.values = three;
	assert_int_equal(hpm_profile_writer__add(w, &p), -EINVAL);
	assert_int_equal(hpm_profile_writer__close(w, NULL), 0);
	size_t len;
	unsigned char *buf = slurp(fd, &len);
	assert_int_equal(buf[10], 2); /* minor version 2 */

	struct hpm_profile *prof;
	struct hpm_prec r;
	assert_int_equal(hpm_profile__open_mem(buf, len, &prof), 0);
	assert_int_equal(hpm_profile__meta(prof)->timeline_ns, 10000000);
	unsigned n = 0, n5 = 0, n6 = 0;
	while (hpm_profile__next(prof, &r) > 0) {
		if (r.type != HPM_PREC_TIMELINE)
			continue;
		n++;
		if (r.read.tid == 9) { /* thread 9's, in the order they came */
			assert_int_equal(r.read.time, t0 + 300 * ms);
			assert_int_equal(r.read.start, r.read.time);
			assert_int_equal(r.read.nr_values, 2);
			assert_true(r.read.values[0] == (n == 42 ? UINT64_MAX : 0));
			assert_true(r.read.values[1] == (n == 42 ? 1ull << 63 : 0xfff000));
			continue;
		}
		assert_int_equal(r.read.pid, 5);
		if (r.read.tid == 5) { /* counted all along: no times stored */
			n5++;
			assert_int_equal(r.read.enabled, 0);
			assert_int_equal(r.read.running, 0);
			assert_int_equal(r.read.cpu, 0);
			assert_int_equal(r.read.time, t0 + n5 * 10 * ms);
			assert_int_equal(r.read.start, t0 + (n5 - 1) * 10 * ms);
			assert_int_equal(r.read.values[0], 10000000);
			continue;
		}
		assert_int_equal(r.read.tid, 6);
		assert_int_equal(r.read.cpu, 1);
		if (++n6 == 2) {
			assert_int_equal(r.read.ev, 0);
			assert_int_equal(r.read.time, t0 + 20 * ms);
			assert_int_equal(r.read.start, t0 + 10 * ms);
			assert_int_equal(r.read.enabled, 4 * ms);
			assert_int_equal(r.read.running, 2 * ms); /* to the us */
			assert_false(r.read.final);
			assert_int_equal(r.read.nr_values, 2);
			assert_int_equal(r.read.values[0], 10000000);
		}
		if (n6 == 21) { /* no start: at the reading's time */
			assert_true(r.read.final);
			assert_int_equal(r.read.ev, 1);
			assert_int_equal(r.read.time, t0 + 199900000);
			assert_int_equal(r.read.start, r.read.time);
			assert_int_equal(r.read.nr_values, 1);
			assert_int_equal(r.read.values[0], 4);
		}
	}
	assert_int_equal(n, 43);
	assert_int_equal(n5, 20);
	assert_int_equal(n6, 21);
	assert_true(hpm_profile__status(prof)->complete);
	hpm_profile__free(prof);

	assert_int_equal(hpm_profile__open_mem(buf, len, &prof), 0);
	char why[200];
	struct timeline *t = timeline__from_profile(prof, NULL, why, sizeof(why));
	assert_non_null(t);
	assert_int_equal(t->source, TL_SRC_RECORDS);
	assert_int_equal(t->bin_ns, 10000000);
	assert_int_equal(t->start_ns, t0); /* the first record, the spans' start */
	assert_int_equal(t->nr_bins, 31);
	const struct timeline_series *pf = find(t, "page-faults", "all");
	const struct timeline_series *p6 = find(t, "page-faults", "6");
	const struct timeline_series *c5 = find(t, "cpu-clock", "5");
	const struct timeline_series *c6 = find(t, "cpu-clock", "6");
	assert_non_null(pf);
	assert_non_null(p6);
	assert_true(pf->total == 20 * 3 + 4 + (double)(1ull << 63) + 0xfff000);
	assert_true(p6->total == 10 * 3 + 4);
	for (size_t i = 0; i < 20; i++) { /* each reading in the bin of its span */
		assert_true(c5->count[i] == 10000000);
		assert_true(pf->count[i] == (i < 10 ? 0 : i < 19 ? 6 : 6 + 4));
	}
	assert_true(p6->count[19] == 3 + 4);
	assert_true(c6->coverage[0] == 0.5);
	/* a reading counted all along stores no times: the other's ratio */
	assert_true(c5->coverage[0] == 1);
	assert_true(find(t, "cpu-clock", "all")->coverage[0] == 0.5);
	timeline__free(t);
	hpm_profile__free(prof);
	free(buf);
}

/* One thread's readings at irregular times (a loaded machine: 10 ms of
 * CPU each, far apart), each the counts of a steady rate since the one
 * before: spread over their spans they make a flat line, exactly, where
 * placed at their times they were bursts; with the bins merged past the
 * cap, too. */
static void test_profile_spread(void **state)
{
	(void)state;
	const uint64_t t0 = 1000000000ull, ms = 1000000;
	/* readings at these ms after the start; one count every 100 ns */
	const uint64_t at[] = { 25, 32, 70, 95 };
	for (int capped = 0; capped < 2; capped++) {
		int fd = memfd_create("prof", 0);
		assert_true(fd >= 0);
		struct hpm_profile_meta m = { .sz = sizeof(m), .command = "c", .host = "h",
					      .arch = "x86_64", .cpu_model = "m", .kernel = "k",
					      .nr_events = 1, .events = pevents, .page_size = 4096,
					      .timeline_ns = 10 * ms };
		struct hpm_profile_writer *w = hpm_profile_writer__new(dup(fd), &m, NULL);
		assert_non_null(w);
		struct hpm_prec p = { .type = HPM_PREC_COMM };
		p.comm = (struct hpm_comm_rec){ .pid = 5, .tid = 5, .time = t0, .comm = "spin" };
		assert_int_equal(hpm_profile_writer__add(w, &p), 0);
		uint64_t from = t0;
		for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
			uint64_t v = (t0 + at[i] * ms - from) / 100;
			p = (struct hpm_prec){ .type = HPM_PREC_TIMELINE };
			p.read = (struct hpm_read_rec){ .pid = 5, .tid = 5, .time = t0 + at[i] * ms,
							.start = from, .nr_values = 1, .values = &v };
			assert_int_equal(hpm_profile_writer__add(w, &p), 0);
			from = p.read.time;
		}
		assert_int_equal(hpm_profile_writer__close(w, NULL), 0);
		size_t len;
		unsigned char *buf = slurp(fd, &len);
		struct hpm_profile *prof;
		assert_int_equal(hpm_profile__open_mem(buf, len, &prof), 0);
		char why[200];
		struct timeline_opts o = { .max_bins = capped ? 4 : 0 };
		struct timeline *t = timeline__from_profile(prof, &o, why, sizeof(why));
		assert_non_null(t);
		const struct timeline_series *s = find(t, "cpu-clock", "spin/5");
		assert_non_null(s);
		assert_true(s->total == 950000);
		if (!capped) {
			assert_int_equal(t->bin_ns, 10 * ms);
			assert_int_equal(t->nr_bins, 10);
			for (size_t i = 0; i < 9; i++)
				assert_true(s->count[i] == 100000);
			assert_true(s->count[9] == 50000); /* 90 to 95 ms */
		} else { /* 10 bins in at most 4: 40 ms each */
			assert_int_equal(t->bin_ns, 40 * ms);
			assert_int_equal(t->nr_bins, 3);
			assert_true(s->count[0] == 400000 && s->count[1] == 400000);
			assert_true(s->count[2] == 150000);
		}
		timeline__free(t);
		hpm_profile__free(prof);
		free(buf);
	}
}

/* A timeline of @mode (0: none said; @old: a writer whose sz ends before
 * the field) with readings of one process, or of two (@two: process 9's
 * too), written to a buffer; its header block's length in *@meta_len. */
static unsigned char *mode_profile(uint32_t mode, bool old, bool two, size_t *len,
				   uint32_t *meta_len)
{
	const uint64_t t0 = 1000000000ull, ms = 1000000;
	int fd = memfd_create("prof", 0);
	assert_true(fd >= 0);
	struct hpm_profile_meta m = { .sz = sizeof(m), .command = "c", .host = "h",
				      .arch = "x86_64", .cpu_model = "m", .kernel = "k",
				      .nr_events = 1, .events = pevents, .page_size = 4096,
				      .timeline_ns = 10 * ms, .timeline_mode = mode };
	if (old)
		m.sz = offsetof(struct hpm_profile_meta, timeline_mode);
	struct hpm_profile_writer *w = hpm_profile_writer__new(dup(fd), &m, NULL);
	assert_non_null(w);
	struct hpm_prec p = { .type = HPM_PREC_COMM };
	p.comm = (struct hpm_comm_rec){ .pid = 5, .tid = 5, .time = t0, .comm = "spin" };
	assert_int_equal(hpm_profile_writer__add(w, &p), 0);
	for (uint64_t i = 0; i < 4; i++) {
		for (pid_t pid = 5; pid <= (two ? 9 : 5); pid += 4) {
			uint64_t v = 1000 * (i + 1) + (uint64_t)pid;
			p = (struct hpm_prec){ .type = HPM_PREC_TIMELINE };
			p.read = (struct hpm_read_rec){ .pid = pid, .tid = pid,
							.time = t0 + (i + 1) * 10 * ms,
							.start = t0 + i * 10 * ms, .nr_values = 1,
							.values = &v };
			assert_int_equal(hpm_profile_writer__add(w, &p), 0);
		}
	}
	assert_int_equal(hpm_profile_writer__close(w, NULL), 0);
	unsigned char *buf = slurp(fd, len);
	*meta_len = (uint32_t)buf[12] | (uint32_t)buf[13] << 8 | (uint32_t)buf[14] << 16 |
		    (uint32_t)buf[15] << 24;
	return buf;
}

/* Header key 15, the timeline's mode: written when given (two bytes:
 * key and value), not by a writer whose sz ends before it; read back as
 * given, and as per thread when absent. A polled timeline of one process
 * shows "all" alone (its process's lane would be the same series), of
 * two processes a lane each; per thread, "all" and the thread's lane.
 * The totals are the readings' sums, exactly, whatever is shown. */
static void test_profile_mode(void **state)
{
	(void)state;
	static const struct {
		uint32_t mode;
		bool old, two;
		uint32_t read_as;
		enum timeline_source src;
		size_t nr_series;
		int line;
	} rows[] = {
		{ 0, false, false, HPM_PROFILE_TL_THREADS, TL_SRC_RECORDS, 2, __LINE__ },
		{ HPM_PROFILE_TL_THREADS, false, false, HPM_PROFILE_TL_THREADS, TL_SRC_RECORDS, 2,
		  __LINE__ },
		{ HPM_PROFILE_TL_PROCESS, false, false, HPM_PROFILE_TL_PROCESS, TL_SRC_POLLED, 1,
		  __LINE__ },
		{ HPM_PROFILE_TL_PROCESS, false, true, HPM_PROFILE_TL_PROCESS, TL_SRC_POLLED, 3,
		  __LINE__ },
		{ HPM_PROFILE_TL_PROCESS, true, false, HPM_PROFILE_TL_THREADS, TL_SRC_RECORDS, 2,
		  __LINE__ },
	};
	size_t len0;
	uint32_t base;
	free(mode_profile(0, false, false, &len0, &base));
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		size_t len;
		uint32_t mlen;
		unsigned char *buf = mode_profile(rows[i].mode, rows[i].old, rows[i].two, &len,
						  &mlen);
		bool written = rows[i].mode && !rows[i].old;
		if (mlen != base + (written ? 2 : 0))
			fail_msg("row of line %d: header block of %u bytes, not %u", rows[i].line,
				 mlen, base + (written ? 2 : 0));
		assert_int_equal(buf[10], 2); /* no new minor version */
		struct hpm_profile *prof;
		assert_int_equal(hpm_profile__open_mem(buf, len, &prof), 0);
		if (hpm_profile__meta(prof)->timeline_mode != rows[i].read_as)
			fail_msg("row of line %d: read as mode %u", rows[i].line,
				 hpm_profile__meta(prof)->timeline_mode);
		char why[200];
		struct timeline *t = timeline__from_profile(prof, NULL, why, sizeof(why));
		assert_non_null(t);
		if (t->source != rows[i].src || t->nr_series != rows[i].nr_series)
			fail_msg("row of line %d: source %d with %zu series", rows[i].line,
				 (int)t->source, t->nr_series);
		assert_int_equal(t->interval_ns, 10000000);
		const struct timeline_series *all = find(t, "cpu-clock", "all");
		assert_non_null(all);
		assert_true(all->total == (rows[i].two ? 10000 + 4 * 5 + 10000 + 4 * 9
						       : 10000 + 4 * 5));
		const struct timeline_series *p5 = find(t, "cpu-clock", "spin/5");
		if (rows[i].nr_series == 1) {
			assert_null(p5);
		} else {
			assert_non_null(p5);
			assert_true(p5->total == 10000 + 4 * 5);
		}
		if (rows[i].two)
			assert_true(find(t, "cpu-clock", "9")->total == 10000 + 4 * 9);
		timeline__free(t);
		hpm_profile__free(prof);
		free(buf);
	}
}

/*
 * A group of software events alone takes no counter and is never
 * multiplexed: readings that say it ran half the time it was enabled are
 * not scaled; a software member of a hardware group is, with its leader.
 * Threads are named as report names them: a thread that never named
 * itself by the name it inherited at its FORK, else by its process's.
 */
static void test_profile_software(void **state)
{
	(void)state;
	int fd = memfd_create("prof", 0);
	assert_true(fd >= 0);
	struct hpm_profile_event ev[4] = { pevents[0], pevents[1], pevents[0], pevents[1] };
	ev[0].group_size = ev[1].group_size = 2; /* {cpu-clock, page-faults} */
	ev[1].leader = 0;
	ev[1].trigger = false;
	ev[2].name = "cycles"; /* {cycles, page-faults}: a hardware group */
	ev[2].type = PERF_TYPE_HARDWARE;
	ev[2].leader = 2;
	ev[2].group_size = ev[3].group_size = 2;
	ev[3].name = "faults-hw";
	ev[3].leader = 2;
	ev[3].trigger = false;
	struct hpm_profile_meta m = { .sz = sizeof(m), .command = "c", .host = "h", .arch = "x86_64",
				      .cpu_model = "m", .kernel = "k", .nr_events = 4,
				      .events = ev, .page_size = 4096, .timeline_ns = 10000000 };
	struct hpm_profile_writer *w = hpm_profile_writer__new(dup(fd), &m, NULL);
	assert_non_null(w);
	const uint64_t t0 = 1000000000ull, ms = 1000000;
	struct hpm_prec p = { .type = HPM_PREC_COMM };
	p.comm = (struct hpm_comm_rec){ .pid = 5, .tid = 5, .time = t0, .comm = "main" };
	assert_int_equal(hpm_profile_writer__add(w, &p), 0);
	p = (struct hpm_prec){ .type = HPM_PREC_FORK };
	p.task = (struct hpm_task_rec){ .pid = 5, .ppid = 5, .tid = 7, .ptid = 5, .time = t0 };
	assert_int_equal(hpm_profile_writer__add(w, &p), 0);
	/* threads 7 (forked by 5) and 8 (no record names it), each group */
	for (int i = 0; i < 4; i++) {
		uint64_t v[2] = { 10000000, 3 };
		p = (struct hpm_prec){ .type = HPM_PREC_TIMELINE };
		p.read = (struct hpm_read_rec){ .pid = 5, .tid = 7 + i % 2, .time = t0 + 10 * ms,
						.start = t0, .ev = i < 2 ? 0 : 2, .final = true,
						.enabled = 4 * ms, .running = 2 * ms, .nr_values = 2,
						.values = v };
		assert_int_equal(hpm_profile_writer__add(w, &p), 0);
	}
	assert_int_equal(hpm_profile_writer__close(w, NULL), 0);
	size_t len;
	unsigned char *buf = slurp(fd, &len);
	struct hpm_profile *prof;
	assert_int_equal(hpm_profile__open_mem(buf, len, &prof), 0);
	char why[200];
	struct timeline *t = timeline__from_profile(prof, NULL, why, sizeof(why));
	assert_non_null(t);
	static const char *const threads[] = { "all", "main/7", "main/8" };
	for (size_t k = 0; k < 3; k++) {
		const struct timeline_series *sw[2] = { find(t, "cpu-clock", threads[k]),
							find(t, "page-faults", threads[k]) };
		const struct timeline_series *hw[2] = { find(t, "cycles", threads[k]),
							find(t, "faults-hw", threads[k]) };
		for (int e = 0; e < 2; e++) {
			assert_non_null(sw[e]);
			assert_non_null(hw[e]);
			assert_true(sw[e]->coverage[0] == 1);
			assert_true(hw[e]->coverage[0] == 0.5);
		}
	}
	assert_null(find(t, "cpu-clock", "7"));
	assert_null(find(t, "cpu-clock", "8"));
	timeline__free(t);
	hpm_profile__free(prof);
	free(buf);
}

int main(void)
{
	assert_non_null(mkdtemp(dir));
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stat_bins),
		cmocka_unit_test(test_stat_cap),
		cmocka_unit_test(test_stat_bad),
		cmocka_unit_test(test_profile_samples),
		cmocka_unit_test(test_profile_records),
		cmocka_unit_test(test_profile_software),
		cmocka_unit_test(test_profile_spread),
		cmocka_unit_test(test_profile_mode),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		rc = rc ? rc : 1;
	return rc;
}
