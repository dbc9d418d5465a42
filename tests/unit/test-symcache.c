/* SPDX-License-Identifier: MIT */
/*
 * The per-object symbol cache (include/hpmon/symcache.h): what is saved
 * is read back the same (entries, build-id, context, the object's and
 * the debug file's identities, the places); an entry answers only for
 * its demangling and at least the DWARF parts asked, and shows no part
 * not asked; a report's entries replace the saved ones of the same key
 * and the rest are kept; every corruption of a saved file is refused;
 * the file is the user's alone (0600, owner, mode, links); what a cache
 * holds in memory counts its strings.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <hpmon/symcache.h>

static char dir[] = "/tmp/hpmon-test-symcache.XXXXXX";
static char path[4096];
static const uint8_t bid[20] = { 0x93, 0xac, 0x61, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17 };

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/cache", dir);
	return 0;
}

static int teardown(void **state)
{
	char cmd[4200];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static struct hpm_symcache_source source(void)
{
	struct hpm_symcache_source s = { 0 };
	s.file = (struct hpm_file_id){ true, 2049, 1234, 5000, 1700000000123456789ll };
	s.has_symbols = true;
	s.debug_file = "/usr/lib/debug/.build-id/93/ac61.debug";
	s.debug = (struct hpm_file_id){ true, 2049, 99, 4166896, 1700000000000000001ll };
	s.places[0] = "/usr/lib/debug/.build-id/93/ac61.debug";
	s.place_id[0] = s.debug;
	s.places[1] = "/lib/libc.so.6.debug";
	s.nr_places = 2;
	return s;
}

static struct hpm_symcache *fresh(void)
{
	struct hpm_symcache_source s = source();
	struct hpm_symcache *c = hpm_symcache__new(bid, sizeof(bid), "debug-dir /usr/lib/debug", &s);
	assert_non_null(c);
	return c;
}

static void add(struct hpm_symcache *c, uint64_t off, unsigned flags, const char *name,
		const char *inl, const char *file, unsigned line)
{
	struct hpm_symcache_entry e = { off, flags, off + 0x1000, name, off & ~0xffull, 0x100,
					inl, file, line };
	assert_int_equal(hpm_symcache__add(c, &e), 0);
}

static struct hpm_symcache *saved_again(const struct hpm_symcache *c, const struct hpm_symcache *old)
{
	unlink(path);
	assert_int_equal(hpm_symcache__save(c, old, path), 0);
	struct hpm_symcache *r = hpm_symcache__load(path);
	if (!r)
		fail_msg("load: %s", strerror(errno));
	return r;
}

#define L HPM_SYM_LINES
#define I HPM_SYM_INLINE
#define D HPM_SYM_DEMANGLE

static void test_round_trip(void **state)
{
	(void)state;
	struct hpm_symcache *c = fresh();
	add(c, 0x200, L | I | D, "ns::f(int)", "std::vector<int>::push_back(int const&)", "/src/a.cc", 42);
	add(c, 0x100, D, "main", NULL, NULL, 0);
	add(c, 0x100, 0, "main", NULL, NULL, 0);
	add(c, 0x300, L, NULL, NULL, "/src/b.c", 7); /* a line without a function */
	struct hpm_symcache *r = saved_again(c, NULL);
	struct stat sb;
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0600);
	assert_int_equal(hpm_symcache__count(r), 4);

	uint8_t b[32];
	assert_int_equal(hpm_symcache__build_id(r, b, sizeof(b)), 20);
	assert_memory_equal(b, bid, 20);
	assert_string_equal(hpm_symcache__context(r), "debug-dir /usr/lib/debug");
	struct hpm_symcache_source s, want = source();
	hpm_symcache__source(r, &s);
	assert_true(hpm_file_id__same(&s.file, &want.file));
	assert_true(s.has_symbols);
	assert_string_equal(s.debug_file, want.debug_file);
	assert_true(hpm_file_id__same(&s.debug, &want.debug));
	assert_int_equal(s.nr_places, 2);
	assert_string_equal(s.places[1], "/lib/libc.so.6.debug");
	assert_true(s.place_id[0].present);
	assert_false(s.place_id[1].present);

	struct hpm_symcache_entry e;
	assert_int_equal(hpm_symcache__lookup(r, 0x200, L | I | D, &e, NULL), 0);
	assert_string_equal(e.name, "ns::f(int)");
	assert_string_equal(e.inl, "std::vector<int>::push_back(int const&)");
	assert_string_equal(e.file, "/src/a.cc");
	assert_int_equal(e.line, 42);
	assert_int_equal(e.addr, 0x1200);
	assert_int_equal(e.start, 0x200);
	assert_int_equal(e.size, 0x100);
	assert_int_equal(hpm_symcache__lookup(r, 0x300, L, &e, NULL), 0);
	assert_null(e.name);
	assert_string_equal(e.file, "/src/b.c");
	assert_int_equal(e.line, 7);
	hpm_symcache__free(r);
	hpm_symcache__free(c);
}

