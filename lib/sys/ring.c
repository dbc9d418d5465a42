/* SPDX-License-Identifier: MIT */
/* Reading the kernel's perf ring buffers (lib/sys/ring.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sys/ring.h"

int hpm_ring__map(struct hpm_ring *r, int fd, size_t page, size_t data_len)
{
	void *p;

	memset(r, 0, sizeof(*r));
	p = mmap(NULL, page + data_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	r->base = p;
	r->mmap_len = page + data_len;
	r->data_len = data_len;
	return 0;
}

int hpm_ring__map_shadowed(struct hpm_ring *r, int fd, size_t page, size_t data_len)
{
	int rc = hpm_ring__map(r, fd, page, data_len);
	if (rc)
		return rc;
	r->shadow = calloc(1, data_len); /* as the kernel's fresh pages */
	if (!r->shadow) {
		hpm_ring__unmap(r);
		return -ENOMEM;
	}
	return 0;
}

void hpm_ring__unmap(struct hpm_ring *r)
{
	if (r->base)
		munmap(r->base, r->mmap_len);
	r->base = NULL;
	free(r->shadow);
	r->shadow = NULL;
}

static struct perf_event_mmap_page *meta(const struct hpm_ring *r)
{
	return r->base;
}

static const unsigned char *data(const struct hpm_ring *r)
{
	return (const unsigned char *)r->base + (r->mmap_len - r->data_len);
}

void hpm_ring__read_init(struct hpm_ring *r)
{
	r->head = __atomic_load_n(&meta(r)->data_head, __ATOMIC_ACQUIRE);
	r->tail = meta(r)->data_tail; /* written only by readers */
	r->done = r->tail;
	r->cur = 0;
	r->unpublished = 0;
}

int hpm_ring__read_unpublished(struct hpm_ring *r)
{
	if (!r->shadow)
		return -EINVAL;
	hpm_ring__read_init(r);
	/* the kernel writes at most a buffer's length past data_tail */
	r->head = r->tail + r->data_len;
	r->unpublished = 1;
	return 0;
}

/* Copy @len bytes from offset @off of the data area, wrapping at its end. */
static void copy_out(const struct hpm_ring *r, size_t off, void *dst, size_t len)
{
	size_t first = off + len <= r->data_len ? len : r->data_len - off;

	memcpy(dst, data(r) + off, first);
	memcpy((unsigned char *)dst + first, data(r), len - first);
}

/* Whether the @len bytes at offset @off (or the header, if @len is not a
 * record's size) are what was read there before: data not rewritten. */
static int same_as_read(const struct hpm_ring *r, size_t off, size_t len)
{
	if (len < sizeof(struct perf_event_header) || len > r->data_len)
		len = sizeof(struct perf_event_header);
	size_t first = off + len <= r->data_len ? len : r->data_len - off;
	return !memcmp(data(r) + off, r->shadow + off, first) &&
	       !memcmp(data(r), r->shadow, len - first);
}

int hpm_ring__next(struct hpm_ring *r, void *scratch, size_t len,
		   const struct perf_event_header **h)
{
	struct perf_event_header hdr;
	size_t off;

	if (r->tail >= r->head)
		return 1;
	if (r->head - r->tail < sizeof(hdr))
		return -EIO;
	off = (size_t)(r->tail % r->data_len);
	copy_out(r, off, &hdr, sizeof(hdr)); /* the header itself may wrap */
	if (r->unpublished && same_as_read(r, off, hdr.size))
		return 1; /* nothing was written from here on */
	if (hdr.size < sizeof(hdr) || hdr.size > r->data_len || hdr.size > r->head - r->tail)
		return -EIO;
	if (off + hdr.size <= r->data_len) {
		*h = (const void *)(data(r) + off);
	} else {
		if (hdr.size > len)
			return -EMSGSIZE;
		copy_out(r, off, scratch, hdr.size);
		*h = scratch;
	}
	r->cur = hdr.size;
	return 0;
}

void hpm_ring__consume(struct hpm_ring *r)
{
	r->tail += r->cur;
	r->cur = 0;
}

void hpm_ring__discard(struct hpm_ring *r)
{
	r->tail = r->head;
	r->cur = 0;
}

void hpm_ring__read_done(struct hpm_ring *r)
{
	if (r->shadow && r->tail > r->done) {
		/* remember what was read, before the kernel may reuse it */
		size_t len = (size_t)(r->tail - r->done), off = (size_t)(r->done % r->data_len);
		if (len > r->data_len)
			len = r->data_len;
		size_t first = off + len <= r->data_len ? len : r->data_len - off;
		memcpy(r->shadow + off, data(r) + off, first);
		memcpy(r->shadow, data(r), len - first);
	}
	r->done = r->tail;
	__atomic_store_n(&meta(r)->data_tail, r->tail, __ATOMIC_RELEASE);
}
