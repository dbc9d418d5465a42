// SPDX-License-Identifier: MIT
/*
 * The time-ordering queue of sampling sessions (lib/sample/record-order.c):
 * records of several buffers come out merged by time, a round's records
 * wait until a round far enough back vouches for them, a record read late
 * still finds its place, the last flush empties the queue, records without
 * a time stay behind their buffer's previous record, copies do not point
 * into the (reused) ring buffer, memory stays bounded, and a simulated
 * kernel whose records become visible with a delay gives a sorted stream.
 * Then a real session (software events): what hpm_record__drain hands
 * out is in time order, each thread's rename before its samples.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <hpmon/record.h>
#include "sample/record-order-internal.h"

#define MS 1000000ull
#define BIG (1u << 30)

/* What came out: each record's time and its tag (the sample's ip, or the
 * name of a COMM). */
#define OUT_MAX 8192
struct out {
	size_t n;
	uint64_t time[OUT_MAX];
	uint64_t tag[OUT_MAX];
	int fail_at; /* the callback returns -EIO for this record (1-based) */
};

static struct out *new_out(void)
{
	struct out *o = calloc(1, sizeof(*o));
	assert_non_null(o);
	return o;
}

static int collect(const struct hpm_prec *p, void *arg)
{
	struct out *o = arg;
	assert_true(o->n < OUT_MAX);
	switch (p->type) {
	case HPM_PREC_SAMPLE:
		o->time[o->n] = p->sample.time;
		o->tag[o->n] = p->sample.ip;
		break;
	case HPM_PREC_COMM:
		o->time[o->n] = p->comm.time;
		o->tag[o->n] = (uint64_t)strtoull(p->comm.comm, NULL, 10);
		break;
	case HPM_PREC_LOST:
		o->time[o->n] = p->lost.time;
		o->tag[o->n] = p->lost.count;
		break;
	default:
		fail_msg("unexpected record type %d", (int)p->type);
	}
	o->n++;
	return o->fail_at && (int)o->n == o->fail_at ? -EIO : 0;
}

/* A sample at @time tagged @tag (the tag stands in the ip). */
static struct hpm_prec sample(uint64_t time, uint64_t tag)
{
	struct hpm_prec p;
	memset(&p, 0, sizeof(p));
	p.type = HPM_PREC_SAMPLE;
	p.sample.time = time;
	p.sample.ip = tag;
	return p;
}

static void add(struct hpm_order *q, size_t src, uint64_t time, uint64_t tag)
{
	struct hpm_prec p = sample(time, tag);
	assert_int_equal(hpm__order_add(q, src, &p), 0);
}

static void expect_tags(const struct out *o, const uint64_t *tags, size_t n)
{
	assert_int_equal(o->n, n);
	for (size_t i = 0; i < n; i++) {
		if (o->tag[i] != tags[i])
			fail_msg("record %zu: tag %llu, expected %llu", i,
				 (unsigned long long)o->tag[i], (unsigned long long)tags[i]);
	}
}

/* Two buffers drained one after the other come out merged by time, round
 * N's records at the end of round N+1. */
static void test_across_buffers(void **state)
{
	struct hpm_order *q = hpm__order_new(2, 0, BIG);
	struct out *o = new_out();
	struct hpm_order_stats st;
	(void)state;
	assert_non_null(q);

	hpm__order_begin(q, 0);
	add(q, 0, 10, 10);
	add(q, 0, 30, 30);
	add(q, 0, 50, 50);
	add(q, 1, 20, 20);
	add(q, 1, 40, 40);
	hpm__order_end(q, 1);
	/* nothing vouches for round 1 yet: buffer 1 could still hold 45 */
	assert_int_equal(hpm__order_flush(q, false, collect, o), 0);
	hpm__order_stats(q, &st);
	assert_int_equal(st.queued, 5);

	hpm__order_begin(q, 2);
	add(q, 0, 60, 60);
	add(q, 1, 45, 45);
	add(q, 1, 70, 70);
	hpm__order_end(q, 3);
	/* round 1 read up to 50: everything up to 50 is in */
	assert_int_equal(hpm__order_flush(q, false, collect, o), 6);
	expect_tags(o, (const uint64_t[]){ 10, 20, 30, 40, 45, 50 }, 6);

	hpm__order_begin(q, 4);
	hpm__order_end(q, 5);
	/* round 2 read up to 70 */
	assert_int_equal(hpm__order_flush(q, false, collect, o), 2);
	expect_tags(o, (const uint64_t[]){ 10, 20, 30, 40, 45, 50, 60, 70 }, 8);

	hpm__order_stats(q, &st);
	assert_int_equal(st.queued, 0);
	assert_int_equal(st.bytes, 0);
	assert_int_equal(st.late, 0);
	assert_int_equal(st.early, 0);
	hpm__order_free(q);
	free(o);
}

