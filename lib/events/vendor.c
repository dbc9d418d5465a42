/* SPDX-License-Identifier: MIT */
/*
 * The vendors' tables: this machine's model as perf 6.1 finds it
 * (tools/perf/arch/x86/util/header.c, arch/arm64/util/header.c,
 * util/header.c: strcmp_cpuid_str), and the model's files, decompressed
 * at their first need and indexed at the first lookup.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>
#include <zstd.h>

#include <hpmon/event.h>
#include "core/ctx-internal.h"
#include "core/file-internal.h"
#include "events/vendor-internal.h"

#define CPUID_MAX 128
#define NR_FILES 2

static const char *const file_names[NR_FILES] = { "events.txt", "metrics.txt" };

struct vendor_file {
	bool tried;
	char *text; /* NULL when absent or not decompressed */
	int err;
};

struct vendor_state {
	struct hpm_vendor_model model; /* first: the texts find the state */
	pthread_mutex_t lock;          /* files and events */
	int err;                       /* hpm__vendor_model's answer */
	bool have_cpuid;
	char cpuid[CPUID_MAX];
	char dir[96], arch[16], name[64], version[32];
	struct vendor_file files[NR_FILES];
	bool indexed;
	int index_err;
	char *events_buf;              /* events.txt, split into fields */
	struct hpm_vendor_event *events;
	size_t nr_events;
};

static void state_free(void *p)
{
	struct vendor_state *s = p;

	if (!s)
		return;
	for (size_t i = 0; i < NR_FILES; i++)
		free(s->files[i].text);
	free(s->events_buf);
	free(s->events);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

static const struct hpm_vendor_blob *find_blob(const char *path)
{
	for (const struct hpm_vendor_blob *b = hpm_vendor_blobs; b->path; b++)
		if (!strcmp(b->path, path))
			return b;
	return NULL;
}

/* The blob's text, NUL-terminated, malloc'd. 0, -ENOENT, -ENOMEM or -EIO. */
static int decompress(const char *path, char **out)
{
	const struct hpm_vendor_blob *b = find_blob(path);
	size_t zlen;
	unsigned long long n;
	char *text;

	*out = NULL;
	if (!b)
		return -ENOENT;
	zlen = (size_t)(b->z_end - b->z);
	n = ZSTD_getFrameContentSize(b->z, zlen);
	if (n == ZSTD_CONTENTSIZE_UNKNOWN || n == ZSTD_CONTENTSIZE_ERROR ||
	    n >= (unsigned long long)SIZE_MAX / 2)
		return -EIO;
	text = malloc((size_t)n + 1);
	if (!text)
		return -ENOMEM;
	size_t got = ZSTD_decompress(text, (size_t)n, b->z, zlen);
	if (ZSTD_isError(got) || got != n) {
		free(text);
		return -EIO;
	}
	text[n] = '\0';
	*out = text;
	return 0;
}

/* ---- the cpuid string ---- */

/* The value of "key\t: value" line @key in the first block of cpuinfo. */
static bool cpuinfo_value(const char *text, const char *key, char *buf, size_t len)
{
	size_t klen = strlen(key);

	for (const char *p = text; *p && *p != '\n'; ) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);
		if (!strncmp(p, key, klen) && (p[klen] == '\t' || p[klen] == ' ' ||
					       p[klen] == ':')) {
			const char *c = memchr(p, ':', n);
			if (c) {
				c++;
				while (*c == ' ' || *c == '\t')
					c++;
				size_t vlen = (size_t)(p + n - c);
				if (vlen >= len)
					return false;
				memcpy(buf, c, vlen);
				buf[vlen] = '\0';
				return true;
			}
		}
		if (!eol)
			break;
		p = eol + 1;
	}
	return false;
}

static bool parse_uint(const char *s, int base, unsigned long *out)
{
	char *end;

	if (!isxdigit((unsigned char)*s))
		return false;
	errno = 0;
	*out = strtoul(s, &end, base);
	while (*end == ' ' || *end == '\t')
		end++;
	return !errno && !*end;
}

 /* The first @len - 1 bytes of file @path, NUL-terminated: their length
 * or -errno. */
static ssize_t read_head(const char *path, char *buf, size_t len)
{
	FILE *f = hpm__fopen_input(path, 0); /* a regular file, never a FIFO */
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	return (ssize_t)n;
}

