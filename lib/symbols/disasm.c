/* SPDX-License-Identifier: MIT */
/* Disassembly for `hpmon annotate` (include/hpmon/symbols.h), over capstone. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <capstone/capstone.h>

#include <hpmon/symbols.h>

struct hpm_disasm {
	csh h;
	cs_insn *insn;
};

struct hpm_disasm *hpm_disasm__new(const char *arch)
{
	cs_arch a;
	cs_mode m;

	if (!strcmp(arch, "x86_64")) {
		a = CS_ARCH_X86;
		m = CS_MODE_64;
	} else if (!strcmp(arch, "aarch64")) {
		a = CS_ARCH_ARM64;
		m = CS_MODE_LITTLE_ENDIAN;
	} else if (!strcmp(arch, "i386")) {
		a = CS_ARCH_X86;
		m = CS_MODE_32;
	} else {
		errno = ENOTSUP;
		return NULL;
	}
	struct hpm_disasm *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	if (cs_open(a, m, &d->h) != CS_ERR_OK) {
		free(d);
		errno = ENOTSUP;
		return NULL;
	}
	d->insn = cs_malloc(d->h);
	if (!d->insn) {
		cs_close(&d->h);
		free(d);
		errno = ENOMEM;
		return NULL;
	}
	return d;
}

void hpm_disasm__free(struct hpm_disasm *d)
{
	if (!d)
		return;
	cs_free(d->insn, 1);
	cs_close(&d->h);
	free(d);
}

size_t hpm_disasm__one(struct hpm_disasm *d, const uint8_t *code, size_t len,
		       uint64_t addr, char *text, size_t text_len)
{
	const uint8_t *p = code;
	size_t n = len;
	uint64_t a = addr;

	if (!cs_disasm_iter(d->h, &p, &n, &a, d->insn)) {
		if (text_len)
			text[0] = '\0';
		return 0;
	}
	snprintf(text, text_len, "%s%s%s", d->insn->mnemonic, d->insn->op_str[0] ? " " : "",
		 d->insn->op_str);
	return d->insn->size;
}
