/* SPDX-License-Identifier: MIT */
/*
 * The table of hpmon merge (merge.h): stat's JSON files in, one row per
 * rank, one column per event or metric.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/json-read.h"
#include "merge/merge.h"

#define MERGE_MAX_COLS 4096

/* The whole file, at most MJ_MAX_TEXT bytes (+1 to see that it is over). */
static char *slurp(const char *path, size_t *len)
{
	/* without blocking: a FIFO at @path must not hang the open; only a
	 * regular file is read */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat sb;
	char *buf = NULL;
	size_t n = 0, cap = 0;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &sb))
		goto fail;
	if (!S_ISREG(sb.st_mode)) {
		errno = EINVAL;
		goto fail;
	}
	for (;;) {
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 65536;
			if (nc > MJ_MAX_TEXT + 1)
				nc = MJ_MAX_TEXT + 1;
			if (nc == cap) {
				errno = E2BIG;
				goto fail;
			}
			char *b = realloc(buf, nc);
			if (!b)
				goto fail;
			buf = b;
			cap = nc;
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto fail;
		if (!r)
			break;
		n += (size_t)r;
	}
	close(fd);
	*len = n;
	return buf;
fail:;
	int e = errno;
	free(buf);
	close(fd);
	errno = e;
	return NULL;
}

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

/* The column of (@name, @metric), added when new; -1 when full or out of memory. */
static long column(struct merge_table *t, const char *name, const char *unit, bool metric)
{
	for (size_t i = 0; i < t->nr_cols; i++)
		if (t->cols[i].metric == metric && !strcmp(t->cols[i].name, name))
			return (long)i;
	if (t->nr_cols >= MERGE_MAX_COLS)
		return -1;
	if (t->nr_cols == t->cap_cols) {
		size_t nc = t->cap_cols ? t->cap_cols * 2 : 8;
		struct merge_col *c = realloc(t->cols, nc * sizeof(*c));
		if (!c)
			return -1;
		t->cols = c;
		t->cap_cols = nc;
	}
	struct merge_col *c = &t->cols[t->nr_cols];
	c->name = strdup(name);
	c->unit = dup_or_empty(unit);
	c->metric = metric;
	if (!c->name || !c->unit) {
		free(c->name);
		free(c->unit);
		return -1;
	}
	return (long)t->nr_cols++;
}

static int set_value(struct merge_table *t, struct merge_row *r, const char *name,
		     const char *unit, bool metric, const double *v)
{
	long c = column(t, name, unit, metric);
	if (c < 0)
		return -ENOMEM;
	if ((size_t)c >= r->nv) {
		size_t nv = t->nr_cols;
		double *nvv = realloc(r->v, nv * sizeof(*nvv));
		if (!nvv)
			return -ENOMEM;
		for (size_t i = r->nv; i < nv; i++)
			nvv[i] = NAN;
		r->v = nvv;
		r->nv = nv;
	}
	r->v[c] = v ? *v : NAN;
	return 0;
}

/* The rank's counts and metrics from stat's object @j into @r. */
static int fill_row(struct merge_table *t, struct merge_row *r, const struct mj *j)
{
	const struct mj *ev = mj_get(j, "events"), *ms = mj_get(j, "metrics");
	int rc = 0;

	for (size_t i = 0; ev && i < ev->n && !rc; i++) {
		const struct mj *e = ev->kids[i];
		const char *name = mj_str(e, "name");
		if (!name)
			continue;
		rc = set_value(t, r, name, mj_str(e, "unit"), false, mj_num(e, "count"));
		const char *mu = mj_str(e, "metric_unit");
		if (!rc && mu && mu[0]) { /* perf's figure beside the count */
			char both[512];
			snprintf(both, sizeof(both), "%s: %s", name, mu);
			rc = set_value(t, r, both, "", true, mj_num(e, "metric_value"));
		}
	}
	for (size_t i = 0; ms && ms->type == MJ_ARR && i < ms->n && !rc; i++) {
		const struct mj *m = ms->kids[i];
		const char *name = mj_str(m, "name");
		if (name)
			rc = set_value(t, r, name, mj_str(m, "unit"), true, mj_num(m, "value"));
	}
	return rc;
}

