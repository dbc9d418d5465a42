/* SPDX-License-Identifier: MIT */
/* PMUs from sysfs: type, format fields and event aliases. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "events/pmu-internal.h"

int hpm_pmu__devices_dir(const struct hpm_ctx *ctx, char *buf, size_t len)
{
	return hpm__path(buf, len, ctx->sysfs, "bus/event_source/devices");
}

int hpm_format__parse(const char *text, struct hpm_format *f)
{
	const char *p = text;
	if (!strncmp(p, "config", 6)) {
		p += 6;
		f->word = 0;
		if (*p >= '1' && *p <= '3')
			f->word = (unsigned)(*p++ - '0');
#ifndef PERF_ATTR_SIZE_VER8
		/* no attr.config3 to put the field in */
		if (f->word == 3 && *p == ':')
			return -EOPNOTSUPP;
#endif
	} else {
		return -HPM_ERR_SYSFS;
	}
	if (*p++ != ':')
		return -HPM_ERR_SYSFS;
	f->nr = 0;
	while (*p) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi;
		if (end == p || lo > 63)
			return -HPM_ERR_SYSFS;
		p = end;
		hi = lo;
		if (*p == '-') {
			p++;
			hi = strtoul(p, &end, 10);
			if (end == p || hi > 63 || hi < lo)
				return -HPM_ERR_SYSFS;
			p = end;
		}
		if (f->nr == HPM_FORMAT_MAX_RANGES)
			return -HPM_ERR_SYSFS;
		f->lo[f->nr] = (uint8_t)lo;
		f->hi[f->nr] = (uint8_t)hi;
		f->nr++;
		if (*p == ',')
			p++;
		else if (*p && !isspace((unsigned char)*p))
			return -HPM_ERR_SYSFS;
		else
			break;
	}
	return f->nr ? 0 : -HPM_ERR_SYSFS;
}

static int load_formats(const char *dir, struct hpm_pmu *pmu)
{
	char path[PATH_MAX], text[256];
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return 0; /* software, tracepoint ... have no format/ */
	while ((de = readdir(d))) {
		struct hpm_format spare, *f = pmu->nr_formats < HPM_PMU_MAX_FORMATS
					      ? &pmu->formats[pmu->nr_formats] : &spare;
		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(f->name))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path))
			continue;
		if (hpm__read_text(path, text, sizeof(text)) < 0)
			continue;
		int rc = hpm_format__parse(text, f);
		int why = rc == -EOPNOTSUPP ? HPM_FORMAT_NO_CONFIG3
			: rc < 0 ? HPM_FORMAT_BAD_TEXT
			: f == &spare ? HPM_FORMAT_TOO_MANY : -1;
		if (why >= 0 && pmu->nr_unsupported < HPM_PMU_MAX_UNSUPPORTED) {
			/* kept to name it when a term asks for it */
			snprintf(pmu->unsupported[pmu->nr_unsupported].name,
				 sizeof(pmu->unsupported[0].name), "%s", de->d_name);
			snprintf(pmu->unsupported[pmu->nr_unsupported].text,
				 sizeof(pmu->unsupported[0].text), "%.*s",
				 (int)strcspn(text, "\n"), text);
			pmu->unsupported[pmu->nr_unsupported].why = why;
			pmu->nr_unsupported++;
		}
		if (why >= 0)
			continue; /* not fatal: only a term that names it fails */
		snprintf(f->name, sizeof(f->name), "%s", de->d_name);
		pmu->nr_formats++;
	}
	closedir(d);
	return 0;
}

/* ---- the context's PMU list: each file read once, at the first need ---- */

static int read_type(const struct hpm_ctx *ctx, const char *name, uint32_t *out)
{
	char path[PATH_MAX];
	long type;
	int err = hpm__path(path, sizeof(path), ctx->sysfs,
			    "bus/event_source/devices/%s/type", name);
	if (err)
		return err;
	err = hpm__read_long(path, &type);
	if (err == -ENOENT || err == -ENOTDIR)
		return -HPM_ERR_UNKNOWN_PMU;
	if (err)
		return -HPM_ERR_SYSFS;
	if (type < 0 || type > UINT32_MAX)
		return -HPM_ERR_SYSFS;
	*out = (uint32_t)type;
	return 0;
}

