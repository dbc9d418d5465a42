/* SPDX-License-Identifier: MIT */
/*
 * Between the two halves of the profile writer: profile-write.c (records
 * in chunks, the worker that compresses them, the header) and
 * profile-write-timeline.c (TIMELINE records, held back and written
 * together at the end of their chunk). The growable record buffer both
 * encode into, and the timeline's batch.
 * Ownership: a wbuf owns its bytes; a batch owns the readings and values
 * it holds (copies of what it is given); tl_batch__release frees them.
 */
#ifndef HPM_PROFILE_WRITE_INTERNAL_H
#define HPM_PROFILE_WRITE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hpmon/profile.h>

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

/*
 * A chunk's TIMELINE records, held until the chunk is written: then
 * sorted by thread, CPU and event (in the order they came within each)
 * and encoded one after the other, after the chunk's other records. So
 * a thread's readings follow each other and each is written as little
 * differences from its previous one, and they do not break the runs of
 * alike samples that zstd compresses.
 */
struct tl_held;

struct tl_batch {
	struct tl_held *v;
	size_t nr, cap;
	uint64_t *vals;          /* the readings' values, one after the other */
	size_t nr_vals, cap_vals;
	size_t bytes;            /* at most what they take once encoded */
};

/* Hold a copy of @r (checked by the caller). 0 or -ENOMEM. */
int tl_batch__add(struct tl_batch *b, const struct hpm_read_rec *r);
/* Encode the held readings into @out (they count in out->nr) with times
 * in units of @unit ns, and empty the batch. @prev: [nr_ev] scratch for
 * each event's previous value. 0 or -ENOMEM (the batch is kept then). */
int tl_batch__write(struct tl_batch *b, struct wbuf *out, uint64_t *prev, uint32_t nr_ev,
		    uint64_t unit);
void tl_batch__release(struct tl_batch *b);

#endif
