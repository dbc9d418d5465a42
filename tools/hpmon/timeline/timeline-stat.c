/* SPDX-License-Identifier: MIT */
/*
 * The timeline model (timeline.h) of a `hpmon stat -I MS --json -o FILE`
 * file: its JSON lines, one interval each, binned by the builder
 * (timeline-build.h); and telling such a file from a profile.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/json-read.h"
#include "timeline/timeline-build.h"

bool timeline__is_stat_json(const void *head, size_t n)
{
	const unsigned char *c = head;
	size_t i = 0;
	while (i < n && (c[i] == ' ' || c[i] == '\t' || c[i] == '\n' || c[i] == '\r'))
		i++;
	return i < n && c[i] == '{';
}

bool timeline__path_is_stat_json(const char *path)
{
	unsigned char head[64];
	struct stat sb;
	/* without blocking: a FIFO must not hang the open; a regular file only */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	bool yes = false;
	if (fd < 0)
		return false;
	if (!fstat(fd, &sb) && S_ISREG(sb.st_mode)) {
		ssize_t n = read(fd, head, sizeof(head));
		yes = n > 0 && timeline__is_stat_json(head, (size_t)n);
	}
	close(fd);
	return yes;
}

/* The next line of @f into *@buf, without its newline: 1, 0 at the end,
 * -E2BIG past @max bytes, -errno on a read error. */
static int read_line(FILE *f, char **buf, size_t *cap, size_t *n, size_t max)
{
	*n = 0;
	int c;
	while ((c = getc(f)) != EOF && c != '\n') {
		if (*n + 1 >= *cap) {
			if (*cap > max)
				return -E2BIG;
			size_t nc = *cap ? *cap * 2 : 4096;
			char *p = realloc(*buf, nc);
			if (!p)
				return -ENOMEM;
			*buf = p;
			*cap = nc;
		}
		(*buf)[(*n)++] = (char)c;
	}
	if (ferror(f))
		return -EIO;
	if (c == EOF && !*n)
		return 0;
	return 1;
}

static double num_or(const struct mj *o, const char *key, double dflt)
{
	const double *v = mj_num(o, key);
	return v ? *v : dflt;
}

/* One interval's "events" and "metrics" of thread @slot at @t. */
static int stat_values(struct tl_build *b, const struct mj *row, size_t slot, uint64_t t,
		       bool also_all, unsigned *gen, unsigned *seen)
{
	const struct mj *evs = mj_get(row, "events"), *ms = mj_get(row, "metrics");
	++*gen;
	for (size_t i = 0; evs && evs->type == MJ_ARR && i < evs->n; i++) {
		const struct mj *e = evs->kids[i];
		const char *name = mj_str(e, "name");
		if (!name)
			continue;
		long ev = tl_build__event(b, name, mj_str(e, "unit"), false);
		if (ev < 0 || seen[ev] == *gen) /* a metric's event listed again */
			continue;
		seen[ev] = *gen;
		const double *c = mj_num(e, "count");
		double en = num_or(e, "enabled_ns", 0), run = num_or(e, "running_ns", 0);
		if (!c) /* not counted in this interval: no time ran */
			run = 0;
		int rc = tl_build__add(b, (size_t)ev, slot, t, c ? *c : 0, en, run, also_all);
		if (rc)
			return rc;
	}
	for (size_t i = 0; ms && ms->type == MJ_ARR && i < ms->n; i++) {
		const struct mj *e = ms->kids[i];
		const char *name = mj_str(e, "name");
		const double *v = mj_num(e, "value");
		if (!name)
			continue;
		long ev = tl_build__event(b, name, mj_str(e, "unit"), true);
		if (ev < 0)
			continue;
		if (!v) { /* null: the bin exists, with no value */
			if (tl_build__bin(b, t) < 0 || tl_build__series(b, (size_t)ev, slot) < 0)
				return -ENOMEM;
			continue;
		}
		int rc = tl_build__add(b, (size_t)ev, slot, t, *v, 0, 0, also_all);
		if (rc)
			return rc;
	}
	return 0;
}

