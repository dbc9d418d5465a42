/* SPDX-License-Identifier: MIT */
/* Reading the kernel's perf ring buffers (lib/sys/ring.h). */
#include <errno.h>
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

void hpm_ring__unmap(struct hpm_ring *r)
{
	if (r->base)
		munmap(r->base, r->mmap_len);
	r->base = NULL;
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
	r->cur = 0;
}

/* Copy @len bytes from offset @off of the data area, wrapping at its end. */
static void copy_out(const struct hpm_ring *r, size_t off, void *dst, size_t len)
{
	size_t first = off + len <= r->data_len ? len : r->data_len - off;

	memcpy(dst, data(r) + off, first);
	memcpy((unsigned char *)dst + first, data(r), len - first);
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
	__atomic_store_n(&meta(r)->data_tail, r->tail, __ATOMIC_RELEASE);
}