static void test_flags(void **state)
{
	(void)state;
	struct hpm_symcache *c = fresh();
	add(c, 0x200, L | I | D, "f(int)", "g()", "/src/a.cc", 42);
	add(c, 0x400, D, "h(int)", NULL, NULL, 0);
	struct hpm_symcache *r = saved_again(c, NULL);
	struct hpm_symcache_entry e;
	unsigned have;

	/* fewer DWARF parts than computed: answered, without the others */
	assert_int_equal(hpm_symcache__lookup(r, 0x200, D, &e, NULL), 0);
	assert_string_equal(e.name, "f(int)");
	assert_null(e.inl);
	assert_null(e.file);
	assert_int_equal(e.line, 0);
	assert_int_equal(e.flags, D);
	assert_int_equal(hpm_symcache__lookup(r, 0x200, L | D, &e, NULL), 0);
	assert_null(e.inl);
	assert_string_equal(e.file, "/src/a.cc");
	assert_int_equal(hpm_symcache__lookup(r, 0x200, I | D, &e, NULL), 0);
	assert_string_equal(e.inl, "g()");
	assert_null(e.file);
	/* another demangling: not answered, and nothing of that key */
	assert_int_equal(hpm_symcache__lookup(r, 0x200, L | I, &e, &have), -ENOENT);
	assert_int_equal(have, 0);
	/* more parts than computed: not answered, and the entry's flags said */
	assert_int_equal(hpm_symcache__lookup(r, 0x400, L | D, &e, &have), -ENOENT);
	assert_int_equal(have, D);
	assert_int_equal(hpm_symcache__lookup(r, 0x400, I | D, &e, NULL), -ENOENT);
	assert_int_equal(hpm_symcache__lookup(r, 0x400, D, &e, NULL), 0);
	assert_int_equal(hpm_symcache__lookup(r, 0x401, D, &e, &have), -ENOENT);
	assert_int_equal(have, 0);
	hpm_symcache__free(r);
	hpm_symcache__free(c);
}

static void test_merge(void **state)
{
	(void)state;
	struct hpm_symcache *c = fresh();
	add(c, 0x100, D, "old_a", NULL, NULL, 0);
	add(c, 0x200, D, "old_b", NULL, NULL, 0);
	struct hpm_symcache *old = saved_again(c, NULL);
	hpm_symcache__free(c);
	/* this run: 0x200 again with lines, and a new 0x300 */
	c = fresh();
	add(c, 0x300, D, "new_c", NULL, NULL, 0);
	add(c, 0x200, L | D, "new_b", NULL, "/b.c", 3);
	struct hpm_symcache *r = saved_again(c, old);
	struct hpm_symcache_entry e;
	assert_int_equal(hpm_symcache__count(r), 3);
	assert_int_equal(hpm_symcache__lookup(r, 0x100, D, &e, NULL), 0);
	assert_string_equal(e.name, "old_a");
	assert_int_equal(hpm_symcache__lookup(r, 0x200, L | D, &e, NULL), 0);
	assert_string_equal(e.name, "new_b");
	assert_int_equal(hpm_symcache__lookup(r, 0x300, D, &e, NULL), 0);
	assert_string_equal(e.name, "new_c");
	hpm_symcache__free(r);
	hpm_symcache__free(old);
	hpm_symcache__free(c);
}

