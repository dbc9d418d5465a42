/* SPDX-License-Identifier: MIT */
/*
 * The directory of hpmon's caches (the kernel's symbols per boot,
 * kcache.h; the objects' symbols, report/objcache.c), and the one check
 * that a directory may hold them: the user's alone, and every directory
 * above it the user's or root's and writable by no one else, or sticky
 * as /tmp is (others may add names there, not rename or remove the
 * user's: docs/security.md). A cache anywhere else is neither read nor
 * written.
 *
 * Room: tools/hpmon/cache/ owns the cache directory and the kernel's symbols per boot; may use libc only.
 * Ownership: paths are borrowed; the directory's name is written into
 * the caller's buffer.
 */
#ifndef HPMON_TOOL_CACHEDIR_H
#define HPMON_TOOL_CACHEDIR_H

#include <stdbool.h>
#include <stddef.h>

/*
 * $XDG_CACHE_HOME/hpmon, else $HOME/.cache/hpmon, into @buf; NULL when
 * neither is set or the path is not the user's (another user could change
 * what it leads to): then nothing is kept. As root, root's own: its home
 * from the password database, or a $XDG_CACHE_HOME owned by root and
 * writable by no one else from / down, never a calling user's (sudo -E).
 */
const char *cache_dir(char *buf, size_t len);

/* mkdir -p @dir (0700); true when @dir is then the user's own: a real
 * directory (no link), owned by the user, writable by no one else, and
 * no one but the user (and root) can change what the path leads to. */
bool cache_dir_ready(const char *dir);

#endif
