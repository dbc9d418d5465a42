// SPDX-License-Identifier: MIT
/*
 * hpm_profile__repeats: the samples right after a sample that repeat it
 * (same event, task, CPU, mode, period and address; a time not before
 * the last; the same chain unless chains are skipped) are taken in one
 * call, exactly as many as there are, and the record after them is the
 * next one hpm_profile__next hands out. Group counts, and registers and
 * stacks that are not skipped, are never taken as repeats.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include <linux/perf_event.h>
#include <hpmon/profile.h>

enum { EV_PLAIN, EV_CHAIN, EV_READ };

static const struct hpm_profile_event events[4] = {
	[EV_PLAIN] = { .name = "exec:f", .type = 5, .period = 1, .trigger = true,
		       .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
		       .leader = EV_PLAIN, .group_size = 1 },
	[EV_CHAIN] = { .name = "cpu-clock", .type = 1, .period = 1000, .trigger = true,
		       .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN,
		       .leader = EV_CHAIN, .group_size = 1 },
	[EV_READ] = { .name = "cycles", .type = 0, .period = 1000, .trigger = true,
		      .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_READ, .leader = EV_READ,
		      .group_size = 2 },
	[EV_READ + 1] = { .name = "instructions", .type = 0, .config = 1, .leader = EV_READ,
			  .group_size = 2 },
};
/* the header's fifth event (after the group's member) */
static const struct hpm_profile_event stack_ev = {
	.name = "task-clock", .type = 1, .config = 1, .period = 500, .trigger = true,
	.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER,
	.leader = 4, .group_size = 1
};
#define STACK_EV 4

struct w {
	struct hpm_profile_writer *w;
	int fd;
	uint64_t chain[4], vals[2], regs[2];
	unsigned char stack[16];
};

static void w_open(struct w *x, size_t chunk)
{
	static struct hpm_profile_event ev[5];
	memcpy(ev, events, sizeof(events));
	ev[STACK_EV] = stack_ev;
	struct hpm_profile_meta m = { .sz = sizeof(m), .command = "t", .host = "h",
				      .arch = "x86_64", .cpu_model = "m", .kernel = "6",
				      .nr_events = 5, .events = ev, .callchain = 1,
				      .page_size = 4096 };
	struct hpm_profile_writer_opts wo = { .sz = sizeof(wo), .chunk_bytes = chunk };
	memset(x, 0, sizeof(*x));
	x->fd = memfd_create("prof", 0);
	assert_true(x->fd >= 0);
	x->w = hpm_profile_writer__new(dup(x->fd), &m, &wo);
	assert_non_null(x->w);
}

/* A sample of event @ev at @ip and @time; @tag varies the chain's, the
 * counts' or the stack's content. */
static void w_sample(struct w *x, uint32_t ev, uint64_t ip, uint64_t time, unsigned tag)
{
	struct hpm_prec p = { .type = HPM_PREC_SAMPLE };
	struct hpm_sample *s = &p.sample;
	s->ev = ev;
	s->pid = 10;
	s->tid = 11;
	s->cpu = 1;
	s->time = time;
	s->ip = ip;
	s->period = ev == EV_PLAIN ? 1 : ev == STACK_EV ? 500 : 1000;
	s->mode = HPM_MODE_USER;
	if (ev == EV_CHAIN) {
		x->chain[0] = (uint64_t)-512;
		x->chain[1] = ip;
		x->chain[2] = 0x5000 + tag;
		x->chain[3] = 0x6000;
		s->nr_chain = 4;
		s->chain = x->chain;
	} else if (ev == EV_READ) {
		x->vals[0] = 1000ull * time + tag;
		x->vals[1] = 2000ull * time;
		s->nr_values = 2;
		s->values = x->vals;
	} else if (ev == STACK_EV) {
		x->regs[0] = tag;
		x->regs[1] = 0x7ff0;
		s->regs_abi = 2;
		s->nr_regs = 2;
		s->regs = x->regs;
		memset(x->stack, (int)tag, sizeof(x->stack));
		s->stack_len = sizeof(x->stack);
		s->stack = x->stack;
	}
	assert_int_equal(hpm_profile_writer__add(x->w, &p), 0);
}

static void w_comm(struct w *x, uint64_t time)
{
	struct hpm_prec p = { .type = HPM_PREC_COMM };
	p.comm = (struct hpm_comm_rec){ 10, 11, time, false, "renamed" };
	assert_int_equal(hpm_profile_writer__add(x->w, &p), 0);
}

/* Close the file and open it for reading (the bytes in *@buf, freed by
 * the caller after the profile). */