/* A round vouches only for rounds that ended at least the gap before it
 * began; rounds closer together than gap/8 share a mark, which only
 * postpones their records. */
static void test_gap(void **state)
{
	struct hpm_order *q = hpm__order_new(1, 10 * MS, BIG);
	struct out *o = new_out();
	(void)state;

	hpm__order_begin(q, 0);
	add(q, 0, 100, 1);
	hpm__order_end(q, 1 * MS);
	hpm__order_begin(q, 5 * MS);
	add(q, 0, 200, 2);
	hpm__order_end(q, 6 * MS);
	assert_int_equal(hpm__order_flush(q, false, collect, o), 0);
	hpm__order_begin(q, 11 * MS - 1);
	hpm__order_end(q, 11 * MS - 1);
	assert_int_equal(hpm__order_flush(q, false, collect, o), 0);
	hpm__order_begin(q, 11 * MS); /* 10 ms after round 1: up to 100 */
	hpm__order_end(q, 11 * MS);
	assert_int_equal(hpm__order_flush(q, false, collect, o), 1);
	hpm__order_begin(q, 16 * MS - 1);
	hpm__order_end(q, 16 * MS - 1);
	assert_int_equal(hpm__order_flush(q, false, collect, o), 0);
	hpm__order_begin(q, 16 * MS); /* 10 ms after round 2: up to 200 */
	hpm__order_end(q, 16 * MS);
	assert_int_equal(hpm__order_flush(q, false, collect, o), 1);
	expect_tags(o, (const uint64_t[]){ 1, 2 }, 2);

	/* 300 ends at 20 ms, 400 at 21 ms: one mark, vouched for at 31 ms */
	hpm__order_begin(q, 20 * MS);
	add(q, 0, 300, 3);
	hpm__order_end(q, 20 * MS);
	hpm__order_begin(q, 21 * MS);
	add(q, 0, 400, 4);
	hpm__order_end(q, 21 * MS);
	hpm__order_begin(q, 30 * MS);
	hpm__order_end(q, 30 * MS);
	assert_int_equal(hpm__order_flush(q, false, collect, o), 0);
	hpm__order_begin(q, 31 * MS);
	hpm__order_end(q, 31 * MS);
	assert_int_equal(hpm__order_flush(q, false, collect, o), 2);
	expect_tags(o, (const uint64_t[]){ 1, 2, 3, 4 }, 4);

	/* many rounds in quick succession keep a bounded number of marks and
	 * still let records out */
	for (uint64_t k = 0; k < 1000; k++) {
		hpm__order_begin(q, 40 * MS + k * 100000);
		add(q, 0, 1000 + k, 1000 + k);
		hpm__order_end(q, 40 * MS + k * 100000 + 1000);
		assert_true(hpm__order_flush(q, false, collect, o) >= 0);
	}
	/* 100 ms of rounds, 10 ms of gap: most are out */
	assert_true(o->n >= 4 + 850);
	for (size_t i = 4; i < o->n; i++)
		assert_int_equal(o->tag[i], 1000 + i - 4);
	hpm__order_free(q);
	free(o);
}

/* A record of buffer 1 that becomes visible a round after later records
 * of buffer 0 were read still goes out in its place; one whose place is
 * gone already (it broke the queue's assumption) is not dropped but
 * counted. */
