/* SPDX-License-Identifier: MIT */
/*
 * An object's functions as one table sorted by address (symtab.h), so
 * that each address is a binary search: libdwfl's own look-up walks the
 * symbol table for every address, which made a report of a large program
 * spend seconds there.
 *
 * Which symbol names an address that several share (malloc and
 * __libc_malloc, free and cfree) is perf's choice, in this order: one
 * with a size over one without; not weak over weak; global over local;
 * fewer leading underscores; the longer name; then the first in the
 * symbol table. docs/hpmon-report.md states it for users.
 *
 * As perf, labels name code too: symbols without a type (hand-written
 * assembly's, ld.so's _start) in a text section, unless hidden. A label
 * never beats a function at its address, and one inside a function with
 * a size is left out (it would cut the function in two, where perf's
 * choice between the two is not defined).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/symtab.h"
#include "symbols/plt-internal.h"

struct cand {
	struct hpm_fsym s;
	size_t order;  /* position in the symbol table: the last tie-break */
	uint64_t limit; /* end of the symbol's section: where a size of 0 stops */
	bool sized;
	bool label;     /* STT_NOTYPE in a text section */
};

struct builder {
	struct hpm_symtab *t;
	struct cand *v;
	size_t n, cap;
};

char *hpm_symtab__own(struct hpm_symtab *t, char *s)
{
	if (!s)
		return NULL;
	if (t->nr_owned == t->cap_owned) {
		size_t cap = t->cap_owned ? t->cap_owned * 2 : 64;
		char **v = realloc(t->owned, cap * sizeof(*v));
		if (!v) {
			free(s);
			return NULL;
		}
		t->owned = v;
		t->cap_owned = cap;
	}
	return t->owned[t->nr_owned++] = s;
}

static int push(struct builder *b, const struct cand *c)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 1024;
		struct cand *v = realloc(b->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		b->v = v;
		b->cap = cap;
	}
	b->v[b->n] = *c;
	b->v[b->n].order = b->n;
	b->n++;
	return 0;
}

bool hpm__mapping_symbol(const char *n)
{
	return n[0] == '$' && strchr("adtx", n[1]) && n[1] && (!n[2] || n[2] == '.');
}

static int add_plt(void *ctx, const char *name, uint64_t addr, uint64_t size)
{
	struct builder *b = ctx;
	char buf[512];
	snprintf(buf, sizeof(buf), "%.*s@plt", (int)strcspn(name, "@"), name);
	struct cand c = { .s = { .start = addr, .size = size, .bind = STB_GLOBAL },
			  .limit = addr + size, .sized = true };
	if (!(c.s.name = hpm_symtab__own(b->t, strdup(buf))))
		return -ENOMEM;
	return push(b, &c);
}

static int by_addr(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	if (x->s.start != y->s.start)
		return x->s.start < y->s.start ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static size_t underscores(const char *s)
{
	return strspn(s, "_");
}

/* Is @a a better name than @b for the address both start at? */
static bool better(const struct cand *a, const struct cand *b)
{
	if (a->label != b->label)
		return !a->label;
	if (a->sized != b->sized)
		return a->sized;
	if ((a->s.bind == STB_WEAK) != (b->s.bind == STB_WEAK))
		return b->s.bind == STB_WEAK;
	if ((a->s.bind == STB_GLOBAL) != (b->s.bind == STB_GLOBAL))
		return a->s.bind == STB_GLOBAL;
	size_t ua = underscores(a->s.name), ub = underscores(b->s.name);
	if (ua != ub)
		return ua < ub;
	size_t la = strlen(a->s.name), lb = strlen(b->s.name);
	if (la != lb)
		return la > lb;
	return a->order < b->order;
}

/* A label as perf takes one: a named symbol without a type, defined in a
 * section, not hidden or internal (the section is checked by the caller). */
static bool maybe_label(const GElf_Sym *sym, GElf_Word shndx)
{
	unsigned vis = GELF_ST_VISIBILITY(sym->st_other);
	return GELF_ST_TYPE(sym->st_info) == STT_NOTYPE && shndx != SHN_UNDEF &&
	       shndx != SHN_ABS && shndx < SHN_LORESERVE && vis != STV_HIDDEN &&
	       vis != STV_INTERNAL;
}

/* perf's test of a text section: its name says "text" (.text, .text.hot ...) */
static bool text_section(Elf *e, const GElf_Shdr *sh)
{
	size_t shstrndx;
	const char *n = elf_getshdrstrndx(e, &shstrndx) ? NULL : elf_strptr(e, shstrndx, sh->sh_name);
	return n && strstr(n, "text");
}

static int collect(struct builder *b, Dwfl_Module *mod, GElf_Addr bias)
{
	int nsym = dwfl_module_getsymtab(mod);
	for (int i = 1; i < nsym; i++) {
		GElf_Sym sym;
		GElf_Addr a;
		GElf_Word shndx;
		Elf *e = NULL;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &a, &shndx, &e, NULL);
		unsigned type = name ? GELF_ST_TYPE(sym.st_info) : STT_NOTYPE;
		bool label = name && maybe_label(&sym, shndx);
		if (!name || !*name || (type != STT_FUNC && type != STT_GNU_IFUNC && !label) ||
		    shndx == SHN_UNDEF || hpm__mapping_symbol(name))
			continue;
		struct cand c = { .s = { .start = a - bias, .size = sym.st_size,
					 .bind = (uint8_t)GELF_ST_BIND(sym.st_info),
					 .ifunc = type == STT_GNU_IFUNC },
				  .limit = UINT64_MAX, .sized = sym.st_size > 0, .label = label };
		GElf_Shdr sh;
		Elf_Scn *scn = e ? elf_getscn(e, shndx) : NULL;
		bool have_sh = scn && gelf_getshdr(scn, &sh);
		if (label && (!have_sh || !text_section(e, &sh)))
			continue;
		if (have_sh && sh.sh_addr <= c.s.start)
			c.limit = sh.sh_addr + sh.sh_size;
		/* foo@@VER in a symbol table (symver): the version is noise */
		size_t len = strcspn(name, "@");
		c.s.name = name[len] ? hpm_symtab__own(b->t, strndup(name, len)) : name;
		if (!c.s.name || push(b, &c))
			return -ENOMEM;
	}
	return 0;
}