/* Under pmu_lock. */
static int ent_type(const struct hpm_ctx *ctx, struct hpm_pmu_ent *e)
{
	if (!e->type_read) {
		e->type_err = read_type(ctx, e->name, &e->type);
		e->type_read = true;
	}
	return e->type_err;
}

/* PMU @e's "cpus" file, read once (under pmu_lock): core detection asks
 * whether it is there, and hpm_pmu__cpus and hpm_sysinfo what it says. */
static void ent_cpus_file(const struct hpm_ctx *ctx, struct hpm_pmu_ent *e)
{
	char path[PATH_MAX], buf[HPM_PMU_CPUS_MAX];

	if (e->cpus_file_read)
		return;
	e->cpus_file_rc = hpm__path(path, sizeof(path), ctx->sysfs,
				    "bus/event_source/devices/%s/cpus", e->name);
	if (!e->cpus_file_rc)
		e->cpus_file_rc = hpm__read_text(path, buf, sizeof(buf));
	e->cpus_file = strdup(e->cpus_file_rc > 0 ? buf : "");
	if (!e->cpus_file)
		return; /* asked again next time */
	e->cpus_file_read = true;
}

static bool exists_rc(int rc)
{
	return rc >= 0 || (rc != -ENOENT && rc != -ENOTDIR && rc != -ENAMETOOLONG);
}

/* perf's rule: the x86 names, a "cpus" file (Arm core PMUs; uncore ones
 * have "cpumask"), or the type the kernel gives hardware events. Under
 * pmu_lock when @e is given. */
static bool core_by_files(const struct hpm_ctx *ctx, const char *name, struct hpm_pmu_ent *e)
{
	char path[PATH_MAX];
	uint32_t type;

	if (!strcmp(name, "cpu") || !strcmp(name, "cpu_core") || !strcmp(name, "cpu_atom"))
		return true;
	if (e) {
		ent_cpus_file(ctx, e);
		if (e->cpus_file_read && exists_rc(e->cpus_file_rc))
			return true;
		return ent_type(ctx, e) == 0 && e->type == PERF_TYPE_RAW;
	}
	if (hpm__path(path, sizeof(path), ctx->sysfs,
		      "bus/event_source/devices/%s/cpus", name) == 0 && access(path, F_OK) == 0)
		return true;
	return read_type(ctx, name, &type) == 0 && type == PERF_TYPE_RAW;
}

