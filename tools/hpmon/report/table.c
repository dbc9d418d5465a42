/* SPDX-License-Identifier: MIT */
/* The report layer's hash table and vectors (report/table.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/table.h"

struct htab {
	unsigned kw;        /* key words */
	size_t cap, n;      /* cap a power of two */
	uint64_t *keys;     /* [cap * kw] */
	uint32_t *vals;     /* [cap], index + 1; 0 empty */
};

struct htab *htab__new(unsigned kw)
{
	struct htab *h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->kw = kw;
	h->cap = 1024;
	h->keys = calloc(h->cap * kw, sizeof(uint64_t));
	h->vals = calloc(h->cap, sizeof(uint32_t));
	if (!h->keys || !h->vals) {
		free(h->keys);
		free(h->vals);
		free(h);
		return NULL;
	}
	return h;
}

void htab__free(struct htab *h)
{
	if (!h)
		return;
	free(h->keys);
	free(h->vals);
	free(h);
}

static uint64_t ht_hash(const uint64_t *k, unsigned kw)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (unsigned i = 0; i < kw; i++) {
		x ^= k[i] + 0x9e3779b97f4a7c15ull + (x << 6) + (x >> 2);
		x *= 0xff51afd7ed558ccdull;
		x ^= x >> 33;
	}
	return x;
}

bool htab__key_eq(const uint64_t *a, const uint64_t *b, unsigned kw)
{
	for (unsigned i = 0; i < kw; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

static size_t ht_slot(const struct htab *h, const uint64_t *k)
{
	size_t i = (size_t)ht_hash(k, h->kw) & (h->cap - 1);
	while (h->vals[i] && !htab__key_eq(&h->keys[i * h->kw], k, h->kw))
		i = (i + 1) & (h->cap - 1);
	return i;
}

static int ht_grow(struct htab *h)
{
	struct htab n = { .kw = h->kw, .cap = h->cap * 2 };
	n.keys = calloc(n.cap * n.kw, sizeof(uint64_t));
	n.vals = calloc(n.cap, sizeof(uint32_t));
	if (!n.keys || !n.vals) {
		free(n.keys);
		free(n.vals);
		return -ENOMEM;
	}
	for (size_t i = 0; i < h->cap; i++) {
		if (!h->vals[i])
			continue;
		size_t s = ht_slot(&n, &h->keys[i * h->kw]);
		memcpy(&n.keys[s * n.kw], &h->keys[i * h->kw], n.kw * sizeof(uint64_t));
		n.vals[s] = h->vals[i];
	}
	free(h->keys);
	free(h->vals);
	h->keys = n.keys;
	h->vals = n.vals;
	h->cap = n.cap;
	return 0;
}

long htab__get(const struct htab *h, const uint64_t *k)
{
	size_t s = ht_slot(h, k);
	return h->vals[s] ? (long)h->vals[s] - 1 : -1;
}

int htab__put(struct htab *h, const uint64_t *k, size_t idx)
{
	if ((h->n + 1) * 2 > h->cap && ht_grow(h))
		return -ENOMEM;
	size_t s = ht_slot(h, k);
	if (!h->vals[s])
		h->n++;
	memcpy(&h->keys[s * h->kw], k, h->kw * sizeof(uint64_t));
	h->vals[s] = (uint32_t)idx + 1;
	return 0;
}

void *vec__grow(void *v, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return v;
	size_t nc = *cap ? *cap * 2 : 64;
	void *p = realloc(v, nc * size);
	if (p)
		*cap = nc;
	return p;
}