/* The job's size and id from a file, checked against the others'. */
static int note_job(struct merge_table *t, const struct mj *j)
{
	const double *size = mj_num(j, "size");
	const char *job = mj_str(j, "job");

	if (size && *size >= 1 && *size <= 0x7fffffff) {
		if (t->size && t->size != (unsigned)*size)
			t->sizes_differ = true;
		if ((unsigned)*size > t->size)
			t->size = (unsigned)*size;
	}
	if (job && !t->job && !t->nr_rows && !(t->job = strdup(job)))
		return -ENOMEM;
	if ((job && t->job && strcmp(job, t->job)) || (!job) != (!t->job))
		t->jobs_differ = true;
	return 0;
}

static bool rank_ok(const double *rank)
{
	return rank && *rank >= 0 && *rank <= 0x7fffffff && *rank == floor(*rank);
}

/* A new row of rank @rank from @file; NULL when out of memory (a row
 * already counted in the table is released with it). */
static struct merge_row *new_row(struct merge_table *t, double rank, const char *host,
				 const char *file, const double *st)
{
	if (t->nr_rows == t->cap_rows) {
		size_t nc = t->cap_rows ? t->cap_rows * 2 : 64;
		struct merge_row *r = realloc(t->rows, nc * sizeof(*r));
		if (!r)
			return NULL;
		t->rows = r;
		t->cap_rows = nc;
	}
	struct merge_row *r = &t->rows[t->nr_rows++];
	memset(r, 0, sizeof(*r));
	r->rank = (unsigned)rank;
	r->exit_status = st && *st >= 0 && *st <= 255 ? (int)*st : -1; /* as hpmon exits */
	r->host = dup_or_empty(host);
	r->file = strdup(file);
	return r->host && r->file ? r : NULL;
}

/* A stat file: one rank. */
static int from_stat(struct merge_table *t, const char *path, const struct mj *j)
{
	const double *rank = mj_num(j, "rank");

	if (!rank_ok(rank)) {
		fprintf(stderr, "hpmon merge: %s has no rank: it was not written under a launcher "
			"(mpirun, srun); see 'Under a launcher' in hpmon-stat(1)\n", path);
		return -EINVAL;
	}
	if (note_job(t, j))
		return -ENOMEM;
	struct merge_row *r = new_row(t, *rank, mj_str(j, "host"), path, mj_num(j, "exit_status"));
	return r ? fill_row(t, r, j) : -ENOMEM;
}

/* The unit of @name in merge's own summaries @arr ("events", "metrics"). */
static const char *summary_unit(const struct mj *arr, const char *name)
{
	for (size_t i = 0; arr && arr->type == MJ_ARR && i < arr->n; i++) {
		const char *n = mj_str(arr->kids[i], "name");
		if (n && !strcmp(n, name))
			return mj_str(arr->kids[i], "unit");
	}
	return NULL;
}

/* hpmon merge --json's own output: its ranks, for merging as a tree. */
static int from_merged(struct merge_table *t, const char *path, const struct mj *j)
{
	const struct mj *rows = mj_get(j, "rows");
	int rc = note_job(t, j);

	for (size_t i = 0; i < rows->n && !rc; i++) {
		const struct mj *row = rows->kids[i], *vals = mj_get(row, "values");
		const double *rank = mj_num(row, "rank");
		const char *file = mj_str(row, "file");
		if (!rank_ok(rank) || !vals || vals->type != MJ_ARR) {
			fprintf(stderr, "hpmon merge: %s: row %zu has no rank or no values: not "
				"the output of hpmon merge --json\n", path, i);
			return -EINVAL;
		}
		struct merge_row *r = new_row(t, *rank, mj_str(row, "host"), file ? file : path,
					      mj_num(row, "exit_status"));
		if (!r)
			return -ENOMEM;
		for (size_t k = 0; k < vals->n && !rc; k++) {
			const struct mj *v = vals->kids[k], *m = mj_get(v, "metric");
			const char *name = mj_str(v, "name");
			bool metric = m && m->type == MJ_BOOL && m->num != 0;
			if (name)
				rc = set_value(t, r, name,
					       summary_unit(mj_get(j, metric ? "metrics" : "events"),
							    name), metric, mj_num(v, "value"));
		}
	}
	return rc;
}

static int from_tree(struct merge_table *t, const char *path, const struct mj *j)
{
	const struct mj *ev = mj_get(j, "events"), *rows = mj_get(j, "rows");

	if (rows && rows->type == MJ_ARR)
		return from_merged(t, path, j);
	if (!ev || ev->type != MJ_ARR) {
		fprintf(stderr, "hpmon merge: %s is neither the JSON of hpmon stat --json nor of "
			"hpmon merge --json (no \"events\" list)\n", path);
		return -EINVAL;
	}
	return from_stat(t, path, j);
}

