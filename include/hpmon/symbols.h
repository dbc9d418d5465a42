/* SPDX-License-Identifier: MIT */
/*
 * Symbols: from addresses to functions, inlined functions and source
 * lines, and back (a function's name or FILE:LINE to addresses and file
 * offsets, e.g. for breakpoints or uprobes on code locations).
 *
 * An ELF object (struct hpm_dso) is read with elfutils (libdwfl/libdw):
 * its symbol table, and its DWARF from the file itself or from a separate
 * debug file found by build-id (DEBUG_DIR/.build-id/xx/yyyy.debug) or
 * debuglink. Addresses are the object's own link-time addresses; convert
 * from a mapping with hpm_dso__offset_to_addr() (runtime address - mapping
 * start + mapping offset = file offset).
 *
 * Kernel symbols come from kallsyms, code generated at run time from the
 * JIT maps that runtimes write (/tmp/perf-PID.map).
 *
 * Ownership: each object (dso, kallsyms table, JIT map, disassembler) is
 * the caller's, freed with its __free; the strings and structures its
 * look-ups return belong to the object and stay valid until it is freed.
 * No object borrows anything from the caller: paths and options are
 * copied or only read during the call.
 */
#ifndef HPMON_SYMBOLS_H
#define HPMON_SYMBOLS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <hpmon/hpmon.h>

