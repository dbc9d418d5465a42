/* SPDX-License-Identifier: MIT */
/*
 * Symbols (include/hpmon/symbols.h) over elfutils: one Dwfl session per
 * object, with the object reported at its link-time addresses, so that
 * callers work in the object's own address space whatever its mappings.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hpmon/symbols.h>
#include "symbols/symbols-internal.h"

struct hpm_dso {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Elf *elf;          /* the main file */
	GElf_Addr bias;    /* Dwfl address = link-time address + bias */
	char *debuginfo_path;
	Dwfl_Callbacks cb;
	uint8_t build_id[20]; /* GNU build-ids are 20 bytes (SHA-1) */
	size_t build_id_len;
	bool mismatch;
	bool has_syms;
	int lines;         /* -1 unknown, 0 no, 1 yes */
	char arch[16];
};

/* libelf wants its version set before use; the call is cheap and idempotent. */
static void elf_init(void)
{
	elf_version(EV_CURRENT);
}

size_t hpm__elf_build_id(const char *path, uint8_t *buf, size_t len)
{
	const void *id = NULL;
	size_t n = 0;
	int fd;

	elf_init();
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (e) {
		ssize_t k = dwelf_elf_gnu_build_id(e, &id);
		if (k > 0) {
			n = (size_t)k < len ? (size_t)k : len;
			memcpy(buf, id, n);
		}
		elf_end(e);
	}
	close(fd);
	return n;
}

static const char *machine_name(unsigned m)
{
	switch (m) {
	case EM_X86_64: return "x86_64";
	case EM_AARCH64: return "aarch64";
	case EM_386: return "i386";
	case EM_ARM: return "arm";
	case EM_RISCV: return "riscv64";
	case EM_PPC64: return "ppc64";
	case EM_S390: return "s390x";
	default: return "unknown";
	}
}

static int report(struct hpm_dso *d, const char *path)
{
	d->dwfl = dwfl_begin(&d->cb);
	if (!d->dwfl)
		return -ENOMEM;
	dwfl_report_begin(d->dwfl);
	d->mod = dwfl_report_elf(d->dwfl, path, path, -1, 0, false);
	dwfl_report_end(d->dwfl, NULL, NULL);
	if (!d->mod) {
		dwfl_end(d->dwfl);
		d->dwfl = NULL;
		return access(path, R_OK) ? -errno : -EBADMSG;
	}
	d->elf = dwfl_module_getelf(d->mod, &d->bias);
	if (!d->elf) {
		dwfl_end(d->dwfl);
		d->dwfl = NULL;
		return -EBADMSG;
	}
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(d->mod, &bits, &vaddr);
	d->build_id_len = n > 0 ? ((size_t)n < sizeof(d->build_id) ? (size_t)n : sizeof(d->build_id)) : 0;
	memcpy(d->build_id, bits, d->build_id_len);
	return 0;
}

static bool same_id(const struct hpm_dso *d, const struct hpm_dso_opts *o)
{
	return d->build_id_len == o->build_id_len &&
	       !memcmp(d->build_id, o->build_id, o->build_id_len);
}

struct hpm_dso *hpm_dso__open(const char *path, const struct hpm_dso_opts *opts)
{
	const char *dir = opts && opts->sz >= sizeof(*opts) && opts->debug_dir ? opts->debug_dir
									     : "/usr/lib/debug";
	bool want_id = opts && opts->sz >= sizeof(*opts) && opts->build_id && opts->build_id_len;
	struct hpm_dso *d;
	int rc;

	elf_init();
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->lines = -1;
	size_t n = strlen(dir) + 16;
	d->debuginfo_path = malloc(n);
	if (!d->debuginfo_path) {
		free(d);
		return NULL;
	}
	/* '+': check CRCs of debuglink files; then beside the file, .debug/,
	 * and the root (build-id files live in ROOT/.build-id/) */
	snprintf(d->debuginfo_path, n, "+:.debug:%s", dir);
	d->cb.find_elf = dwfl_build_id_find_elf;
	d->cb.find_debuginfo = dwfl_standard_find_debuginfo;
	d->cb.section_address = dwfl_offline_section_address;
	d->cb.debuginfo_path = &d->debuginfo_path;