static void test_late(void **state)
{
	struct hpm_order *q = hpm__order_new(2, 0, BIG);
	struct out *o = new_out();
	struct hpm_order_stats st;
	(void)state;

	hpm__order_begin(q, 0);
	add(q, 0, 100, 100);
	add(q, 0, 300, 300);
	hpm__order_end(q, 1);
	assert_int_equal(hpm__order_flush(q, false, collect, o), 0);
	hpm__order_begin(q, 2);
	add(q, 1, 200, 200); /* older than what round 1 read */
	add(q, 0, 400, 400);
	hpm__order_end(q, 3);
	assert_int_equal(hpm__order_flush(q, false, collect, o), 3);
	expect_tags(o, (const uint64_t[]){ 100, 200, 300 }, 3);
	hpm__order_stats(q, &st);
	assert_int_equal(st.late, 0);

	hpm__order_begin(q, 4);
	add(q, 1, 250, 250); /* its place, before 300, was handed out */
	hpm__order_end(q, 5);
	assert_int_equal(hpm__order_flush(q, false, collect, o), 2);
	expect_tags(o, (const uint64_t[]){ 100, 200, 300, 250, 400 }, 5);
	hpm__order_stats(q, &st);
	assert_int_equal(st.late, 1);
	hpm__order_free(q);
	free(o);
}

/* The last flush hands out everything, sorted, whatever the rounds said;
 * freeing a queue that still holds records frees them. */
static void test_flush_all(void **state)
{
	struct hpm_order *q = hpm__order_new(3, 10 * MS, BIG);
	struct out *o = new_out();
	struct hpm_order_stats st;
	(void)state;

	hpm__order_begin(q, 0);
	for (uint64_t i = 0; i < 300; i++) /* each buffer backwards */
		add(q, i % 3, 1000 - 3 * i + i % 3, 1000 - 3 * i + i % 3);
	hpm__order_end(q, 1);
	assert_int_equal(hpm__order_flush(q, false, collect, o), 0);
	hpm__order_stats(q, &st);
	assert_int_equal(st.queued, 300);
	assert_true(st.bytes > 0);
	assert_int_equal(hpm__order_flush(q, true, collect, o), 300);
	for (size_t i = 1; i < o->n; i++)
		assert_true(o->time[i - 1] < o->time[i]);
	hpm__order_stats(q, &st);
	assert_int_equal(st.queued, 0);
	assert_int_equal(st.bytes, 0);
	assert_int_equal(hpm__order_flush(q, true, collect, o), 0);

	hpm__order_begin(q, 2);
	add(q, 0, 5000, 1);
	add(q, 1, 5001, 2);
	hpm__order_free(q); /* the sanitizer build checks for leaks */
	free(o);
}

/* Records without a time stay right behind the record read before them
 * from the same buffer; when that one went out already, or the buffer
 * had none, they go out next. */
static void test_no_time(void **state)
{
	struct hpm_order *q = hpm__order_new(3, 0, BIG);
	struct out *o = new_out();
	struct hpm_prec lost;
	(void)state;

	memset(&lost, 0, sizeof(lost));
	lost.type = HPM_PREC_LOST;
	hpm__order_begin(q, 0);
	add(q, 0, 10, 10);
	add(q, 0, 30, 30);
	lost.lost.count = 31; /* after 30, in buffer 0 */
	assert_int_equal(hpm__order_add(q, 0, &lost), 0);
	add(q, 0, 50, 50);
	add(q, 1, 20, 20);
	add(q, 1, 30, 32); /* same time as 30 of buffer 0, read after it */
	add(q, 1, 40, 40);
	hpm__order_end(q, 1);
	assert_int_equal(hpm__order_flush(q, true, collect, o), 7);
	expect_tags(o, (const uint64_t[]){ 10, 20, 30, 31, 32, 40, 50 }, 7);
	assert_int_equal(o->time[3], 0); /* handed out as it came: no time */

	/* 40, before buffer 1's next one, went out; buffer 2 had none: both
	 * after what went out (50), before what comes later (60) */
	hpm__order_begin(q, 2);
	add(q, 0, 60, 60);
	lost.lost.count = 51;
	assert_int_equal(hpm__order_add(q, 1, &lost), 0);
	lost.lost.count = 52;
	assert_int_equal(hpm__order_add(q, 2, &lost), 0);
	hpm__order_end(q, 3);
	assert_int_equal(hpm__order_flush(q, true, collect, o), 3);
	expect_tags(o, (const uint64_t[]){ 10, 20, 30, 31, 32, 40, 50, 51, 52, 60 }, 10);
	struct hpm_order_stats st;
	hpm__order_stats(q, &st);
	assert_int_equal(st.late, 0);
	hpm__order_free(q);
	free(o);
}

