/* SPDX-License-Identifier: MIT */
/*
 * A function per instruction (annotate.h): its code read from its object,
 * disassembled, each instruction's samples and source line. The samples
 * of the function's addresses are gathered once and sorted, so that each
 * instruction finds its own by a binary search.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/annotate.h"
#include "report/report.h"

long anno_find(const struct rep *r, const char *symbol, const struct rep_list *dsos, uint32_t ev)
{
	uint64_t best = 0;
	long sym = -1;
	uint64_t *n = calloc(r->nr_syms ? r->nr_syms : 1, sizeof(*n));
	if (!n)
		return -1;
	for (size_t l = 0; l < r->nr_locs; l++)
		n[r->locs[l].sym] += r->locs[l].count[ev];
	for (size_t i = 0; i < r->nr_syms; i++) {
		const struct rep_sym *s = &r->syms[i];
		const struct rep_dso *d = &r->dsos[s->dso];
		if (!rep_sym_named(s->name, symbol, strlen(symbol)) ||
		    (dsos->nr && !rep_list__has(dsos, d->base) && !rep_list__has(dsos, d->path)))
			continue;
		if (sym < 0 || n[i] > best) {
			best = n[i];
			sym = (long)i;
		}
	}
	free(n);
	return sym;
}

struct at { uint64_t addr, n; };

static int cmp_at(const void *x, const void *y)
{
	const struct at *p = x, *q = y;
	return p->addr < q->addr ? -1 : p->addr > q->addr;
}

/* The samples at @addr in @v (sorted, one entry per address). */
static uint64_t at_find(const struct at *v, size_t nr, uint64_t addr)
{
	size_t lo = 0, hi = nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].addr == addr)
			return v[mid].n;
		if (v[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* The function's addresses with samples, sorted, merged: their number. */
static size_t gather(const struct rep *r, uint32_t sym, uint32_t ev, struct at **out)
{
	size_t nr = 0, k = 0;
	for (size_t l = 0; l < r->nr_locs; l++)
		nr += r->locs[l].sym == sym && r->locs[l].count[ev];
	struct at *v = malloc((nr ? nr : 1) * sizeof(*v));
	if (!v)
		return SIZE_MAX;
	for (size_t l = 0; l < r->nr_locs; l++)
		if (r->locs[l].sym == sym && r->locs[l].count[ev])
			v[k++] = (struct at){ r->locs[l].addr, r->locs[l].count[ev] };
	qsort(v, k, sizeof(*v), cmp_at);
	size_t m = 0;
	for (size_t i = 0; i < k; i++) {
		if (m && v[m - 1].addr == v[i].addr)
			v[m - 1].n += v[i].n;
		else
			v[m++] = v[i];
	}
	*out = v;
	return m;
}

static int put_text(struct anno *a, const char *t)
{
	size_t n = strlen(t) + 1;
	if (a->len + n > a->cap) {
		size_t nc = a->cap ? a->cap * 2 : 4096;
		while (nc < a->len + n)
			nc *= 2;
		char *v = realloc(a->text, nc);
		if (!v)
			return -ENOMEM;
		a->text = v;
		a->cap = nc;
	}
	memcpy(a->text + a->len, t, n);
	a->len += n;
	return 0;
}

int anno_load(struct anno *a, struct rep *r, uint32_t sym, uint32_t ev, bool lines)
{
	const struct rep_sym *s = &r->syms[sym];
	struct rep_dso *d = &r->dsos[s->dso];
	struct hpm_disasm *dis = NULL;
	struct at *at = NULL;
	uint8_t *code = NULL;
	int rc = -ENOEXEC;

	memset(a, 0, sizeof(*a));
	a->sym = sym;
	if (!s->resolved || !s->size || !rep_dso_open(r, d))
		return rc;
	size_t size = s->size > (1u << 20) ? (1u << 20) : (size_t)s->size;
	size_t nat = gather(r, sym, ev, &at);
	rc = -ENOMEM;
	if (nat == SIZE_MAX || !(code = malloc(size)))
		goto out;
	rc = -ENOTSUP;
	if (!(dis = hpm_disasm__new(hpm_dso__arch(d->d))))
		goto out;
	rc = -EIO;
	ssize_t got = hpm_dso__read(d->d, s->start, code, size);
	if (got <= 0)
		goto out;
	rc = -ENOMEM;
	size_t cap = 0;
	for (size_t off = 0; off < (size_t)got;) {
		char text[160];
		uint64_t addr = s->start + off;
		size_t n = hpm_disasm__one(dis, code + off, (size_t)got - off, addr, text, sizeof(text));
		if (!n) {
			snprintf(text, sizeof(text), "(bad) .byte 0x%02x", code[off]);
			n = 1;
		}
		if (a->nr == cap) {
			cap = cap ? cap * 2 : 256;
			struct anno_insn *v = realloc(a->v, cap * sizeof(*v));
			if (!v)
				goto out;
			a->v = v;
		}
		struct anno_insn *i = &a->v[a->nr++];
		*i = (struct anno_insn){ .addr = addr, .samples = at_find(at, nat, addr), .text = a->len };
		if (put_text(a, text))
			goto out;
		if (lines) {
			struct hpm_symbol hs = { 0 };
			hpm_dso__lookup(d->d, addr, HPM_SYM_LINES, &hs); /* a line, even without a function */
			if (hs.file && hs.line) {
				i->file = hs.file;
				i->line = hs.line;
			}
		}
		a->samples += i->samples;
		off += n;
	}
	rc = 0;
out:
	free(at);
	free(code);
	hpm_disasm__free(dis);
	if (rc)
		anno_free(a);
	return rc;
}

void anno_free(struct anno *a)
{
	free(a->v);
	free(a->text);
	memset(a, 0, sizeof(*a));
}

void anno_src_free(struct anno_src *s)
{
	free(s->text);
	free(s->lines);
	memset(s, 0, sizeof(*s));
}

/*
 * The first ANNO_SRC_MAX bytes of source file @path, into s->text: the
 * object's DWARF names it, and whoever built the object chose the name.
 * So it is opened as every input an untrusted file names is: without
 * waiting (a FIFO's open would wait for a writer for ever), a regular
 * file only (a device such as /dev/zero, behind a symlink too, never
 * ends), and read no further than the bound. -errno when it is none.
 */
static int src_read(struct anno_src *s, const char *path)
{
	struct stat sb;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), rc = 0;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	size_t cap = sb.st_size <= 0 ? 0 : (uint64_t)sb.st_size < ANNO_SRC_MAX ? (size_t)sb.st_size
									    : ANNO_SRC_MAX;
	if (cap && !(s->text = malloc(cap + 1))) /* + 1: the last line's NUL */
		cap = 0;
	/* the size it had at the open; a file that grows meanwhile is cut
	 * there (and one larger than the bound, at the bound) */
	while (s->len < cap) {
		ssize_t n = read(fd, s->text + s->len, cap - s->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n < 0 ? -errno : 0;
			break;
		}
		s->len += (size_t)n;
	}
	close(fd);
	return rc;
}

const char *anno_src_line(struct anno_src *s, const char *path, unsigned n)
{
	if (strcmp(s->path, path)) {
		anno_src_free(s);
		snprintf(s->path, sizeof(s->path), "%s", path);
		size_t cap = 0;
		if (src_read(s, path))
			s->len = 0;
		/* the lines, each ended by a NUL in place of its newline */
		for (size_t at = 0; at < s->len && s->nr < ANNO_SRC_LINES;) {
			char *nl = memchr(s->text + at, '\n', s->len - at);
			size_t end = nl ? (size_t)(nl - s->text) : s->len;
			if (s->nr == cap) {
				cap = cap ? cap * 2 : 256;
				size_t *v = realloc(s->lines, cap * sizeof(*v));
				if (!v)
					break;
				s->lines = v;
			}
			s->text[end] = '\0';
			s->lines[s->nr++] = at;
			at = end + 1;
		}
	}
	return n >= 1 && n <= s->nr ? s->text + s->lines[n - 1] : NULL;
}
