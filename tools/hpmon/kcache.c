/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hpmon/symbols.h>
#include "kcache.h"

/*
 * Can no one but @uid (and root) change what @path leads to? Every
 * directory from / down to it (links resolved) is owned by @uid or root
 * and writable by no one else, unless sticky (/tmp: others cannot rename
 * what is not theirs there).
 */
static bool path_trusted(const char *path, uid_t uid)
{
	char real[PATH_MAX];
	struct stat sb;

	/* a part not made yet is made by hpmon, 0700: its existing ancestor
	 * is what must be trusted */
	char want[PATH_MAX];
	if ((size_t)snprintf(want, sizeof(want), "%s", path) >= sizeof(want))
		return false;
	while (!realpath(want, real)) {
		char *slash = strrchr(want, '/');
		if (errno != ENOENT || !slash || slash == want)
			return false;
		*slash = '\0';
	}
	if (stat("/", &sb) || sb.st_uid != 0 || (sb.st_mode & (S_IWGRP | S_IWOTH)))
		return false;
	/* each prefix that ends before a '/' or at the end: "/a", "/a/b" ... */
	size_t len = strlen(real);
	for (size_t i = 2; i <= len; i++) {
		if (real[i] != '/' && real[i] != '\0')
			continue;
		char c = real[i];
		real[i] = '\0';
		bool ok = stat(real, &sb) == 0 && S_ISDIR(sb.st_mode) &&
			  (sb.st_uid == uid || sb.st_uid == 0) &&
			  (!(sb.st_mode & (S_IWGRP | S_IWOTH)) || (sb.st_mode & S_ISVTX));
		real[i] = c;
		if (!ok)
			return false;
	}
	return true;
}

/* The user's own directory: a real directory (no link), owned by @uid,
 * writable by no one else. */
static bool dir_private(const char *dir, uid_t uid)
{
	struct stat sb;
	return lstat(dir, &sb) == 0 && S_ISDIR(sb.st_mode) && sb.st_uid == uid &&
	       !(sb.st_mode & (S_IWGRP | S_IWOTH)) && path_trusted(dir, uid);
}

/* Root's home from the password database: under sudo -E or su without
 * "-", $HOME and $XDG_CACHE_HOME are still the calling user's. */
static bool root_home(char *buf, size_t len)
{
	struct passwd pw, *res = NULL;
	char tmp[4096];
	if (getpwuid_r(0, &pw, tmp, sizeof(tmp), &res) || !res || pw.pw_dir[0] != '/')
		return false;
	return (size_t)snprintf(buf, len, "%s", pw.pw_dir) < len;
}

const char *kcache_dir(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char root[PATH_MAX];
	uid_t uid = geteuid();
	int n;

	if (uid == 0) {
		/* root keeps its own cache. A $XDG_CACHE_HOME is taken only
		 * when it is root's (owned by root and writable by no one
		 * else all the way down): a user's never is */
		if (!(xdg && xdg[0] == '/' && path_trusted(xdg, 0)))
			xdg = NULL;
		home = root_home(root, sizeof(root)) ? root : NULL;
	}
	if (xdg && xdg[0] == '/')
		n = snprintf(buf, len, "%s/hpmon", xdg);
	else if (home && home[0] == '/' && path_trusted(home, uid))
		n = snprintf(buf, len, "%s/.cache/hpmon", home);
	else
		return NULL;
	return n > 0 && (size_t)n < len ? buf : NULL;
}

/* The first line of procfs file @name into @buf, without its newline. */
static int read_line(const char *procfs, const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", procfs ? procfs : "/proc", name);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	bool ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	buf[ok ? strcspn(buf, "\n") : 0] = '\0';
	return ok && buf[0] ? 0 : -1;
}

/* Where the core kernel's symbols of this boot are kept (*path), and what
 * says they are this boot's (*key): the boot id and the kernel release. */
static bool saved_path(const char *procfs, const char *dir, char *path, size_t plen,
		       char *key, size_t klen)
{
	char boot[64], rel[128];
	if (!dir || read_line(procfs, "sys/kernel/random/boot_id", boot, sizeof(boot)) ||
	    read_line(procfs, "sys/kernel/osrelease", rel, sizeof(rel)))
		return false;
	snprintf(key, klen, "boot %s kernel %s", boot, rel);
	return (size_t)snprintf(path, plen, "%s/kallsyms", dir) < plen;
}

/* mkdir -p @dir, private to the user; true when @dir is then the user's
 * own (dir_private): a cache anywhere else is neither read nor written. */
static bool make_dirs(const char *dir)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s", dir);
	for (char *c = p + 1; *c; c++)
		if (*c == '/') {
			*c = '\0';
			mkdir(p, 0700);
			*c = '/';
		}
	mkdir(p, 0700);
	return dir_private(dir, geteuid());
}

struct hpm_kallsyms *kcache_read(const char *procfs)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/kallsyms", procfs ? procfs : "/proc");
	return hpm_kallsyms__load(path);
}

struct hpm_kallsyms *kcache_load(const char *procfs, const char *dir, bool *full)
{
	char saved[PATH_MAX], key[256];
	bool cache = dir && make_dirs(dir) &&
		     saved_path(procfs, dir, saved, sizeof(saved), key, sizeof(key));
	struct hpm_kallsyms *k;

	*full = false;
	/* the saved table is checked as untrusted input (owner, mode, every
	 * size, printable names): anything wrong and kallsyms is read anew */
	if (cache && (k = hpm_kallsyms__load_saved(saved, key)))
		return k;
	k = kcache_read(procfs);
	*full = true;
	if (cache && k)
		hpm_kallsyms__save(k, saved, key); /* a cache: failing is fine */
	return k;
}

void kcache_ensure(const char *procfs, const char *dir)
{
	bool full;
	hpm_kallsyms__free(kcache_load(procfs, dir, &full));
}
