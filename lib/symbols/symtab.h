/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/symbols/ owns addresses to functions, lines and inlines; may use core, sys.
 *
 * An object's function symbols as one sorted table (symtab.c), built once
 * per struct hpm_dso and searched by address (binary search) and by name,
 * with its PLT entries (plt-internal.h) and demangled names
 * (demangle-internal.h).
 *
 * Ownership: the table owns its entries, the names it made (a version
 * cut off, "@plt" added) and the demangled names; other names point into
 * the ELF data of the Dwfl module it was built from, which must outlive
 * it.
 */
#ifndef HPM_SYMBOLS_SYMTAB_H
#define HPM_SYMBOLS_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "symbols/demangle-internal.h"

struct hpm_fsym {
	uint64_t start, size;  /* link-time; a size of 0 in the file reaches the next symbol */
	const char *name;      /* without its version (foo@@VER -> foo) */
	char *dem;             /* demangled (owned), or NULL */
	uint8_t bind;          /* STB_* */
	bool ifunc;            /* STT_GNU_IFUNC: the resolver, not the function */
	bool dem_tried;
};

struct hpm_symtab {
	struct hpm_fsym *v;
	size_t n;
	char **owned;          /* names made here */
	size_t nr_owned, cap_owned;
};

/* Fill @t from @mod's symbol table (.symtab, else .dynsym, as libdwfl
 * picks) and the PLT of @elf. 0 or -ENOMEM. */
int hpm_symtab__build(struct hpm_symtab *t, Dwfl_Module *mod, GElf_Addr bias, Elf *elf);
void hpm_symtab__release(struct hpm_symtab *t);
/* The function that covers link-time @addr, or NULL. */
struct hpm_fsym *hpm_symtab__find(struct hpm_symtab *t, uint64_t addr);
/* The function (not IFUNC) named @name: its symbol name, with or without its version,
 * its demangled name, or that name without its parameters. NULL if none. */
struct hpm_fsym *hpm_symtab__by_name(struct hpm_symtab *t, const char *name);
/* Keep @s (malloc'd) until the table is released: @s, or NULL (and @s
 * freed) when out of memory. */
char *hpm_symtab__own(struct hpm_symtab *t, char *s);
/* @s's name, demangled when @demangle and it is a mangled name. */
const char *hpm_symtab__name(struct hpm_fsym *s, bool demangle);

/* ARM's mapping symbols ($a, $d, $t, $x, maybe with a ".suffix") mark
 * code and data inside sections, in ELF symbol tables and in an arm64
 * kernel's kallsyms (its modules'); they never name a function. */
bool hpm__mapping_symbol(const char *name);

#endif
