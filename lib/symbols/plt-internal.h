/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/symbols/ owns addresses to functions, lines and inlines; may use core, sys.
 *
 * The PLT entries of an ELF object, named after the function each calls
 * (lib/symbols/plt.c).
 *
 * Ownership: the names handed to the callback point into @elf's data and
 * live as long as it.
 */
#ifndef HPM_SYMBOLS_PLT_INTERNAL_H
#define HPM_SYMBOLS_PLT_INTERNAL_H

#include <stdint.h>
#include <gelf.h>

/* The PLT entries of @elf, each handed to @add with the name of the
 * function it jumps to (without "@plt"), its link-time address and size.
 * x86-64 (.plt, .plt.sec, .plt.got) and AArch64 (.plt). 0, or what @add
 * returned when not 0. */
int hpm__plt_foreach(Elf *elf, int (*add)(void *ctx, const char *name, uint64_t addr,
					  uint64_t size),
		     void *ctx);

#endif
