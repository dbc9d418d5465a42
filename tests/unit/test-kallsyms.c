// SPDX-License-Identifier: MIT
/*
 * Kernel symbols: a kallsyms file read whole (text symbols only, any
 * order, modules included); the core kernel's symbols saved and mapped
 * again answer every covered address as the whole file does, and say
 * which addresses they do not cover; a saved table of another key, cut
 * anywhere or damaged is refused; kptr_restrict's zeros are ENODATA.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <hpmon/symbols.h>

static char dir[] = "/tmp/hpmon-test-kallsyms.XXXXXX";
static char src[4096], saved[4096];

/* Core text out of order, data and absolute symbols to skip, a weak one,
 * module and BPF symbols above the kernel, and a module's symbol below it. */
static const char kallsyms_text[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000200 t early_helper\n"
	"ffffffff81000100 T startup\n"
	"ffffffff81001000 W weak_one\n"
	"ffffffff81001800 D some_data\n"
	"ffffffff81002000 T do_work\n"
	"ffffffff81003000 t last_core\n"
	"0000000000000000 A fixed_percpu_data\n"
	"ffffffffa0000000 t mod_fn\t[some_mod]\n"
	"ffffffffa0000100 T mod_export\t[some_mod]\n"
	"ffffffffa0010000 t bpf_prog_abc_f\t[bpf]\n"
	"ffffffff80000000 t low_mod_fn\t[low_mod]\n"
	"this line is no symbol\n"
	"ffffffff81004000 t no_newline_at_end";

static void write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char *buf = malloc(1 << 20);
	assert_non_null(buf);
	*len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	return buf;
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(src, sizeof(src), "%s/kallsyms", dir);
	snprintf(saved, sizeof(saved), "%s/saved", dir);
	write_file(src, kallsyms_text, strlen(kallsyms_text));
	return 0;
}

static int teardown(void **state)
{
	char cmd[4200];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* name at @addr in @k, and its start, as "NAME@START" or "-" */
static const char *at(const struct hpm_kallsyms *k, uint64_t addr)
{
	static char buf[256];
	uint64_t start = 0;
	const char *n = hpm_kallsyms__lookup(k, addr, &start);
	if (!n)
		return "-";
	snprintf(buf, sizeof(buf), "%s@%llx", n, (unsigned long long)start);
	return buf;
}

static const struct {
	int line;
	uint64_t addr;
	const char *full;   /* the whole file's answer */
	int covered;        /* by the saved core table */
} rows[] = {
	{ __LINE__, 0xffffffff7fffffffull, "-", 0 },
	{ __LINE__, 0xffffffff80000010ull, "low_mod_fn@ffffffff80000000", 0 },
	{ __LINE__, 0xffffffff81000000ull, "_stext@ffffffff81000000", 1 },
	{ __LINE__, 0xffffffff810000ffull, "_stext@ffffffff81000000", 1 },
	{ __LINE__, 0xffffffff81000150ull, "startup@ffffffff81000100", 1 },
	{ __LINE__, 0xffffffff81000fffull, "early_helper@ffffffff81000200", 1 },
	{ __LINE__, 0xffffffff81001900ull, "weak_one@ffffffff81001000", 1 }, /* data skipped */
	{ __LINE__, 0xffffffff81002abcull, "do_work@ffffffff81002000", 1 },
	{ __LINE__, 0xffffffff81003fffull, "last_core@ffffffff81003000", 1 },
	{ __LINE__, 0xffffffff81004000ull, "no_newline_at_end@ffffffff81004000", 0 },
	{ __LINE__, 0xffffffffa0000050ull, "mod_fn@ffffffffa0000000", 0 },
	{ __LINE__, 0xffffffffa0000100ull, "mod_export@ffffffffa0000100", 0 },
	{ __LINE__, 0xffffffffa0010010ull, "bpf_prog_abc_f@ffffffffa0010000", 0 },
};

static void test_full_and_saved(void **state)
{
	(void)state;
	struct hpm_kallsyms *k = hpm_kallsyms__load(src);
	assert_non_null(k);
	unlink(saved);
	assert_int_equal(hpm_kallsyms__save(k, saved, "boot 1"), 0);
	struct hpm_kallsyms *s = hpm_kallsyms__load_saved(saved, "boot 1");
	assert_non_null(s);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char what[64];
		snprintf(what, sizeof(what), "line %d", rows[i].line);
		if (strcmp(at(k, rows[i].addr), rows[i].full))
			fail_msg("%s: whole file: %s, expected %s", what, at(k, rows[i].addr),
				 rows[i].full);
		if (!hpm_kallsyms__covers(k, rows[i].addr))
			fail_msg("%s: the whole file covers everything", what);
		if (hpm_kallsyms__covers(s, rows[i].addr) != (rows[i].covered != 0))
			fail_msg("%s: saved table covers: %d", what, !rows[i].covered);
		if (rows[i].covered && strcmp(at(s, rows[i].addr), rows[i].full))
			fail_msg("%s: saved table: %s, expected %s", what, at(s, rows[i].addr),
				 rows[i].full);
	}
	/* a saved table is not saved again */
	assert_int_equal(hpm_kallsyms__save(s, saved, "boot 1"), -EINVAL);
	hpm_kallsyms__free(s);
	/* another key: another boot */
	errno = 0;
	assert_null(hpm_kallsyms__load_saved(saved, "boot 2"));
	assert_int_equal(errno, EBADMSG);
	assert_null(hpm_kallsyms__load_saved(src, "boot 1"));
	hpm_kallsyms__free(k);
}