static int cmp_ent(const void *a, const void *b)
{
	const struct hpm_pmu_ent *x = a, *y = b;
	if (x->core != y->core)
		return x->core ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The PMU names, core PMUs first, then the rest, each alphabetically.
 * Under pmu_lock. */
static int read_pmus(struct hpm_ctx *ctx)
{
	char dir[PATH_MAX];
	char **names = NULL;
	struct hpm_pmu_ent *v;
	size_t n = 0;
	int rc = hpm_pmu__devices_dir(ctx, dir, sizeof(dir));

	if (!rc)
		rc = hpm__list_dir(dir, false, &names, &n);
	if (rc)
		return rc == -ENOENT ? 0 : rc;
	if (!(v = calloc(n ? n : 1, sizeof(*v)))) {
		hpm__free_names(names, n);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		v[i].name = names[i]; /* the strings move to v */
		v[i].core = core_by_files(ctx, names[i], &v[i]);
	}
	free(names);
	qsort(v, n, sizeof(*v), cmp_ent);
	ctx->pmus = v;
	ctx->nr_pmus = n;
	return 0;
}

/* The list, read at the first call: 0 or -errno. */
static int pmu_list(const struct hpm_ctx *ctx)
{
	struct hpm_ctx *c = (struct hpm_ctx *)ctx; /* its cache only */

	pthread_mutex_lock(&c->pmu_lock);
	if (!c->pmus_read) {
		c->pmus_err = read_pmus(c);
		c->pmus_read = true;
	}
	pthread_mutex_unlock(&c->pmu_lock);
	return c->pmus_err;
}

/* PMU @name in the list; NULL when the list has no such PMU (or none
 * could be read: callers then read sysfs themselves). */
static struct hpm_pmu_ent *pmu_ent(const struct hpm_ctx *ctx, const char *name)
{
	if (pmu_list(ctx))
		return NULL;
	for (size_t i = 0; i < ctx->nr_pmus; i++)
		if (!strcmp(ctx->pmus[i].name, name))
			return &ctx->pmus[i];
	return NULL;
}

bool hpm_pmu__is_core(const struct hpm_ctx *ctx, const char *name)
{
	struct hpm_pmu_ent *e;

	if (!strcmp(name, "cpu") || !strcmp(name, "cpu_core") || !strcmp(name, "cpu_atom"))
		return true;
	e = pmu_ent(ctx, name);
	return e ? e->core : core_by_files(ctx, name, NULL);
}

int hpm_pmu__type(const struct hpm_ctx *ctx, const char *name, uint32_t *type)
{
	struct hpm_pmu_ent *e = pmu_ent(ctx, name);
	int err;

	if (!e)
		return read_type(ctx, name, type);
	pthread_mutex_lock(&((struct hpm_ctx *)ctx)->pmu_lock);
	err = ent_type(ctx, e);
	if (!err)
		*type = e->type;
	pthread_mutex_unlock(&((struct hpm_ctx *)ctx)->pmu_lock);
	return err;
}

static int load_uncached(const struct hpm_ctx *ctx, const char *name, bool core,
			 uint32_t type, struct hpm_pmu *pmu)
{
	char path[PATH_MAX];
	int err;

	memset(pmu, 0, sizeof(*pmu));
	snprintf(pmu->name, sizeof(pmu->name), "%s", name);
	pmu->type = type;
	pmu->core = core;
	err = hpm__path(path, sizeof(path), ctx->sysfs,
			"bus/event_source/devices/%s/format", name);
	return err ? err : load_formats(path, pmu);
}

static int load_exact(const struct hpm_ctx *ctx, const char *name,
		      struct hpm_pmu *pmu)
{
	struct hpm_pmu_ent *e;
	uint32_t type;
	int err;

	if (strlen(name) >= sizeof(pmu->name) || strchr(name, '/') || name[0] == '.')
		return -HPM_ERR_UNKNOWN_PMU;
	if (!(e = pmu_ent(ctx, name))) {
		err = read_type(ctx, name, &type);
		return err ? err : load_uncached(ctx, name, hpm_pmu__is_core(ctx, name), type, pmu);
	}
	pthread_mutex_lock(&((struct hpm_ctx *)ctx)->pmu_lock);
	if (!e->loaded) {
		e->loaded = true;
		e->load_err = ent_type(ctx, e);
		if (!e->load_err && !(e->pmu = malloc(sizeof(*e->pmu))))
			e->load_err = -ENOMEM;
		if (!e->load_err)
			e->load_err = load_uncached(ctx, name, e->core, e->type, e->pmu);
		if (e->load_err) {
			free(e->pmu);
			e->pmu = NULL;
			e->loaded = e->load_err != -ENOMEM;
		}
	}
	err = e->load_err;
	if (!err)
		memcpy(pmu, e->pmu, sizeof(*pmu));
	pthread_mutex_unlock(&((struct hpm_ctx *)ctx)->pmu_lock);
	return err;
}

struct prefix_find {
	const char *prefix;
	char found[HPM_PMU_NAME_MAX];
};

static int prefix_cb(const char *name, void *arg)
{
	struct prefix_find *pf = arg;
	size_t n = strlen(pf->prefix);
	if (strncmp(name, pf->prefix, n) || name[n] != '_')
		return 0;
	for (const char *p = name + n + 1; *p; p++)
		if (!isdigit((unsigned char)*p))
			return 0;
	if (name[n + 1] == '\0')
		return 0;
	snprintf(pf->found, sizeof(pf->found), "%s", name);
	return 1;
}

int hpm_pmu__load(const struct hpm_ctx *ctx, const char *name,
		  struct hpm_pmu *pmu)
{
	int err = load_exact(ctx, name, pmu);
	if (err != -HPM_ERR_UNKNOWN_PMU)
		return err;
	struct prefix_find pf = { .prefix = name };
	if (hpm_pmu__foreach(ctx, prefix_cb, &pf) == 1)
		return load_exact(ctx, pf.found, pmu);
	return -HPM_ERR_UNKNOWN_PMU;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int hpm__list_dir(const char *dir, bool dirs_only, char ***out, size_t *nr)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL;
	size_t n = 0, cap = 0;

	*out = NULL;
	*nr = 0;
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (dirs_only && de->d_type != DT_DIR) {
			char p[PATH_MAX];
			struct stat st;
			if (de->d_type != DT_UNKNOWN ||
			    snprintf(p, sizeof(p), "%s/%s", dir, de->d_name) >= (int)sizeof(p) ||
			    stat(p, &st) || !S_ISDIR(st.st_mode))
				continue;
		}
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			char **nv = realloc(v, ncap * sizeof(*v));
			if (!nv)
				goto nomem;
			v = nv;
			cap = ncap;
		}
		if (!(v[n] = strdup(de->d_name)))
			goto nomem;
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	*out = v;
	*nr = n;
	return 0;
nomem:
	closedir(d);
	hpm__free_names(v, n);
	return -ENOMEM;
}