static struct hpm_profile *w_read(struct w *x, unsigned char **buf, unsigned skip)
{
	struct hpm_profile *p;
	assert_int_equal(hpm_profile_writer__close(x->w, NULL), 0);
	size_t len = (size_t)lseek(x->fd, 0, SEEK_END);
	*buf = malloc(len);
	assert_non_null(*buf);
	assert_int_equal(pread(x->fd, *buf, len, 0), (ssize_t)len);
	close(x->fd);
	assert_int_equal(hpm_profile__open_mem(*buf, len, &p), 0);
	hpm_profile__skip(p, skip);
	return p;
}

/* The next record is a sample at @ip and @time. */
static void expect_sample(struct hpm_profile *p, uint64_t ip, uint64_t time)
{
	struct hpm_prec r;
	assert_int_equal(hpm_profile__next(p, &r), 1);
	assert_int_equal(r.type, HPM_PREC_SAMPLE);
	assert_int_equal(r.sample.ip, ip);
	assert_int_equal(r.sample.time, time);
}

static void test_runs(void **state)
{
	struct w x;
	unsigned char *buf;
	(void)state;
	w_open(&x, 0);
	for (unsigned i = 0; i < 10; i++)            /* a run of 10 */
		w_sample(&x, EV_PLAIN, 0x1000, 100 + i, 0);
	w_sample(&x, EV_PLAIN, 0x1004, 110, 0);      /* another address */
	for (unsigned i = 0; i < 5; i++)             /* equal times repeat too */
		w_sample(&x, EV_PLAIN, 0x1004, 110, 0);
	w_sample(&x, EV_PLAIN, 0x1004, 109, 0);      /* time goes back: not a repeat */
	for (unsigned i = 0; i < 10; i++)            /* until and max cut this one */
		w_sample(&x, EV_PLAIN, 0x1008, 200 + i, 0);
	w_comm(&x, 210);                             /* a record between */
	w_sample(&x, EV_PLAIN, 0x1008, 211, 0);
	w_sample(&x, EV_PLAIN, 0x1008, 212, 0);
	struct hpm_profile *p = w_read(&x, &buf, 0);
	struct hpm_prec r;

	expect_sample(p, 0x1000, 100);
	assert_int_equal(hpm_profile__repeats(p, UINT64_MAX, UINT32_MAX), 9);
	assert_int_equal(hpm_profile__repeats(p, UINT64_MAX, UINT32_MAX), 0);
	expect_sample(p, 0x1004, 110);
	assert_int_equal(hpm_profile__repeats(p, UINT64_MAX, UINT32_MAX), 5);
	expect_sample(p, 0x1004, 109);
	assert_int_equal(hpm_profile__repeats(p, UINT64_MAX, UINT32_MAX), 0);
	expect_sample(p, 0x1008, 200);
	assert_int_equal(hpm_profile__repeats(p, UINT64_MAX, 3), 3);     /* 201-203 */
	assert_int_equal(hpm_profile__repeats(p, 207, UINT32_MAX), 3);   /* 204-206 */
	assert_int_equal(hpm_profile__repeats(p, 207, UINT32_MAX), 0);
	expect_sample(p, 0x1008, 207);  /* the times of the repeats were kept */
	assert_int_equal(hpm_profile__repeats(p, UINT64_MAX, UINT32_MAX), 2);
	assert_int_equal(hpm_profile__next(p, &r), 1);
	assert_int_equal(r.type, HPM_PREC_COMM);
	assert_int_equal(hpm_profile__repeats(p, UINT64_MAX, UINT32_MAX), 0); /* after no sample */
	expect_sample(p, 0x1008, 211);
	assert_int_equal(hpm_profile__repeats(p, UINT64_MAX, UINT32_MAX), 1);
	assert_int_equal(hpm_profile__next(p, &r), 0);
	assert_int_equal(hpm_profile__repeats(p, UINT64_MAX, UINT32_MAX), 0);
	assert_true(hpm_profile__status(p)->complete);
	hpm_profile__free(p);
	free(buf);
}

/* Chains repeat when they are the same, or when they are skipped; group
 * counts never; registers and stacks only skipped. */