	rc = report(d, path);
	if ((rc || (want_id && !same_id(d, opts))) && want_id) {
		/* the profiled file is gone or was rebuilt: try the debug file
		 * of the build-id it had */
		char alt[4096];
		int k = snprintf(alt, sizeof(alt), "%s/.build-id/%02x/", dir, opts->build_id[0]);
		for (size_t i = 1; i < opts->build_id_len && k > 0 && (size_t)k < sizeof(alt) - 8; i++)
			k += snprintf(alt + k, sizeof(alt) - (size_t)k, "%02x", opts->build_id[i]);
		snprintf(alt + k, sizeof(alt) - (size_t)k, ".debug");
		if (access(alt, R_OK) == 0) {
			if (d->dwfl)
				dwfl_end(d->dwfl);
			d->dwfl = NULL;
			rc = report(d, alt);
		} else if (!rc) {
			d->mismatch = true;
		}
	}
	if (rc) {
		hpm_dso__free(d);
		errno = -rc;
		return NULL;
	}
	GElf_Ehdr eh;
	if (gelf_getehdr(d->elf, &eh))
		snprintf(d->arch, sizeof(d->arch), "%s", machine_name(eh.e_machine));
	int nsym = dwfl_module_getsymtab(d->mod);
	for (int i = 0; i < nsym && !d->has_syms; i++) {
		GElf_Sym sym;
		GElf_Addr a;
		if (dwfl_module_getsym_info(d->mod, i, &sym, &a, NULL, NULL, NULL) &&
		    GELF_ST_TYPE(sym.st_info) == STT_FUNC && sym.st_shndx != SHN_UNDEF)
			d->has_syms = true;
	}
	return d;
}

void hpm_dso__free(struct hpm_dso *d)
{
	if (!d)
		return;
	if (d->dwfl)
		dwfl_end(d->dwfl);
	free(d->debuginfo_path);
	free(d);
}

size_t hpm_dso__build_id(const struct hpm_dso *d, uint8_t *buf, size_t len)
{
	size_t n = d->build_id_len < len ? d->build_id_len : len;
	memcpy(buf, d->build_id, n);
	return d->build_id_len;
}

bool hpm_dso__build_id_mismatch(const struct hpm_dso *d) { return d->mismatch; }
bool hpm_dso__has_symbols(const struct hpm_dso *d) { return d->has_syms; }
const char *hpm_dso__arch(const struct hpm_dso *d) { return d->arch; }

bool hpm_dso__has_lines(const struct hpm_dso *d)
{
	struct hpm_dso *m = (struct hpm_dso *)d; /* a cache, not a change */
	if (m->lines < 0) {
		Dwarf_Addr b;
		Dwarf *dw = dwfl_module_getdwarf(m->mod, &b);
		m->lines = dw && dwfl_module_nextcu(m->mod, NULL, &b) ? 1 : 0;
	}
	return m->lines == 1;
}

/* The loaded segment that holds file offset @v (@by_offset) or address @v. */
static bool load_segment(const struct hpm_dso *d, uint64_t v, bool by_offset, GElf_Phdr *ph)
{
	size_t n;
	if (elf_getphdrnum(d->elf, &n))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(d->elf, (int)i, ph) || ph->p_type != PT_LOAD)
			continue;
		uint64_t start = by_offset ? ph->p_offset : ph->p_vaddr;
		if (v >= start && v < start + ph->p_filesz)
			return true;
	}
	return false;
}

int hpm_dso__offset_to_addr(const struct hpm_dso *d, uint64_t off, uint64_t *addr)
{
	GElf_Phdr ph;
	if (!load_segment(d, off, true, &ph))
		return -ENOENT;
	*addr = off - ph.p_offset + ph.p_vaddr;
	return 0;
}

