/* SPDX-License-Identifier: MIT */
/*
 * The objects' symbol caches of a report (report/report-internal.h;
 * docs/hpmon-report.md, "Symbol cache"): what each (object, file offset)
 * resolved to, kept per object in CACHE/symbols/BUILD-ID
 * (include/hpmon/symcache.h), so that a later report of the same objects
 * opens neither their ELF nor their DWARF.
 *
 * A cache answers only for the object it was made from: the profile's
 * build-id is the file's (the name of the cache, checked when it was
 * saved), the file is the same (device, inode, size, mtime), so is the
 * separate debug file used, and every place a debug file is looked for
 * holds what it held; and only under the same context (hpmon's version,
 * the debug directory and the object's path). Anything else and the
 * object is read as without a cache, and its cache replaced at the end of
 * the report.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hpmon/symcache.h>
#include "cache/cachedir.h"
#include "report/report-internal.h"

/* The memory of the caches read in one report, past which objects are
 * read instead (the same answers): a profile naming many objects with
 * full caches must not hold them all. Outside the report's memory cap,
 * so that a report shows the same warm and cold. */
#define OBJCACHE_BUDGET ((uint64_t)256 << 20)

/* What the answers depend on besides the object's files: bumped when
 * hpmon's way of naming an address changes. */
#define OBJCACHE_CONTEXT "hpmon " HPM_VERSION_STRING " objcache 1 debug-dir "

/* The context of @d's answers into @buf: false when it does not fit (no
 * cache then). The object's path is in it: the places a debug file is
 * looked for follow from the path, so the same file reached by another
 * name (a hard link, a bind mount, /lib for /usr/lib) may have another
 * debug file, or none. */
#define CONTEXT_MAX (2 * PATH_MAX + 96)
static bool context(const struct rep *r, const struct rep_dso *d, char *buf, size_t len)
{
	const char *dir = r->o.debug_dir ? r->o.debug_dir : "/usr/lib/debug";
	/* lengths first: no two pairs give one string */
	int n = snprintf(buf, len, OBJCACHE_CONTEXT "%zu:%s object %zu:%s", strlen(dir), dir,
			 strlen(d->path), d->path);
	return n > 0 && (size_t)n < len;
}

/* CACHE/symbols/BUILD-ID for @d into @buf: false when @d has none (no
 * cache directory, not a file, no build-id, a directory not the user's). */
static bool cache_path(struct rep *r, const struct rep_dso *d, char *buf, size_t len)
{
	char dir[PATH_MAX];
	if (!r->o.cache_dir || d->kind != DK_FILE || !d->build_id_len || r->objcache_dir < 0)
		return false;
	if ((size_t)snprintf(dir, sizeof(dir), "%s/symbols", r->o.cache_dir) >= sizeof(dir))
		return false;
	if (!r->objcache_dir)
		r->objcache_dir = cache_dir_ready(dir) ? 1 : -1;
	if (r->objcache_dir < 0)
		return false;
	int n = snprintf(buf, len, "%s/", dir);
	for (unsigned i = 0; i < d->build_id_len && n > 0 && (size_t)n + 3 < len; i++)
		n += snprintf(buf + n, len - (size_t)n, "%02x", d->build_id[i]);
	return n > 0 && (size_t)n + 3 < len;
}

static bool same_at(const char *path, const struct hpm_file_id *was)
{
	struct hpm_file_id now;
	return !hpm_file_id__of(path, &now) && hpm_file_id__same(&now, was);
}

/* Does @c still answer for @d as reading @d would? */
static bool still_holds(const struct rep *r, const struct rep_dso *d, const struct hpm_symcache *c)
{
	struct hpm_symcache_source s;
	uint8_t id[HPM_BUILD_ID_MAX];
	char ctx[CONTEXT_MAX];

	if (!context(r, d, ctx, sizeof(ctx)) ||
	    hpm_symcache__build_id(c, id, sizeof(id)) != d->build_id_len ||
	    memcmp(id, d->build_id, d->build_id_len) || strcmp(hpm_symcache__context(c), ctx))
		return false;
	hpm_symcache__source(c, &s);
	if (!s.file.present || !same_at(d->path, &s.file))
		return false;
	if (s.debug_file && !same_at(s.debug_file, &s.debug))
		return false;
	for (size_t i = 0; i < s.nr_places; i++)
		if (!same_at(s.places[i], &s.place_id[i]))
			return false;
	return true;
}

