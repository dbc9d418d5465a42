// SPDX-License-Identifier: MIT
/*
 * perf.data read as a profile: files built here byte by byte after the
 * format's documentation, so that every field has a known value. The
 * records come out as the profile reader's (samples, code mappings,
 * names, losses) sorted by time within each round, what is not used is
 * skipped and counted, COMPRESSED
 * records split anywhere read alike, and damage (a cut, a short record,
 * a count past the record, the other byte order, a pipe's stream) ends
 * the reading or refuses the file with the reason.
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
#include <cmocka.h>
#include <linux/perf_event.h>
#include <zstd.h>

#include <hpmon/profile.h>

/* A growable byte buffer. */
struct buf {
	unsigned char *p;
	size_t n, cap;
};

static void put(struct buf *b, const void *v, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		assert_non_null(b->p);
	}
	memcpy(b->p + b->n, v, n);
	b->n += n;
}
static void u64(struct buf *b, uint64_t v) { put(b, &v, 8); }
static void u32(struct buf *b, uint32_t v) { put(b, &v, 4); }

/* A record header; the size is patched by rec_end. */
static size_t rec_start(struct buf *b, uint32_t type, uint16_t misc)
{
	size_t at = b->n;
	u32(b, type);
	put(b, &misc, 2);
	uint16_t z = 0;
	put(b, &z, 2);
	return at;
}
static void rec_end(struct buf *b, size_t at)
{
	while ((b->n - at) % 8)
		put(b, "", 1);
	uint16_t sz = (uint16_t)(b->n - at);
	memcpy(b->p + at + 6, &sz, 2);
}

#define ST (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | \
	    PERF_SAMPLE_CALLCHAIN)
#define ID 77

/* sample_id_all's trailer for ST: tid, time. */
static void trailer(struct buf *b, uint32_t pid, uint64_t time)
{
	u32(b, pid);
	u32(b, pid);
	u64(b, time);
}

/* The data section's records: COMM, an exec and a data MMAP2, a sample
 * with a call chain, LOST_SAMPLES, an MMAP, AUXTRACE_INFO, a type of no
 * one. */