static void test_add_refused(void **state)
{
	(void)state;
	struct hpm_symcache *c = fresh();
	struct hpm_symcache_entry e = { 0x10, D, 0x10, "f", 0, 0, NULL, NULL, 0 };
	e.name = "bad\x1b[31m";
	assert_int_equal(hpm_symcache__add(c, &e), -EINVAL);
	e.name = "f";
	e.inl = "g"; /* an inline without HPM_SYM_INLINE */
	assert_int_equal(hpm_symcache__add(c, &e), -EINVAL);
	e.inl = NULL;
	e.file = "/a.c"; /* a file without HPM_SYM_LINES */
	assert_int_equal(hpm_symcache__add(c, &e), -EINVAL);
	e.file = NULL;
	e.flags = 0x80;
	assert_int_equal(hpm_symcache__add(c, &e), -EINVAL);
	char *longname = malloc(HPM_SYMCACHE_MAX_STRING + 1);
	assert_non_null(longname);
	memset(longname, 'a', HPM_SYMCACHE_MAX_STRING);
	longname[HPM_SYMCACHE_MAX_STRING] = '\0';
	e.flags = D;
	e.name = longname;
	assert_int_equal(hpm_symcache__add(c, &e), -EINVAL);
	free(longname);
	assert_int_equal(hpm_symcache__count(c), 0);
	/* a control byte in a place: no cache at all */
	struct hpm_symcache_source s = source();
	s.places[1] = "/a\nb";
	errno = 0;
	assert_null(hpm_symcache__new(bid, sizeof(bid), "ctx", &s));
	assert_int_equal(errno, EINVAL);
	assert_null(hpm_symcache__new(bid, 0, "ctx", &s));
	hpm_symcache__free(c);
}

/* The saved file's bytes. */
static unsigned char *file_bytes(size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	unsigned char *buf = malloc(1 << 20);
	assert_non_null(buf);
	*len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	return buf;
}