int hpm_dso__addr_to_offset(const struct hpm_dso *d, uint64_t addr, uint64_t *off)
{
	GElf_Phdr ph;
	if (!load_segment(d, addr, false, &ph))
		return -ENOENT;
	*off = addr - ph.p_vaddr + ph.p_offset;
	return 0;
}

static void inline_chain(struct hpm_dso *d, GElf_Addr a, struct hpm_symbol *out)
{
	Dwarf_Addr cubias;
	Dwarf_Die *cu = dwfl_module_addrdie(d->mod, a, &cubias);
	Dwarf_Die *scopes = NULL;
	if (!cu)
		return;
	int n = dwarf_getscopes(cu, a - cubias, &scopes);
	for (int i = 0; i < n && out->nr_inline < HPM_SYM_MAX_INLINE; i++) {
		Dwarf_Die *s = &scopes[i];
		Dwarf_Attribute at;
		Dwarf_Word w;
		if (dwarf_tag(s) != DW_TAG_inlined_subroutine)
			continue;
		unsigned k = out->nr_inline++;
		Dwarf_Die origin;
		const char *name = dwarf_diename(s);
		if (!name && dwarf_attr(s, DW_AT_abstract_origin, &at) &&
		    dwarf_formref_die(&at, &origin))
			name = dwarf_diename(&origin);
		out->inl[k].name = name ? name : "?";
		out->inl[k].call_line = dwarf_formudata(dwarf_attr(s, DW_AT_call_line, &at), &w) == 0
						? (unsigned)w : 0;
		out->inl[k].call_file = NULL;
		if (dwarf_formudata(dwarf_attr(s, DW_AT_call_file, &at), &w) == 0) {
			Dwarf_Files *files;
			size_t nf;
			if (dwarf_getsrcfiles(cu, &files, &nf) == 0 && w < nf)
				out->inl[k].call_file = dwarf_filesrc(files, w, NULL, NULL);
		}
	}
	free(scopes);
}

int hpm_dso__lookup(struct hpm_dso *d, uint64_t addr, unsigned flags, struct hpm_symbol *out)
{
	GElf_Addr a = addr + d->bias;
	GElf_Off off = 0;
	GElf_Sym sym;

	memset(out, 0, sizeof(*out));
	const char *name = dwfl_module_addrinfo(d->mod, a, &off, &sym, NULL, NULL, NULL);
	if (name) {
		out->name = name;
		out->offset = off;
		out->start = addr - off;
		out->size = sym.st_size;
	}
	if (flags & HPM_SYM_LINES) {
		Dwfl_Line *l = dwfl_module_getsrc(d->mod, a);
		int line = 0, col = 0;
		if (l) {
			out->file = dwfl_lineinfo(l, NULL, &line, &col, NULL, NULL);
			out->line = line > 0 ? (unsigned)line : 0;
			out->column = col > 0 ? (unsigned)col : 0;
		}
	}
	if (flags & HPM_SYM_INLINE)
		inline_chain(d, a, out);
	return name ? 0 : -ENOENT;
}

int hpm_dso__find_function(struct hpm_dso *d, const char *name, uint64_t *addr, uint64_t *size)
{
	int n = dwfl_module_getsymtab(d->mod);
	for (int i = 0; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr a;
		const char *s = dwfl_module_getsym_info(d->mod, i, &sym, &a, NULL, NULL, NULL);
		if (!s || GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF ||
		    strcmp(s, name))
			continue;
		*addr = a - d->bias;
		*size = sym.st_size;
		return 0;
	}
	return -ENOENT;
}