/* x86: "%s-%u-%X-%X" from the first processor of cpuinfo. */
static bool cpuid_x86(const struct hpm_ctx *ctx, char *buf, size_t len)
{
	char path[PATH_MAX], vendor[64], fam[32], mod[32], step[32];
	unsigned long f, m, st;
	char *text = malloc(16384);
	bool ok = false;

	if (!text)
		return false;
	/* the first processor's lines are what counts: its first 16 KiB */
	if (hpm__path(path, sizeof(path), ctx->procfs, "cpuinfo") ||
	    read_head(path, text, 16384) <= 0)
		goto out;
	if (!cpuinfo_value(text, "vendor_id", vendor, sizeof(vendor)) ||
	    !cpuinfo_value(text, "cpu family", fam, sizeof(fam)) ||
	    !cpuinfo_value(text, "model", mod, sizeof(mod)) ||
	    !cpuinfo_value(text, "stepping", step, sizeof(step)) ||
	    !parse_uint(fam, 10, &f) || !parse_uint(mod, 10, &m) ||
	    !parse_uint(step, 10, &st))
		goto out;
	int n = snprintf(buf, len, "%s-%lu-%lX-%lX", vendor, f, m, st);
	ok = n > 0 && (size_t)n < len;
out:
	free(text);
	return ok;
}

/* arm64: CPU 0's MIDR, variant and revision cleared, "0x%016lx". */
static bool cpuid_arm64(const struct hpm_ctx *ctx, char *buf, size_t len)
{
	char path[PATH_MAX], text[64];
	unsigned long long midr;
	char *end;

	if (hpm__path(path, sizeof(path), ctx->sysfs,
		      "devices/system/cpu/cpu0/regs/identification/midr_el1") ||
	    hpm__read_text(path, text, sizeof(text)) <= 0)
		return false;
	errno = 0;
	midr = strtoull(text, &end, 16);
	if (errno || end == text || !midr)
		return false;
	midr &= ~((0xfull << 20) | 0xfull);
	int n = snprintf(buf, len, "0x%016llx", midr);
	return n > 0 && (size_t)n < len;
}

/* ---- matching, as perf's strcmp_cpuid_str ---- */

static unsigned dashes(const char *s)
{
	unsigned n = 0;

	for (; *s; s++)
		n += *s == '-';
	return n;
}

/* Whether @id can match regex @map at all: it starts with the regex's
 * literal prefix (up to its first special character), unless the regex
 * has a top-level alternative. Spares compiling most of the ~60. */
static bool may_match(const char *map, const char *id)
{
	int depth = 0;

	for (const char *c = map; *c; c++) {
		depth += *c == '(';
		depth -= *c == ')';
		if (*c == '|' && depth == 0)
			return true;
	}
	for (; *map && !strchr(".[]()*+?{}|^$\\", *map); map++, id++)
		if (*map != *id)
			return false;
	return true;
}

/* Whether regex @map matches @id as a whole; x86's rule: a map entry
 * without a stepping ignores the id's stepping, one with a stepping
 * needs an id with one. */
static bool cpuid_match(const char *arch, const char *map, const char *id)
{
	bool x86 = !strcmp(arch, "x86");
	bool full_map = dashes(map) == 3, full_id = dashes(id) == 3;
	regex_t re;
	regmatch_t pm[1];
	size_t want = strlen(id);
	bool ok;

	if ((x86 && full_map && !full_id) || !may_match(map, id))
		return false;
	if (regcomp(&re, map, REG_EXTENDED))
		return false;
	ok = !regexec(&re, id, 1, pm, 0);
	regfree(&re);
	if (!ok)
		return false;
	if (x86 && !full_map && full_id)
		want = (size_t)(strrchr(id, '-') - id);
	return (size_t)(pm[0].rm_eo - pm[0].rm_so) == want;
}

static int copy_field(char *dst, size_t len, const char *src, size_t n)
{
	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(dst, src, n);
	dst[n] = '\0';
	return 0;
}

/* Find s->cpuid in models.txt: 0 or -ENOENT. */
static int match_model(struct vendor_state *s)
{
	char *text, *line, *save = NULL;
	int err = decompress("models.txt", &text);

	if (err)
		return err;
	err = -ENOENT;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[4];
		size_t nf = 0;
		char *p = line;

		if (*line == '#')
			continue;
		while (nf < 4) {
			f[nf++] = p;
			p = strchr(p, '\t');
			if (!p)
				break;
			*p++ = '\0';
		}
		if (nf != 4 || !cpuid_match(f[0], f[1], s->cpuid))
			continue;
		if (copy_field(s->arch, sizeof(s->arch), f[0], strlen(f[0])) ||
		    copy_field(s->name, sizeof(s->name), f[2], strlen(f[2])) ||
		    copy_field(s->version, sizeof(s->version), f[3], strlen(f[3])) ||
		    snprintf(s->dir, sizeof(s->dir), "%s/%s", f[0], f[2]) >= (int)sizeof(s->dir))
			break;
		err = 0;
		break;
	}
	free(text);
	return err;
}