void hpm__free_names(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int hpm_pmu__foreach(const struct hpm_ctx *ctx, hpm_pmu_name_fn fn, void *arg)
{
	int rc = pmu_list(ctx);

	if (rc)
		return rc;
	for (size_t i = 0; i < ctx->nr_pmus && rc == 0; i++)
		rc = fn(ctx->pmus[i].name, arg);
	return rc;
}

struct core_find {
	const struct hpm_ctx *ctx;
	char *buf;
	size_t len;
};

static int core_find_cb(const char *name, void *arg)
{
	struct core_find *cf = arg;
	if (!hpm_pmu__is_core(cf->ctx, name))
		return 0;
	snprintf(cf->buf, cf->len, "%s", name);
	return 1;
}

int hpm_pmu__core_name(const struct hpm_ctx *ctx, char *buf, size_t len)
{
	struct core_find cf = { ctx, buf, len };
	int rc = hpm_pmu__foreach(ctx, core_find_cb, &cf);
	return rc == 1 ? 0 : (rc < 0 ? rc : -ENOENT);
}

int hpm_pmu__set_term(const struct hpm_pmu *pmu, const char *term,
		      uint64_t value, struct perf_event_attr *attr)
{
	const struct hpm_format *f = NULL;
	__u64 *words[4] = { &attr->config, &attr->config1, &attr->config2, NULL };
	unsigned width = 0;

	for (unsigned i = 0; i < pmu->nr_formats; i++)
		if (!strcmp(pmu->formats[i].name, term))
			f = &pmu->formats[i];
	if (!f)
		return -HPM_ERR_UNKNOWN_TERM;
#ifdef PERF_ATTR_SIZE_VER8
	words[3] = &attr->config3;
#endif
	for (unsigned r = 0; r < f->nr; r++)
		width += (unsigned)(f->hi[r] - f->lo[r] + 1);
	if (width < 64 && (value >> width))
		return -HPM_ERR_BAD_VALUE;
	__u64 *w = words[f->word];
	if (!w) /* hpm_format__parse refuses config3 when there is none */
		return -HPM_ERR_UNKNOWN_TERM;
	for (unsigned r = 0; r < f->nr; r++) {
		unsigned bits = (unsigned)(f->hi[r] - f->lo[r] + 1);
		uint64_t mask = bits == 64 ? ~0ULL : ((1ULL << bits) - 1);
		*w &= ~(mask << f->lo[r]);
		*w |= (value & mask) << f->lo[r];
		value = bits == 64 ? 0 : value >> bits;
	}
	return 0;
}

int hpm_pmu__alias(const struct hpm_ctx *ctx, const struct hpm_pmu *pmu,
		   const char *alias, struct hpm_alias *out)
{
	char path[PATH_MAX], buf[64];
	int n;

	if (strchr(alias, '/') || alias[0] == '.')
		return -ENOENT;
	memset(out, 0, sizeof(*out));
	out->scale = 1.0;
	if (hpm__path(path, sizeof(path), ctx->sysfs,
		      "bus/event_source/devices/%s/events/%s", pmu->name, alias))
		return -ENOENT;
	n = hpm__read_text(path, out->terms, sizeof(out->terms));
	if (n < 0)
		return n == -ENOTDIR ? -ENOENT : n;
	if (hpm__path(path, sizeof(path), ctx->sysfs,
		      "bus/event_source/devices/%s/events/%s.scale", pmu->name, alias) == 0 &&
	    hpm__read_text(path, buf, sizeof(buf)) > 0) {
		char *end;
		double s = strtod(buf, &end);
		if (end != buf && s > 0)
			out->scale = s;
	}
	if (hpm__path(path, sizeof(path), ctx->sysfs,
		      "bus/event_source/devices/%s/events/%s.unit", pmu->name, alias) == 0)
		if (hpm__read_text(path, out->unit, sizeof(out->unit)) < 0)
			out->unit[0] = '\0';
	return 0;
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n > m && !strcmp(s + n - m, suf);
}

int hpm_pmu__foreach_alias(const struct hpm_ctx *ctx, const char *name,
			   hpm_alias_fn fn, void *arg)
{
	char dir[PATH_MAX], path[PATH_MAX + 256], terms[256];
	char **names;
	size_t n;
	int rc;

	if (hpm__path(dir, sizeof(dir), ctx->sysfs,
		      "bus/event_source/devices/%s/events", name))
		return -ENAMETOOLONG;
	rc = hpm__list_dir(dir, false, &names, &n);
	if (rc)
		return rc == -ENOENT ? 0 : rc;
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (has_suffix(names[i], ".scale") || has_suffix(names[i], ".unit") ||
		    has_suffix(names[i], ".snapshot") || has_suffix(names[i], ".per-pkg"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (hpm__read_text(path, terms, sizeof(terms)) < 0)
			continue;
		rc = fn(name, names[i], terms, arg);
	}
	hpm__free_names(names, n);
	return rc;
}

/* The CPUs PMU @name counts on: its "cpus" (core PMUs) or "cpumask"
 * (uncore) file; "" when it has neither or the list does not fit. */
static void read_cpus(const struct hpm_ctx *ctx, const char *name, char *buf, size_t len)
{
	static const char *const files[] = { "cpus", "cpumask" };
	char path[PATH_MAX];

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (hpm__path(path, sizeof(path), ctx->sysfs, "bus/event_source/devices/%s/%s",
			      name, files[i]))
			return;
		int n = hpm__read_text(path, buf, len);
		if (n > 0)
			return;
		buf[0] = '\0';
		if (n == -EFBIG)
			return;
	}
}

void hpm_pmu__cpus(const struct hpm_ctx *ctx, const char *name, char *buf, size_t len)
{
	struct hpm_pmu_ent *e = pmu_ent(ctx, name);
	char list[HPM_PMU_CPUS_MAX], path[PATH_MAX];

	if (!e) {
		read_cpus(ctx, name, buf, len);
		return;
	}
	pthread_mutex_lock(&((struct hpm_ctx *)ctx)->pmu_lock);
	ent_cpus_file(ctx, e);
	if (!e->cpus_read && e->cpus_file_read) {
		/* "cpus", else "cpumask" (read_cpus' order) */
		list[0] = '\0';
		if (e->cpus_file_rc > 0)
			snprintf(list, sizeof(list), "%s", e->cpus_file);
		else if (e->cpus_file_rc != -EFBIG &&
			 hpm__path(path, sizeof(path), ctx->sysfs,
				   "bus/event_source/devices/%s/cpumask", name) == 0 &&
			 hpm__read_text(path, list, sizeof(list)) <= 0)
			list[0] = '\0';
		e->cpus = strdup(list);
		e->cpus_read = e->cpus != NULL;
	}
	snprintf(buf, len, "%s", e->cpus && strlen(e->cpus) < len ? e->cpus : "");
	pthread_mutex_unlock(&((struct hpm_ctx *)ctx)->pmu_lock);
}

void hpm_pmu__cpus_file(const struct hpm_ctx *ctx, const char *name, char *buf, size_t len)
{
	struct hpm_pmu_ent *e = pmu_ent(ctx, name);
	char path[PATH_MAX];

	buf[0] = '\0';
	if (!e) {
		if (hpm__path(path, sizeof(path), ctx->sysfs, "bus/event_source/devices/%s/cpus",
			      name) == 0 && hpm__read_text(path, buf, len) < 0)
			buf[0] = '\0';
		return;
	}
	pthread_mutex_lock(&((struct hpm_ctx *)ctx)->pmu_lock);
	ent_cpus_file(ctx, e);
	if (e->cpus_file && strlen(e->cpus_file) < len)
		snprintf(buf, len, "%s", e->cpus_file);
	pthread_mutex_unlock(&((struct hpm_ctx *)ctx)->pmu_lock);
}
