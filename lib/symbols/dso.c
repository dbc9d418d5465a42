/* SPDX-License-Identifier: MIT */
/*
 * Objects' symbols (include/hpmon/symbols.h: struct hpm_dso) over
 * elfutils: one Dwfl session per object, with the object reported at its
 * link-time addresses, so that callers work in the object's own address
 * space whatever its mappings. Addresses are named from a sorted table of
 * the object's functions and PLT entries (symtab.c, plt.c), built at the
 * first look-up; DWARF answers lines and inlines. The kernel's symbols
 * are kallsyms.c, JIT maps jitmap.c.
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
#include <zlib.h>

#include <hpmon/symbols.h>
#include "core/file-internal.h"
#include "symbols/symbols-internal.h"
#include "symbols/symtab.h"
#include "sys/opts.h"

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
	struct hpm_symtab syms; /* functions by address, built at the first look-up */
	int syms_err;      /* 1 not built yet, 0 built, -ENOMEM */
	/* demangled names of inlined functions, by their mangled name's
	 * address in the DWARF data (a cache: each is made once) */
	struct { const char *key, *dem; } inl_cache[256];
	struct hpm_file_id file;  /* the file opened, at its open */
	char *places[HPM_DSO_MAX_PLACES]; /* where a debug file is looked for */
	size_t nr_id_places;              /* the first of them: by build-id */
	size_t nr_places;
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
	fd = hpm__open_input(path, 0, NULL);
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
	/* a regular file only: libdwfl would open a FIFO and wait */
	int fd = hpm__open_input(path, 0, NULL);
	if (fd < 0) {
		dwfl_end(d->dwfl);
		d->dwfl = NULL;
		return fd;
	}
	struct stat sb;
	if (fstat(fd, &sb) == 0)
		d->file = (struct hpm_file_id){ true, (uint64_t)sb.st_dev, (uint64_t)sb.st_ino,
						(uint64_t)sb.st_size,
						(int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec };
	dwfl_report_begin(d->dwfl);
	/* the module keeps the descriptor, and dwfl_end closes it */
	d->mod = dwfl_report_elf(d->dwfl, path, path, fd, 0, false);
	dwfl_report_end(d->dwfl, NULL, NULL);
	void **ud;
	if (d->mod && dwfl_module_info(d->mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL))
		*ud = d; /* for find_debuginfo */
	if (!d->mod) {
		close(fd);
		dwfl_end(d->dwfl);
		d->dwfl = NULL;
		return -EBADMSG;
	}
	d->elf = dwfl_module_getelf(d->mod, &d->bias);
	if (!d->elf) {
		dwfl_end(d->dwfl);
		d->dwfl = NULL;
		return -EBADMSG;
	}
	const unsigned char *bits = NULL;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(d->mod, &bits, &vaddr);
	d->build_id_len = n > 0 ? ((size_t)n < sizeof(d->build_id) ? (size_t)n : sizeof(d->build_id)) : 0;
	/* an object without a build id leaves @bits unset */
	if (d->build_id_len)
		memcpy(d->build_id, bits, d->build_id_len);
	return 0;
}

static bool same_id(const struct hpm_dso *d, const struct hpm_dso_opts *o)
{
	return d->build_id_len == o->build_id_len &&
	       !memcmp(d->build_id, o->build_id, o->build_id_len);
}

/* Add a place a debug file may be found at (printf-style). */
static void add_place(struct hpm_dso *d, const char *fmt, const char *a, const char *b,
		      const char *c)
{
	char buf[4096];
	if (d->nr_places >= HPM_DSO_MAX_PLACES ||
	    (size_t)snprintf(buf, sizeof(buf), fmt, a, b, c) >= sizeof(buf))
		return;
	if ((d->places[d->nr_places] = strdup(buf)))
		d->nr_places++;
}

/*
 * Where libdwfl looks for the separate debug file of the object at @path
 * (dwfl_standard_find_debuginfo over the path "+:.debug:DIR" that open
 * gives it): the build-id under @dir, then the debuglink name (or the
 * file's name + ".debug") beside the file, in .debug/, and under @dir.
 */
static void debug_places(struct hpm_dso *d, const char *path, const char *dir)
{
	char id[2 * sizeof(d->build_id) + 1], fdir[4096], link[256];
	GElf_Word crc;
	const char *dl = dwelf_elf_gnu_debuglink(d->elf, &crc);
	const char *slash = strrchr(path, '/');

	if (d->build_id_len > 1) {
		for (size_t i = 0; i < d->build_id_len; i++)
			snprintf(id + 2 * i, 3, "%02x", d->build_id[i]);
		char two[3] = { id[0], id[1], 0 };
		add_place(d, "%s/.build-id/%s/%s.debug", dir, two, id + 2);
		d->nr_id_places = d->nr_places;
	}
	if (!slash || (size_t)(slash - path) >= sizeof(fdir))
		return;
	snprintf(fdir, sizeof(fdir), "%.*s", (int)(slash - path), path);
	if (!dl || !dl[0] || strchr(dl, '/')) {
		if ((size_t)snprintf(link, sizeof(link), "%s.debug", slash + 1) >= sizeof(link))
			return;
		dl = link;
	}
	add_place(d, "%s/%s%s", fdir, dl, "");
	add_place(d, "%s/.debug/%s%s", fdir, dl, "");
	add_place(d, "%s%s/%s", dir, fdir, dl);
}

/* Whether the file open at @fd has the CRC-32 @crc (gdb's debuglink CRC,
 * zlib's), read from its start. */
static bool crc_ok(int fd, GElf_Word crc)
{
	unsigned char buf[65536];
	uLong c = crc32(0L, Z_NULL, 0);
	ssize_t n;
	off_t off = 0;
	while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
		c = crc32(c, buf, (uInt)n);
		off += n;
	}
	return n == 0 && (GElf_Word)c == crc;
}