static void put_bytes(const unsigned char *buf, size_t len)
{
	unlink(path);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

static void expect_refused(const unsigned char *buf, size_t len, const char *what)
{
	put_bytes(buf, len);
	errno = 0;
	struct hpm_symcache *r = hpm_symcache__load(path);
	if (r || errno != EBADMSG)
		fail_msg("%s: %s (errno %d)", what, r ? "read" : "refused, but not EBADMSG", errno);
}

static void set64(unsigned char *b, size_t at, uint64_t v) { memcpy(b + at, &v, 8); }
static void set32(unsigned char *b, size_t at, uint32_t v) { memcpy(b + at, &v, 4); }

/* Offsets of the layout (lib/symbols/symcache.c): header 152, places 48,
 * entries 56 (off, addr, start, size, then name, inl, file, line, flags,
 * pad as 4 bytes each). */
#define HDR 152
#define PLACE 48
#define ENT 56

static void test_corruptions(void **state)
{
	(void)state;
	struct hpm_symcache *c = fresh();
	add(c, 0x100, L | I | D, "f(int)", "g()", "/src/a.cc", 42);
	add(c, 0x200, L | I | D, "h()", NULL, "/src/a.cc", 43);
	unlink(path);
	assert_int_equal(hpm_symcache__save(c, NULL, path), 0);
	hpm_symcache__free(c);
	size_t len;
	unsigned char *good = file_bytes(&len), *b = malloc(len + 64);
	assert_non_null(b);
	size_t ents = HDR + 2 * PLACE, text = ents + 2 * ENT;
	assert_int_equal(len > text, 1);

	/* the good file is read */
	put_bytes(good, len);
	struct hpm_symcache *r = hpm_symcache__load(path);
	assert_non_null(r);
	hpm_symcache__free(r);

#define CASE(what, stmt)                          \
	do {                                      \
		memcpy(b, good, len);             \
		size_t n = len;                   \
		stmt;                             \
		expect_refused(b, n, what);       \
	} while (0)
	CASE("magic", b[0] = 'X');
	CASE("cut short", n = len - 1);
	CASE("a byte more", b[len] = 0; n = len + 1);
	CASE("header only", n = HDR);
	CASE("less than a header", n = 100);
	CASE("entry count", set64(b, 8, 3));
	CASE("entry count past the bound", set64(b, 8, (uint64_t)HPM_SYMCACHE_MAX_ENTRIES + 1));
	CASE("huge entry count", set64(b, 8, UINT64_MAX / 8));
	CASE("text length", set64(b, 16, (uint64_t)(len - text) + 8));
	CASE("places count", set64(b, 24, 3));
	CASE("places past the bound", set64(b, 24, 5));
	CASE("context offset outside", set32(b, 32, (uint32_t)(len - text) + 10));
	CASE("context offset inside a string", set32(b, 32, 2));
	CASE("build-id length 0", set32(b, 44, 0));
	CASE("build-id length 21", set32(b, 44, 21));
	CASE("unknown header flag", set32(b, 40, 0x80));
	CASE("identity present not 0/1", set64(b, 72, 7));
	CASE("absent identity with values", set64(b, 112, 0); set64(b, 120, 5));
	CASE("place path outside", set32(b, HDR + PLACE, 1u << 30));
	CASE("place with an empty path", set32(b, HDR + PLACE, 0));
	CASE("entry name outside", set32(b, ents + 32, 1u << 30));
	CASE("entry name inside a string", set32(b, ents + 32, 3));
	CASE("entry name an empty string but the first", b[text + 1] = 0; set32(b, ents + 32, 1));
	CASE("inline without its flag", set32(b, ents + 48, L | D));
	CASE("file without its flag", set32(b, ents + ENT + 48, I | D));
	CASE("unknown entry flag", set32(b, ents + 48, L | I | D | 0x100));
	CASE("pad", set32(b, ents + 52, 1));
	CASE("line without a file", set32(b, ents + 40, 0));
	CASE("keys not ascending", set64(b, ents + ENT, 0x100));
	CASE("keys descending", set64(b, ents + ENT, 0x50));
	CASE("text not ending in NUL", b[len - 1] = 'x');
	CASE("text not starting with the empty string", b[text] = 'x');
	CASE("control byte in a name", b[text + 1] = 0x1b);
	CASE("byte past ASCII in a name", b[text + 1] = 0xc3);
#undef CASE

	free(b);
	free(good);
}

static void test_trust(void **state)
{
	(void)state;
	struct hpm_symcache *c = fresh();
	add(c, 0x100, D, "f", NULL, NULL, 0);
	mode_t old = umask(0);
	unlink(path);
	assert_int_equal(hpm_symcache__save(c, NULL, path), 0);
	umask(old);
	struct stat sb;
	assert_int_equal(lstat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0600);
	static const mode_t refused[] = { 0620, 0602, 0660 };
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		assert_int_equal(chmod(path, refused[i]), 0);
		errno = 0;
		assert_null(hpm_symcache__load(path));
		assert_int_equal(errno, EPERM);
	}
	assert_int_equal(chmod(path, 0600), 0);
	if (geteuid() == 0) {
		assert_int_equal(chown(path, 65534, (gid_t)-1), 0);
		errno = 0;
		assert_null(hpm_symcache__load(path));
		assert_int_equal(errno, EPERM);
		assert_int_equal(chown(path, 0, (gid_t)-1), 0);
	}
	/* a link at the name: not read; replaced by a save, its target kept */
	char victim[4200], real[4200];
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(real, sizeof(real), "%s.real", path);
	assert_int_equal(rename(path, real), 0);
	assert_int_equal(symlink(real, path), 0);
	errno = 0;
	assert_null(hpm_symcache__load(path));
	assert_int_equal(errno, ELOOP);
	unlink(path);
	FILE *f = fopen(victim, "w");
	assert_non_null(f);
	fputs("precious", f);
	fclose(f);
	assert_int_equal(symlink(victim, path), 0);
	assert_int_equal(hpm_symcache__save(c, NULL, path), 0);
	assert_int_equal(lstat(path, &sb), 0);
	assert_true(S_ISREG(sb.st_mode));
	char buf[16] = { 0 };
	f = fopen(victim, "r");
	assert_non_null(f);
	assert_int_equal(fread(buf, 1, sizeof(buf) - 1, f), 8);
	fclose(f);
	assert_string_equal(buf, "precious");
	/* a FIFO: refused at once */
	unlink(path);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_null(hpm_symcache__load(path));
	unlink(path);
	hpm_symcache__free(c);
}

