/* SPDX-License-Identifier: MIT */
/*
 * An object's resolved addresses kept between reports
 * (include/hpmon/symcache.h: struct hpm_symcache). A saved cache is read
 * into memory whole and checked as untrusted input before anything is
 * used; entries added during a report are kept apart, unsorted, and
 * merged with the read ones only when saved.
 *
 * The file, native byte order (a cache is the machine's own):
 *
 *   struct sc_hdr          magic "HPMSYMC1", counts, build-id, the
 *                          object's and the debug file's identities
 *   struct sc_place [p]    where a debug file is looked for, and what was there
 *   struct sc_ent [n]      sorted by (offset, demangled), each key once
 *   text [text_len]        NUL-terminated strings, the first "" (none);
 *                          bytes 0x20-0x7e only
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include <hpmon/profile.h>
#include <hpmon/symcache.h>
#include "core/file-internal.h"

#define SC_MAGIC "HPMSYMC1"
#define SC_FLAGS (HPM_SYM_LINES | HPM_SYM_INLINE | HPM_SYM_DEMANGLE)
#define SC_HAS_SYMBOLS 0x1u

struct sc_id {
	uint64_t present, dev, ino, size;
	int64_t mtime_ns;
};

struct sc_hdr {
	char magic[8];
	uint64_t n, text_len, nr_places;
	uint32_t context, debug_file; /* text offsets; 0: "" (none) */
	uint32_t flags, build_id_len;
	uint8_t build_id[24];
	struct sc_id file, debug;
};
_Static_assert(sizeof(struct sc_hdr) == 152, "the cache's header is 152 bytes");

struct sc_place {
	uint32_t path, pad;
	struct sc_id id;
};
_Static_assert(sizeof(struct sc_place) == 48, "a place is 48 bytes");

struct sc_ent {
	uint64_t off, addr, start, size;
	uint32_t name, inl, file, line, flags, pad;
};
_Static_assert(sizeof(struct sc_ent) == 56, "an entry is 56 bytes");

/* An entry added during this run: strings owned. */
struct sc_new {
	struct hpm_symcache_entry e;
	size_t seq;                   /* order of adding: the later wins */
};

struct hpm_symcache {
	uint8_t build_id[HPM_BUILD_ID_MAX];
	size_t build_id_len;
	char *context;
	struct hpm_symcache_source src;  /* strings owned */
	/* read from a file: the file's bytes, its entries and strings */
	char *buf;
	const struct sc_ent *v;
	size_t n;
	const char *text;
	size_t text_len;
	/* added */
	struct sc_new *add;
	size_t nr_add, cap_add;
	size_t file_bytes, str_bytes;    /* hpm_symcache__bytes: read, and added strings */
};

