/* SPDX-License-Identifier: MIT */
/*
 * A cache of an object's resolved addresses (struct hpm_symcache), kept
 * between reports so that a report of the same objects needs neither
 * their ELF nor their DWARF: per object, keyed by its GNU build-id, each
 * entry what hpm_dso__lookup() said of one file offset, and with which
 * HPM_SYM_* flags. A cache also records what its answers came from (the
 * object's identity, its separate debug file or that none was found, the
 * places a debug file is looked for, a context string of the caller's):
 * the caller reuses it only while all of these still hold.
 *
 * The file is the user's alone and untrusted input: read only when the
 * user owns it and no one else can write it, every size and offset
 * checked, counts bounded, strings of printable ASCII only; written aside
 * and renamed into place, 0600, never through a symlink.
 *
 * Ownership: a cache is the caller's, freed with hpm_symcache__free; the
 * strings its getters and look-ups return belong to it and stay valid
 * until it is freed. Everything passed in is copied.
 */
#ifndef HPMON_SYMCACHE_H
#define HPMON_SYMCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <hpmon/hpmon.h>
#include <hpmon/symbols.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bounds of one object's cache: past them the entries a report adds are
 * not kept (the oldest entries go first), and a file larger is not read. */
#define HPM_SYMCACHE_MAX_ENTRIES 262144u
#define HPM_SYMCACHE_MAX_FILE ((uint64_t)32 << 20)
/* Strings (names, paths) at most this long, of bytes 0x20-0x7e. */
#define HPM_SYMCACHE_MAX_STRING 4096u

/* What one file offset of the object resolved to. */
struct hpm_symcache_entry {
	uint64_t off;             /* the key: a file offset in the object */
	/* HPM_SYM_LINES, HPM_SYM_INLINE, HPM_SYM_DEMANGLE it was computed
	 * with (the parts not computed are NULL and 0) */
	unsigned flags;
	uint64_t addr;            /* the link-time address of @off */
	const char *name;         /* the function, NULL when none covers it */
	uint64_t start, size;
	const char *inl;          /* the innermost function inlined there, or NULL */
	const char *file;         /* source file and line, or NULL and 0 */
	unsigned line;
};

/* What the entries came from (hpm_dso__origin, and what the caller found
 * at each place when it saved them). */
#define HPM_SYMCACHE_MAX_PLACES HPM_DSO_MAX_PLACES
struct hpm_symcache_source {
	struct hpm_file_id file;       /* the object */
	bool has_symbols;              /* hpm_dso__has_symbols() */
	const char *debug_file;        /* NULL: none found */
	struct hpm_file_id debug;
	const char *places[HPM_SYMCACHE_MAX_PLACES]; /* where a debug file is looked for */
	struct hpm_file_id place_id[HPM_SYMCACHE_MAX_PLACES];
	size_t nr_places;
};

struct hpm_symcache;

/* An empty cache for the object of @build_id (1 to HPM_BUILD_ID_MAX
 * bytes), its answers from @src, under @context (what else they depend
 * on, e.g. the debug directory). NULL and errno (EINVAL: a string that
 * is not printable ASCII or too long, no build-id). */
HPM_API struct hpm_symcache *hpm_symcache__new(const uint8_t *build_id, size_t len,
					       const char *context,
					       const struct hpm_symcache_source *src);
/* Read a saved cache. NULL and errno: ENOENT; ELOOP (@path is a
 * symlink); EPERM (not the effective user's, or writable by group or
 * others); EBADMSG (damaged, foreign, or out of bounds). */
HPM_API struct hpm_symcache *hpm_symcache__load(const char *path);
HPM_API void hpm_symcache__free(struct hpm_symcache *c);

/* The build-id's length, copied into @buf up to @len bytes. */
HPM_API size_t hpm_symcache__build_id(const struct hpm_symcache *c, uint8_t *buf, size_t len);
HPM_API const char *hpm_symcache__context(const struct hpm_symcache *c);
HPM_API void hpm_symcache__source(const struct hpm_symcache *c, struct hpm_symcache_source *out);
/* Say what the entries came from, now that it is known (a debug file is
 * looked for at the first need of it): @src's strings are copied. 0,
 * -EINVAL (a string that is not printable ASCII or too long, too many
 * places), -ENOMEM. */
HPM_API int hpm_symcache__set_source(struct hpm_symcache *c,
				     const struct hpm_symcache_source *src);
/* Entries read plus entries added. */
HPM_API size_t hpm_symcache__count(const struct hpm_symcache *c);
/* The memory @c holds, in bytes: the file read (its strings too) and the
 * entries added, what a caller that bounds the caches it keeps counts. */
HPM_API size_t hpm_symcache__bytes(const struct hpm_symcache *c);

/*
 * The answer for @off under @flags: 0 and *@out when an entry was
 * computed with the same demangling and at least the DWARF parts @flags
 * asks for (lines, inlines); the parts not asked for are left out of
 * *@out (NULL, 0), so that an answer never shows more than was asked.
 * -ENOENT when no entry answers; *@have (if not NULL) then gets the
 * flags of the entry for @off with that demangling, or 0 if none, so the
 * caller can compute a new one with both sets of parts.
 */
HPM_API int hpm_symcache__lookup(const struct hpm_symcache *c, uint64_t off, unsigned flags,
				 struct hpm_symcache_entry *out, unsigned *have);
/* Add @e (strings copied); it replaces an entry of the same offset and
 * demangling when saved. 0, or -EINVAL (unknown flags, a part present
 * that its flag does not ask for, a string not printable or too long),
 * -E2BIG (HPM_SYMCACHE_MAX_ENTRIES added already), -ENOMEM. */
HPM_API int hpm_symcache__add(struct hpm_symcache *c, const struct hpm_symcache_entry *e);
/*
 * Save @c's entries and those of @old (may be NULL) that @c has no
 * entry for, at most HPM_SYMCACHE_MAX_ENTRIES and HPM_SYMCACHE_MAX_FILE
 * bytes (@c's first, then @old's while they fit), to @path: written
 * beside it under a new name (O_EXCL) and renamed, 0600, a link at
 * either name never followed. 0 or -errno (-EFBIG when @c's own entries
 * pass HPM_SYMCACHE_MAX_FILE: nothing written).
 */
HPM_API int hpm_symcache__save(const struct hpm_symcache *c, const struct hpm_symcache *old,
			       const char *path);

#ifdef __cplusplus
}
#endif
#endif