static void records(struct buf *d)
{
	size_t r = rec_start(d, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	u32(d, 42);
	u32(d, 42);
	put(d, "prog\0\0\0\0", 8);
	trailer(d, 42, 100);
	rec_end(d, r);
	for (int exec = 1; exec >= 0; exec--) {
		r = rec_start(d, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
		u32(d, 42);
		u32(d, 42);
		u64(d, 0x400000);
		u64(d, 0x1000);
		u64(d, 0x2000);
		for (int k = 0; k < 3; k++)
			u64(d, 0); /* maj, min, ino, ino_generation */
		u32(d, PROT_READ | (exec ? PROT_EXEC : 0));
		u32(d, MAP_PRIVATE);
		put(d, exec ? "/bin/prog" : "/data", exec ? 10 : 6);
		while ((d->n - r) % 8)
			put(d, "", 1);
		trailer(d, 42, 200);
		rec_end(d, r);
	}
	r = rec_start(d, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	u64(d, 0x400123); /* ip */
	u32(d, 42);
	u32(d, 43);
	u64(d, 300);      /* time */
	u64(d, 250000);   /* period */
	u64(d, 3);        /* callchain */
	u64(d, PERF_CONTEXT_USER);
	u64(d, 0x400123);
	u64(d, 0x400456);
	rec_end(d, r);
	r = rec_start(d, PERF_RECORD_LOST_SAMPLES, 0);
	u64(d, 5);
	trailer(d, 42, 400);
	rec_end(d, r);
	r = rec_start(d, PERF_RECORD_MMAP, PERF_RECORD_MISC_USER); /* the old form */
	u32(d, 42);
	u32(d, 42);
	u64(d, 0x400000);
	u64(d, 0x1000);
	u64(d, 0x2000);
	put(d, "/bin/v1", 8);
	trailer(d, 42, 200);
	rec_end(d, r);
	r = rec_start(d, 70 /* AUXTRACE_INFO */, 0);
	u64(d, 0);
	rec_end(d, r);
	r = rec_start(d, 99, 0);
	u64(d, 0);
	rec_end(d, r);
}

/* A whole file: header, one attribute and its id, @data as the data section. */
static struct buf file_of(const struct buf *data, uint64_t data_size)
{
	struct buf f = { 0 };
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				     .config = PERF_COUNT_SW_TASK_CLOCK, .sample_period = 250000,
				     .sample_type = ST, .sample_id_all = 1 };
	uint64_t attr_off = 104, ids_off = attr_off + sizeof(a) + 16, data_off = ids_off + 8;
	put(&f, "PERFILE2", 8);
	u64(&f, 104);
	u64(&f, sizeof(a) + 16);           /* attr_size: with its ids section */
	u64(&f, attr_off);
	u64(&f, sizeof(a) + 16);
	u64(&f, data_off);
	u64(&f, data_size);
	u64(&f, 0);                        /* event_types */
	u64(&f, 0);
	for (int i = 0; i < 4; i++)
		u64(&f, 0);                /* no features */
	put(&f, &a, sizeof(a));
	u64(&f, ids_off);
	u64(&f, 8);
	u64(&f, ID);
	put(&f, data->p, data->n);
	return f;
}

struct seen {
	unsigned comm, mmap, sample;
	struct hpm_sample s;
	uint64_t chain[3];
	char mmap_name[32];
};

static int read_all(const struct buf *f, struct seen *sn, struct hpm_profile **out)
{
	struct hpm_profile *p;
	struct hpm_prec r;
	int rc = hpm_profile__open_mem(f->p, f->n, &p);
	memset(sn, 0, sizeof(*sn));
	if (rc)
		return rc;
	while (hpm_profile__next(p, &r) > 0) {
		if (r.type == HPM_PREC_COMM) {
			sn->comm++;
			assert_string_equal(r.comm.comm, "prog");
			assert_true(r.comm.exec);
			assert_int_equal(r.comm.time, 100);
		} else if (r.type == HPM_PREC_MMAP) {
			sn->mmap++;
			snprintf(sn->mmap_name, sizeof(sn->mmap_name), "%s", r.mmap.filename);
			assert_int_equal(r.mmap.start, 0x400000);
			assert_int_equal(r.mmap.len, 0x1000);
			assert_int_equal(r.mmap.pgoff, 0x2000);
			assert_int_equal(r.mmap.time, 200);
		} else if (r.type == HPM_PREC_SAMPLE) {
			sn->sample++;
			sn->s = r.sample;
			assert_int_equal(r.sample.nr_chain, 3);
			memcpy(sn->chain, r.sample.chain, sizeof(sn->chain));
		}
	}
	*out = p;
	return 0;
}

static void test_records(void **state)
{
	(void)state;
	struct buf d = { 0 };
	records(&d);
	struct buf f = file_of(&d, d.n);
	struct seen sn;
	struct hpm_profile *p;
	assert_int_equal(read_all(&f, &sn, &p), 0);
	assert_string_equal(hpm_profile__format(p), "perf.data");
	const struct hpm_profile_meta *m = hpm_profile__meta(p);
	assert_int_equal(m->nr_events, 1);
	assert_string_equal(m->events[0].name, "task-clock"); /* no EVENT_DESC: generic */
	assert_true(m->events[0].trigger);
	assert_int_equal(m->events[0].sample_type, ST);
	assert_int_equal(m->callchain, 1);
	assert_int_equal(sn.comm, 1);
	assert_int_equal(sn.mmap, 2); /* the data mapping is left out */
	assert_string_equal(sn.mmap_name, "/bin/v1"); /* time 200 too, after /bin/prog */
	assert_int_equal(sn.sample, 1);
	assert_int_equal(sn.s.ip, 0x400123);
	assert_int_equal(sn.s.pid, 42);
	assert_int_equal(sn.s.tid, 43);
	assert_int_equal(sn.s.time, 300);
	assert_int_equal(sn.s.period, 250000);
	assert_int_equal(sn.s.mode, HPM_MODE_USER);
	assert_int_equal(sn.chain[0], PERF_CONTEXT_USER);
	assert_int_equal(sn.chain[2], 0x400456);
	const struct hpm_profile_status *st = hpm_profile__status(p);
	assert_true(st->complete);
	assert_int_equal(st->totals.samples, 1);
	assert_int_equal(st->totals.lost_samples, 5);
	assert_int_equal(st->raw_bytes, d.n);
	struct hpm_profile_rectype t[16];
	size_t n = hpm_profile__rectypes(p, t, 16);
	assert_int_equal(n, 7);
	unsigned skipped = 0;
	for (size_t i = 0; i < n; i++) {
		if (t[i].type == 70 || t[i].type == 99) {
			assert_false(t[i].used);
			skipped++;
		} else {
			assert_true(t[i].used);
		}
		if (t[i].type == PERF_RECORD_MMAP2)
			assert_int_equal(t[i].count, 2);
	}
	assert_int_equal(skipped, 2);
	assert_string_equal(t[n - 2].name, "AUXTRACE_INFO");
	assert_string_equal(t[n - 1].name, "?");
	hpm_profile__free(p);
	free(f.p);
	free(d.p);
}

/* The records zstd-compressed as one stream over COMPRESSED records cut
 * at every @step bytes of the stream: records span them. */
static void test_compressed(void **state)
{
	(void)state;
	struct buf d = { 0 };
	records(&d);
	size_t cap = ZSTD_compressBound(d.n);
	unsigned char *z = malloc(cap);
	size_t zn = ZSTD_compress(z, cap, d.p, d.n, 3);
	assert_false(ZSTD_isError(zn));
	for (size_t step = 1; step <= zn; step += step < 16 ? 1 : 37) {
		struct buf c = { 0 };
		for (size_t at = 0; at < zn; at += step) {
			size_t k = zn - at < step ? zn - at : step;
			size_t r = rec_start(&c, 81 /* COMPRESSED */, 0);
			put(&c, z + at, k);
			/* not padded: every byte after the header is zstd's */
			uint16_t sz = (uint16_t)(c.n - r);
			memcpy(c.p + r + 6, &sz, 2);
		}
		struct buf f = file_of(&c, c.n);
		struct seen sn;
		struct hpm_profile *p;
		assert_int_equal(read_all(&f, &sn, &p), 0);
		assert_int_equal(sn.comm, 1);
		assert_int_equal(sn.mmap, 2);
		assert_int_equal(sn.sample, 1);
		assert_int_equal(sn.s.tid, 43);
		assert_true(hpm_profile__status(p)->complete);
		assert_int_equal(hpm_profile__status(p)->raw_bytes, d.n);
		hpm_profile__free(p);
		free(f.p);
		free(c.p);
	}
	free(z);
	free(d.p);
}

static void test_refused(void **state)
{
	(void)state;
	struct buf d = { 0 };
	records(&d);
	struct buf f = file_of(&d, d.n);
	struct hpm_profile *p;

	for (int i = 0; i < 4; i++) { /* the other byte order's magic */
		unsigned char t = f.p[i];
		f.p[i] = f.p[7 - i];
		f.p[7 - i] = t;
	}
	assert_int_equal(hpm_profile__open_mem(f.p, f.n, &p), -EPROTONOSUPPORT);
	memcpy(f.p, "PERFILE2", 8);
	uint64_t v = 16; /* a pipe's header */
	memcpy(f.p + 8, &v, 8);
	assert_int_equal(hpm_profile__open_mem(f.p, f.n, &p), -EOPNOTSUPP);
	v = 104;
	memcpy(f.p + 8, &v, 8);
	v = f.n; /* the attributes past the end */
	memcpy(f.p + 24, &v, 8);
	assert_int_equal(hpm_profile__open_mem(f.p, f.n, &p), -EBADMSG);
	v = 104;
	memcpy(f.p + 24, &v, 8);
	v = 40; /* attr_size under the smallest attribute */
	memcpy(f.p + 16, &v, 8);
	assert_int_equal(hpm_profile__open_mem(f.p, f.n, &p), -EBADMSG);
	assert_int_equal(hpm_profile__open_mem(f.p, 50, &p), -EBADMSG);
	free(f.p);
	free(d.p);
}

static void test_damage(void **state)
{
	(void)state;
	struct buf d = { 0 };
	struct seen sn;
	struct hpm_profile *p;
	records(&d);

	/* cut anywhere inside the data: what comes before is read */
	for (size_t cut = 0; cut < d.n; cut++) {
		struct buf f = file_of(&d, d.n);
		f.n -= d.n - cut;
		assert_int_equal(read_all(&f, &sn, &p), 0);
		const struct hpm_profile_status *st = hpm_profile__status(p);
		assert_false(st->complete);
		assert_true(st->truncated);
		assert_non_null(strstr(st->what, "cut"));
		hpm_profile__free(p);
		free(f.p);
	}
	/* a call chain longer than its record: corrupt, nothing read past it */
	struct buf f = file_of(&d, d.n);
	unsigned char *nr = memmem(f.p, f.n, "\x03\0\0\0\0\0\0\0\0\xfe\xff\xff", 12);
	assert_non_null(nr);
	memcpy(nr, "\xff\xff\xff\xff\xff\xff\xff\x0f", 8);
	assert_int_equal(read_all(&f, &sn, &p), 0);
	assert_int_equal(sn.sample, 0);
	assert_true(hpm_profile__status(p)->corrupt);
	assert_non_null(strstr(hpm_profile__status(p)->what, "SAMPLE"));
	hpm_profile__free(p);
	free(f.p);
	/* a record of size 4 */
	f = file_of(&d, d.n);
	uint16_t four = 4;
	memcpy(f.p + f.n - d.n + 6, &four, 2);
	assert_int_equal(read_all(&f, &sn, &p), 0);
	assert_int_equal(sn.comm, 0);
	assert_true(hpm_profile__status(p)->corrupt);
	hpm_profile__free(p);
	free(f.p);
	/* no data size (perf record killed): read to the file's end */
	f = file_of(&d, 0);
	assert_int_equal(read_all(&f, &sn, &p), 0);
	assert_int_equal(sn.sample, 1);
	assert_true(hpm_profile__status(p)->truncated);
	assert_non_null(strstr(hpm_profile__status(p)->what, "did not finish"));
	hpm_profile__free(p);
	free(f.p);
	free(d.p);
}

/* A sample of time @t, pid @pid. */
static void sample_at(struct buf *d, uint64_t t, uint32_t pid)
{
	size_t r = rec_start(d, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	u64(d, 0x400123);
	u32(d, pid);
	u32(d, pid);
	u64(d, t);
	u64(d, 1);
	u64(d, 0); /* no call chain */
	rec_end(d, r);
}

/* Records are sorted by time within a round (between FINISHED_ROUND
 * records), equal times in the file's order, and never across rounds. */
static void test_order(void **state)
{
	(void)state;
	static const struct { uint64_t t; uint32_t pid; } in[] = {
		{ 300, 1 }, { 200, 2 }, { 300, 3 }, { 250, 4 }, { 0, 0 } /* round */,
		{ 100, 5 }, { 400, 6 }, { 0, 0 } /* round */, { 50, 7 },
	};
	static const uint32_t out[] = { 2, 4, 1, 3, 5, 6, 7 };
	struct buf d = { 0 };
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		if (!in[i].pid) {
			size_t r = rec_start(&d, 68 /* FINISHED_ROUND */, 0);
			rec_end(&d, r);
		} else {
			sample_at(&d, in[i].t, in[i].pid);
		}
	}
	struct buf f = file_of(&d, d.n);
	struct hpm_profile *p;
	struct hpm_prec r;
	size_t n = 0;
	assert_int_equal(hpm_profile__open_mem(f.p, f.n, &p), 0);
	while (hpm_profile__next(p, &r) > 0) {
		assert_int_equal(r.type, HPM_PREC_SAMPLE);
		assert_true(n < 7);
		assert_int_equal(r.sample.pid, out[n]);
		n++;
	}
	assert_int_equal(n, 7);
	assert_true(hpm_profile__status(p)->complete);
	hpm_profile__free(p);
	free(f.p);
	free(d.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_compressed),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_damage),
		cmocka_unit_test(test_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
