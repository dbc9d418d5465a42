// SPDX-License-Identifier: MIT
/*
 * The ring-buffer reader (lib/sys/ring.c): records in place and wrapped
 * around the end, the round's head taken once, data_tail published at the
 * end, malformed records refused without reading past what was written;
 * and one round over a real kernel buffer.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <cmocka.h>

#include "sys/perf.h"
#include "sys/ring.h"

#define PAGE 4096u
#define DATA 256u /* small, so that records wrap */

struct fake {
	unsigned char *mem;
	struct hpm_ring r;
};

static struct perf_event_mmap_page *pg(struct fake *f)
{
	return (struct perf_event_mmap_page *)f->mem;
}

static void fake_init(struct fake *f)
{
	f->mem = calloc(1, PAGE + DATA);
	assert_non_null(f->mem);
	memset(&f->r, 0, sizeof(f->r));
	f->r.base = f->mem;
	f->r.mmap_len = PAGE + DATA;
	f->r.data_len = DATA;
}

/* Write a record of @size bytes (header included) at position @at, its
 * payload bytes @fill, wrapping as the kernel does. */
static void put(struct fake *f, uint64_t at, uint16_t size, unsigned char fill)
{
	unsigned char rec[512];
	struct perf_event_header h = { .type = PERF_RECORD_COMM, .misc = 0, .size = size };
	assert_true(size <= sizeof(rec));
	memcpy(rec, &h, sizeof(h));
	memset(rec + sizeof(h), fill, size - sizeof(h));
	for (uint16_t i = 0; i < size; i++)
		f->mem[PAGE + (at + i) % DATA] = rec[i];
}

static void check_payload(const struct perf_event_header *h, uint16_t size, unsigned char fill)
{
	assert_int_equal(h->size, size);
	for (size_t i = sizeof(*h); i < size; i++)
		assert_int_equal(((const unsigned char *)h)[i], fill);
}

static void test_in_place_and_wrapped(void **state)
{
	(void)state;
	struct fake f;
	unsigned char scratch[HPM_RING_RECORD_MAX];
	const struct perf_event_header *h;

	fake_init(&f);
	/* start near the end: the second record wraps, the third's header too */
	uint64_t start = 4 * DATA + DATA - 72;
	pg(&f)->data_tail = start;
	put(&f, start, 40, 0xa1);       /* in place */
	put(&f, start + 40, 48, 0xb2);  /* 32 bytes left: wraps */
	put(&f, start + 88, 24, 0xc3);  /* in place again */
	pg(&f)->data_head = start + 112;

	hpm_ring__read_init(&f.r);
	pg(&f)->data_head = start + 4000; /* later writes wait for the next round */
	assert_int_equal(hpm_ring__next(&f.r, scratch, sizeof(scratch), &h), 0);
	assert_ptr_equal(h, f.mem + PAGE + start % DATA);
	check_payload(h, 40, 0xa1);
	hpm_ring__consume(&f.r);
	assert_int_equal(hpm_ring__next(&f.r, scratch, sizeof(scratch), &h), 0);
	assert_ptr_equal(h, (void *)scratch);
	check_payload(h, 48, 0xb2);
	hpm_ring__consume(&f.r);
	assert_int_equal(hpm_ring__next(&f.r, scratch, sizeof(scratch), &h), 0);
	check_payload(h, 24, 0xc3);
	hpm_ring__consume(&f.r);
	assert_int_equal(hpm_ring__next(&f.r, scratch, sizeof(scratch), &h), 1);
	assert_int_equal(pg(&f)->data_tail, start); /* not before read_done */
	hpm_ring__read_done(&f.r);
	assert_int_equal(pg(&f)->data_tail, start + 112);
	free(f.mem);
}

