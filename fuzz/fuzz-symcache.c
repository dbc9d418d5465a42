// SPDX-License-Identifier: MIT
/*
 * Fuzz the reader of the objects' symbol caches (hpm_symcache__load):
 * any bytes as a saved cache, written to a file of this user's (the
 * reader opens paths only, and refuses links). It must refuse cleanly or
 * hand out a cache whose every string is printable ASCII within its
 * bounds and whose look-ups answer only for the flags asked; a cache read
 * is saved again with an entry added, and read back, as a report does.
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

#include <hpmon/symcache.h>
#include "fuzz-file.h"

static int fuzz_one(const uint8_t *data, size_t size);

static void check_str(const char *s)
{
	if (!s)
		return;
	size_t n = strlen(s);
	if (n >= HPM_SYMCACHE_MAX_STRING)
		__builtin_trap();
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
			__builtin_trap();
}

/* Every answer: only the parts asked, strings sane. */
static void probe(const struct hpm_symcache *c, uint64_t off)
{
	for (unsigned f = 0; f < 8; f++) {
		struct hpm_symcache_entry e;
		unsigned have;
		if (hpm_symcache__lookup(c, off, f, &e, &have))
			continue;
		if (e.off != off || ((have ^ f) & HPM_SYM_DEMANGLE) ||
		    (f & ~have & (HPM_SYM_LINES | HPM_SYM_INLINE)))
			__builtin_trap();
		if ((!(f & HPM_SYM_INLINE) && e.inl) ||
		    (!(f & HPM_SYM_LINES) && (e.file || e.line)))
			__builtin_trap();
		check_str(e.name);
		check_str(e.inl);
		check_str(e.file);
	}
}

static int fuzz_one(const uint8_t *data, size_t size)
{
	fuzz_write_in(data, size);

	struct hpm_symcache *c = hpm_symcache__load(fuzz_in);
	if (!c) {
		if (errno != EBADMSG)
			__builtin_trap(); /* the file is ours, regular: only its bytes are wrong */
		return 0;
	}
	struct hpm_symcache_source s;
	uint8_t id[64];
	size_t n = hpm_symcache__build_id(c, id, sizeof(id));
	if (!n || n > 20)
		__builtin_trap();
	check_str(hpm_symcache__context(c));
	hpm_symcache__source(c, &s);
	check_str(s.debug_file);
	if (s.nr_places > HPM_SYMCACHE_MAX_PLACES)
		__builtin_trap();
	for (size_t i = 0; i < s.nr_places; i++)
		check_str(s.places[i]);
	/* offsets from the input itself, and around them */
	for (size_t i = 0; i + 8 <= size && i < 4096; i += 8) {
		uint64_t off;
		memcpy(&off, data + i, 8);
		probe(c, off);
		probe(c, off + 1);
	}
	/* saved again with one more, as a report does, and read back */
	struct hpm_symcache *fresh = hpm_symcache__new(id, n, hpm_symcache__context(c), &s);
	if (!fresh)
		__builtin_trap();
	struct hpm_symcache_entry e = { 0x1234, HPM_SYM_DEMANGLE, 0x1234, "f", 0, 0, NULL, NULL, 0 };
	if (hpm_symcache__add(fresh, &e))
		__builtin_trap();
	int rc = hpm_symcache__save(fresh, c, fuzz_out);
	if (!rc) {
		struct hpm_symcache *back = hpm_symcache__load(fuzz_out);
		if (!back || hpm_symcache__count(back) > hpm_symcache__count(c) + 1 ||
		    hpm_symcache__lookup(back, 0x1234, HPM_SYM_DEMANGLE, &e, NULL) ||
		    strcmp(e.name, "f"))
			__builtin_trap();
		hpm_symcache__free(back);
		unlink(fuzz_out);
	} else if (rc != -EFBIG) {
		__builtin_trap();
	}
	hpm_symcache__free(fresh);
	hpm_symcache__free(c);
	return 0;
}

#include "fuzz-cpu.h"