static int stat_line(struct tl_build *b, const struct mj *o, unsigned *gen, unsigned *seen)
{
	const double *tn = mj_num(o, "time_ns");
	if (!tn) /* the summary */
		return 0;
	double span = num_or(o, "span_ns", 0), iv = num_or(o, "interval_ns", 0);
	if (!b->bin_ns)
		b->bin_ns = iv >= 1 && iv < 1e15 ? (uint64_t)iv : 100000000ull;
	b->started = true; /* stat's clock starts at 0 */
	double at = *tn - span;
	uint64_t t = at > 0 && at < 1.8e19 ? (uint64_t)at : 0;
	int rc = stat_values(b, o, TL_SLOT_ALL, t, false, gen, seen);
	const struct mj *th = mj_get(o, "threads");
	for (size_t i = 0; !rc && th && th->type == MJ_ARR && i < th->n; i++) {
		const struct mj *row = th->kids[i];
		double tid = num_or(row, "tid", 0);
		if (!(tid > 0 && tid < 1e9))
			continue;
		size_t slot = tl_build__slot(b, (pid_t)tid, mj_str(row, "comm"));
		rc = stat_values(b, row, slot, t, false, gen, seen);
	}
	return rc;
}

struct timeline *timeline__from_stat_json(const char *path, const struct timeline_opts *o,
					  char *why, size_t len)
{
	struct tl_build b;
	struct timeline *t = NULL;
	char *line = NULL;
	size_t cap = 0, n, lineno = 0, objs = 0;
	unsigned gen = 0, *seen = NULL;
	struct stat sb;
	FILE *f = NULL;
	int e = 0, rc;

	if (tl_build__init(&b, o) || !(seen = calloc(TL_MAX_EVENTS, sizeof(*seen)))) {
		e = ENOMEM;
		goto out;
	}
	/* without blocking: a FIFO must not hang the open; a regular file only */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &sb)) {
		e = errno;
		tl_say(why, len, "cannot read '%s': %s", path, strerror(e));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	if (!S_ISREG(sb.st_mode) || !(f = fdopen(fd, "r"))) {
		e = S_ISREG(sb.st_mode) ? errno : EINVAL;
		tl_say(why, len, "cannot read '%s': %s", path,
		    e == EINVAL ? "not a regular file" : strerror(e));
		close(fd);
		goto out;
	}
	while ((rc = read_line(f, &line, &cap, &n, MJ_MAX_TEXT)) > 0) {
		char jwhy[120];
		lineno++;
		size_t k = 0;
		while (k < n && (line[k] == ' ' || line[k] == '\t' || line[k] == '\r'))
			k++;
		if (k == n)
			continue;
		struct mj *j = mj_parse(line, n, jwhy, sizeof(jwhy));
		if (!j || j->type != MJ_OBJ) {
			e = j ? EBADMSG : errno;
			tl_say(why, len, "'%s', line %zu: %s", path, lineno,
			    j ? "not a JSON object" : e == EBADMSG ? jwhy : strerror(e));
			mj_free(j);
			goto out;
		}
		objs++;
		rc = stat_line(&b, j, &gen, seen);
		mj_free(j);
		if (rc) {
			e = -rc;
			tl_say(why, len, "out of memory");
			goto out;
		}
	}
	if (rc < 0) {
		e = -rc;
		if (rc == -E2BIG)
			tl_say(why, len, "'%s', line %zu: longer than %u MiB, which no stat file writes",
			    path, lineno + 1, MJ_MAX_TEXT >> 20);
		else
			tl_say(why, len, "cannot read '%s' (line %zu): %s", path, lineno + 1, strerror(-rc));
		goto out;
	}
	if (!objs) {
		e = EBADMSG;
		tl_say(why, len, "'%s' is empty: no interval of stat -I", path);
		goto out;
	}
	if (!b.bin_ns) {
		e = EBADMSG;
		tl_say(why, len, "'%s' holds no intervals: write it with hpmon stat -I MS --json -o FILE",
		    path);
		goto out;
	}
	t = tl_build__finish(&b, TL_SRC_STAT);
	if (!t) {
		e = ENOMEM;
		tl_say(why, len, "out of memory");
	}
out:
	if (f)
		fclose(f);
	free(line);
	free(seen);
	tl_build__release(&b);
	if (!t)
		errno = e ? e : EINVAL;
	return t;
}