static void test_bounds(void **state)
{
	(void)state;
	/* more entries than the bound: the first kept, the rest refused */
	struct hpm_symcache *c = fresh();
	for (uint64_t i = 0; i < HPM_SYMCACHE_MAX_ENTRIES; i++) {
		struct hpm_symcache_entry e = { i, 0, i, "f", 0, 0, NULL, NULL, 0 };
		assert_int_equal(hpm_symcache__add(c, &e), 0);
	}
	struct hpm_symcache_entry e = { 1u << 30, 0, 0, "g", 0, 0, NULL, NULL, 0 };
	assert_int_equal(hpm_symcache__add(c, &e), -E2BIG);
	/* saved with an old cache of other keys: still at the bound */
	struct hpm_symcache *o = fresh();
	add(o, (uint64_t)1 << 40, 0, "old", NULL, NULL, 0);
	struct hpm_symcache *old = saved_again(o, NULL);
	struct hpm_symcache *r = saved_again(c, old);
	assert_int_equal(hpm_symcache__count(r), HPM_SYMCACHE_MAX_ENTRIES);
	struct stat sb;
	assert_int_equal(stat(path, &sb), 0);
	assert_true((uint64_t)sb.st_size <= HPM_SYMCACHE_MAX_FILE);
	hpm_symcache__free(r);
	hpm_symcache__free(old);
	hpm_symcache__free(o);
	hpm_symcache__free(c);
}

/* A saved cache near HPM_SYMCACHE_MAX_FILE (long names) still takes a
 * report's new entries: the saved ones are left out as far as needed,
 * not the whole save (which would leave the cache as it was for good). */
static void test_full(void **state)
{
	(void)state;
	static char name[4001];
	memset(name, 'x', sizeof(name) - 1);
	struct hpm_symcache *o = fresh();
	for (unsigned i = 0; i < 7000; i++) {
		snprintf(name, 7, "o%05u", i);
		name[6] = 'x';
		add(o, (uint64_t)i << 8, 0, name, NULL, NULL, 0);
	}
	struct hpm_symcache *old = saved_again(o, NULL);
	struct hpm_symcache *c = fresh();
	for (unsigned i = 0; i < 2000; i++) {
		snprintf(name, 7, "n%05u", i);
		name[6] = 'x';
		add(c, ((uint64_t)i << 8) + 1, 0, name, NULL, NULL, 0);
	}
	struct hpm_symcache *r = saved_again(c, old);
	struct stat sb;
	assert_int_equal(stat(path, &sb), 0);
	assert_true((uint64_t)sb.st_size <= HPM_SYMCACHE_MAX_FILE);
	/* every new one, and saved ones up to the bound */
	struct hpm_symcache_entry e;
	for (unsigned i = 0; i < 2000; i++) {
		assert_int_equal(hpm_symcache__lookup(r, ((uint64_t)i << 8) + 1, 0, &e, NULL), 0);
		assert_int_equal(e.name[0], 'n');
		assert_int_equal(strtol(e.name + 1, NULL, 10), i);
	}
	size_t n = hpm_symcache__count(r);
	assert_true(n > 2000 + 5000 && n < 2000 + 7000);
	assert_true((uint64_t)sb.st_size + 4096 + 56 > HPM_SYMCACHE_MAX_FILE);
	hpm_symcache__free(r);
	hpm_symcache__free(c);
	hpm_symcache__free(old);
	hpm_symcache__free(o);
}

