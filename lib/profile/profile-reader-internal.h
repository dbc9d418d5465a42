/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/profile/ owns the profile file, written and read; may use core, sys.
 *
 * Between the two halves of the profile reader: profile-read.c (the
 * file, its header and its chunks) and profile-records.c (the records of
 * a chunk). The reader's state, and the bounded cursor both read with.
 * Ownership: the reader owns every buffer named here (hpm_profile__free
 * frees them); a cursor borrows the bytes it walks.
 */
#ifndef HPM_PROFILE_READER_INTERNAL_H
#define HPM_PROFILE_READER_INTERNAL_H

#include <endian.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <zstd.h>

#include "profile/profile-internal.h"

struct hpm_perfdata;

struct dec {
	uint64_t time, ip, period;
	pid_t pid, tid;
	uint32_t cpu, ev;
	enum hpm_mode mode;
	uint64_t *chain;         /* the previous sample's chain */
	uint32_t nr_chain;
	uint64_t *vals;          /* [ev * max_group + k] */
	/* the chunk's previous TIMELINE record, and each event's last value */
	pid_t tl_pid, tl_tid;
	uint32_t tl_cpu, tl_ev;
	uint64_t tl_enabled;     /* minor 1's: ns */
	uint64_t tl_time, tl_enabled_us; /* since minor 2 (tl_time in the header's unit) */
	uint64_t *tl_vals;       /* [nr_events] */
};

struct hpm_profile {
	struct hpm_perfdata *pd; /* a perf.data file: it answers instead */
	const unsigned char *data;
	size_t size;
	void *map;               /* when opened from a path */
	size_t map_len;
	struct hpm_profile_meta meta;
	struct hpm_profile_event *events;
	char *strings;           /* the header's strings, NUL-separated */
	size_t str_len, str_cap;
	uint32_t max_group;
	uint64_t tl_unit;        /* TIMELINE (12)'s time unit, ns (header key 14) */
	unsigned skip;           /* HPM_PROFILE_SKIP_* */
	size_t pos;              /* next chunk header */
	bool done;
	struct hpm_profile_status st;
	ZSTD_DCtx *zd;           /* made once, for every chunk */
	unsigned char *raw;      /* the current chunk, decompressed */
	size_t raw_len, raw_cap, rpos;
	uint32_t left;           /* records left in the chunk */
	bool after_sample;       /* the last record handed out was a sample */
	struct dec d;
	uint64_t *chain, *vals_out, *regs;
	unsigned char *stack;
	char str[PROF_MAX_STR + 1];
};

/* End the records: the file is cut (@truncated) or damaged, as @fmt says
 * (two numbers). */
void profile__stop(struct hpm_profile *p, bool truncated, const char *fmt, uint64_t a, uint64_t b);
/* Load the next chunk. True when records are ready. */
bool profile__next_chunk(struct hpm_profile *p);

/* ---- a bounded cursor ---- */

struct cur {
	const unsigned char *p, *end;
	bool bad;
};

static inline uint64_t get_var(struct cur *c)
{
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (c->p >= c->end) {
			c->bad = true;
			return 0;
		}
		unsigned char b = *c->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	c->bad = true;
	return 0;
}

/* Past a varint without its value. */
static inline void skip_var(struct cur *c)
{
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (c->p >= c->end) {
			c->bad = true;
			return;
		}
		if (!(*c->p++ & 0x80))
			return;
	}
	c->bad = true;
}

/* Past @n varints, as strict as skip_var (at most 10 bytes each), eight
 * bytes at a time while the last of them is further on: a call chain of a
 * flat listing is skipped, not decoded. */
static inline void skip_vars(struct cur *c, uint64_t n)
{
	unsigned run = 0; /* continuation bytes of the varint under way */

	while (n && c->end - c->p >= 8) {
		uint64_t w;
		memcpy(&w, c->p, 8);
		w = le64toh(w);
		uint64_t t = ~w & 0x8080808080808080ull; /* last bytes of varints */
		/* one bit a byte at most: their count without a popcount call */
		unsigned k = (unsigned)(((t >> 7) * 0x0101010101010101ull) >> 56);
		if (k >= n)
			break;
		if (!t) {
			run += 8;
		} else {
			/* only the run before the first end can be too long */
			if (run + (unsigned)__builtin_ctzll(t) / 8 > 9)
				run = 10;
			else
				run = 7 - (63 - (unsigned)__builtin_clzll(t)) / 8;
		}
		if (run > 9) {
			c->bad = true;
			return;
		}
		c->p += 8;
		n -= k;
	}
	while (n) {
		if (c->p >= c->end) {
			c->bad = true;
			return;
		}
		if (*c->p++ & 0x80) {
			if (++run > 9) {
				c->bad = true;
				return;
			}
		} else {
			run = 0;
			n--;
		}
	}
}

static inline unsigned get_byte(struct cur *c)
{
	if (c->p >= c->end) {
		c->bad = true;
		return 0;
	}
	return *c->p++;
}

static inline const unsigned char *get_bytes(struct cur *c, uint64_t n)
{
	if ((uint64_t)(c->end - c->p) < n) {
		c->bad = true;
		c->p = c->end;
		return NULL;
	}
	const unsigned char *p = c->p;
	c->p += n;
	return p;
}

/* A string of at most PROF_MAX_STR bytes into @buf (NUL-terminated). */
static inline void get_str(struct cur *c, char *buf)
{
	uint64_t n = get_var(c);
	const unsigned char *p;
	if (n > PROF_MAX_STR || !(p = get_bytes(c, n))) {
		c->bad = true;
		buf[0] = '\0';
		return;
	}
	memcpy(buf, p, n);
	buf[n] = '\0';
}

#endif