static bool printable(const char *s, size_t max)
{
	size_t i = 0;
	for (; s[i] && i < max; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
			return false;
	return i < max;
}

static bool ok_str(const char *s)
{
	return !s || printable(s, HPM_SYMCACHE_MAX_STRING);
}

static char *dup_opt(const char *s, bool *fail)
{
	if (!s)
		return NULL;
	char *d = strdup(s);
	*fail |= !d;
	return d;
}

static struct hpm_symcache *alloc_cache(const uint8_t *build_id, size_t len, const char *context,
					const struct hpm_symcache_source *src)
{
	bool fail = false;
	struct hpm_symcache *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	memcpy(c->build_id, build_id, len);
	c->build_id_len = len;
	c->src = *src;
	c->context = dup_opt(context, &fail);
	c->src.debug_file = dup_opt(src->debug_file, &fail);
	for (size_t i = 0; i < src->nr_places; i++)
		c->src.places[i] = dup_opt(src->places[i], &fail);
	if (fail) {
		hpm_symcache__free(c);
		errno = ENOMEM;
		return NULL;
	}
	return c;
}

static bool source_ok(const struct hpm_symcache_source *src)
{
	bool ok = ok_str(src->debug_file) && src->nr_places <= HPM_SYMCACHE_MAX_PLACES;
	for (size_t i = 0; ok && i < src->nr_places; i++)
		ok = src->places[i] && src->places[i][0] && ok_str(src->places[i]);
	return ok;
}

static void source_release(struct hpm_symcache_source *s)
{
	for (size_t i = 0; i < s->nr_places; i++)
		free((char *)s->places[i]);
	free((char *)s->debug_file);
}

int hpm_symcache__set_source(struct hpm_symcache *c, const struct hpm_symcache_source *src)
{
	struct hpm_symcache_source n = *src;
	bool fail = false;
	if (!source_ok(src))
		return -EINVAL;
	n.debug_file = dup_opt(src->debug_file, &fail);
	for (size_t i = 0; i < src->nr_places; i++)
		n.places[i] = dup_opt(src->places[i], &fail);
	if (fail) {
		source_release(&n);
		return -ENOMEM;
	}
	source_release(&c->src);
	c->src = n;
	return 0;
}

struct hpm_symcache *hpm_symcache__new(const uint8_t *build_id, size_t len, const char *context,
				       const struct hpm_symcache_source *src)
{
	if (!build_id || !len || len > HPM_BUILD_ID_MAX || !context || !ok_str(context) ||
	    !source_ok(src)) {
		errno = EINVAL;
		return NULL;
	}
	return alloc_cache(build_id, len, context, src);
}

void hpm_symcache__free(struct hpm_symcache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nr_add; i++) {
		free((char *)c->add[i].e.name);
		free((char *)c->add[i].e.inl);
		free((char *)c->add[i].e.file);
	}
	free(c->add);
	source_release(&c->src);
	free(c->context);
	free(c->buf);
	free(c);
}

/* ---- reading ---- */

static bool id_ok(const struct sc_id *s)
{
	return s->present <= 1 && (s->present || !(s->dev | s->ino | s->size | (uint64_t)s->mtime_ns));
}

static struct hpm_file_id id_of(const struct sc_id *s)
{
	return (struct hpm_file_id){ s->present != 0, s->dev, s->ino, s->size, s->mtime_ns };
}

/* A string of the text at @off: inside, at a string's start, and not
 * empty but at 0 (the one "none"). NULL if not. */
static const char *str_at(const struct hpm_symcache *c, uint32_t off)
{
	if (off >= c->text_len || (off && (c->text[off - 1] || !c->text[off])))
		return NULL;
	return c->text + off;
}

static bool key_less(uint64_t off_a, unsigned fl_a, uint64_t off_b, unsigned fl_b)
{
	unsigned da = fl_a & HPM_SYM_DEMANGLE, db = fl_b & HPM_SYM_DEMANGLE;
	return off_a < off_b || (off_a == off_b && da < db);
}

/* Each entry's flags known, its parts only those its flags ask for, its
 * strings in the text; the keys ascending. */
static bool entries_ok(const struct hpm_symcache *c)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct sc_ent *e = &c->v[i];
		if ((e->flags & ~SC_FLAGS) || e->pad || !str_at(c, e->name) || !str_at(c, e->inl) ||
		    !str_at(c, e->file))
			return false;
		if ((!(e->flags & HPM_SYM_INLINE) && e->inl) || (!e->name && e->inl) ||
		    (!(e->flags & HPM_SYM_LINES) && (e->file || e->line)) || (!e->file && e->line))
			return false;
		if (i && !key_less(c->v[i - 1].off, c->v[i - 1].flags, e->off, e->flags))
			return false;
	}
	return true;
}

