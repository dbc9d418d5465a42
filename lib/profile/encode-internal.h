/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/profile/ owns the profile file, written and read; may use core, sys.
 *
 * The growable buffer the profile writer encodes records into, and the
 * encoders of the format's varints, bytes and strings (docs/profile-format.md):
 * what profile-write.c and profile-write-timeline.c both write with.
 *
 * Ownership: a wbuf owns its bytes.
 */
#ifndef HPM_PROFILE_ENCODE_INTERNAL_H
#define HPM_PROFILE_ENCODE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct wbuf {
	unsigned char *p;
	size_t len, cap;
	uint32_t nr;
	int kind;
	bool err; /* out of memory while encoding: the chunk is incomplete */
};

static inline bool reserve(struct wbuf *b, size_t more)
{
	if (b->len + more <= b->cap)
		return true;
	size_t nc = b->cap ? b->cap : 65536;
	while (nc < b->len + more)
		nc *= 2;
	unsigned char *v = realloc(b->p, nc);
	if (!v) {
		b->err = true;
		return false;
	}
	b->p = v;
	b->cap = nc;
	return true;
}

/* Callers reserve room first: a varint is at most 10 bytes. */
static inline void put_var(struct wbuf *b, uint64_t v)
{
	unsigned char *p = b->p + b->len;
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	b->len = (size_t)(p - b->p);
}

static inline void put_byte(struct wbuf *b, unsigned v) { b->p[b->len++] = (unsigned char)v; }

static inline void put_bytes(struct wbuf *b, const void *p, size_t n)
{
	if (!n)
		return; /* p may be NULL then */
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static inline void put_str(struct wbuf *b, const char *s, size_t max)
{
	size_t n = s ? strnlen(s, max) : 0;
	put_var(b, n);
	put_bytes(b, s, n);
}

#endif