bool objcache__lookup(struct rep *r, struct rep_dso *d, uint64_t off, unsigned flags,
		      struct hpm_symcache_entry *e, unsigned *have)
{
	*have = 0;
	if (!d->cache_tried) {
		char path[PATH_MAX];
		d->cache_tried = true;
		if (cache_path(r, d, path, sizeof(path)) && (d->cache = hpm_symcache__load(path))) {
			/* the whole file is held, its strings with it */
			uint64_t bytes = hpm_symcache__bytes(d->cache);
			/* past the budget, kept as it is: not read, not replaced */
			d->cache_over = r->objcache_bytes + bytes > OBJCACHE_BUDGET;
			if (d->cache_over || !still_holds(r, d, d->cache)) {
				hpm_symcache__free(d->cache); /* replaced at the end */
				d->cache = NULL;
			} else {
				r->objcache_bytes += bytes;
			}
		}
	}
	return d->cache && !hpm_symcache__lookup(d->cache, off, flags, e, have);
}

void objcache__opened(struct rep *r, struct rep_dso *d)
{
	uint8_t id[HPM_BUILD_ID_MAX];
	char ctx[CONTEXT_MAX];
	struct hpm_symcache_source none = { 0 };

	/* only the object of the profile's build-id, read from its own path */
	if (!r->o.cache_dir || d->kind != DK_FILE || !d->d || !d->build_id_len || d->cache_over ||
	    hpm_dso__build_id_mismatch(d->d) ||
	    hpm_dso__build_id(d->d, id, sizeof(id)) != d->build_id_len ||
	    memcmp(id, d->build_id, d->build_id_len) || !context(r, d, ctx, sizeof(ctx)))
		return;
	d->fresh = hpm_symcache__new(d->build_id, d->build_id_len, ctx, &none);
}

void objcache__add(struct rep *r, struct rep_dso *d, const struct hpm_symcache_entry *e)
{
	(void)r;
	/* a name hpmon would not keep (a control byte ...): asked again next time */
	if (d->fresh)
		hpm_symcache__add(d->fresh, e);
}

/* Save @d's new answers with the saved ones that still hold. A cache:
 * failing says nothing, and loses nothing but the cache. */
static void save_one(struct rep *r, struct rep_dso *d)
{
	struct hpm_dso_origin o;
	struct hpm_symcache_source s = { 0 };
	char path[PATH_MAX];

	if (!d->fresh || !hpm_symcache__count(d->fresh) || !d->d ||
	    !cache_path(r, d, path, sizeof(path)))
		return;
	hpm_dso__origin(d->d, &o);
	/* the file read is the one at the path still (not the debug file of
	 * an older build-id, not replaced since) */
	if (!o.file.present || !same_at(d->path, &o.file))
		return;
	s.file = o.file;
	s.has_symbols = hpm_dso__has_symbols(d->d);
	s.debug_file = o.debug_file;
	if (o.debug_file && (hpm_file_id__of(o.debug_file, &s.debug) || !s.debug.present))
		return;
	for (size_t i = 0; i < o.nr_places; i++) {
		s.places[i] = o.places[i];
		if (hpm_file_id__of(o.places[i], &s.place_id[i]))
			return;
	}
	s.nr_places = o.nr_places;
	if (!hpm_symcache__set_source(d->fresh, &s))
		hpm_symcache__save(d->fresh, d->cache, path);
}

void objcache__save(struct rep *r)
{
	for (size_t i = 0; i < r->nr_dsos; i++)
		save_one(r, &r->dsos[i]);
}

void objcache__release(struct rep_dso *d)
{
	hpm_symcache__free(d->cache);
	hpm_symcache__free(d->fresh);
	d->cache = d->fresh = NULL;
}

bool objcache__has_symbols(const struct rep_dso *d)
{
	struct hpm_symcache_source s;
	if (d->d)
		return hpm_dso__has_symbols(d->d);
	if (!d->cache)
		return false;
	hpm_symcache__source(d->cache, &s);
	return s.has_symbols;
}
