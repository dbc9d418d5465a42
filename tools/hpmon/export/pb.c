/* SPDX-License-Identifier: MIT */
/* Protocol-buffer encoding, gzipped on the way out (export/pb.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export/pb.h"

#define PB_FLUSH_AT (64u << 10)

enum { WT_VARINT = 0, WT_LEN = 2 };

static bool room(struct pb *p, size_t more)
{
	if (p->err)
		return false;
	if (more > SIZE_MAX / 2 - p->n) {
		p->err = -ENOMEM;
		return false;
	}
	if (p->n + more <= p->cap)
		return true;
	size_t nc = p->cap ? p->cap : 4096;
	while (nc < p->n + more)
		nc *= 2;
	uint8_t *b = realloc(p->b, nc);
	if (!b) {
		p->err = -ENOMEM;
		return false;
	}
	p->b = b;
	p->cap = nc;
	return true;
}

static size_t varint_len(uint64_t v)
{
	size_t k = 1;
	while (v >= 0x80) {
		v >>= 7;
		k++;
	}
	return k;
}

static void put_varint(uint8_t *at, uint64_t v)
{
	while (v >= 0x80) {
		*at++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*at = (uint8_t)v;
}

static void varint(struct pb *p, uint64_t v)
{
	if (!room(p, 10))
		return;
	put_varint(p->b + p->n, v);
	p->n += varint_len(v);
}

static void tag(struct pb *p, unsigned field, unsigned wt)
{
	varint(p, (uint64_t)field << 3 | wt);
}

/* Compress what the buffer holds: all of it, or with Z_FINISH the end. */
static void deflate_out(struct pb *p, int flush)
{
	unsigned char out[16384];
	int rc;
	if (p->err)
		return;
	p->z.next_in = p->b;
	p->z.avail_in = (uInt)p->n;
	do {
		p->z.next_out = out;
		p->z.avail_out = sizeof(out);
		rc = deflate(&p->z, flush);
		if (rc == Z_STREAM_ERROR) {
			p->err = -EIO;
			return;
		}
		size_t have = sizeof(out) - p->z.avail_out;
		if (have && fwrite(out, 1, have, p->f) != have) {
			p->err = -EIO;
			return;
		}
		/* Z_NO_FLUSH takes all the input while output has room;
		 * Z_FINISH goes on to the stream's end */
	} while (flush == Z_FINISH ? rc != Z_STREAM_END : p->z.avail_out == 0);
	p->n = 0;
}

int pb_start(struct pb *p, FILE *f)
{
	memset(p, 0, sizeof(*p));
	p->f = f;
	/* 15 + 16: a gzip header and trailer around the deflate stream */
	if (deflateInit2(&p->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return p->err = -ENOMEM;
	p->z_up = true;
	return 0;
}

void pb_uint(struct pb *p, unsigned field, uint64_t v)
{
	if (!v)
		return;
	tag(p, field, WT_VARINT);
	varint(p, v);
}

void pb_int(struct pb *p, unsigned field, int64_t v)
{
	pb_uint(p, field, (uint64_t)v); /* int64: two's complement, 10 bytes if negative */
}

void pb_bytes(struct pb *p, unsigned field, const void *s, size_t len)
{
	tag(p, field, WT_LEN);
	varint(p, len);
	if (!room(p, len))
		return;
	memcpy(p->b + p->n, s, len);
	p->n += len;
}

void pb_packed(struct pb *p, unsigned field, const uint64_t *v, size_t n)
{
	if (!n)
		return;
	size_t len = 0;
	for (size_t i = 0; i < n; i++)
		len += varint_len(v[i]);
	tag(p, field, WT_LEN);
	varint(p, len);
	for (size_t i = 0; i < n; i++)
		varint(p, v[i]);
}

void pb_packed_int(struct pb *p, unsigned field, const int64_t *v, size_t n)
{
	pb_packed(p, field, (const uint64_t *)(const void *)v, n);
}

void pb_open(struct pb *p, unsigned field)
{
	if (p->depth >= PB_MAX_DEPTH) {
		p->err = -EINVAL;
		return;
	}
	tag(p, field, WT_LEN);
	p->open[p->depth++] = p->n;
}

void pb_close(struct pb *p)
{
	if (p->depth <= 0 || p->err)
		return;
	size_t start = p->open[--p->depth];
	size_t len = p->n - start, k = varint_len(len);
	if (!room(p, k))
		return;
	memmove(p->b + start + k, p->b + start, len);
	put_varint(p->b + start, len);
	p->n += k;
	if (!p->depth && p->n >= PB_FLUSH_AT)
		deflate_out(p, Z_NO_FLUSH);
}

int pb_finish(struct pb *p)
{
	if (p->depth && !p->err)
		p->err = -EINVAL;
	deflate_out(p, Z_FINISH);
	return p->err;
}

void pb_free(struct pb *p)
{
	if (p->z_up)
		deflateEnd(&p->z);
	free(p->b);
	memset(p, 0, sizeof(*p));
}
