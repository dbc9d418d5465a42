// SPDX-License-Identifier: MIT
/*
 * The ring-buffer reader (lib/sys/ring.c) over a buffer the test writes
 * itself (a memfd mapped like a perf buffer: a metadata page, then data),
 * as the kernel would: published records are read and no more; a buffer
 * whose data_head stalled gives its unpublished records to
 * hpm_ring__read_unpublished(), exactly those, also after the data wrapped
 * around (what was read before is never read again as new); a damaged
 * record stops the round; an unshadowed ring refuses to read unpublished
 * data.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "sys/ring.h"

#define PAGE 4096u
#define DATA (2 * PAGE)
#define REC 24u /* header, a sequence number, a time */

struct fake {
	int fd;
	struct hpm_ring ring;
	unsigned char *data;              /* the data area, as the kernel writes it */
	struct perf_event_mmap_page *meta;
	uint64_t head;                    /* the kernel's own head */
	uint64_t seq;
};

static void fake_open(struct fake *f, int shadowed)
{
	memset(f, 0, sizeof(*f));
	f->fd = memfd_create("ring", MFD_CLOEXEC);
	assert_true(f->fd >= 0);
	assert_int_equal(ftruncate(f->fd, PAGE + DATA), 0);
	int rc = shadowed ? hpm_ring__map_shadowed(&f->ring, f->fd, PAGE, DATA)
			  : hpm_ring__map(&f->ring, f->fd, PAGE, DATA);
	assert_int_equal(rc, 0);
	f->meta = f->ring.base;
	f->data = (unsigned char *)f->ring.base + PAGE;
}

static void fake_close(struct fake *f)
{
	hpm_ring__unmap(&f->ring);
	close(f->fd);
}

/* Write one record at the kernel's head, wrapping as the kernel does;
 * publish data_head if @publish. */
static void put(struct fake *f, int publish)
{
	unsigned char rec[REC];
	struct perf_event_header h = { .type = PERF_RECORD_READ, .size = REC };
	uint64_t seq = ++f->seq, time = 1000 + seq;

	memcpy(rec, &h, sizeof(h));
	memcpy(rec + 8, &seq, 8);
	memcpy(rec + 16, &time, 8);
	for (size_t i = 0; i < REC; i++)
		f->data[(f->head + i) % DATA] = rec[i];
	f->head += REC;
	if (publish)
		__atomic_store_n(&f->meta->data_head, f->head, __ATOMIC_RELEASE);
}

/* Read one round (published, or unpublished with @beyond): the sequence
 * numbers into @seq, their number returned; -1 on an error. */
static int round_of(struct fake *f, int beyond, uint64_t *seq, int max)
{
	static unsigned char scratch[HPM_RING_RECORD_MAX];
	const struct perf_event_header *h;
	int n = 0, rc;

	if (beyond)
		assert_int_equal(hpm_ring__read_unpublished(&f->ring), 0);
	else
		hpm_ring__read_init(&f->ring);
	while (!(rc = hpm_ring__next(&f->ring, scratch, sizeof(scratch), &h))) {
		assert_true(n < max);
		memcpy(&seq[n++], (const char *)h + 8, 8);
		hpm_ring__consume(&f->ring);
	}
	hpm_ring__read_done(&f->ring);
	return rc < 0 ? -1 : n;
}

static void published_only(void **state)
{
	struct fake f;
	uint64_t seq[64];
	(void)state;

	fake_open(&f, 1);
	put(&f, 1);
	put(&f, 1);
	put(&f, 0); /* written, not published */
	assert_int_equal(round_of(&f, 0, seq, 64), 2);
	assert_int_equal(seq[0], 1);
	assert_int_equal(seq[1], 2);
	assert_int_equal(f.meta->data_tail, 2 * REC);
	/* once published, the third comes in the next round */
	__atomic_store_n(&f.meta->data_head, f.head, __ATOMIC_RELEASE);
	assert_int_equal(round_of(&f, 0, seq, 64), 1);
	assert_int_equal(seq[0], 3);
	/* nothing past the head: an unpublished round finds nothing */
	assert_int_equal(round_of(&f, 1, seq, 64), 0);
	fake_close(&f);
}

static void stalled_head(void **state)
{
	struct fake f;
	uint64_t seq[64];
	(void)state;

	fake_open(&f, 1);
	for (int i = 0; i < 3; i++)
		put(&f, 1);
	for (int i = 0; i < 5; i++)
		put(&f, 0); /* the head stopped moving */
	assert_int_equal(round_of(&f, 0, seq, 64), 3);
	assert_int_equal(round_of(&f, 0, seq, 64), 0);
	assert_int_equal(round_of(&f, 1, seq, 64), 5);
	for (int i = 0; i < 5; i++)
		assert_int_equal(seq[i], 4 + i);
	/* read once: the next unpublished round has nothing new */
	assert_int_equal(round_of(&f, 1, seq, 64), 0);
	fake_close(&f);
}

/* After the data wrapped around, what lies past the head is the last lap,
 * already read: it must not come back as new records. */
static void stalled_after_wrap(void **state)
{
	struct fake f;
	uint64_t seq[DATA / REC + 8];
	int max = (int)(sizeof(seq) / sizeof(seq[0]));
	uint64_t total = 0;
	(void)state;

	fake_open(&f, 1);
	/* three laps, read as they come, a record wrapping the end on the way */
	while (f.head < 3 * DATA) {
		for (int i = 0; i < 50; i++)
			put(&f, 1);
		int n = round_of(&f, 0, seq, max);
		assert_int_equal(n, 50);
		assert_int_equal(seq[0], total + 1);
		total += (uint64_t)n;
	}
	assert_int_equal(round_of(&f, 1, seq, max), 0);
	put(&f, 0);
	put(&f, 0);
	assert_int_equal(round_of(&f, 1, seq, max), 2);
	assert_int_equal(seq[0], total + 1);
	assert_int_equal(seq[1], total + 2);
	fake_close(&f);
}

static void damaged_record(void **state)
{
	struct fake f;
	uint64_t seq[8];
	(void)state;

	fake_open(&f, 1);
	put(&f, 1);
	assert_int_equal(round_of(&f, 0, seq, 8), 1);
	/* past the head: a header that claims more than the buffer holds */
	struct perf_event_header h = { .type = PERF_RECORD_READ, .size = 0xfff8 };
	memcpy(f.data + f.head % DATA, &h, sizeof(h));
	assert_int_equal(round_of(&f, 1, seq, 8), -1);
	/* one shorter than a header */
	h.size = 4;
	memcpy(f.data + f.head % DATA, &h, sizeof(h));
	assert_int_equal(round_of(&f, 1, seq, 8), -1);
	fake_close(&f);
}

static void unshadowed_refuses(void **state)
{
	struct fake f;
	(void)state;

	fake_open(&f, 0);
	assert_int_equal(hpm_ring__read_unpublished(&f.ring), -EINVAL);
	fake_close(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(published_only),
		cmocka_unit_test(stalled_head),
		cmocka_unit_test(stalled_after_wrap),
		cmocka_unit_test(damaged_record),
		cmocka_unit_test(unshadowed_refuses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
