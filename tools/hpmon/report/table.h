/* SPDX-License-Identifier: MIT */
/*
 * The report layer's tables: a hash table of fixed-width keys (1 to 8
 * 64-bit words) to indexes into a vector, and the vectors' growth. Every
 * table of a loaded report (strings, objects, symbols, rows ...) is such a
 * pair: the vector holds the items, the hash table finds them.
 *
 * Room: tools/hpmon/report/ owns the report layer (a profile read into tables, its listings, per-row metrics, a function per instruction); may use counting, cache, output.
 * Ownership: htab__new returns a table the caller frees with htab__free;
 * keys are copied in. vec__grow returns the (maybe moved) vector, which
 * stays the caller's.
 */
#ifndef HPMON_TOOL_REPORT_TABLE_H
#define HPMON_TOOL_REPORT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct htab;

/* A table of keys of @kw words; NULL when memory runs out. */
struct htab *htab__new(unsigned kw);
/* Accepts NULL. */
void htab__free(struct htab *h);
/* The index stored for @k, or -1. */
long htab__get(const struct htab *h, const uint64_t *k);
/* Store @idx for @k (replacing what it had). 0 or -ENOMEM. */
int htab__put(struct htab *h, const uint64_t *k, size_t idx);
/* Whether keys @a and @b of @kw words are equal. */
bool htab__key_eq(const uint64_t *a, const uint64_t *b, unsigned kw);

/* Grow a vector @v of *@cap elements of @size, @n in use, to hold one
 * more: the vector, or NULL (and @v untouched) when memory runs out. */
void *vec__grow(void *v, size_t *cap, size_t n, size_t size);

/* Room for one more in vector (r)->vec: the vector, or NULL. */
#define PUSH(r, vec, nr, cap) \
	((r)->vec = vec__grow((r)->vec, &(r)->cap, (r)->nr, sizeof(*(r)->vec)))

#endif