static void test_damaged(void **state)
{
	(void)state;
	struct hpm_kallsyms *k = hpm_kallsyms__load(src);
	assert_non_null(k);
	assert_int_equal(hpm_kallsyms__save(k, saved, "key"), 0);
	hpm_kallsyms__free(k);
	size_t len;
	unsigned char *good = read_file(saved, &len);
	char cut[4200];
	snprintf(cut, sizeof(cut), "%s/cut", dir);
	/* cut anywhere: refused */
	for (size_t n = 0; n < len; n++) {
		write_file(cut, good, n);
		struct hpm_kallsyms *c = hpm_kallsyms__load_saved(cut, "key");
		if (c)
			fail_msg("a table cut at %zu of %zu bytes was accepted", n, len);
	}
	/* any byte changed: refused, or still answers within its names */
	for (size_t i = 0; i < len; i++) {
		unsigned char *bad = malloc(len);
		assert_non_null(bad);
		memcpy(bad, good, len);
		bad[i] ^= 0xff;
		write_file(cut, bad, len);
		struct hpm_kallsyms *c = hpm_kallsyms__load_saved(cut, "key");
		for (size_t r = 0; c && r < sizeof(rows) / sizeof(rows[0]); r++)
			(void)hpm_kallsyms__lookup(c, rows[r].addr, NULL);
		hpm_kallsyms__free(c);
		free(bad);
	}
	free(good);
}

/* A name with a byte that is not printable ASCII is no kernel's: left
 * out of the table, which then saves and reads back. */
static void test_unprintable(void **state)
{
	(void)state;
	static const char odd[] = "ffffffff81000000 T _stext\n"
				  "ffffffff81000100 t bad\x01name\n"
				  "ffffffff81000200 T do_work\n";
	char path[4200], out[4200];
	uint64_t start;
	snprintf(path, sizeof(path), "%s/odd", dir);
	snprintf(out, sizeof(out), "%s/odd.saved", dir);
	write_file(path, odd, strlen(odd));
	struct hpm_kallsyms *k = hpm_kallsyms__load(path);
	assert_non_null(k);
	assert_string_equal(hpm_kallsyms__lookup(k, 0xffffffff81000150, &start), "_stext");
	assert_int_equal(hpm_kallsyms__save(k, out, "key"), 0);
	hpm_kallsyms__free(k);
	assert_non_null(k = hpm_kallsyms__load_saved(out, "key"));
	assert_string_equal(hpm_kallsyms__lookup(k, 0xffffffff81000150, &start), "_stext");
	hpm_kallsyms__free(k);
	unlink(out);
	unlink(path);
}

static void test_restricted(void **state)
{
	(void)state;
	static const char hidden[] = "0000000000000000 T _stext\n"
				     "0000000000000000 t do_work\n";
	char path[4200];
	snprintf(path, sizeof(path), "%s/hidden", dir);
	write_file(path, hidden, strlen(hidden));
	errno = 0;
	assert_null(hpm_kallsyms__load(path));
	assert_int_equal(errno, ENODATA);
	errno = 0;
	snprintf(path, sizeof(path), "%s/none", dir);
	assert_null(hpm_kallsyms__load(path));
	assert_int_equal(errno, ENOENT);
	assert_null(hpm_kallsyms__load_saved(path, "key"));
	assert_int_equal(errno, ENOENT);
}

/* The running kernel's list, when it can be read: saved and mapped again,
 * every core symbol answers as the whole list does. */
static void test_this_kernel(void **state)
{
	(void)state;
	struct hpm_kallsyms *k = hpm_kallsyms__load("/proc/kallsyms");
	if (!k) {
		printf("# /proc/kallsyms unreadable or restricted: skipped\n");
		return;
	}
	if (hpm_kallsyms__save(k, saved, "this boot")) {
		printf("# no core kernel range to save here: skipped\n");
		hpm_kallsyms__free(k);
		return;
	}
	struct hpm_kallsyms *s = hpm_kallsyms__load_saved(saved, "this boot");
	assert_non_null(s);
	size_t checked = 0;
	for (uint64_t a = 0xffffffff80000000ull; a && a < 0xffffffffc0000000ull; a += 0x1013) {
		if (!hpm_kallsyms__covers(s, a))
			continue;
		uint64_t s1 = 0, s2 = 0;
		const char *n1 = hpm_kallsyms__lookup(k, a, &s1), *n2 = hpm_kallsyms__lookup(s, a, &s2);
		assert_non_null(n1);
		assert_non_null(n2);
		assert_string_equal(n1, n2);
		assert_true(s1 == s2);
		checked++;
	}
	printf("# %zu addresses of this kernel's text compared\n", checked);
	hpm_kallsyms__free(s);
	hpm_kallsyms__free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_and_saved),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_unprintable),
		cmocka_unit_test(test_restricted),
		cmocka_unit_test(test_this_kernel),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
