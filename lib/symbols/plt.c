/* SPDX-License-Identifier: MIT */
/*
 * PLT entries named after the function they call, as perf names them
 * (puts@plt): the stubs have no symbols of their own, and without a name
 * their samples would show as object+offset.
 *
 * Each entry is read as the machine runs it: its indirect jump goes
 * through a GOT slot, and the dynamic relocation of that slot (JUMP_SLOT
 * in .rela.plt, GLOB_DAT in .rela.dyn for .plt.got) names the symbol.
 * Decoding the jump rather than counting entries in relocation order holds
 * for every PLT layout the linkers emit: lazy .plt, .plt.sec of IBT,
 * .plt.got, and AArch64's with or without BTI.
 *
 * A call to an IFUNC the object defines itself (libc's own calls of
 * memcpy, a program's local IFUNC) goes through a slot whose IRELATIVE
 * relocation names no symbol: its addend is the resolver's address,
 * which is the value of the IFUNC's symbol. The stub takes that symbol's
 * name (memcpy@plt), where perf shows "*ABS*+0x...@plt".
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/plt-internal.h"

struct slot {
	uint64_t got;
	const char *name;
};

struct slots {
	struct slot *v;
	size_t n, cap;
};

static int slot_cmp(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;
	return x->got < y->got ? -1 : x->got > y->got;
}

static const char *slot_name(const struct slots *s, uint64_t got)
{
	struct slot k = { got, NULL };
	const struct slot *f = bsearch(&k, s->v, s->n, sizeof(k), slot_cmp);
	return f ? f->name : NULL;
}

static bool names_symbol(unsigned machine, unsigned type)
{
	if (machine == EM_X86_64)
		return type == 7 /* R_X86_64_JUMP_SLOT */ || type == 6 /* R_X86_64_GLOB_DAT */;
	if (machine == EM_AARCH64)
		return type == 1026 /* R_AARCH64_JUMP_SLOT */ || type == 1025 /* GLOB_DAT */;
	return false;
}

static bool irelative(unsigned machine, unsigned type)
{
	return (machine == EM_X86_64 && type == 37 /* R_X86_64_IRELATIVE */) ||
	       (machine == EM_AARCH64 && type == 1032 /* R_AARCH64_IRELATIVE */);
}

static int push(struct slots *s, uint64_t got, const char *name)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct slot *v = realloc(s->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = (struct slot){ got, name };
	return 0;
}

/* Which of two IFUNC symbols at one address names it: global over not,
 * then fewer leading underscores (memcpy over __memcpy), as symtab.c
 * chooses among functions. */
static bool better_ifunc(const GElf_Sym *a, const char *an, const GElf_Sym *b, const char *bn)
{
	bool ga = GELF_ST_BIND(a->st_info) == STB_GLOBAL, gb = GELF_ST_BIND(b->st_info) == STB_GLOBAL;
	if (ga != gb)
		return ga;
	return strspn(an, "_") < strspn(bn, "_");
}

/* An IRELATIVE slot: its resolver's address, and the IFUNC symbol found
 * there so far. */
struct irel {
	uint64_t got, addend;
	const char *name;
	GElf_Sym sym;
};

static int irel_cmp(const void *a, const void *b)
{
	const struct irel *x = a, *y = b;
	return x->addend < y->addend ? -1 : x->addend > y->addend;
}

/* The slots of @v named after the IFUNC symbols at their resolvers'
 * addresses, in the object's symbol tables (.symtab of a program that
 * does not export them, .dynsym of a library), and added to @s; a slot
 * with no such symbol stays unnamed. */
static int name_irelative(Elf *elf, struct irel *v, size_t n, struct slots *s)
{
	qsort(v, n, sizeof(*v), irel_cmp);
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		size_t nr = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; data && i < nr; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(data, (int)i, &sym) ||
			    GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC)
				continue;
			struct irel k = { .addend = sym.st_value };
			struct irel *f = bsearch(&k, v, n, sizeof(*v), irel_cmp);
			const char *name = f ? elf_strptr(elf, sh.sh_link, sym.st_name) : NULL;
			if (!name || !*name)
				continue;
			/* every slot of that resolver (bsearch found one of them) */
			while (f > v && f[-1].addend == sym.st_value)
				f--;
			for (; f < v + n && f->addend == sym.st_value; f++)
				if (!f->name || better_ifunc(&sym, name, &f->sym, f->name)) {
					f->name = name;
					f->sym = sym;
				}
		}
	}
	for (size_t i = 0; i < n; i++)
		if (v[i].name && push(s, v[i].got, v[i].name))
			return -ENOMEM;
	return 0;
}

/* Every GOT slot that a dynamic relocation binds to a named symbol, or
 * to an IFUNC of the object's own (IRELATIVE). */