int hpm_symtab__build(struct hpm_symtab *t, Dwfl_Module *mod, GElf_Addr bias, Elf *elf)
{
	struct builder b = { .t = t };
	int rc;

	memset(t, 0, sizeof(*t));
	rc = collect(&b, mod, bias);
	if (!rc && elf)
		rc = hpm__plt_foreach(elf, add_plt, &b);
	if (rc)
		goto out;
	qsort(b.v, b.n, sizeof(*b.v), by_addr);
	/* one entry per address: the best of those that start there */
	size_t n = 0;
	for (size_t i = 0; i < b.n; i++) {
		if (n && b.v[n - 1].s.start == b.v[i].s.start) {
			if (better(&b.v[i], &b.v[n - 1]))
				b.v[n - 1] = b.v[i];
			continue;
		}
		b.v[n++] = b.v[i];
	}
	/* labels inside a function with a size are left out */
	uint64_t cover = 0;
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (b.v[i].label && b.v[i].s.start < cover)
			continue;
		if (b.v[i].sized && b.v[i].s.start + b.v[i].s.size > cover)
			cover = b.v[i].s.start + b.v[i].s.size;
		b.v[m++] = b.v[i];
	}
	n = m;
	t->v = calloc(n ? n : 1, sizeof(*t->v));
	if (!t->v) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		struct hpm_fsym *s = &t->v[i];
		*s = b.v[i].s;
		if (!b.v[i].sized) {
			/* no size: up to the next function, within its section */
			uint64_t end = i + 1 < n ? b.v[i + 1].s.start : b.v[i].limit;
			if (end > b.v[i].limit)
				end = b.v[i].limit;
			s->size = end > s->start && end != UINT64_MAX ? end - s->start : 0;
		}
	}
	t->n = n;
out:
	free(b.v);
	if (rc)
		hpm_symtab__release(t);
	return rc;
}

void hpm_symtab__release(struct hpm_symtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].dem);
	for (size_t i = 0; i < t->nr_owned; i++)
		free(t->owned[i]);
	free(t->owned);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

/* Functions may nest (a local alias inside a larger function): when the
 * nearest start does not cover the address, a few before it may. */
#define NEST_BACK 8

struct hpm_fsym *hpm_symtab__find(struct hpm_symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) { /* the first entry starting after addr */
		size_t mid = lo + (hi - lo) / 2;
		if (t->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = 0; k < NEST_BACK && lo > k; k++) {
		struct hpm_fsym *s = &t->v[lo - 1 - k];
		if (addr - s->start < s->size)
			return s;
	}
	return NULL;
}

const char *hpm_symtab__name(struct hpm_fsym *s, bool demangle)
{
	if (!demangle)
		return s->name;
	if (!s->dem_tried) {
		s->dem = hpm__demangle(s->name);
		s->dem_tried = true;
	}
	return s->dem ? s->dem : s->name;
}

struct hpm_fsym *hpm_symtab__by_name(struct hpm_symtab *t, const char *name)
{
	/* an IFUNC's address is its resolver's, which runs once: not the
	 * function a caller means */
	for (size_t i = 0; i < t->n; i++)
		if (!t->v[i].ifunc && !strcmp(t->v[i].name, name))
			return &t->v[i];
	/* a demangled name, whole or without its parameters (ns::f) */
	size_t len = strlen(name);
	for (size_t i = 0; i < t->n; i++) {
		const char *d = t->v[i].ifunc ? t->v[i].name : hpm_symtab__name(&t->v[i], true);
		if (d != t->v[i].name && !strncmp(d, name, len) && (!d[len] || d[len] == '('))
			return &t->v[i];
	}
	return NULL;
}
