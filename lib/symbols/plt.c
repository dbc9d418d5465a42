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
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/symtab.h"

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

/* Every GOT slot that a dynamic relocation binds to a named symbol. */
static int read_slots(Elf *elf, unsigned machine, struct slots *s)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh, lsh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize)
			continue;
		Elf_Scn *lscn = elf_getscn(elf, sh.sh_link);
		Elf_Data *data = elf_getdata(scn, NULL);
		Elf_Data *ldata = lscn ? elf_getdata(lscn, NULL) : NULL;
		if (!data || !ldata || !gelf_getshdr(lscn, &lsh) || lsh.sh_type != SHT_DYNSYM)
			continue;
		size_t nr = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; i < nr; i++) {
			GElf_Rela r;
			GElf_Sym sym;
			if (!gelf_getrela(data, (int)i, &r) ||
			    !names_symbol(machine, (unsigned)GELF_R_TYPE(r.r_info)) ||
			    !GELF_R_SYM(r.r_info) ||
			    !gelf_getsym(ldata, (int)GELF_R_SYM(r.r_info), &sym))
				continue;
			const char *name = elf_strptr(elf, lsh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			if (s->n == s->cap) {
				size_t cap = s->cap ? s->cap * 2 : 64;
				struct slot *v = realloc(s->v, cap * sizeof(*v));
				if (!v)
					return -ENOMEM;
				s->v = v;
				s->cap = cap;
			}
			s->v[s->n++] = (struct slot){ r.r_offset, name };
		}
	}
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), slot_cmp);
	return 0;
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