static int read_slots(Elf *elf, unsigned machine, struct slots *s)
{
	struct irel *irel = NULL;
	size_t nr_irel = 0, cap_irel = 0;
	int rc = 0;
	Elf_Scn *scn = NULL;
	while (!rc && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh, lsh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize)
			continue;
		Elf_Scn *lscn = elf_getscn(elf, sh.sh_link);
		Elf_Data *data = elf_getdata(scn, NULL);
		Elf_Data *ldata = lscn ? elf_getdata(lscn, NULL) : NULL;
		if (!data || !ldata || !gelf_getshdr(lscn, &lsh) || lsh.sh_type != SHT_DYNSYM)
			continue;
		size_t nr = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; !rc && i < nr; i++) {
			GElf_Rela r;
			GElf_Sym sym;
			if (!gelf_getrela(data, (int)i, &r))
				continue;
			if (irelative(machine, (unsigned)GELF_R_TYPE(r.r_info))) {
				if (nr_irel == cap_irel) {
					size_t cap = cap_irel ? cap_irel * 2 : 32;
					struct irel *v = realloc(irel, cap * sizeof(*v));
					if (!v) {
						rc = -ENOMEM;
						break;
					}
					irel = v;
					cap_irel = cap;
				}
				irel[nr_irel++] = (struct irel){ .got = r.r_offset,
								 .addend = (uint64_t)r.r_addend };
				continue;
			}
			if (!names_symbol(machine, (unsigned)GELF_R_TYPE(r.r_info)) ||
			    !GELF_R_SYM(r.r_info) ||
			    !gelf_getsym(ldata, (int)GELF_R_SYM(r.r_info), &sym))
				continue;
			const char *name = elf_strptr(elf, lsh.sh_link, sym.st_name);
			if (name && *name)
				rc = push(s, r.r_offset, name);
		}
	}
	if (!rc && nr_irel)
		rc = name_irelative(elf, irel, nr_irel, s);
	free(irel);
	if (!rc && s->n)
		qsort(s->v, s->n, sizeof(*s->v), slot_cmp);
	return rc;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/*
 * x86-64: entries of sh_entsize bytes (16 in .plt and .plt.sec, 8 or 16
 * in .plt.got), each with one `jmp *disp32(%rip)` (ff 25), maybe behind
 * endbr64 and a bnd prefix. The lazy .plt of an IBT object jumps to its
 * PLT0 instead and stays unnamed, as .plt.sec holds the named entries; so
 * does PLT0, whose slot no relocation names.
 */
static int x86_64(const uint8_t *code, size_t len, uint64_t addr, size_t entsize,
		  const struct slots *s, int (*add)(void *, const char *, uint64_t, uint64_t),
		  void *ctx)
{
	if (entsize < 6)
		entsize = 16;
	for (size_t e = 0; e + entsize <= len; e += entsize) {
		for (size_t i = 0; i + 6 <= entsize; i++) {
			if (code[e + i] != 0xff || code[e + i + 1] != 0x25)
				continue;
			uint64_t next = addr + e + i + 6;
			uint64_t got = next + (uint64_t)(int64_t)(int32_t)le32(code + e + i + 2);
			const char *name = slot_name(s, got);
			if (name) {
				int rc = add(ctx, name, addr + e, entsize);
				if (rc)
					return rc;
			}
			break;
		}
	}
	return 0;
}

/*
 * AArch64: `adrp x16, page; ldr x17, [x16, #off]; add; br x17`, maybe
 * behind `bti c`; the entry starts at the adrp (or its bti) and ends where
 * the next begins. PLT0 loads its slot the same way but no relocation
 * names it.
 */
static int aarch64(const uint8_t *code, size_t len, uint64_t addr, const struct slots *s,
		   int (*add)(void *, const char *, uint64_t, uint64_t), void *ctx)
{
	uint64_t start = 0, width = 16;
	const char *name = NULL;
	for (size_t i = 0; i + 8 <= len; i += 4) {
		uint32_t a = le32(code + i), l = le32(code + i + 4);
		if ((a & 0x9f00001fu) != 0x90000010u /* adrp x16 */ ||
		    (l & 0xffc003ffu) != 0xf9400211u /* ldr x17, [x16, #imm] */)
			continue;
		uint64_t pc = addr + i;
		int64_t imm = (int64_t)((a >> 29 & 3) | ((a >> 5 & 0x7ffff) << 2));
		imm = (imm ^ (1 << 20)) - (1 << 20); /* 21 bits, signed */
		uint64_t got = (pc & ~0xfffull) + (uint64_t)(imm * 4096) + ((l >> 10 & 0xfff) * 8);
		uint64_t at = i >= 4 && le32(code + i - 4) == 0xd503245fu /* bti c */ ? pc - 4 : pc;
		if (name) {
			int rc = add(ctx, name, start, at - start);
			if (rc)
				return rc;
		}
		if (start && at - start <= 32)
			width = at - start;
		name = slot_name(s, got);
		start = at;
		i += 4;
	}
	/* the last entry is as wide as the others */
	if (name)
		return add(ctx, name, start, addr + len - start < width ? addr + len - start : width);
	return 0;
}

int hpm__plt_foreach(Elf *elf, int (*add)(void *ctx, const char *name, uint64_t addr,
					  uint64_t size),
		     void *ctx)
{
	struct slots s = { 0 };
	GElf_Ehdr eh;
	size_t shstrndx;
	int rc = 0;

	if (!gelf_getehdr(elf, &eh) || (eh.e_machine != EM_X86_64 && eh.e_machine != EM_AARCH64) ||
	    elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	rc = read_slots(elf, eh.e_machine, &s);
	Elf_Scn *scn = NULL;
	while (!rc && s.n && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		const char *sn = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!sn || strncmp(sn, ".plt", 4) || (sn[4] && strcmp(sn + 4, ".sec") &&
						      strcmp(sn + 4, ".got")))
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size > sh.sh_size)
			continue;
		if (eh.e_machine == EM_X86_64)
			rc = x86_64(d->d_buf, d->d_size, sh.sh_addr, sh.sh_entsize, &s, add, ctx);
		else
			rc = aarch64(d->d_buf, d->d_size, sh.sh_addr, &s, add, ctx);
	}
	free(s.v);
	return rc;
}
