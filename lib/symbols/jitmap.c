/* SPDX-License-Identifier: MIT */
/*
 * JIT maps (include/hpmon/symbols.h: struct hpm_jitmap): the
 * /tmp/perf-PID.map files a JIT writes, as a sorted (address, name)
 * table.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hpmon/symbols.h>
#include "core/file-internal.h"

struct addr_name {
	uint64_t addr;
	uint64_t size; /* 0: up to the next entry */
	char *name;
};

struct addr_table {
	struct addr_name *v;
	size_t n, cap;
};

struct hpm_jitmap { struct addr_table t; };

static int table_add(struct addr_table *t, uint64_t addr, uint64_t size, const char *name)
{
	if (t->n == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 4096;
		struct addr_name *v = realloc(t->v, nc * sizeof(*v));
		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = nc;
	}
	char *s = strdup(name);
	if (!s)
		return -ENOMEM;
	t->v[t->n++] = (struct addr_name){ addr, size, s };
	return 0;
}

static int cmp_addr(const void *a, const void *b)
{
	const struct addr_name *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void table_free(struct addr_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
}

static const char *table_lookup(const struct addr_table *t, uint64_t addr, uint64_t *start)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (t->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	const struct addr_name *e = &t->v[lo - 1];
	if (e->size && addr >= e->addr + e->size)
		return NULL;
	if (start)
		*start = e->addr;
	return e->name;
}

struct hpm_jitmap *hpm_jitmap__load(const char *path)
{
	struct hpm_jitmap *m = calloc(1, sizeof(*m));
	char line[1024];
	FILE *f;

	if (!m)
		return NULL;
	if (!(f = hpm__fopen_input(path, 0))) { /* /tmp/perf-PID.map may be a FIFO */
		int e = errno;
		free(m);
		errno = e;
		return NULL;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, size;
		int n = 0;
		/* a longer line keeps its first 1023 bytes (the name cut): the
		 * rest is no line of its own */
		if (!strchr(line, '\n'))
			for (int c; (c = getc(f)) != EOF && c != '\n';)
				;
		if (sscanf(line, "%llx %llx %n", &a, &size, &n) != 2 || !n)
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (table_add(&m->t, a, size ? size : 1, line + n)) {
			fclose(f);
			hpm_jitmap__free(m);
			errno = ENOMEM;
			return NULL;
		}
	}
	fclose(f);
	if (m->t.n) /* an empty map has no table at all */
		qsort(m->t.v, m->t.n, sizeof(*m->t.v), cmp_addr);
	return m;
}

void hpm_jitmap__free(struct hpm_jitmap *m)
{
	if (!m)
		return;
	table_free(&m->t);
	free(m);
}

const char *hpm_jitmap__lookup(const struct hpm_jitmap *m, uint64_t addr, uint64_t *start)
{
	return table_lookup(&m->t, addr, start);
}