int hpm_dso__find_line(struct hpm_dso *d, const char *file, unsigned line,
		       uint64_t *addrs, size_t max, size_t *nr)
{
	Dwfl_Line **v = NULL;
	size_t n = 0;

	*nr = 0;
	if (dwfl_module_getsrc_file(d->mod, file, (int)line, 0, &v, &n) || !n) {
		free(v);
		return -ENOENT;
	}
	for (size_t i = 0; i < n; i++) {
		Dwarf_Addr a;
		if (!dwfl_lineinfo(v[i], &a, NULL, NULL, NULL, NULL))
			continue;
		if (*nr < max)
			addrs[*nr] = a - d->bias;
		(*nr)++;
	}
	free(v);
	return *nr ? 0 : -ENOENT;
}

ssize_t hpm_dso__read(const struct hpm_dso *d, uint64_t addr, void *buf, size_t len)
{
	uint64_t off;
	size_t size;
	size_t n;
	const char *raw = elf_rawfile(d->elf, &size);

	if (!raw || hpm_dso__addr_to_offset(d, addr, &off) || off >= size)
		return -ENOENT;
	if (elf_getphdrnum(d->elf, &n))
		return -ENOENT;
	/* do not read past the segment's file data */
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(d->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (addr >= ph.p_vaddr && addr < ph.p_vaddr + ph.p_filesz) {
			uint64_t left = ph.p_vaddr + ph.p_filesz - addr;
			if (len > left)
				len = (size_t)left;
			break;
		}
	}
	if (len > size - off)
		len = (size_t)(size - off);
	memcpy(buf, raw + off, len);
	return (ssize_t)len;
}

/* ---- kallsyms and JIT maps: sorted (address, name) tables ---- */

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

static int write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int hpm_kallsyms__save(const struct hpm_kallsyms *k, const char *path, const char *key)
{
	uint64_t lo = 0, hi = 0, n = 0, text_len = 0;
	size_t key_len = strlen(key);
	char tmp[4096];
	int rc = 0, fd;

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
	/* written aside and renamed: a reader never sees half a table */
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid()) >= sizeof(tmp)) {
		rc = -ENAMETOOLONG;
		goto out;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	rc = write_full(fd, hdr, KSAVE_HDR + pad8(key_len));
	if (!rc)
		rc = write_full(fd, v, n * sizeof(*v));
	if (!rc)
		rc = write_full(fd, text, text_len);
	if (close(fd) && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path))
		rc = -errno;
	if (rc)
		unlink(tmp);
out:
	free(v);
	free(text);
	return rc;
}

struct hpm_kallsyms *hpm_kallsyms__load_saved(const char *path, const char *key)
{
	struct hpm_kallsyms *k = NULL;
	struct stat sb;
	void *map = MAP_FAILED;
	uint64_t h[6];
	int fd = open(path, O_RDONLY | O_CLOEXEC), e = EBADMSG;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_size < KSAVE_HDR ||
	    (uint64_t)sb.st_size > SIZE_MAX)
		goto fail;
	map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		e = errno;
		goto fail;
	}
	size_t size = (size_t)sb.st_size, key_len = strlen(key);
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
	/* names end inside the table; addresses ascend */
	if (k->text[k->text_len - 1] || k->lo >= k->hi)
		goto bad;
	for (size_t i = 0; i < k->n; i++)
		if (k->v[i].name >= k->text_len || (i && k->v[i].addr < k->v[i - 1].addr))
			goto bad;
	close(fd);
	return k;
bad:
	free(k);
fail:
	if (map != MAP_FAILED)
		munmap(map, (size_t)sb.st_size);
	close(fd);
	errno = e;
	return NULL;
}

bool hpm_kallsyms__covers(const struct hpm_kallsyms *k, uint64_t addr)
{
	return k && (!k->saved || (addr >= k->lo && addr < k->hi));
}

struct hpm_jitmap *hpm_jitmap__load(const char *path)
{
	struct hpm_jitmap *m = calloc(1, sizeof(*m));
	char line[1024];
	FILE *f;

	if (!m)
		return NULL;
	if (!(f = fopen(path, "re"))) {
		int e = errno;
		free(m);
		errno = e;
		return NULL;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, size;
		int n = 0;
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