#ifdef __cplusplus
extern "C" {
#endif

struct hpm_dso_opts {
	size_t sz;                /* sizeof(struct hpm_dso_opts) */
	/* Root of separate debug files, default "/usr/lib/debug". */
	const char *debug_dir;
	/* The build-id the object had when it was profiled; when the file at
	 * the path differs, the debug file of that build-id is used if one
	 * exists, and hpm_dso__build_id_mismatch() says so. */
	const uint8_t *build_id;
	size_t build_id_len;
};

struct hpm_dso;

/* NULL and errno (ENOENT, EBADMSG for a file that is not ELF ...). */
HPM_API struct hpm_dso *hpm_dso__open(const char *path, const struct hpm_dso_opts *opts);
HPM_API void hpm_dso__free(struct hpm_dso *d);
/* The build-id's length (copied into @buf up to @len bytes), 0 if none. */
HPM_API size_t hpm_dso__build_id(const struct hpm_dso *d, uint8_t *buf, size_t len);
HPM_API bool hpm_dso__build_id_mismatch(const struct hpm_dso *d);
/* A symbol table (.symtab or .dynsym) with functions in it. */
HPM_API bool hpm_dso__has_symbols(const struct hpm_dso *d);
/* DWARF line information (in the file or a separate debug file). */
HPM_API bool hpm_dso__has_lines(const struct hpm_dso *d);
/* "x86_64", "aarch64" ..., from the ELF header. */
HPM_API const char *hpm_dso__arch(const struct hpm_dso *d);

/* What a file is: the same path with the same identity holds the same
 * bytes, for what hpmon keeps about it (the symbol cache). */
struct hpm_file_id {
	bool present;             /* false: nothing at the path */
	uint64_t dev, ino, size;
	int64_t mtime_ns;
};
/* @path's identity (stat, links followed): 0, with id->present false when
 * nothing is there (ENOENT, ENOTDIR); or -errno. */
HPM_API int hpm_file_id__of(const char *path, struct hpm_file_id *id);
HPM_API bool hpm_file_id__same(const struct hpm_file_id *a, const struct hpm_file_id *b);

/*
 * What the answers of @d come from. The object's file as it was opened
 * (it may be the debug file of the profiled build-id, when the file at
 * the path was rebuilt); the separate debug file libdwfl found, if it
 * has looked for one yet (for DWARF, or for the .symtab of a file that
 * has only .dynsym); and the places it looks, in its order: the build-id
 * under the debug directory (DIR/.build-id/xx/yyyy.debug), then the
 * .gnu_debuglink name (else the file's name + ".debug") beside the file,
 * in .debug/ beside it, and under DIR + the file's directory. While the
 * file is the same and each of these places holds what it held (or still
 * nothing), a look-up gives the same answer.
 */
#define HPM_DSO_MAX_PLACES 4
struct hpm_dso_origin {
	struct hpm_file_id file;
	const char *debug_file;   /* NULL: none found, or not looked for */
	const char *places[HPM_DSO_MAX_PLACES];
	size_t nr_places;
};
/* Strings belong to @d. */
HPM_API void hpm_dso__origin(const struct hpm_dso *d, struct hpm_dso_origin *out);

/* File offset <-> link-time address through the loadable segments.
 * 0, or -ENOENT when no segment holds it. */
HPM_API int hpm_dso__offset_to_addr(const struct hpm_dso *d, uint64_t off, uint64_t *addr);
HPM_API int hpm_dso__addr_to_offset(const struct hpm_dso *d, uint64_t addr, uint64_t *off);

#define HPM_SYM_LINES 0x1u   /* fill file/line/column */
#define HPM_SYM_INLINE 0x2u  /* fill the inline chain */
/* C++ and Rust names demangled (libiberty), parameters included, as perf
 * shows them: "ns::f(int)" for _ZN2ns1fEi; C names are left as they are. */
#define HPM_SYM_DEMANGLE 0x4u
#define HPM_SYM_MAX_INLINE 8

/* What is at an address. Strings belong to the dso (valid until freed). */
struct hpm_symbol {
	/* The function (ELF symbol, without a version: foo@@V1 is foo), or
	 * "func@plt" in a PLT entry; NULL if none. Of several symbols at one
	 * address, the one perf names: with a size over without, not weak
	 * over weak, global over local, fewer leading underscores, the
	 * longer name. */
	const char *name;
	uint64_t start, size;     /* its link-time address and size */
	uint64_t offset;          /* address - start */
	const char *file;         /* source file of the address, NULL if unknown */
	unsigned line, column;
	/* Functions inlined at the address, innermost first; each was
	 * inlined at call_file:call_line of the next (the last of them into
	 * @name). */
	unsigned nr_inline;
	struct {
		const char *name;
		const char *call_file;
		unsigned call_line;
	} inl[HPM_SYM_MAX_INLINE];
};

/*
 * Look @addr up (HPM_SYM_* @flags). 0 with out->name set when a function
 * covers it (a symbol without a size reaches the next one); -ENOENT when
 * nothing does (out->file/line may still be set), -ENOMEM. The object's
 * functions are sorted into a table at the first call, so each look-up is
 * a binary search; inlines and lines read DWARF on demand only.
 */
HPM_API int hpm_dso__lookup(struct hpm_dso *d, uint64_t addr, unsigned flags,
			    struct hpm_symbol *out);

/* The function named @name (as in the symbol table, or demangled, with or
 * without its parameters: "ns::f(int)", "ns::f"): 0 and its address and
 * size, or -ENOENT. */
HPM_API int hpm_dso__find_function(struct hpm_dso *d, const char *name,
				   uint64_t *addr, uint64_t *size);
/*
 * Addresses where code of source line @line of @file begins (@file may be
 * a suffix such as "loop.c"). Up to @max into @addrs, *nr the number
 * found (which may exceed @max). 0, or -ENOENT when none.
 */
HPM_API int hpm_dso__find_line(struct hpm_dso *d, const char *file, unsigned line,
			       uint64_t *addrs, size_t max, size_t *nr);
/* Up to @len code bytes at link-time address @addr. Bytes copied or
 * -ENOENT (not in a loaded segment's file data). */
HPM_API ssize_t hpm_dso__read(const struct hpm_dso *d, uint64_t addr, void *buf, size_t len);

/* ---- the kernel and JIT code ---- */

struct hpm_kallsyms;
/* Read @path (normally /proc/kallsyms). NULL and errno; ENODATA when every
 * address reads as 0 (kptr_restrict hides them). */
HPM_API struct hpm_kallsyms *hpm_kallsyms__load(const char *path);
HPM_API void hpm_kallsyms__free(struct hpm_kallsyms *k);
/* The text symbol at or before @addr: its name and start, or NULL. */
HPM_API const char *hpm_kallsyms__lookup(const struct hpm_kallsyms *k, uint64_t addr,
					 uint64_t *start);
/*
 * Save the core kernel's text symbols of @k (a table read by
 * hpm_kallsyms__load; not modules, BPF programs or trampolines, which come
 * and go) to @path with @key (at most 512 bytes; what must match for the
 * table to be valid again, e.g. the boot id: the core kernel's addresses
 * hold for one boot). Written beside @path under a new name (O_EXCL) and
 * renamed, mode 0600: a symlink at either name is never followed. 0 or a
 * negative errno (-EINVAL: nothing to save, or a module's symbol lies
 * inside the core kernel's text).
 */
HPM_API int hpm_kallsyms__save(const struct hpm_kallsyms *k, const char *path,
			       const char *key);
/*
 * Map a table saved with @key, read as untrusted input. NULL and errno:
 * ENOENT; ELOOP (@path is a symlink); EPERM (not owned by the effective
 * user, or writable by group or others); EBADMSG (another key, or a
 * damaged or foreign file: every size is checked, at most 64 MiB, names of
 * printable ASCII only).
 */
HPM_API struct hpm_kallsyms *hpm_kallsyms__load_saved(const char *path, const char *key);
/*
 * Does @k answer for @addr as the whole of kallsyms would? Always for a
 * table read with hpm_kallsyms__load; for a saved one, only inside the
 * core kernel's text (from its first text symbol to its last).
 */
HPM_API bool hpm_kallsyms__covers(const struct hpm_kallsyms *k, uint64_t addr);

struct hpm_jitmap;
/* Read a "START SIZE NAME" map (hex, one a line), such as /tmp/perf-PID.map. */
HPM_API struct hpm_jitmap *hpm_jitmap__load(const char *path);
HPM_API void hpm_jitmap__free(struct hpm_jitmap *m);
HPM_API const char *hpm_jitmap__lookup(const struct hpm_jitmap *m, uint64_t addr,
				       uint64_t *start);

/* ---- disassembly (capstone) ---- */

struct hpm_disasm;
/* For the architecture named as hpm_dso__arch() names it. NULL and errno
 * (ENOTSUP for an architecture hpmon does not disassemble). */
HPM_API struct hpm_disasm *hpm_disasm__new(const char *arch);
HPM_API void hpm_disasm__free(struct hpm_disasm *d);
/* Decode one instruction at @code (runtime address @addr) into @text.
 * Returns its length, or 0 when the bytes do not decode. */
HPM_API size_t hpm_disasm__one(struct hpm_disasm *d, const uint8_t *code, size_t len,
			       uint64_t addr, char *text, size_t text_len);

#ifdef __cplusplus
}
#endif
#endif