/* The context's state, created and the model looked for once. */
static struct vendor_state *state_of(struct hpm_ctx *ctx)
{
	struct vendor_state *s;

	pthread_mutex_lock(&ctx->vendor_lock);
	s = ctx->vendor;
	if (s)
		goto out;
	s = calloc(1, sizeof(*s));
	if (!s)
		goto out;
	pthread_mutex_init(&s->lock, NULL);
	if (ctx->cpuid)
		s->have_cpuid = !copy_field(s->cpuid, sizeof(s->cpuid), ctx->cpuid,
					    strlen(ctx->cpuid));
	else
		/* a real machine has one or the other; a recorded arm64 tree
		 * read with the host's /proc is the tree's machine */
		s->have_cpuid = cpuid_arm64(ctx, s->cpuid, sizeof(s->cpuid)) ||
				cpuid_x86(ctx, s->cpuid, sizeof(s->cpuid));
	s->err = s->have_cpuid ? match_model(s) : -ENOENT;
	if (!s->err) {
		s->model.cpuid = s->cpuid;
		s->model.dir = s->dir;
		s->model.arch = s->arch;
		s->model.name = s->name;
		s->model.version = s->version;
	}
	ctx->vendor = s;
	ctx->vendor_free = state_free;
out:
	pthread_mutex_unlock(&ctx->vendor_lock);
	return s;
}

int hpm__vendor_model(struct hpm_ctx *ctx, const struct hpm_vendor_model **m)
{
	struct vendor_state *s = state_of(ctx);

	*m = NULL;
	if (!s)
		return -ENOMEM;
	if (s->err)
		return s->err;
	*m = &s->model;
	return 0;
}

const char *hpm__vendor_cpuid(struct hpm_ctx *ctx)
{
	struct vendor_state *s = state_of(ctx);

	return s && s->have_cpuid ? s->cpuid : NULL;
}

/* Under s->lock. */
static const char *text_locked(struct vendor_state *s, size_t i)
{
	struct vendor_file *f = &s->files[i];

	if (!f->tried) {
		char path[160];
		f->tried = true;
		if (snprintf(path, sizeof(path), "%s/%s", s->dir, file_names[i]) >=
		    (int)sizeof(path))
			f->err = -ENAMETOOLONG;
		else
			f->err = decompress(path, &f->text);
	}
	if (!f->text)
		errno = -f->err;
	return f->text;
}

const char *hpm__vendor_text(const struct hpm_vendor_model *m, const char *file)
{
	struct vendor_state *s = (struct vendor_state *)m;
	const char *t = NULL;
	size_t i;

	if (!m) {
		errno = ENOENT;
		return NULL;
	}
	for (i = 0; i < NR_FILES; i++)
		if (!strcmp(file, file_names[i]))
			break;
	if (i == NR_FILES) {
		errno = ENOENT;
		return NULL;
	}
	pthread_mutex_lock(&s->lock);
	t = text_locked(s, i);
	pthread_mutex_unlock(&s->lock);
	return t;
}

/* ---- the events' index ---- */

static int event_cmp(const void *a, const void *b)
{
	const struct hpm_vendor_event *x = a, *y = b;
	int c = strcasecmp(x->name, y->name);

	return c ? c : strcmp(x->pmu, y->pmu);
}