/* check_copy: the records of test_copies as they come out. */
static int check_copy(const struct hpm_prec *r, void *arg)
{
	int *n = arg;
	switch ((*n)++) {
	case 0:
		assert_int_equal(r->type, HPM_PREC_MMAP);
		assert_string_equal(r->mmap.filename, "/usr/lib/libc.so.6");
		assert_int_equal(r->mmap.start, 0x1000);
		assert_int_equal(r->mmap.build_id_len, 2);
		assert_int_equal(r->mmap.build_id[1], 0xef);
		break;
	case 1:
		assert_int_equal(r->type, HPM_PREC_COMM);
		assert_string_equal(r->comm.comm, "spin-t1");
		assert_int_equal(r->comm.tid, 6);
		break;
	case 2: {
		const struct hpm_sample *s = &r->sample;
		assert_int_equal(r->type, HPM_PREC_SAMPLE);
		assert_int_equal(s->nr_values, 3);
		assert_int_equal(s->values[0], 11);
		assert_int_equal(s->values[2], 33);
		assert_int_equal(s->nr_chain, 5);
		for (int i = 0; i < 5; i++)
			assert_int_equal(s->chain[i], (uint64_t)i + 1);
		assert_int_equal(s->regs_abi, 2);
		assert_int_equal(s->nr_regs, 2);
		assert_int_equal(s->regs[1], 8);
		assert_int_equal(s->stack_len, 13);
		for (int i = 0; i < 13; i++)
			assert_int_equal(s->stack[i], 0xa0 + i);
		assert_int_equal((uintptr_t)s->chain % 8, 0);
		assert_int_equal((uintptr_t)s->regs % 8, 0);
		break;
	}
	case 3: /* a sample without the optional parts */
		assert_int_equal(r->type, HPM_PREC_SAMPLE);
		assert_null(r->sample.chain);
		assert_null(r->sample.values);
		assert_null(r->sample.stack);
		break;
	default:
		fail_msg("a record too many");
	}
	return 0;
}

/* Everything a record points to is copied: the ring buffer it was read
 * from is overwritten before the record goes out. */
