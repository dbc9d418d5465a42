/* SPDX-License-Identifier: MIT */
/*
 * The kernel's symbols (include/hpmon/symbols.h: struct hpm_kallsyms):
 * /proc/kallsyms read and indexed, and the tables saved from it for later
 * reports.
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
#include "symbols/symtab.h"

/* /proc/kallsyms is 120 000+ lines of "ADDR TYPE NAME [MODULE]" (5 MB), and
 * the kernel takes tens of ms to produce it: it is read in large blocks
 * into one buffer, and the names stay there, NUL-terminated in place. A
 * saved table (hpm_kallsyms__save) is mapped as it is. */
#define KALLSYMS_MAX (256u << 20)
#define KSYM_MODULE 0x1u   /* the symbol of a module, BPF program, trampoline */

struct ksym {
	uint64_t addr;
	uint32_t name;   /* offset in text */
	uint32_t flags;
};
_Static_assert(sizeof(struct ksym) == 16, "the saved table's entry is 16 bytes");

struct hpm_kallsyms {
	char *text;          /* names; malloc'd, or in map */
	size_t text_len;
	struct ksym *v;      /* sorted by address; malloc'd, or in map */
	size_t n;
	void *map;           /* a saved table, mapped */
	size_t map_len;
	bool saved;          /* the core kernel's symbols only: covers [lo, hi) */
	uint64_t lo, hi;
};

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The whole of @fd into a malloc'd buffer, NUL-terminated; NULL and errno. */
static char *read_all(int fd, size_t *len)
{
	size_t cap = 8u << 20, n = 0;
	char *buf = malloc(cap + 1);
	if (!buf)
		return NULL;
	for (;;) {
		if (n == cap) {
			if (cap >= KALLSYMS_MAX) {
				free(buf);
				errno = EFBIG;
				return NULL;
			}
			char *v = realloc(buf, cap * 2 + 1);
			if (!v) {
				free(buf);
				return NULL;
			}
			buf = v;
			cap *= 2;
		}
		ssize_t k = read(fd, buf + n, cap - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int e = errno;
			free(buf);
			errno = e;
			return NULL;
		}
		if (k == 0)
			break;
		n += (size_t)k;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Index the text symbols of @k->text (@len bytes). 0 or -ENOMEM. */
static int kallsyms_index(struct hpm_kallsyms *k, size_t len, bool *nonzero)
{
	size_t cap = 0;
	bool sorted = true;
	uint64_t prev = 0;
	char *p = k->text, *end = k->text + len;

	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *eol = nl ? nl : end;
		char *line = p;
		uint64_t a = 0;
		int digits = 0, h;
		p = nl ? nl + 1 : end;
		while (line < eol && digits < 16 && (h = hexval((unsigned char)*line)) >= 0) {
			a = a << 4 | (unsigned)h;
			line++;
			digits++;
		}
		/* "ADDR T NAME": text symbols only (t, T, w, W) */
		if (!digits || eol - line < 4 || line[0] != ' ' || line[2] != ' ')
			continue;
		char type = line[1];
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		char *name = line + 3;
		size_t name_len = strcspn(name, " \t\n");
		if (name + name_len > eol || !name_len)
			continue;
		/* "NAME\t[module]": modules, BPF programs, ftrace trampolines */
		uint32_t flags = name + name_len < eol &&
				 memchr(name + name_len, '[', (size_t)(eol - name - name_len))
					 ? KSYM_MODULE : 0;
		name[name_len] = '\0';
		/* arm64 lists its modules' "$x" and "$d" as text: no function */
		if (hpm__mapping_symbol(name))
			continue;
		/* a kernel's names are printable ASCII: a file that says
		 * otherwise (a test tree's procfs) brings no control byte to a
		 * report, and a table saved from it reads back */
		size_t i = 0;
		while (i < name_len && (unsigned char)name[i] > 0x20 && (unsigned char)name[i] < 0x7f)
			i++;
		if (i < name_len)
			continue;
		if (k->n == cap) {
			size_t nc = cap ? cap * 2 : 65536;
			struct ksym *v = realloc(k->v, nc * sizeof(*v));
			if (!v)
				return -ENOMEM;
			k->v = v;
			cap = nc;
		}
		k->v[k->n++] = (struct ksym){ a, (uint32_t)(name - k->text), flags };
		*nonzero |= a != 0;
		sorted &= a >= prev;
		prev = a;
	}
	if (!sorted)
		qsort(k->v, k->n, sizeof(*k->v), cmp_ksym);
	return 0;
}

struct hpm_kallsyms *hpm_kallsyms__load(const char *path)
{
	struct hpm_kallsyms *k = calloc(1, sizeof(*k));
	bool nonzero = false;
	size_t len = 0;
	int fd, e;

	if (!k)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto fail;
	k->text = read_all(fd, &len);
	e = errno;
	close(fd);
	errno = e;
	if (!k->text)
		goto fail;
	k->text_len = len + 1;
	if (kallsyms_index(k, len, &nonzero)) {
		errno = ENOMEM;
		goto fail;
	}
	if (!nonzero) {
		errno = ENODATA;
		goto fail;
	}
	return k;
fail:
	e = errno;
	hpm_kallsyms__free(k);
	errno = e;
	return NULL;
}

void hpm_kallsyms__free(struct hpm_kallsyms *k)
{
	if (!k)
		return;
	if (k->map) {
		munmap(k->map, k->map_len);
	} else {
		free(k->text);
		free(k->v);
	}
	free(k);
}

const char *hpm_kallsyms__lookup(const struct hpm_kallsyms *k, uint64_t addr, uint64_t *start)
{
	size_t lo = 0, hi = k->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (k->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || k->v[lo - 1].name >= k->text_len)
		return NULL;
	if (start)
		*start = k->v[lo - 1].addr;
	return k->text + k->v[lo - 1].name;
}

/* ---- saved tables ----
 *
 * The core kernel's text symbols do not move while it runs: a table saved
 * once per boot answers for them in a later run without the kernel listing
 * them again. Modules, BPF programs and trampolines come and go, so they
 * are not saved, and an address outside the core kernel's text is not
 * covered (hpm_kallsyms__covers). The file, native byte order:
 *
 *   0   8  magic "HPMKSYM1"
 *   8   8  n: entries
 *  16   8  text_len: bytes of names, the last a NUL
 *  24   8  lo, 32 8 hi: the core text the table covers, [lo, hi)
 *  40   8  key_len, then the key (padded with NULs to 8 bytes)
 *          n entries of 16 bytes: address, name offset (4), 0 (4)
 *          the names, NUL-terminated
 */
#define KSAVE_MAGIC "HPMKSYM1"
#define KSAVE_HDR 48
#define KSAVE_KEY_MAX 512
/* A saved table is read as untrusted input: bounded (the core kernel's
 * text symbols take a few MB; 64 MiB leaves room for any kernel). */
#define KSAVE_MAX ((uint64_t)64 << 20)

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* The core kernel's text [lo, hi) in @k: from its first text symbol to its
 * last; false when a module's symbol falls inside (then nothing is saved). */
static bool core_range(const struct hpm_kallsyms *k, uint64_t *lo, uint64_t *hi)
{
	bool any = false;
	for (size_t i = 0; i < k->n; i++) {
		if (k->v[i].flags & KSYM_MODULE)
			continue;
		if (!any)
			*lo = k->v[i].addr;
		*hi = k->v[i].addr;
		any = true;
	}
	if (!any || *hi <= *lo)
		return false;
	for (size_t i = 0; i < k->n; i++)
		if ((k->v[i].flags & KSYM_MODULE) && k->v[i].addr >= *lo && k->v[i].addr < *hi)
			return false;
	return true;
}

int hpm_kallsyms__save(const struct hpm_kallsyms *k, const char *path, const char *key)
{
	uint64_t lo = 0, hi = 0, n = 0, text_len = 0;
	size_t key_len = strlen(key);
	int rc = 0;

	if (!k || k->saved || key_len > KSAVE_KEY_MAX || !core_range(k, &lo, &hi))
		return -EINVAL;
	for (size_t i = 0; i < k->n; i++)
		if (!(k->v[i].flags & KSYM_MODULE)) {
			n++;
			text_len += strlen(k->text + k->v[i].name) + 1;
		}
	if (text_len > UINT32_MAX)
		return -EFBIG;
	struct ksym *v = malloc(n * sizeof(*v));
	char *text = malloc(text_len);
	unsigned char hdr[KSAVE_HDR + KSAVE_KEY_MAX + 8] = { 0 };
	if (!v || !text) {
		rc = -ENOMEM;
		goto out;
	}
	size_t j = 0, off = 0;
	for (size_t i = 0; i < k->n; i++) {
		if (k->v[i].flags & KSYM_MODULE)
			continue;
		size_t len = strlen(k->text + k->v[i].name) + 1;
		memcpy(text + off, k->text + k->v[i].name, len);
		v[j++] = (struct ksym){ k->v[i].addr, (uint32_t)off, 0 };
		off += len;
	}
	uint64_t h[6] = { 0, n, text_len, lo, hi, key_len };
	memcpy(h, KSAVE_MAGIC, 8);
	memcpy(hdr, h, sizeof(h));
	memcpy(hdr + KSAVE_HDR, key, key_len);
	/* written aside and renamed: a reader never sees half a table, and a
	 * link at either name is never followed */
	struct iovec iov[3] = { { hdr, KSAVE_HDR + pad8(key_len) },
				{ v, n * sizeof(*v) },
				{ text, text_len } };
	rc = hpm__write_private(path, iov, 3);
out:
	free(v);
	free(text);
	return rc;
}

/*
 * Every byte of @t (@n bytes) a NUL or printable ASCII (0x21-0x7e). The
 * names of a saved table are 3 MB and more, checked at every report: 16
 * bytes a step, in the compiler's generic vectors (SSE2, NEON ...).
 */
static bool names_printable(const char *t, size_t n)
{
	typedef unsigned char u8x16 __attribute__((vector_size(16)));
	u8x16 bad = { 0 };
	size_t i = 0;

	for (; i + 16 <= n; i += 16) {
		u8x16 c;
		memcpy(&c, t + i, 16);
		/* printable bytes become 0-0x5d; a NUL wraps to 0xdf, exempt */
		bad |= (u8x16)((u8x16)(c - 0x21) > 0x5d) & (u8x16)(c != 0);
	}
	uint64_t w[2];
	memcpy(w, &bad, sizeof(w));
	if (w[0] | w[1])
		return false;
	for (; i < n; i++) {
		unsigned char c = (unsigned char)t[i];
		if (c && (c < 0x21 || c > 0x7e))
			return false;
	}
	return true;
}

struct hpm_kallsyms *hpm_kallsyms__load_saved(const char *path, const char *key)
{
	struct hpm_kallsyms *k = NULL;
	void *map = MAP_FAILED;
	uint64_t h[6], fsize = 0;
	int fd = hpm__open_private(path, KSAVE_HDR, KSAVE_MAX, &fsize), e = EBADMSG;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	/* populated: every page is read below, and one call maps them all
	 * for less than a fault every few pages */
	map = mmap(NULL, (size_t)fsize, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (map == MAP_FAILED) {
		e = errno;
		goto fail;
	}
	size_t size = (size_t)fsize, key_len = strlen(key);
	memcpy(h, map, sizeof(h));
	uint64_t n = h[1], text_len = h[2];
	/* every size against the file before anything is used */
	if (memcmp(map, KSAVE_MAGIC, 8) || h[5] != key_len || key_len > KSAVE_KEY_MAX ||
	    memcmp((char *)map + KSAVE_HDR, key, key_len) || n > size / sizeof(struct ksym) ||
	    !text_len || text_len > UINT32_MAX ||
	    KSAVE_HDR + pad8(key_len) + n * sizeof(struct ksym) + text_len != size)
		goto fail;
	k = calloc(1, sizeof(*k));
	if (!k) {
		e = ENOMEM;
		goto fail;
	}
	k->map = map;
	k->map_len = size;
	k->v = (struct ksym *)((char *)map + KSAVE_HDR + pad8(key_len));
	k->n = (size_t)n;
	k->text = (char *)(k->v + n);
	k->text_len = (size_t)text_len;
	k->saved = true;
	k->lo = h[3];
	k->hi = h[4];
	/* names end inside the table, each starts a name, and hold printable
	 * ASCII only (a kernel's symbols do): no terminal control bytes reach
	 * a report; addresses ascend */
	if (k->text[k->text_len - 1] || k->lo >= k->hi)
		goto bad;
	if (!names_printable(k->text, k->text_len))
		goto bad;
	for (size_t i = 0; i < k->n; i++)
		if (k->v[i].name >= k->text_len || (k->v[i].name && k->text[k->v[i].name - 1]) ||
		    (i && k->v[i].addr < k->v[i - 1].addr))
			goto bad;
	close(fd);
	return k;
bad:
	free(k);
fail:
	if (map != MAP_FAILED)
		munmap(map, (size_t)fsize);
	close(fd);
	errno = e;
	return NULL;
}

bool hpm_kallsyms__covers(const struct hpm_kallsyms *k, uint64_t addr)
{
	return k && (!k->saved || (addr >= k->lo && addr < k->hi));
}