/* Split one line of events.txt in place: 0, or -1 when malformed. */
static int parse_event(char *line, struct hpm_vendor_event *e)
{
	char *f[5];
	size_t nf = 0;
	char *p = line;

	while (nf < 5) {
		f[nf++] = p;
		if (nf == 5)
			break;
		p = strchr(p, '\t');
		if (!p)
			return -1;
		*p++ = '\0';
	}
	memset(e, 0, sizeof(*e));
	e->name = f[0];
	e->pmu = f[1];
	e->terms = f[2];
	e->desc = f[4];
	if (strcmp(f[3], "-")) {
		char *save = NULL;
		for (char *t = strtok_r(f[3], ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			if (!strncmp(t, "unit=", 5))
				e->scale_unit = t + 5;
			else if (!strcmp(t, "perpkg"))
				e->perpkg = true;
			else if (!strcmp(t, "deprecated"))
				e->deprecated = true;
		}
	}
	return *e->name && *e->pmu && *e->terms ? 0 : -1;
}

/* Under s->lock. */
static int index_locked(struct vendor_state *s)
{
	const char *text;
	size_t n = 0, cap = 0;
	char *line, *save = NULL;

	if (s->indexed)
		return s->index_err;
	s->indexed = true;
	text = text_locked(s, 0);
	if (!text)
		return s->index_err = s->files[0].err == -ENOENT ? -ENOENT : s->files[0].err;
	s->events_buf = strdup(text);
	if (!s->events_buf)
		return s->index_err = -ENOMEM;
	for (const char *p = text; *p; p++)
		cap += *p == '\n';
	s->events = calloc(cap + 1, sizeof(*s->events));
	if (!s->events)
		return s->index_err = -ENOMEM;
	for (line = strtok_r(s->events_buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (*line == '#' || n > cap)
			continue;
		if (!parse_event(line, &s->events[n]))
			n++;
	}
	/* the converter writes them sorted: check, sort only if not */
	for (size_t i = 1; i < n; i++)
		if (event_cmp(&s->events[i - 1], &s->events[i]) > 0) {
			qsort(s->events, n, sizeof(*s->events), event_cmp);
			break;
		}
	s->nr_events = n;
	return 0;
}

static int events_of(struct hpm_ctx *ctx, struct vendor_state **out)
{
	struct vendor_state *s = state_of(ctx);
	int err;

	if (!s)
		return -ENOMEM;
	if (s->err)
		return s->err;
	pthread_mutex_lock(&s->lock);
	err = index_locked(s);
	pthread_mutex_unlock(&s->lock);
	*out = s;
	return err;
}

int hpm__vendor_events(struct hpm_ctx *ctx, const struct hpm_vendor_event **ev,
		       size_t *nr)
{
	struct vendor_state *s;
	int err = events_of(ctx, &s);

	*ev = NULL;
	*nr = 0;
	if (err)
		return err;
	*ev = s->events;
	*nr = s->nr_events;
	return 0;
}

int hpm__vendor_event(struct hpm_ctx *ctx, const char *name,
		      const struct hpm_vendor_event **ev, size_t *nr)
{
	struct vendor_state *s;
	int err = events_of(ctx, &s);
	size_t lo = 0, hi, end;

	*ev = NULL;
	*nr = 0;
	if (err)
		return err;
	hi = s->nr_events;
	while (lo < hi) { /* the first entry not below @name */
		size_t mid = lo + (hi - lo) / 2;
		if (strcasecmp(s->events[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < s->nr_events && !strcasecmp(s->events[end].name, name); end++)
		;
	if (end == lo)
		return -ENOENT;
	*ev = &s->events[lo];
	*nr = end - lo;
	return 0;
}

double hpm__vendor_scale_unit(const char *scale_unit, char *unit, size_t len)
{
	const char *p = scale_unit ? scale_unit : "";
	char *end;
	double scale = strtod(p, &end);

	if (end == p)
		scale = 1.0;
	if (len) {
		size_t n = strlen(end);
		if (n >= len)
			n = len - 1;
		memcpy(unit, end, n);
		unit[n] = '\0';
	}
	return scale;
}

bool hpm__vendor_pmu_match(const char *entry_pmu, const char *pmu, bool core)
{
	size_t n = strlen(entry_pmu);

	if (!strcmp(entry_pmu, "cpu"))
		return core;
	return !strncmp(pmu, entry_pmu, n) && (!pmu[n] || pmu[n] == '_');
}

const struct hpm_vendor_event *hpm__vendor_event_on(struct hpm_ctx *ctx, const char *name,
						    const char *pmu, bool core)
{
	const struct hpm_vendor_event *ev;
	size_t nr;

	if (hpm__vendor_event(ctx, name, &ev, &nr))
		return NULL;
	for (size_t i = 0; i < nr; i++)
		if (hpm__vendor_pmu_match(ev[i].pmu, pmu, core))
			return &ev[i];
	return NULL;
}

int hpm_vendor__model(struct hpm_ctx *ctx, struct hpm_vendor_info *out)
{
	const struct hpm_vendor_model *m;
	int err = hpm__vendor_model(ctx, &m);

	memset(out, 0, sizeof(*out));
	out->cpuid = hpm__vendor_cpuid(ctx);
	if (err)
		return err;
	out->model = m->dir;
	out->version = m->version;
	return 0;
}