/*
 * libdwfl's search for a separate debug file, confined: only the places
 * debug_places() lists (as gdb looks: the build-id under the debug root;
 * the debuglink name beside the object, in its .debug/ and under the root;
 * a debuglink that names a path is not followed), only a regular file,
 * opened without waiting (a FIFO would hang libdwfl, a device would feed
 * it without end), and a debuglink's file only with the CRC the object
 * names.
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  GElf_Addr base, const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	const struct hpm_dso *d = userdata ? *userdata : NULL;
	(void)mod, (void)modname, (void)base, (void)file_name, (void)debuglink_file;

	for (size_t i = 0; d && i < d->nr_places; i++) {
		int fd = hpm__open_input(d->places[i], 0, NULL);
		if (fd < 0)
			continue;
		bool by_id = i < d->nr_id_places;
		if ((!by_id && debuglink_crc && !crc_ok(fd, debuglink_crc)) ||
		    !(*debuginfo_file_name = strdup(d->places[i]))) {
			close(fd);
			continue;
		}
		return fd;
	}
	errno = ENOENT;
	return -1;
}

struct hpm_dso *hpm_dso__open(const char *path, const struct hpm_dso_opts *opts)
{
	const char *dir = HPM_OPTS_GET(opts, debug_dir, NULL) ? opts->debug_dir : "/usr/lib/debug";
	bool want_id = HPM_OPTS_GET(opts, build_id, NULL) && HPM_OPTS_GET(opts, build_id_len, 0);
	struct hpm_dso *d;
	int rc;

	if (!HPM_OPTS_VALID(opts, hpm_dso_opts)) {
		errno = EINVAL;
		return NULL;
	}

	elf_init();
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->lines = -1;
	d->syms_err = 1;
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
	d->cb.find_debuginfo = find_debuginfo;
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
	debug_places(d, path, dir);
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
	hpm_symtab__release(&d->syms);
	for (size_t i = 0; i < d->nr_places; i++)
		free(d->places[i]);
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

int hpm_file_id__of(const char *path, struct hpm_file_id *id)
{
	struct stat sb;
	memset(id, 0, sizeof(*id));
	if (stat(path, &sb))
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	*id = (struct hpm_file_id){ true, (uint64_t)sb.st_dev, (uint64_t)sb.st_ino,
				    (uint64_t)sb.st_size,
				    (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec };
	return 0;
}

bool hpm_file_id__same(const struct hpm_file_id *a, const struct hpm_file_id *b)
{
	if (!a->present || !b->present)
		return a->present == b->present;
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_ns == b->mtime_ns;
}

void hpm_dso__origin(const struct hpm_dso *d, struct hpm_dso_origin *out)
{
	const char *main_file = NULL, *debug = NULL;
	memset(out, 0, sizeof(*out));
	out->file = d->file;
	dwfl_module_info(d->mod, NULL, NULL, NULL, NULL, NULL, &main_file, &debug);
	/* libdwfl names the main file when the DWARF is in it */
	if (debug && !(main_file && !strcmp(debug, main_file)))
		out->debug_file = debug;
	for (size_t i = 0; i < d->nr_places; i++)
		out->places[i] = d->places[i];
	out->nr_places = d->nr_places;
}
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

static struct hpm_symtab *symtab(struct hpm_dso *d)
{
	if (d->syms_err == 1)
		d->syms_err = hpm_symtab__build(&d->syms, d->mod, d->bias, d->elf);
	return d->syms_err ? NULL : &d->syms;
}

/* The demangled name of an inlined function: from its linkage name, as
 * the DWARF name is the bare one (push_back, not std::vector<...>::...). */
static const char *inline_name(struct hpm_dso *d, Dwarf_Die *die)
{
	Dwarf_Attribute at;
	const char *link = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &at));
	if (!link)
		link = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &at));
	if (!link)
		return NULL;
	size_t h = ((uintptr_t)link >> 3) % (sizeof(d->inl_cache) / sizeof(d->inl_cache[0]));
	if (d->inl_cache[h].key == link)
		return d->inl_cache[h].dem;
	char *dem = hpm__demangle(link);
	if (dem && !symtab(d)) {
		free(dem);
		return NULL;
	}
	/* owned by the table; a name evicted from the cache is made again */
	if (!dem || !hpm_symtab__own(&d->syms, dem))
		return NULL;
	d->inl_cache[h].key = link;
	d->inl_cache[h].dem = dem;
	return dem;
}

static void inline_chain(struct hpm_dso *d, GElf_Addr a, bool demangle, struct hpm_symbol *out)
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
		const char *name = demangle ? inline_name(d, s) : NULL;
		if (!name)
			name = dwarf_diename(s);
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
	struct hpm_symtab *t = symtab(d);
	struct hpm_fsym *f = t ? hpm_symtab__find(t, addr) : NULL;
	const char *name = NULL;

	memset(out, 0, sizeof(*out));
	if (f) {
		out->name = name = hpm_symtab__name(f, flags & HPM_SYM_DEMANGLE);
		out->offset = addr - f->start;
		out->start = f->start;
		out->size = f->size;
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
		inline_chain(d, a, flags & HPM_SYM_DEMANGLE, out);
	if (!t)
		return -ENOMEM;
	return name ? 0 : -ENOENT;
}

int hpm_dso__find_function(struct hpm_dso *d, const char *name, uint64_t *addr, uint64_t *size)
{
	struct hpm_symtab *t = symtab(d);
	struct hpm_fsym *f = t ? hpm_symtab__by_name(t, name) : NULL;
	if (f) {
		*addr = f->start;
		*size = f->size;
		return 0;
	}
	/* an alias the table left out for a better name of its address */
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
