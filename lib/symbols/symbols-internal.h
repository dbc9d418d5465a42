/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/symbols/ owns addresses to functions, lines and inlines; may use core, sys.
 *
 * What the rest of the library takes from symbols/ besides the public
 * <hpmon/symbols.h>. Ownership: @buf is the caller's; nothing is kept.
 */
#ifndef HPM_SYMBOLS_INTERNAL_H
#define HPM_SYMBOLS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* The GNU build-id of the ELF file @path into @buf: its length (at most
 * @len), or 0 when it has none or cannot be read. */
size_t hpm__elf_build_id(const char *path, uint8_t *buf, size_t len);

#endif
