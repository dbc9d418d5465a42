/* SPDX-License-Identifier: MIT */
/*
 * The core kernel's symbols, kept per boot (docs/hpmon-report.md): the
 * kernel takes tens of milliseconds to list /proc/kallsyms, so the first
 * reader of a boot saves the table and later ones map it. hpmon record
 * saves it when its profile has kernel samples, so that reports of the
 * profile start warm; hpmon report saves it when it had to read it.
 * The cache is the user's alone (docs/security.md): a table another user
 * could have written or changed is never read.
 *
 * Room: tools/hpmon/cache/ owns the cache directory and the kernel's symbols per boot; may use libc only.
 * Where: cachedir.h. Ownership: paths are borrowed; tables returned are
 * the caller's, freed with hpm_kallsyms__free.
 */
#ifndef HPMON_TOOL_KCACHE_H
#define HPMON_TOOL_KCACHE_H

#include <stdbool.h>
#include <stddef.h>

struct hpm_kallsyms;

/*
 * The kernel's symbols: the table saved in @dir for this boot (*full
 * false: the core kernel only), else /proc/kallsyms under @procfs (NULL:
 * /proc) read whole (*full true) and saved in @dir. @dir NULL: always read,
 * never saved. NULL and errno when neither can be had.
 */
struct hpm_kallsyms *kcache_load(const char *procfs, const char *dir, bool *full);

/* /proc/kallsyms under @procfs read whole, nothing kept. */
struct hpm_kallsyms *kcache_read(const char *procfs);

/* Make sure @dir holds this boot's table (read and save it if not). A
 * cache: failing is fine, and says nothing. */
void kcache_ensure(const char *procfs, const char *dir);

#endif
