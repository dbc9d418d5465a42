// SPDX-License-Identifier: MIT
/*
 * Fuzz the symbol files hpmon reads that anyone may have written: the
 * kernel-symbol table saved in the user's cache (hpm_kallsyms__load_saved,
 * which must refuse a damaged file cleanly, or answer with printable names
 * in ascending order), the same bytes as kallsyms text (hpm_kallsyms__load,
 * the procfs of a test tree), and as a JIT map (hpm_jitmap__load: a
 * /tmp/perf-PID.map, which any user can create). The first byte chooses
 * the reader. A table read as text and saved is read back whole.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hpmon/symbols.h>
#include "fuzz-file.h"

static int fuzz_one(const uint8_t *data, size_t size);

static const char key[] = "boot 1234 release 6.1";

static void check_name(const char *s)
{
	if (!s)
		return;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			__builtin_trap();
}

/* Look-ups at addresses taken from the input and around them: a name
 * at or before the address, never after it. */
static void probe_k(const struct hpm_kallsyms *k, const uint8_t *data, size_t size)
{
	for (size_t i = 0; i + 8 <= size && i < 2048; i += 8) {
		uint64_t a, start = 0;
		memcpy(&a, data + i, 8);
		for (int d = -1; d <= 1; d++) {
			const char *n = hpm_kallsyms__lookup(k, a + (uint64_t)d, &start);
			if (n && start > a + (uint64_t)d)
				__builtin_trap();
			check_name(n);
			(void)hpm_kallsyms__covers(k, a + (uint64_t)d);
		}
	}
}

static void probe_j(const struct hpm_jitmap *m, const uint8_t *data, size_t size)
{
	for (size_t i = 0; i + 8 <= size && i < 2048; i += 8) {
		uint64_t a, start = 0;
		memcpy(&a, data + i, 8);
		const char *n = hpm_jitmap__lookup(m, a, &start);
		if (n && start > a)
			__builtin_trap();
	}
}

static int fuzz_one(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	unsigned mode = data[0] % 3;
	data++;
	size--;
	fuzz_write_in(data, size);

	if (mode == 0) {
		struct hpm_kallsyms *k = hpm_kallsyms__load_saved(fuzz_in, key);
		if (!k) {
			if (errno != EBADMSG)
				__builtin_trap(); /* the file is ours, regular: only its bytes are wrong */
			return 0;
		}
		probe_k(k, data, size);
		hpm_kallsyms__free(k);
	} else if (mode == 1) {
		struct hpm_kallsyms *k = hpm_kallsyms__load(fuzz_in);
		if (!k)
			return 0;
		probe_k(k, data, size);
		/* saved and read back: the same answers inside the core kernel */
		if (!hpm_kallsyms__save(k, fuzz_out, key)) {
			struct hpm_kallsyms *back = hpm_kallsyms__load_saved(fuzz_out, key);
			if (!back)
				__builtin_trap();
			probe_k(back, data, size);
			hpm_kallsyms__free(back);
			unlink(fuzz_out);
		}
		hpm_kallsyms__free(k);
	} else {
		struct hpm_jitmap *m = hpm_jitmap__load(fuzz_in);
		if (!m)
			return 0;
		probe_j(m, data, size);
		hpm_jitmap__free(m);
	}
	return 0;
}

#include "fuzz-cpu.h"
