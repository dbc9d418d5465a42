/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hpmon/symbols.h>
#include "cache/cachedir.h"
#include "cache/kcache.h"

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

struct hpm_kallsyms *kcache_read(const char *procfs)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/kallsyms", procfs ? procfs : "/proc");
	return hpm_kallsyms__load(path);
}

struct hpm_kallsyms *kcache_load(const char *procfs, const char *dir, bool *full)
{
	char saved[PATH_MAX], key[256];
	bool cache = dir && cache_dir_ready(dir) &&
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