static void test_copies(void **state)
{
	struct hpm_order *q = hpm__order_new(1, 0, BIG);
	uint64_t vals[3] = { 11, 22, 33 }, chain[5] = { 1, 2, 3, 4, 5 }, regs[2] = { 7, 8 };
	unsigned char stack[13];
	char name[32] = "/usr/lib/libc.so.6", comm[16] = "spin-t1";
	struct hpm_prec p[4];
	int n = 0;
	(void)state;

	for (size_t i = 0; i < sizeof(stack); i++)
		stack[i] = (unsigned char)(0xa0 + i);
	memset(p, 0, sizeof(p));
	p[0] = sample(30, 1);
	p[0].sample.nr_values = 3;
	p[0].sample.values = vals;
	p[0].sample.nr_chain = 5;
	p[0].sample.chain = chain;
	p[0].sample.regs_abi = 2;
	p[0].sample.nr_regs = 2;
	p[0].sample.regs = regs;
	p[0].sample.stack_len = sizeof(stack);
	p[0].sample.stack = stack;
	p[1].type = HPM_PREC_MMAP;
	p[1].mmap = (struct hpm_mmap_rec){ .pid = 5, .tid = 5, .time = 10, .start = 0x1000,
					   .len = 0x2000, .build_id_len = 2,
					   .build_id = { 0xbe, 0xef }, .filename = name };
	p[2].type = HPM_PREC_COMM;
	p[2].comm = (struct hpm_comm_rec){ .pid = 5, .tid = 6, .time = 20, .comm = comm };
	p[3] = sample(40, 2);
	hpm__order_begin(q, 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(hpm__order_add(q, 0, &p[i]), 0);
	hpm__order_end(q, 1);
	memset(vals, 0xff, sizeof(vals));
	memset(chain, 0xff, sizeof(chain));
	memset(regs, 0xff, sizeof(regs));
	memset(stack, 0xff, sizeof(stack));
	memset(name, 'x', sizeof(name) - 1);
	memset(comm, 'y', sizeof(comm) - 1);
	assert_int_equal(hpm__order_flush(q, true, check_copy, &n), 4);
	assert_int_equal(n, 4);
	hpm__order_free(q);
}

/* A negative value of the callback stops the flush and comes back; the
 * records after it stay queued and come out next time. */
static void test_callback_error(void **state)
{
	struct hpm_order *q = hpm__order_new(1, 0, BIG);
	struct out *o = new_out();
	struct hpm_prec bad = sample(1, 1);
	(void)state;

	hpm__order_begin(q, 0);
	for (uint64_t t = 1; t <= 5; t++)
		add(q, 0, t, t);
	hpm__order_end(q, 1);
	o->fail_at = 2;
	assert_int_equal(hpm__order_flush(q, true, collect, o), -EIO);
	expect_tags(o, (const uint64_t[]){ 1, 2 }, 2);
	o->fail_at = 0;
	assert_int_equal(hpm__order_flush(q, true, collect, o), 3);
	expect_tags(o, (const uint64_t[]){ 1, 2, 3, 4, 5 }, 5);
	assert_int_equal(hpm__order_add(q, 1, &bad), -EINVAL); /* no buffer 1 */
	hpm__order_free(q);
	free(o);
}

/* A long busy run (2 buffers at 10 kHz each, drained every 100 ms for
 * 100 s) holds at most two rounds; past the byte limit the oldest records
 * go out early and are counted. */
static void test_bounded(void **state)
{
	struct hpm_order *q = hpm__order_new(2, 10 * MS, BIG);
	struct out *o = new_out();
	struct hpm_order_stats st;
	uint64_t t = 0, now = 0, out = 0;
	(void)state;

	for (int round = 0; round < 1000; round++) {
		hpm__order_begin(q, now);
		for (int i = 0; i < 2000; i++, t += 50000)
			add(q, (size_t)i % 2, t + 1, t + 1);
		hpm__order_end(q, now + 1 * MS);
		o->n = 0;
		int n = hpm__order_flush(q, false, collect, o);
		assert_true(n >= 0);
		for (size_t i = 0; i < o->n; i++)
			assert_int_equal(o->tag[i], (out + i) * 50000 + 1);
		out += (uint64_t)n;
		hpm__order_stats(q, &st);
		assert_int_equal(st.queued, 2000);
		now += 100 * MS;
	}
	assert_int_equal(out, 999 * 2000);
	hpm__order_stats(q, &st);
	assert_true(st.max_bytes <= 4000 * 256);
	assert_int_equal(st.early, 0);
	hpm__order_free(q);

	/* a limit of 100 records' worth of bytes */
	q = hpm__order_new(1, 0, 1);
	add(q, 0, 1, 1);
	hpm__order_stats(q, &st);
	size_t one = (size_t)st.bytes;
	hpm__order_free(q);
	q = hpm__order_new(1, 0, 100 * one);
	o->n = 0;
	hpm__order_begin(q, 0);
	for (uint64_t i = 1; i <= 1000; i++)
		add(q, 0, i, i);
	hpm__order_end(q, 1);
	assert_int_equal(hpm__order_flush(q, false, collect, o), 900);
	for (size_t i = 0; i < o->n; i++)
		assert_int_equal(o->tag[i], i + 1);
	hpm__order_stats(q, &st);
	assert_int_equal(st.early, 900);
	assert_int_equal(st.queued, 100);
	hpm__order_free(q);
	free(o);
}

/*
 * A simulated kernel: every buffer gets records whose times grow, one in
 * eight visible only up to 2 ms after its timestamp (a writer that was
 * interrupted publishes late, and after later records of its buffer). The
 * reader takes each buffer's head in turn (a microsecond each) and sleeps
 * 0-3 ms between rounds, 100 ms now and then. With a gap above the delay
 * every record comes out once and the stream is sorted; without a gap the
 * same kernel gets records past the queue (so the delays do matter).
 */
struct sim_rec {
	uint64_t time, visible;
};

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

enum { NSRC = 4, PER = 1500 };

/* Run the simulation with @gap; returns the records out of order. */
static uint64_t simulate(uint64_t gap, uint64_t seed)
{
	static struct sim_rec rec[NSRC][PER];
	struct hpm_order *q = hpm__order_new(NSRC, gap, BIG);
	struct out *o = new_out();
	struct hpm_order_stats st;
	uint64_t now = 0, last = 0, got = 0, disorder = 0;
	size_t next[NSRC] = { 0 };

	for (int c = 0; c < NSRC; c++) {
		uint64_t t = 1000;
		for (int i = 0; i < PER; i++) {
			t += 1 + rnd(&seed) % 100000;
			rec[c][i].time = t;
			rec[c][i].visible = t + (rnd(&seed) % 8 == 0 ? rnd(&seed) % (2 * MS) : 0);
		}
		for (int i = 1; i < PER; i++) /* the ring holds them as published */
			for (int k = i; k > 0 && rec[c][k].visible < rec[c][k - 1].visible; k--) {
				struct sim_rec x = rec[c][k];
				rec[c][k] = rec[c][k - 1];
				rec[c][k - 1] = x;
			}
	}
	for (bool more = true; more;) {
		more = false;
		hpm__order_begin(q, now);
		for (int c = 0; c < NSRC; c++) {
			now += 1000;
			for (; next[c] < PER && rec[c][next[c]].visible <= now; next[c]++)
				add(q, (size_t)c, rec[c][next[c]].time, rec[c][next[c]].time);
			more |= next[c] < PER;
		}
		hpm__order_end(q, now);
		o->n = 0;
		assert_true(hpm__order_flush(q, !more, collect, o) >= 0);
		for (size_t i = 0; i < o->n; i++) {
			disorder += o->time[i] < last;
			if (o->time[i] > last)
				last = o->time[i];
		}
		got += o->n;
		now += rnd(&seed) % 16 == 0 ? 100 * MS : rnd(&seed) % (3 * MS);
	}
	assert_int_equal(got, NSRC * PER);
	hpm__order_stats(q, &st);
	assert_int_equal(st.late, disorder);
	assert_int_equal(st.early, 0);
	assert_int_equal(st.queued, 0);
	hpm__order_free(q);
	free(o);
	return disorder;
}

static void test_simulated_kernel(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 20; seed++)
		assert_int_equal(simulate(2 * MS + 1, seed * 0x9e3779b97f4a7c15ull), 0);
	uint64_t bad = 0;
	for (uint64_t seed = 1; seed <= 20; seed++)
		bad += simulate(0, seed * 0x9e3779b97f4a7c15ull);
	assert_true(bad > 0);
}