/* Check the header and layout of the @size bytes in c->buf. */
static bool parse(struct hpm_symcache *c, size_t size)
{
	struct sc_hdr h;
	if (size < sizeof(h))
		return false;
	memcpy(&h, c->buf, sizeof(h));
	if (memcmp(h.magic, SC_MAGIC, 8) || h.nr_places > HPM_SYMCACHE_MAX_PLACES ||
	    h.n > HPM_SYMCACHE_MAX_ENTRIES || !h.build_id_len || h.build_id_len > HPM_BUILD_ID_MAX ||
	    (h.flags & ~SC_HAS_SYMBOLS) || !h.text_len || h.text_len > size ||
	    sizeof(h) + h.nr_places * sizeof(struct sc_place) + h.n * sizeof(struct sc_ent) +
			    h.text_len != size ||
	    !id_ok(&h.file) || !id_ok(&h.debug))
		return false;
	const struct sc_place *pl = (const struct sc_place *)(c->buf + sizeof(h));
	c->v = (const struct sc_ent *)(pl + h.nr_places);
	c->n = (size_t)h.n;
	c->text = (const char *)(c->v + h.n);
	c->text_len = (size_t)h.text_len;
	/* the text: "" first, NUL-terminated, printable */
	if (c->text[0] || c->text[c->text_len - 1])
		return false;
	size_t run = 0;
	for (size_t i = 0; i < c->text_len; i++) {
		unsigned char b = (unsigned char)c->text[i];
		if (b && (b < 0x20 || b > 0x7e))
			return false;
		run = b ? run + 1 : 0;
		if (run >= HPM_SYMCACHE_MAX_STRING)
			return false;
	}
	const char *ctx = str_at(c, h.context), *dbg = str_at(c, h.debug_file);
	if (!ctx || !dbg || (!dbg[0] && h.debug.present))
		return false;
	memcpy(c->build_id, h.build_id, h.build_id_len);
	c->build_id_len = h.build_id_len;
	c->context = (char *)ctx; /* in buf: not freed apart */
	c->src.file = id_of(&h.file);
	c->src.has_symbols = h.flags & SC_HAS_SYMBOLS;
	c->src.debug_file = dbg[0] ? dbg : NULL;
	c->src.debug = id_of(&h.debug);
	c->src.nr_places = (size_t)h.nr_places;
	for (size_t i = 0; i < c->src.nr_places; i++) {
		const char *p = str_at(c, pl[i].path);
		if (!p || !p[0] || pl[i].pad || !id_ok(&pl[i].id))
			return false;
		c->src.places[i] = p;
		c->src.place_id[i] = id_of(&pl[i].id);
	}
	return entries_ok(c);
}

struct hpm_symcache *hpm_symcache__load(const char *path)
{
	uint64_t size = 0;
	int fd = hpm__open_private(path, sizeof(struct sc_hdr), HPM_SYMCACHE_MAX_FILE, &size);
	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	struct hpm_symcache *c = calloc(1, sizeof(*c));
	int e = ENOMEM;
	/* 8-aligned for the entries; read whole: the file is small */
	if (!c || !(c->buf = aligned_alloc(8, ((size_t)size + 7) & ~(size_t)7)))
		goto fail;
	size_t got = 0;
	while (got < size) {
		ssize_t k = read(fd, c->buf + got, (size_t)size - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			e = k < 0 ? errno : EBADMSG;
			goto fail;
		}
		got += (size_t)k;
	}
	e = EBADMSG;
	if (!parse(c, (size_t)size))
		goto fail;
	c->file_bytes = (size_t)size;
	close(fd);
	/* the strings are in buf: the owned copies start empty */
	c->context = strdup(c->context);
	bool fail = !c->context;
	c->src.debug_file = dup_opt(c->src.debug_file, &fail);
	for (size_t i = 0; i < c->src.nr_places; i++)
		c->src.places[i] = dup_opt(c->src.places[i], &fail);
	if (fail) {
		hpm_symcache__free(c);
		errno = ENOMEM;
		return NULL;
	}
	return c;
fail:
	close(fd);
	if (c) {
		/* nothing owned yet but buf */
		free(c->buf);
		free(c);
	}
	errno = e;
	return NULL;
}

/* ---- getters and look-ups ---- */

size_t hpm_symcache__build_id(const struct hpm_symcache *c, uint8_t *buf, size_t len)
{
	memcpy(buf, c->build_id, c->build_id_len < len ? c->build_id_len : len);
	return c->build_id_len;
}

const char *hpm_symcache__context(const struct hpm_symcache *c) { return c->context; }
void hpm_symcache__source(const struct hpm_symcache *c, struct hpm_symcache_source *out)
{
	*out = c->src;
}
size_t hpm_symcache__count(const struct hpm_symcache *c) { return c->n + c->nr_add; }
size_t hpm_symcache__bytes(const struct hpm_symcache *c)
{
	return sizeof(*c) + c->file_bytes + c->cap_add * sizeof(*c->add) + c->str_bytes;
}