int merge_table__add(struct merge_table *t, const char *path)
{
	char why[160];
	size_t len;
	char *text = slurp(path, &len);
	int rc;

	if (!text) {
		rc = -errno;
		fprintf(stderr, "hpmon merge: cannot read %s: %s\n", path,
			rc == -E2BIG ? "over 64 MiB, not a stat file" :
			rc == -EINVAL ? "not a regular file" : strerror(-rc));
		return rc;
	}
	struct mj *j = mj_parse(text, len, why, sizeof(why));
	free(text);
	if (!j) {
		rc = -errno;
		fprintf(stderr, "hpmon merge: %s is not JSON: %s (merge reads the files of "
			"'hpmon stat --json -o FILE'; -I writes one object per interval, merge "
			"takes a file of one)\n", path, rc == -ENOMEM ? "out of memory" : why);
		return rc;
	}
	rc = j->type == MJ_OBJ ? from_tree(t, path, j) : -EINVAL;
	if (j->type != MJ_OBJ)
		fprintf(stderr, "hpmon merge: %s is not the JSON of hpmon stat --json (not an "
			"object)\n", path);
	else if (rc == -ENOMEM)
		fprintf(stderr, "hpmon merge: out of memory reading %s\n", path);
	mj_free(j);
	return rc;
}

static int by_rank(const void *a, const void *b)
{
	const struct merge_row *x = a, *y = b;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

int merge_table__finish(struct merge_table *t)
{
	if (t->nr_rows)
		qsort(t->rows, t->nr_rows, sizeof(*t->rows), by_rank);
	for (size_t i = 1; i < t->nr_rows; i++)
		if (t->rows[i].rank == t->rows[i - 1].rank) {
			fprintf(stderr, "hpmon merge: rank %u is in two files, %s and %s: merge "
				"the files of one job run\n", t->rows[i].rank, t->rows[i - 1].file,
				t->rows[i].file);
			return -EEXIST;
		}
	return 0;
}

void merge_table__stat(const struct merge_table *t, size_t c, struct merge_stat *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < t->nr_rows; i++) {
		const struct merge_row *r = &t->rows[i];
		if (c >= r->nv || isnan(r->v[c]))
			continue;
		double v = r->v[c];
		if (!s->n || v < s->min) {
			s->min = v;
			s->min_rank = r->rank;
		}
		if (!s->n || v > s->max) {
			s->max = v;
			s->max_rank = r->rank;
		}
		s->total += v;
		s->n++;
	}
	if (!s->n)
		return;
	s->mean = s->total / (double)s->n;
	s->imbalance = s->max != 0 ? (s->max - s->mean) / s->max : 0;
}

static void add_range(char *buf, size_t len, size_t *o, unsigned a, unsigned b)
{
	if (*o >= len)
		return;
	int k = a == b ? snprintf(buf + *o, len - *o, "%s%u", *o ? ", " : "", a)
		       : snprintf(buf + *o, len - *o, "%s%u-%u", *o ? ", " : "", a, b);
	*o = k < 0 || (size_t)k >= len - *o ? len : *o + (size_t)k;
}

size_t merge_table__missing(const struct merge_table *t, char *buf, size_t len)
{
	unsigned want = t->size;
	size_t n = 0, o = 0;
	unsigned next = 0; /* the first rank not yet accounted for */

	if (len)
		buf[0] = '\0';
	if (!want && t->nr_rows)
		want = t->rows[t->nr_rows - 1].rank + 1;
	for (size_t i = 0; i <= t->nr_rows; i++) {
		unsigned r = i < t->nr_rows ? t->rows[i].rank : want;
		if (r > want)
			r = want;
		if (r > next) {
			add_range(buf, len, &o, next, r - 1);
			n += r - next;
		}
		if (r + 1 > next)
			next = r + 1;
	}
	if (len > 4 && o >= len)
		snprintf(buf + len - 4, 4, "...");
	return n;
}

void merge_table__release(struct merge_table *t)
{
	for (size_t i = 0; i < t->nr_cols; i++) {
		free(t->cols[i].name);
		free(t->cols[i].unit);
	}
	for (size_t i = 0; i < t->nr_rows; i++) {
		free(t->rows[i].host);
		free(t->rows[i].file);
		free(t->rows[i].v);
	}
	free(t->cols);
	free(t->rows);
	free(t->job);
	memset(t, 0, sizeof(*t));
}