/* ---- a real session ---- */

#define SEEN_MAX 200000
struct seen {
	uint64_t records, samples, last, behind;
	const char *prefix;      /* of the names the workload takes */
	size_t nr_renamed;       /* COMM records of such names */
	uint64_t misplaced;      /* samples handed out before the rename of
				    their thread that precedes them */
	pid_t tid[SEEN_MAX];     /* of the samples handed out so far */
	uint64_t time[SEEN_MAX];
};

static int on_session_rec(const struct hpm_prec *p, void *arg)
{
	struct seen *s = arg;
	uint64_t t = 0;

	s->records++;
	switch (p->type) {
	case HPM_PREC_SAMPLE:
		t = p->sample.time;
		assert_true(s->samples < SEEN_MAX);
		s->tid[s->samples] = p->sample.tid;
		s->time[s->samples++] = t;
		break;
	case HPM_PREC_COMM:
		t = p->comm.time;
		if (strncmp(p->comm.comm, s->prefix, strlen(s->prefix)))
			break;
		s->nr_renamed++;
		for (uint64_t i = 0; i < s->samples; i++)
			s->misplaced += s->tid[i] == p->comm.tid && s->time[i] > t;
		break;
	case HPM_PREC_MMAP:
		t = p->mmap.time;
		break;
	case HPM_PREC_FORK:
	case HPM_PREC_EXIT:
		t = p->task.time;
		break;
	default:
		t = p->lost.time;
		break;
	}
	if (t && t < s->last)
		s->behind++;
	if (t > s->last)
		s->last = t;
	return 0;
}