static const char *opt_str(const struct hpm_symcache *c, uint32_t off)
{
	return off ? c->text + off : NULL;
}

static void entry_of(const struct hpm_symcache *c, const struct sc_ent *s,
		     struct hpm_symcache_entry *e)
{
	*e = (struct hpm_symcache_entry){ s->off, s->flags, s->addr, opt_str(c, s->name),
					  s->start, s->size, opt_str(c, s->inl),
					  opt_str(c, s->file), s->line };
}

int hpm_symcache__lookup(const struct hpm_symcache *c, uint64_t off, unsigned flags,
			 struct hpm_symcache_entry *out, unsigned *have)
{
	unsigned dem = flags & HPM_SYM_DEMANGLE, want = flags & (HPM_SYM_LINES | HPM_SYM_INLINE);
	size_t lo = 0, hi = c->n;
	if (have)
		*have = 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (key_less(c->v[mid].off, c->v[mid].flags, off, dem))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == c->n || c->v[lo].off != off || (c->v[lo].flags & HPM_SYM_DEMANGLE) != dem)
		return -ENOENT;
	if (have)
		*have = c->v[lo].flags;
	if ((c->v[lo].flags & want) != want)
		return -ENOENT;
	entry_of(c, &c->v[lo], out);
	/* only what was asked */
	out->flags = flags & SC_FLAGS;
	if (!(flags & HPM_SYM_INLINE))
		out->inl = NULL;
	if (!(flags & HPM_SYM_LINES)) {
		out->file = NULL;
		out->line = 0;
	}
	return 0;
}