static void test_wrapped_header(void **state)
{
	(void)state;
	struct fake f;
	unsigned char scratch[64];
	const struct perf_event_header *h;

	fake_init(&f);
	pg(&f)->data_tail = DATA - 4; /* the header itself straddles the end */
	put(&f, DATA - 4, 32, 0x5a);
	pg(&f)->data_head = DATA - 4 + 32;
	hpm_ring__read_init(&f.r);
	assert_int_equal(hpm_ring__next(&f.r, scratch, sizeof(scratch), &h), 0);
	check_payload(h, 32, 0x5a);
	/* a scratch too small for a wrapped record is said, not overrun */
	assert_int_equal(hpm_ring__next(&f.r, scratch, 16, &h), -EMSGSIZE);
	free(f.mem);
}

static void test_malformed(void **state)
{
	(void)state;
	struct fake f;
	unsigned char scratch[HPM_RING_RECORD_MAX];
	const struct perf_event_header *h;

	fake_init(&f);
	/* shorter than its header */
	put(&f, 0, 8, 0);
	((struct perf_event_header *)(f.mem + PAGE))->size = 4;
	pg(&f)->data_head = 8;
	hpm_ring__read_init(&f.r);
	assert_int_equal(hpm_ring__next(&f.r, scratch, sizeof(scratch), &h), -EIO);

	/* claims more than the kernel wrote */
	put(&f, 0, 64, 0x11);
	pg(&f)->data_head = 40;
	hpm_ring__read_init(&f.r);
	assert_int_equal(hpm_ring__next(&f.r, scratch, sizeof(scratch), &h), -EIO);

	/* larger than the whole buffer */
	pg(&f)->data_head = 4 * DATA;
	((struct perf_event_header *)(f.mem + PAGE))->size = DATA + 8;
	hpm_ring__read_init(&f.r);
	assert_int_equal(hpm_ring__next(&f.r, scratch, sizeof(scratch), &h), -EIO);

	/* fewer bytes than a header */
	pg(&f)->data_tail = 0;
	pg(&f)->data_head = 5;
	hpm_ring__read_init(&f.r);
	assert_int_equal(hpm_ring__next(&f.r, scratch, sizeof(scratch), &h), -EIO);
	/* discard drops the round: the next one starts at the head */
	hpm_ring__discard(&f.r);
	hpm_ring__read_done(&f.r);
	assert_int_equal(pg(&f)->data_tail, 5);
	free(f.mem);
}

/* A real buffer: a dummy event with COMM records, and two renames. */
static void test_kernel(void **state)
{
	(void)state;
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_DUMMY, .comm = 1,
				     .exclude_kernel = 1, .exclude_hv = 1 };
	unsigned char scratch[HPM_RING_RECORD_MAX];
	const struct perf_event_header *h;
	struct hpm_ring r;
	char old[17] = "";
	int fd, n = 0;

	fd = hpm__perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC, HPM_FALLBACK_ALL, NULL);
	if (fd < 0)
		skip(); /* perf events unavailable here */
	assert_int_equal(hpm_ring__map(&r, fd, (size_t)sysconf(_SC_PAGESIZE),
				       4 * (size_t)sysconf(_SC_PAGESIZE)), 0);
	prctl(PR_GET_NAME, old);
	prctl(PR_SET_NAME, "ring-one");
	prctl(PR_SET_NAME, "ring-two");
	prctl(PR_SET_NAME, old);
	hpm_ring__read_init(&r);
	while (hpm_ring__next(&r, scratch, sizeof(scratch), &h) == 0) {
		if (h->type == PERF_RECORD_COMM) {
			const char *comm = (const char *)h + sizeof(*h) + 8;
			if (!strcmp(comm, "ring-one") || !strcmp(comm, "ring-two"))
				n++;
		}
		hpm_ring__consume(&r);
	}
	hpm_ring__read_done(&r);
	assert_int_equal(n, 2);
	hpm_ring__unmap(&r);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_place_and_wrapped),
		cmocka_unit_test(test_wrapped_header),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_kernel),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