/* What a cache holds counts its strings: a few entries of long names
 * hold far more than their number says (a report bounds the caches it
 * keeps by this). */
static void test_bytes(void **state)
{
	(void)state;
	char name[HPM_SYMCACHE_MAX_STRING];
	struct hpm_symcache *c = fresh();
	size_t empty = hpm_symcache__bytes(c);
	for (uint64_t i = 0; i < 64; i++) {
		memset(name, 'a' + (int)(i % 26), sizeof(name) - 1);
		name[sizeof(name) - 1] = '\0';
		name[0] = (char)('A' + (int)(i / 26));
		add(c, i, 0, name, NULL, NULL, 0);
	}
	assert_true(hpm_symcache__bytes(c) >= empty + 64 * (sizeof(name) - 1));
	struct hpm_symcache *r = saved_again(c, NULL);
	struct stat sb;
	assert_int_equal(stat(path, &sb), 0);
	assert_true(sb.st_size > 64 * 4000);
	assert_true(hpm_symcache__bytes(r) >= (size_t)sb.st_size);
	/* and not far more: the file, the object, the entries added */
	assert_true(hpm_symcache__bytes(r) < (size_t)sb.st_size + 4096);
	hpm_symcache__free(r);
	hpm_symcache__free(c);
}

/* What a dso's answers come from: the file as opened, no debug file, and
 * the places libdwfl looks for one, in its order. */
static void test_origin(void **state)
{
	(void)state;
	char prog[4096], want[4300];
	snprintf(prog, sizeof(prog), "%s/inlined", HPM_TEST_WORKLOADS);
	struct hpm_dso_opts o = { .sz = sizeof(o), .debug_dir = "/nonexistent-debug" };
	struct hpm_dso *d = hpm_dso__open(prog, &o);
	if (!d)
		fail_msg("open %s: %s", prog, strerror(errno));
	struct hpm_dso_origin or;
	struct hpm_file_id now;
	hpm_dso__origin(d, &or);
	assert_int_equal(hpm_file_id__of(prog, &now), 0);
	assert_true(now.present);
	assert_true(hpm_file_id__same(&or.file, &now));
	assert_null(or.debug_file);
	uint8_t id[20];
	size_t n = hpm_dso__build_id(d, id, sizeof(id));
	assert_int_equal(n, 20);
	assert_int_equal(or.nr_places, 4);
	int k = snprintf(want, sizeof(want), "/nonexistent-debug/.build-id/%02x/", id[0]);
	for (size_t i = 1; i < n; i++)
		k += snprintf(want + k, sizeof(want) - (size_t)k, "%02x", id[i]);
	snprintf(want + k, sizeof(want) - (size_t)k, ".debug");
	assert_string_equal(or.places[0], want);
	/* no .gnu_debuglink: the file's name + ".debug", beside it, in .debug/,
	 * under the debug directory */
	snprintf(want, sizeof(want), "%s/inlined.debug", HPM_TEST_WORKLOADS);
	assert_string_equal(or.places[1], want);
	snprintf(want, sizeof(want), "%s/.debug/inlined.debug", HPM_TEST_WORKLOADS);
	assert_string_equal(or.places[2], want);
	snprintf(want, sizeof(want), "/nonexistent-debug%s/inlined.debug", HPM_TEST_WORKLOADS);
	assert_string_equal(or.places[3], want);
	/* a missing file: nothing there */
	assert_int_equal(hpm_file_id__of("/nonexistent-debug/x", &now), 0);
	assert_false(now.present);
	hpm_dso__free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_add_refused),
		cmocka_unit_test(test_corruptions),
		cmocka_unit_test(test_trust),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_origin),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