static void test_details(void **state)
{
	(void)state;
	for (unsigned skip = 0; skip < 2; skip++) {
		struct w x;
		unsigned char *buf;
		w_open(&x, 0);
		for (unsigned i = 0; i < 4; i++)
			w_sample(&x, EV_CHAIN, 0x2000, 10 + i, 0);
		for (unsigned i = 0; i < 4; i++) /* another caller each time */
			w_sample(&x, EV_CHAIN, 0x2000, 20 + i, 1 + i);
		for (unsigned i = 0; i < 4; i++)
			w_sample(&x, EV_READ, 0x3000, 30 + i, 0);
		for (unsigned i = 0; i < 4; i++)
			w_sample(&x, STACK_EV, 0x4000, 40 + i, 0);
		w_sample(&x, EV_PLAIN, 0x5000, 50, 0);
		struct hpm_profile *p = w_read(&x, &buf, skip ? HPM_PROFILE_SKIP_CHAINS |
							  HPM_PROFILE_SKIP_STACKS : 0);
		struct hpm_prec r;
		expect_sample(p, 0x2000, 10);
		if (skip) { /* whatever the callers */
			assert_int_equal(hpm_profile__repeats(p, UINT64_MAX, UINT32_MAX), 7);
		} else {
			assert_int_equal(hpm_profile__repeats(p, UINT64_MAX, UINT32_MAX), 3);
			expect_sample(p, 0x2000, 20);
			for (unsigned i = 1; i < 4; i++) {
				assert_int_equal(hpm_profile__repeats(p, UINT64_MAX, UINT32_MAX), 0);
				assert_int_equal(hpm_profile__next(p, &r), 1);
				assert_int_equal(r.sample.nr_chain, 4);
				assert_int_equal(r.sample.chain[2], 0x5001 + i); /* decoded whole */
			}
		}
		for (unsigned i = 0; i < 4; i++) {
			expect_sample(p, 0x3000, 30 + i);
			assert_int_equal(hpm_profile__repeats(p, UINT64_MAX, UINT32_MAX), 0);
		}
		expect_sample(p, 0x4000, 40);
		if (skip) {
			assert_int_equal(hpm_profile__repeats(p, UINT64_MAX, UINT32_MAX), 3);
		} else {
			for (unsigned i = 1; i < 4; i++) {
				assert_int_equal(hpm_profile__repeats(p, UINT64_MAX, UINT32_MAX), 0);
				expect_sample(p, 0x4000, 40 + i);
			}
		}
		expect_sample(p, 0x5000, 50);
		assert_int_equal(hpm_profile__next(p, &r), 0);
		assert_true(hpm_profile__status(p)->complete);
		hpm_profile__free(p);
		free(buf);
	}
}

/* A long stream in small chunks: next plus repeats counts every sample
 * once, per address, as next alone does; runs end at a chunk's end. */
static void test_stream(void **state)
{
	enum { N = 200000, ADDRS = 8 };
	uint64_t by_next[ADDRS] = { 0 }, by_runs[ADDRS] = { 0 };
	uint64_t runs = 0;
	(void)state;
	for (int pass = 0; pass < 2; pass++) {
		struct w x;
		unsigned char *buf;
		uint32_t seed = 12345;
		w_open(&x, 4096);
		uint64_t t = 0;
		for (unsigned i = 0; i < N;) {
			seed = seed * 1103515245u + 12345u;
			/* runs of 1 to 16 at one of ADDRS addresses */
			unsigned a = (seed >> 16) % ADDRS, len = 1 + (seed >> 8) % 16;
			for (unsigned k = 0; k < len && i < N; k++, i++)
				w_sample(&x, (seed >> 4) % 3 ? EV_PLAIN : EV_CHAIN, 0x1000 + a * 16,
					 t += (seed >> 24) % 3, 0);
		}
		struct hpm_profile *p = w_read(&x, &buf, HPM_PROFILE_SKIP_CHAINS);
		struct hpm_prec r;
		uint64_t *count = pass ? by_runs : by_next;
		while (hpm_profile__next(p, &r) > 0) {
			assert_int_equal(r.type, HPM_PREC_SAMPLE);
			unsigned a = (unsigned)(r.sample.ip - 0x1000) / 16;
			assert_true(a < ADDRS);
			count[a]++;
			if (pass) {
				uint32_t n = hpm_profile__repeats(p, UINT64_MAX, UINT32_MAX);
				count[a] += n;
				runs += n != 0;
			}
		}
		assert_true(hpm_profile__status(p)->complete);
		hpm_profile__free(p);
		free(buf);
	}
	uint64_t total = 0;
	for (unsigned a = 0; a < ADDRS; a++) {
		assert_int_equal(by_next[a], by_runs[a]);
		total += by_runs[a];
	}
	assert_int_equal(total, N);
	assert_true(runs > N / 20); /* runs were taken */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runs),
		cmocka_unit_test(test_details),
		cmocka_unit_test(test_stream),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