int hpm_symcache__add(struct hpm_symcache *c, const struct hpm_symcache_entry *e)
{
	if ((e->flags & ~SC_FLAGS) || !ok_str(e->name) || !ok_str(e->inl) || !ok_str(e->file) ||
	    (e->inl && (!(e->flags & HPM_SYM_INLINE) || !e->name)) ||
	    ((e->file || e->line) && !(e->flags & HPM_SYM_LINES)) || (e->line && !e->file) ||
	    (e->name && !e->name[0]) || (e->inl && !e->inl[0]) || (e->file && !e->file[0]))
		return -EINVAL;
	if (c->nr_add >= HPM_SYMCACHE_MAX_ENTRIES)
		return -E2BIG;
	if (c->nr_add == c->cap_add) {
		size_t cap = c->cap_add ? 2 * c->cap_add : 256;
		struct sc_new *v = realloc(c->add, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		c->add = v;
		c->cap_add = cap;
	}
	bool fail = false;
	struct sc_new *n = &c->add[c->nr_add];
	n->e = *e;
	n->seq = c->nr_add;
	n->e.name = dup_opt(e->name, &fail);
	n->e.inl = dup_opt(e->inl, &fail);
	n->e.file = dup_opt(e->file, &fail);
	if (fail) {
		free((char *)n->e.name);
		free((char *)n->e.inl);
		free((char *)n->e.file);
		return -ENOMEM;
	}
	/* with malloc's overhead, about */
	c->str_bytes += (e->name ? strlen(e->name) + 16 : 0) + (e->inl ? strlen(e->inl) + 16 : 0) +
			(e->file ? strlen(e->file) + 16 : 0);
	c->nr_add++;
	return 0;
}

/* ---- saving ---- */

static int cmp_new(const void *a, const void *b)
{
	const struct sc_new *x = a, *y = b;
	if (key_less(x->e.off, x->e.flags, y->e.off, y->e.flags))
		return -1;
	if (key_less(y->e.off, y->e.flags, x->e.off, x->e.flags))
		return 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* @c's entries, sorted, one per key (an added one over a read one, the
 * last added over earlier ones): a malloc'd array into *@out, borrowing
 * @c's strings. The number, or -ENOMEM. */
static long sorted_view(const struct hpm_symcache *c, struct hpm_symcache_entry **out)
{
	struct sc_new *a = c->nr_add ? malloc(c->nr_add * sizeof(*a)) : NULL;
	struct hpm_symcache_entry *v = malloc((c->n + c->nr_add + 1) * sizeof(*v));
	size_t na = 0, nv = 0, i = 0, j = 0;

	if ((c->nr_add && !a) || !v) {
		free(a);
		free(v);
		return -ENOMEM;
	}
	if (c->nr_add) {
		memcpy(a, c->add, c->nr_add * sizeof(*a));
		qsort(a, c->nr_add, sizeof(*a), cmp_new);
	}
	for (size_t k = 0; k < c->nr_add; k++) {
		if (k + 1 < c->nr_add && a[k + 1].e.off == a[k].e.off &&
		    !((a[k + 1].e.flags ^ a[k].e.flags) & HPM_SYM_DEMANGLE))
			continue; /* a later one of the same key follows */
		a[na++] = a[k];
	}
	while (i < c->n || j < na) {
		struct hpm_symcache_entry r = { 0 };
		if (i < c->n)
			entry_of(c, &c->v[i], &r);
		if (j < na && (i == c->n || !key_less(r.off, r.flags, a[j].e.off, a[j].e.flags))) {
			if (i < c->n && r.off == a[j].e.off &&
			    !((r.flags ^ a[j].e.flags) & HPM_SYM_DEMANGLE))
				i++; /* replaced */
			v[nv++] = a[j++].e;
		} else {
			v[nv++] = r;
			i++;
		}
	}
	free(a);
	*out = v;
	return (long)nv;
}

/* The file's strings, each once: an open-addressing table of offsets. */
struct text {
	char *buf;
	size_t len, cap;
	uint32_t *slot;               /* offset + 1, 0 empty */
	size_t nslot, used;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static int text_grow_slots(struct text *t)
{
	size_t n = t->nslot ? 2 * t->nslot : 1024;
	uint32_t *s = calloc(n, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < t->nslot; i++) {
		if (!t->slot[i])
			continue;
		size_t k = hash_str(t->buf + t->slot[i] - 1) & (n - 1);
		while (s[k])
			k = (k + 1) & (n - 1);
		s[k] = t->slot[i];
	}
	free(t->slot);
	t->slot = s;
	t->nslot = n;
	return 0;
}

/* The offset of @s in the text (added when new), 0 for NULL. 0 and
 * *@err on failure. */
static uint32_t text_put(struct text *t, const char *s, int *err)
{
	if (!s || !s[0] || *err)
		return 0;
	if (2 * (t->used + 1) > t->nslot && (*err = text_grow_slots(t)))
		return 0;
	size_t k = hash_str(s) & (t->nslot - 1);
	for (; t->slot[k]; k = (k + 1) & (t->nslot - 1))
		if (!strcmp(t->buf + t->slot[k] - 1, s))
			return t->slot[k] - 1;
	size_t n = strlen(s) + 1;
	if (t->len + n > HPM_SYMCACHE_MAX_FILE) {
		*err = -EFBIG;
		return 0;
	}
	if (t->len + n > t->cap) {
		size_t cap = t->cap ? t->cap : 65536;
		while (cap < t->len + n)
			cap *= 2;
		char *b = realloc(t->buf, cap);
		if (!b) {
			*err = -ENOMEM;
			return 0;
		}
		t->buf = b;
		t->cap = cap;
	}
	uint32_t off = (uint32_t)t->len;
	memcpy(t->buf + off, s, n);
	t->len += n;
	t->slot[k] = off + 1;
	t->used++;
	return off;
}

static size_t str_size(const char *s)
{
	return s && s[0] ? strlen(s) + 1 : 0;
}

static struct sc_id sc_id_of(const struct hpm_file_id *id)
{
	if (!id->present)
		return (struct sc_id){ 0 };
	return (struct sc_id){ 1, id->dev, id->ino, id->size, id->mtime_ns };
}

int hpm_symcache__save(const struct hpm_symcache *c, const struct hpm_symcache *old,
		       const char *path)
{
	struct hpm_symcache_entry *a = NULL, *b = NULL;
	struct sc_ent *ents = NULL;
	struct text t = { 0 };
	struct sc_hdr h = { .magic = SC_MAGIC };
	struct sc_place pl[HPM_SYMCACHE_MAX_PLACES] = { { 0 } };
	long na = sorted_view(c, &a), nb = old ? sorted_view(old, &b) : 0;
	int rc = 0;
	size_t n = 0;

	if (na < 0 || nb < 0) {
		rc = -ENOMEM;
		goto out;
	}
	/* this run's entries first; the saved ones it has no key of while
	 * there is room (those at the end are left out first) */
	size_t keep_b = 0, room = HPM_SYMCACHE_MAX_ENTRIES > (size_t)na
					  ? HPM_SYMCACHE_MAX_ENTRIES - (size_t)na : 0;
	if ((size_t)na > HPM_SYMCACHE_MAX_ENTRIES)
		na = HPM_SYMCACHE_MAX_ENTRIES;
	ents = malloc(((size_t)na + (size_t)nb + 1) * sizeof(*ents));
	if (!ents) {
		rc = -ENOMEM;
		goto out;
	}
	/* offset 0 is the empty string: "none" */
	t.buf = malloc(65536);
	if (!t.buf || text_grow_slots(&t)) {
		rc = -ENOMEM;
		goto out;
	}
	t.cap = 65536;
	t.buf[0] = '\0';
	t.len = 1;
	/* the header's strings and this run's first: the saved entries are
	 * kept only while they fit (HPM_SYMCACHE_MAX_FILE) beside them, so
	 * that a cache at its size still takes a report's new entries */
	h.context = text_put(&t, c->context, &rc);
	h.debug_file = text_put(&t, c->src.debug_file, &rc);
	for (size_t k = 0; k < c->src.nr_places; k++)
		pl[k] = (struct sc_place){ text_put(&t, c->src.places[k], &rc), 0,
					   sc_id_of(&c->src.place_id[k]) };
	for (long k = 0; k < na; k++) {
		text_put(&t, a[k].name, &rc);
		text_put(&t, a[k].inl, &rc);
		text_put(&t, a[k].file, &rc);
	}
	const size_t fixed = sizeof(h) + c->src.nr_places * sizeof(*pl);
	long i = 0, j = 0;
	while (!rc && (i < na || j < nb)) {
		const struct hpm_symcache_entry *e;
		if (j < nb && (i == na || key_less(b[j].off, b[j].flags, a[i].off, a[i].flags))) {
			e = &b[j++];
			/* its strings as if all new: the bound is never passed */
			size_t more = str_size(e->name) + str_size(e->inl) + str_size(e->file);
			if (keep_b == room || fixed + (n + 1 + (size_t)(na - i)) * sizeof(*ents) +
						      t.len + more > HPM_SYMCACHE_MAX_FILE)
				continue;
			keep_b++;
		} else {
			e = &a[i++];
			if (j < nb && b[j].off == e->off && !((b[j].flags ^ e->flags) & HPM_SYM_DEMANGLE))
				j++; /* replaced */
		}
		ents[n++] = (struct sc_ent){ e->off, e->addr, e->start, e->size,
					     text_put(&t, e->name, &rc), text_put(&t, e->inl, &rc),
					     text_put(&t, e->file, &rc), e->file ? e->line : 0,
					     e->flags & SC_FLAGS, 0 };
	}
	if (rc)
		goto out;
	h.n = n;
	h.text_len = t.len;
	h.nr_places = c->src.nr_places;
	h.flags = c->src.has_symbols ? SC_HAS_SYMBOLS : 0;
	h.build_id_len = (uint32_t)c->build_id_len;
	memcpy(h.build_id, c->build_id, c->build_id_len);
	h.file = sc_id_of(&c->src.file);
	h.debug = h.debug_file ? sc_id_of(&c->src.debug) : (struct sc_id){ 0 };
	uint64_t size = sizeof(h) + h.nr_places * sizeof(*pl) + n * sizeof(*ents) + t.len;
	if (size > HPM_SYMCACHE_MAX_FILE) {
		rc = -EFBIG;
		goto out;
	}
	struct iovec iov[4] = { { &h, sizeof(h) },
				{ pl, h.nr_places * sizeof(*pl) },
				{ ents, n * sizeof(*ents) },
				{ t.buf, t.len } };
	rc = hpm__write_private(path, iov, 4);
out:
	free(a);
	free(b);
	free(ents);
	free(t.buf);
	free(t.slot);
	return rc;
}
