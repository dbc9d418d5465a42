/* SPDX-License-Identifier: MIT */
/*
 * A saved kernel-symbol table is the user's alone and untrusted input:
 * written 0600 whatever the umask, under a name aside created with O_EXCL,
 * a symlink at its name replaced and never followed; read only when it is
 * a regular file of the effective user's that group and others cannot
 * write, and only with names of printable ASCII.
 */
#include <dirent.h>
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

#include <hpmon/symbols.h>

static char dir[] = "/tmp/hpmon-test-ktrust.XXXXXX";
static char src[4096], saved[4096], victim[4096];

static const char kallsyms_text[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 T startup\n"
	"ffffffff81002000 T do_work\n"
	"ffffffff81003000 t last_core\n"
	"ffffffff81004000 t zz\n"; /* the names' last bytes, past 32: checked one by one */

static void write_file(const char *path, const void *buf, size_t len, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	assert_int_equal(fchmod(fd, mode), 0);
	assert_int_equal(close(fd), 0);
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char *buf = malloc(1 << 16);
	assert_non_null(buf);
	*len = fread(buf, 1, 1 << 16, f);
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
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	write_file(src, kallsyms_text, strlen(kallsyms_text), 0644);
	return 0;
}

static int teardown(void **state)
{
	char cmd[4200];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Save a fresh table at @saved, under umask @mask. */
static void save_fresh(mode_t mask)
{
	struct hpm_kallsyms *k = hpm_kallsyms__load(src);
	assert_non_null(k);
	mode_t old = umask(mask);
	int rc = hpm_kallsyms__save(k, saved, "key");
	umask(old);
	assert_int_equal(rc, 0);
	hpm_kallsyms__free(k);
}

/* The name load_saved gives for do_work's address, or NULL and errno. */
static const char *saved_name(char *buf, size_t len)
{
	struct hpm_kallsyms *s = hpm_kallsyms__load_saved(saved, "key");
	if (!s)
		return NULL;
	snprintf(buf, len, "%s", hpm_kallsyms__lookup(s, 0xffffffff81002010ull, NULL));
	hpm_kallsyms__free(s);
	return buf;
}

static void test_mode_whatever_the_umask(void **state)
{
	static const mode_t masks[] = { 0, 022, 077, 0277 };
	struct stat sb;
	(void)state;
	for (size_t i = 0; i < sizeof(masks) / sizeof(masks[0]); i++) {
		unlink(saved);
		save_fresh(masks[i]);
		assert_int_equal(lstat(saved, &sb), 0);
		if ((sb.st_mode & 07777) != 0600)
			fail_msg("umask %03o: mode %03o", masks[i], sb.st_mode & 07777);
	}
	/* nothing left beside it */
	DIR *d = opendir(dir);
	assert_non_null(d);
	for (struct dirent *e; (e = readdir(d));)
		if (e->d_name[0] != '.' && strcmp(e->d_name, "kallsyms") && strcmp(e->d_name, "saved"))
			fail_msg("left in the directory: %s", e->d_name);
	closedir(d);
}

static void test_symlink_not_followed(void **state)
{
	char buf[64];
	struct stat sb;
	(void)state;
	write_file(victim, "precious", 8, 0644);
	unlink(saved);
	save_fresh(022);
	/* a link to a good table is not read */
	char real[4200];
	snprintf(real, sizeof(real), "%s.real", saved);
	assert_int_equal(rename(saved, real), 0);
	assert_int_equal(symlink(real, saved), 0);
	errno = 0;
	assert_null(saved_name(buf, sizeof(buf)));
	assert_int_equal(errno, ELOOP);
	/* a link at the name is replaced, its target untouched */
	unlink(saved);
	assert_int_equal(symlink(victim, saved), 0);
	save_fresh(022);
	assert_int_equal(lstat(saved, &sb), 0);
	assert_true(S_ISREG(sb.st_mode));
	size_t len;
	char *v = read_file(victim, &len);
	assert_int_equal(len, 8);
	assert_memory_equal(v, "precious", 8);
	free(v);
	assert_int_equal(stat(victim, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0644);
	assert_string_equal(saved_name(buf, sizeof(buf)), "do_work");
}

static void test_owner_and_mode(void **state)
{
	char buf[64];
	(void)state;
	unlink(saved);
	save_fresh(022);
	assert_string_equal(saved_name(buf, sizeof(buf)), "do_work");
	static const mode_t refused[] = { 0620, 0602, 0666, 0660 };
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		assert_int_equal(chmod(saved, refused[i]), 0);
		errno = 0;
		if (saved_name(buf, sizeof(buf)) || errno != EPERM)
			fail_msg("mode %03o: read (errno %d)", refused[i], errno);
	}
	/* readable by others is no risk to the reader: read */
	assert_int_equal(chmod(saved, 0644), 0);
	assert_string_equal(saved_name(buf, sizeof(buf)), "do_work");
	if (geteuid() == 0) {
		/* another user's table (nobody's uid) */
		assert_int_equal(chown(saved, 65534, (gid_t)-1), 0);
		errno = 0;
		assert_null(saved_name(buf, sizeof(buf)));
		assert_int_equal(errno, EPERM);
		assert_int_equal(chown(saved, 0, (gid_t)-1), 0);
	}
	/* a FIFO at the name: refused at once, not waited on */
	unlink(saved);
	assert_int_equal(mkfifo(saved, 0600), 0);
	assert_null(saved_name(buf, sizeof(buf)));
	unlink(saved);
}

/* Patch byte @k of the name @name in the saved table. */
static void patch_name_at(const char *name, size_t k, unsigned char c)
{
	size_t len, n = strlen(name);
	char pat[64];
	char *t = read_file(saved, &len);
	pat[0] = '\0';
	memcpy(pat + 1, name, n + 1);
	char *at = memmem(t, len, pat, n + 2);
	assert_non_null(at);
	at[1 + k] = (char)c;
	write_file(saved, t, len, 0600);
	free(t);
}

/* Patch the first byte of do_work's name in the saved table. */
static void patch_name(unsigned char c)
{
	patch_name_at("do_work", 0, c);
}

static void test_names_printable(void **state)
{
	char buf[64];
	(void)state;
	/* the patch is right: a letter is read */
	unlink(saved);
	save_fresh(022);
	patch_name('Z');
	assert_string_equal(saved_name(buf, sizeof(buf)), "Zo_work");
	static const unsigned char refused[] = { 0x1b, '\n', '\r', ' ', 0x7f, 0x80, 0x9b, 0xff };
	for (size_t i = 0; i < sizeof(refused); i++) {
		unlink(saved);
		save_fresh(022);
		patch_name(refused[i]);
		errno = 0;
		if (saved_name(buf, sizeof(buf)) || errno != EBADMSG)
			fail_msg("a name with byte 0x%02x was read (errno %d)", refused[i], errno);
	}
}

/* Names are checked 16 bytes a step, then the rest one by one: a bad byte
 * is found wherever it is (the names: "_stext", "startup" at 7, "do_work"
 * at 15, "last_core" at 23, "zz" at 33 of 36 bytes). */
static void test_names_printable_everywhere(void **state)
{
	static const struct { const char *name; size_t k; } at[] = {
		{ "startup", 0 }, { "do_work", 1 }, { "last_core", 8 }, { "zz", 1 },
	};
	char buf[64];
	(void)state;
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		unlink(saved);
		save_fresh(022);
		patch_name_at(at[i].name, at[i].k, 'Q');
		/* a printable byte is read (the patch is right) */
		assert_string_equal(saved_name(buf, sizeof(buf)), i == 1 ? "dQ_work" : "do_work");
		unlink(saved);
		save_fresh(022);
		patch_name_at(at[i].name, at[i].k, 0x7f);
		errno = 0;
		if (saved_name(buf, sizeof(buf)) || errno != EBADMSG)
			fail_msg("byte %zu of %s, 0x7f, was read (errno %d)", at[i].k, at[i].name, errno);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mode_whatever_the_umask),
		cmocka_unit_test(test_symlink_not_followed),
		cmocka_unit_test(test_owner_and_mode),
		cmocka_unit_test(test_names_printable),
		cmocka_unit_test(test_names_printable_everywhere),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