/* Workload @argv, whose tasks take @renames names that start with
 * @prefix, sampled at 10 kHz with call chains, drained every @sleep_us. */
static void session(char **argv, const char *prefix, size_t renames, unsigned sleep_us)
{
	struct hpm_ctx *ctx = hpm_ctx__new(NULL);
	struct hpm_evlist *list;
	struct seen *s = calloc(1, sizeof(*s));
	int go[2], status;
	int64_t handed = 0;

	assert_non_null(s);
	s->prefix = prefix;

	/* cpu-clock every 100003 ns, and every page fault */
	assert_int_equal(hpm_evlist__parse(ctx, "software/config=0,period=100003/,page-faults",
					   &list, NULL), 0);
	assert_int_equal(pipe(go), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		char c;
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	close(go[0]);
	struct hpm_record_opts o = { .sz = sizeof(o), .target = HPM_TARGET_EXEC, .ids = &pid,
				     .nr_ids = 1, .callchain = HPM_CALLCHAIN_FP };
	struct hpm_record *r = hpm_record__new(list, &o);
	assert_non_null(r);
	assert_int_equal(hpm_record__open(r), 0);
	assert_int_equal(write(go[1], "g", 1), 1);
	close(go[1]);
	while (waitpid(pid, &status, WNOHANG) == 0) {
		int n = hpm_record__drain(r, on_session_rec, s);
		assert_true(n >= 0);
		handed += n;
		usleep(sleep_us);
	}
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	hpm_record__disable(r);
	int n = hpm_record__drain(r, on_session_rec, s);
	assert_true(n >= 0);
	handed += n;

	struct hpm_record_stats st;
	hpm_record__stats(r, &st);
	assert_int_equal(handed, s->records);
	assert_int_equal(st.samples, s->samples);
	assert_int_equal(st.bad, 0);
	/* about 0.15 s of CPU or more at 10 kHz: the workloads above are sized
	 * to take that on a fast machine */
	assert_true(s->samples > 500);
	assert_int_equal(s->behind, 0);
	assert_int_equal(s->nr_renamed, renames);
	assert_int_equal(s->misplaced, 0);
	/* after the last drain nothing is left: a new drain hands out none */
	assert_int_equal(hpm_record__drain(r, on_session_rec, s), 0);
	hpm_record__free(r);
	hpm_evlist__free(list);
	hpm_ctx__free(ctx);
	free(s);
}

static void test_session(void **state)
{
	char *spinners[] = { HPM_TEST_WORKLOADS "/spinners", (char *)"80000000", NULL };
	char *renames[] = { HPM_TEST_WORKLOADS "/renames", (char *)"20", (char *)"8000000", NULL };
	(void)state;
	/* a child process and two threads renamed as they start, on any CPU;
	 * drained more often than the gap */
	session(spinners, "spin-", 3, 1000);
	/* as hpmon record drains: every 100 ms */
	session(spinners, "spin-", 3, 100000);
	/* each rename on the last CPU, then samples on the first */
	session(renames, "ren-", 20, 100000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_across_buffers),
		cmocka_unit_test(test_gap),
		cmocka_unit_test(test_late),
		cmocka_unit_test(test_flush_all),
		cmocka_unit_test(test_no_time),
		cmocka_unit_test(test_copies),
		cmocka_unit_test(test_callback_error),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_simulated_kernel),
		cmocka_unit_test(test_session),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
