/* SPDX-License-Identifier: MIT */
/* Where hpmon keeps its caches, and whether a directory may hold them
 * (cachedir.h). */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache/cachedir.h"

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

const char *cache_dir(char *buf, size_t len)
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

/* mkdir -p @dir, private to the user; true when @dir is then the user's
 * own (dir_private): a cache anywhere else is neither read nor written. */
bool cache_dir_ready(const char *dir)
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
