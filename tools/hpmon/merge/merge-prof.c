/* SPDX-License-Identifier: MIT */
/*
 * hpmon merge of profiles (merge-prof.h): each input is opened, read once
 * to the end to see that it is whole, then read again and copied record
 * by record into one writer, its task ids mapped to the merged file's
 * (docs/profile-format.md, "Merged profiles"). A task id an earlier rank
 * used is renumbered from 2^22 up, above any kernel's pid_max, so ids the
 * kernel gave stay as they were wherever they do not collide.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hpmon/profile.h>

#include "output/exit.h"
#include "output/escape.h"
#include "merge/merge-prof.h"
#include "merge/merge.h"
#include "output/output.h"
#include "report/table.h"

#define PM_FIRST_NEW_ID (1 << 22) /* PID_MAX_LIMIT: no kernel gives an id this high */

struct pm {
	const char *out;
	struct out_file of;
	bool of_open;
	struct hpm_profile_writer *w;
	struct hpm_profile *ref;     /* the first input merged: the others must match it */
	const char *ref_path;
	struct htab *used;           /* every task id of the merged file */
	pid_t next_id;               /* the next id for a task renumbered */
	uint64_t renumbered, records;
	struct merge_table ranks;    /* one row per rank merged: rank, host, file */
	struct hpm_profile_totals tot;
	bool any_status;
	unsigned skipped, files;
};

/* One input's task ids: its id -> the merged file's. */
struct pm_in {
	const char *path;
	struct htab *ids;
	pid_t *new_id;
	size_t nr, cap;
	uint32_t rank;               /* of its records (a merged input: the last rank declared) */
	bool merged;
};

int merge_prof__sniff(const char *path)
{
	unsigned char magic[8];
	struct stat sb;
	/* without blocking: a FIFO's open must not wait for a writer, and
	 * only a regular file is read (a FIFO's bytes, once read here, would
	 * be gone for the merge that follows) */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return 0;
	if (fstat(fd, &sb)) {
		close(fd);
		return 0;
	}
	if (!S_ISREG(sb.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	ssize_t n = read(fd, magic, sizeof(magic));
	close(fd);
	return n == (ssize_t)sizeof(magic) &&
	       (!memcmp(magic, "HPMPROF\0", 8) || !memcmp(magic, "PERFILE2", 8));
}

static int pm_add_rank(struct pm *m, uint32_t rank, const char *host, const char *file)
{
	struct merge_table *t = &m->ranks;

	if (t->nr_rows == t->cap_rows) {
		size_t nc = t->cap_rows ? t->cap_rows * 2 : 64;
		struct merge_row *r = realloc(t->rows, nc * sizeof(*r));
		if (!r)
			return -ENOMEM;
		t->rows = r;
		t->cap_rows = nc;
	}
	struct merge_row *r = &t->rows[t->nr_rows];
	memset(r, 0, sizeof(*r));
	r->rank = rank;
	r->exit_status = -1;
	r->host = strdup(host ? host : "");
	r->file = strdup(file);
	t->nr_rows++; /* released with the table, whole or not */
	return r->host && r->file ? 0 : -ENOMEM;
}

/* The job's size and id, as the stat merge notes them. */
static int pm_note_job(struct pm *m, const struct hpm_profile_meta *meta)
{
	struct merge_table *t = &m->ranks;

	if (meta->job_size) {
		if (t->size && t->size != meta->job_size)
			t->sizes_differ = true;
		if (meta->job_size > t->size)
			t->size = meta->job_size;
	}
	const char *job = meta->job && meta->job[0] ? meta->job : NULL;
	if (!m->files && job && !(t->job = strdup(job)))
		return -ENOMEM;
	if ((job && t->job && strcmp(job, t->job)) || (!job) != (!t->job))
		t->jobs_differ = true;
	return 0;
}

/* Why @b's samples cannot go with @a's, into @buf; NULL when they can.
 * The period may differ (each sample carries its own); what is counted,
 * on what, and what a sample holds may not. */
static const char *differs(const struct hpm_profile_meta *a, const struct hpm_profile_meta *b,
			   char *buf, size_t len)
{
	if (strcmp(a->arch, b->arch)) {
		snprintf(buf, len, "it was recorded on %s, the first on %s", b->arch, a->arch);
		return buf;
	}
	if (a->nr_events != b->nr_events) {
		snprintf(buf, len, "it has %u events, the first %u", b->nr_events, a->nr_events);
		return buf;
	}
	/* a timeline's lanes are threads or processes, not both in one file
	 * (the merged header is the first's) */
	if (a->timeline_ns && b->timeline_ns && a->timeline_mode != b->timeline_mode) {
		bool poll = b->timeline_mode == HPM_PROFILE_TL_PROCESS;
		snprintf(buf, len, "its timeline was read %s, the first's %s (record every rank "
			 "with --timeline-mode poll)", poll ? "by hpmon for the whole process" :
			 "per thread", poll ? "per thread" : "by hpmon for the whole process");
		return buf;
	}
	for (uint32_t i = 0; i < a->nr_events; i++) {
		const struct hpm_profile_event *x = &a->events[i], *y = &b->events[i];
		const char *what = strcmp(x->name, y->name) ? "another name" :
				   x->type != y->type || x->config != y->config ||
				   x->config1 != y->config1 || x->config2 != y->config2 ?
				   "another attribute (type or config)" :
				   x->sample_type != y->sample_type ? "other sample fields" :
				   x->leader != y->leader || x->group_size != y->group_size ||
				   x->trigger != y->trigger ? "another group" : NULL;
		if (what) {
			snprintf(buf, len, "its event %u, '%s', is not the first's, '%s': %s", i,
				 y->name, x->name, what);
			return buf;
		}
	}
	return NULL;
}

/* Read @path to its end: 0 when whole, else -EIO with the damage in @why
 * (or -ENOMEM). Call chains and stacks are checked as strictly, but not
 * copied out. */
static int whole(const char *path, char *why, size_t len)
{
	struct hpm_profile *p;
	struct hpm_prec r;
	int rc = hpm_profile__open(path, &p);

	if (rc)
		return rc;
	hpm_profile__skip(p, HPM_PROFILE_SKIP_CHAINS | HPM_PROFILE_SKIP_STACKS);
	while ((rc = hpm_profile__next(p, &r)) > 0)
		;
	const struct hpm_profile_status *st = hpm_profile__status(p);
	if (!rc && !st->complete) {
		snprintf(why, len, "%s", st->what);
		rc = -EIO;
	}
	hpm_profile__free(p);
	return rc;
}

static int emit(struct pm *m, const struct hpm_prec *r)
{
	int rc = hpm_profile_writer__add(m->w, r);
	if (!rc)
		m->records++;
	return rc;
}

/* A task of @in (its id @id, recorded as @orig in @rank): its id in the
 * merged file, announced by a RANK record before any record names it. */
static int new_task(struct pm *m, struct pm_in *in, pid_t id, pid_t orig, uint32_t rank,
		    pid_t *out)
{
	uint64_t k = (uint32_t)id;
	pid_t nid = id;

	if (htab__get(m->used, &k) >= 0) {
		do {
			if (m->next_id == INT32_MAX)
				return -EOVERFLOW;
			nid = m->next_id++;
			k = (uint32_t)nid;
		} while (htab__get(m->used, &k) >= 0);
		m->renumbered++;
	}
	if (htab__put(m->used, &k, 0))
		return -ENOMEM;
	if (in->nr == in->cap) {
		size_t nc = in->cap ? in->cap * 2 : 64;
		pid_t *v = realloc(in->new_id, nc * sizeof(*v));
		if (!v)
			return -ENOMEM;
		in->new_id = v;
		in->cap = nc;
	}
	k = (uint32_t)id;
	if (htab__put(in->ids, &k, in->nr))
		return -ENOMEM;
	in->new_id[in->nr++] = nid;
	struct hpm_prec t = { .type = HPM_PREC_RANK };
	t.rank = (struct hpm_rank_rec){ .task = true, .rank = rank, .pid = nid, .orig_pid = orig };
	*out = nid;
	return emit(m, &t);
}

/* @in's task id *@id as the merged file's. Ids 0 (the idle task of a
 * system-wide profile) and below (none) are no one's task: kept. */
static int map_id(struct pm *m, struct pm_in *in, pid_t *id)
{
	if (*id <= 0)
		return 0;
	uint64_t k = (uint32_t)*id;
	long i = htab__get(in->ids, &k);
	if (i >= 0) {
		*id = in->new_id[i];
		return 0;
	}
	return new_task(m, in, *id, *id, in->rank, id);
}

/* A RANK record of a merged input: its ranks and tasks carried over. */
static int copy_rank(struct pm *m, struct pm_in *in, const struct hpm_rank_rec *k)
{
	if (!in->merged)
		return 0; /* (a recorder writes none: nothing to carry) */
	if (k->task) {
		uint64_t key = (uint32_t)k->pid;
		pid_t nid;
		if (k->pid <= 0 || htab__get(in->ids, &key) >= 0)
			return 0;
		return new_task(m, in, k->pid, k->orig_pid, k->rank, &nid);
	}
	in->rank = k->rank;
	struct hpm_prec d = { .type = HPM_PREC_RANK };
	d.rank = (struct hpm_rank_rec){ .rank = k->rank, .host = k->host };
	int rc = pm_add_rank(m, k->rank, k->host, in->path);
	return rc ? rc : emit(m, &d);
}

static int copy(struct pm *m, struct pm_in *in, struct hpm_profile *p)
{
	const struct hpm_profile_meta *meta = hpm_profile__meta(p);
	struct hpm_prec r;
	int rc;

	if (!in->merged) {
		struct hpm_prec d = { .type = HPM_PREC_RANK };
		in->rank = meta->rank;
		d.rank = (struct hpm_rank_rec){ .rank = meta->rank, .host = meta->host };
		if ((rc = pm_add_rank(m, meta->rank, meta->host, in->path)) || (rc = emit(m, &d)))
			return rc;
	}
	while ((rc = hpm_profile__next(p, &r)) > 0) {
		pid_t *ids[4] = { NULL };
		rc = 0;
		switch (r.type) {
		case HPM_PREC_SAMPLE:
			ids[0] = &r.sample.pid, ids[1] = &r.sample.tid;
			break;
		case HPM_PREC_MMAP:
			ids[0] = &r.mmap.pid, ids[1] = &r.mmap.tid;
			break;
		case HPM_PREC_COMM:
			ids[0] = &r.comm.pid, ids[1] = &r.comm.tid;
			break;
		case HPM_PREC_FORK:
		case HPM_PREC_EXIT:
			ids[0] = &r.task.pid, ids[1] = &r.task.ppid;
			ids[2] = &r.task.tid, ids[3] = &r.task.ptid;
			break;
		case HPM_PREC_TIMELINE:
			ids[0] = &r.read.pid, ids[1] = &r.read.tid;
			break;
		case HPM_PREC_RANK:
			if ((rc = copy_rank(m, in, &r.rank)))
				return rc;
			continue;
		default:
			break;
		}
		for (int k = 0; k < 4 && ids[k] && !rc; k++)
			rc = map_id(m, in, ids[k]);
		if (rc || (rc = emit(m, &r)))
			return rc;
	}
	if (rc)
		return rc;
	const struct hpm_profile_totals *t = &hpm_profile__status(p)->totals;
	m->tot.samples += t->samples;
	m->tot.lost += t->lost;
	m->tot.lost_samples += t->lost_samples;
	m->tot.throttled += t->throttled;
	if (t->duration_ns > m->tot.duration_ns)
		m->tot.duration_ns = t->duration_ns;
	/* the job's status: the first rank's that failed, else 0 */
	if (t->exit_status >= 0 && (!m->any_status || (!m->tot.exit_status && t->exit_status)))
		m->tot.exit_status = t->exit_status;
	m->any_status |= t->exit_status >= 0;
	return 0;
}

/* The merged file, started with the first input's header. */
static int start(struct pm *m, struct hpm_profile *p)
{
	struct hpm_profile_meta meta = *hpm_profile__meta(p);

	meta.sz = sizeof(meta);
	meta.has_rank = false;
	meta.rank = 0;
	meta.merged = true;
	if (out_open(&m->of, "hpmon merge", m->out, OUT_REPLACE))
		return -1;
	m->of_open = true;
	m->w = hpm_profile_writer__new(out_take_fd(&m->of), &meta, NULL);
	if (!m->w) {
		fprintf(stderr, "hpmon merge: cannot write '%s': %s\n", m->out, hpm_strerror(-errno));
		return -1;
	}
	return 0;
}

enum { PM_OK, PM_SKIP, PM_REFUSE };

static void pm_skip(struct pm *m, const char *path, const char *why)
{
	fprintf(stderr, "hpmon merge: warning: %s skipped: %s\n", esc_text(path), why);
	m->skipped++;
}

/* One input: checked, then copied. PM_OK, PM_SKIP (said), or PM_REFUSE
 * (said; the merge stops). */
static int one(struct pm *m, const char *path)
{
	struct pm_in in = { .path = path };
	struct hpm_profile *p = NULL;
	char why[256];
	int rc = hpm_profile__open(path, &p), ret = PM_REFUSE;

	if (rc) {
		pm_skip(m, path, rc == -EBADMSG ? "not a profile, or its header is damaged" :
			      rc == -EPROTO ? "a profile of a newer hpmon" : hpm_strerror(rc));
		return PM_SKIP;
	}
	const struct hpm_profile_meta *meta = hpm_profile__meta(p);
	in.merged = meta->merged;
	if (strcmp(hpm_profile__format(p), "hpmon")) {
		fprintf(stderr, "hpmon merge: %s is a perf.data file, which has no rank: merge "
			"the profiles of 'hpmon record -o prof.%%r' run under mpirun or srun\n",
			esc_text(path));
		goto out;
	}
	if (!meta->has_rank && !meta->merged) {
		fprintf(stderr, "hpmon merge: %s has no rank: it was not recorded under a "
			"launcher (mpirun, srun); see -o in hpmon-record(1)\n",
			esc_text(path));
		goto out;
	}
	if (m->ref && differs(hpm_profile__meta(m->ref), meta, why, sizeof(why))) {
		fprintf(stderr, "hpmon merge: %s cannot be merged with %s: %s; merge the "
			"profiles of one job run, recorded with the same events\n",
			esc_text(path), esc_text(m->ref_path), why);
		goto out;
	}
	/* skipping needs the damage known before anything is copied: the
	 * file is read through once, then again to copy */
	rc = whole(path, why, sizeof(why));
	if (rc == -EIO) {
		/* a cut rank would show as an outlier it is not */
		char msg[320];
		snprintf(msg, sizeof(msg), "%s (a rank cut short would look like an outlier; "
			 "'hpmon report -i %s' reads what it holds)", why, esc_text(path));
		pm_skip(m, path, msg);
		ret = PM_SKIP;
		goto out;
	}
	if (rc && rc != -ENOMEM) { /* (it was read a moment ago) */
		pm_skip(m, path, hpm_strerror(rc));
		ret = PM_SKIP;
		goto out;
	}
	if (rc)
		goto fail;
	if (pm_note_job(m, meta)) {
		rc = -ENOMEM;
		goto fail;
	}
	if (!m->ref) {
		if (start(m, p))
			goto out;
		m->ref = p;
		m->ref_path = path;
		/* the reference stays open for its header; copy from a second */
		if ((rc = hpm_profile__open(path, &p))) {
			p = NULL;
			goto fail;
		}
	}
	m->files++;
	if (!(in.ids = htab__new(1))) {
		rc = -ENOMEM;
		goto fail;
	}
	rc = copy(m, &in, p);
	if (rc)
		goto fail;
	ret = PM_OK;
	goto out;
fail:
	if (rc == -ENOMEM)
		fprintf(stderr, "hpmon merge: out of memory merging %s\n", esc_text(path));
	else if (rc == -EOVERFLOW)
		fprintf(stderr, "hpmon merge: more than 2^31 tasks: merge in groups of ranks\n");
	else
		fprintf(stderr, "hpmon merge: cannot write '%s': %s\n", esc_text(m->out),
			hpm_strerror(rc));
out:
	htab__free(in.ids);
	free(in.new_id);
	if (p != m->ref)
		hpm_profile__free(p);
	return ret;
}

static void summary(const struct pm *m, int nr_files)
{
	fprintf(stderr, "hpmon merge: %zu rank%s from %u of %d file%s into %s: %" PRIu64
		" records", m->ranks.nr_rows, m->ranks.nr_rows == 1 ? "" : "s", m->files, nr_files,
		nr_files == 1 ? "" : "s", esc_text(m->out), m->records);
	if (m->renumbered)
		fprintf(stderr, "; %" PRIu64 " task id%s another rank had renumbered from %d",
			m->renumbered, m->renumbered == 1 ? "" : "s", PM_FIRST_NEW_ID);
	fputc('\n', stderr);
}

int merge_prof(const char *out, char **files, int n, bool quiet)
{
	struct pm m = { .out = out, .next_id = PM_FIRST_NEW_ID };
	char missing[512];
	int rc = HPM_EXIT_FAIL;

	m.tot.exit_status = -1;
	if (!(m.used = htab__new(1))) {
		fprintf(stderr, "hpmon merge: out of memory\n");
		return HPM_EXIT_FAIL;
	}
	for (int i = 0; i < n; i++)
		if (one(&m, files[i]) == PM_REFUSE)
			goto fail;
	if (!m.w) {
		fprintf(stderr, "hpmon merge: no profile to merge: every file was skipped\n");
		goto fail;
	}
	if (merge_table__finish(&m.ranks))
		goto fail;
	int e = hpm_profile_writer__close(m.w, &m.tot);
	m.w = NULL;
	if (e) {
		fprintf(stderr, "hpmon merge: cannot write '%s': %s\n", esc_text(out),
			hpm_strerror(e));
		goto fail;
	}
	m.of_open = false;
	if (out_commit(&m.of, false))
		goto done;
	if (!quiet)
		summary(&m, n);
	if (m.ranks.sizes_differ)
		fprintf(stderr, "hpmon merge: warning: the files give different job sizes; "
			"taking the largest, %u: are they of one job run?\n", m.ranks.size);
	if (m.ranks.jobs_differ)
		fprintf(stderr, "hpmon merge: warning: the files give different job ids: are "
			"they of one job run?\n");
	size_t nr_missing = merge_table__missing(&m.ranks, missing, sizeof(missing));
	rc = m.skipped ? HPM_EXIT_FAIL : HPM_EXIT_OK;
	if (nr_missing) {
		fprintf(stderr, "hpmon merge: %zu rank%s without a file: %s; %s holds the %zu "
			"rank%s merged\n", nr_missing, nr_missing == 1 ? "" : "s", missing,
			esc_text(out), m.ranks.nr_rows, m.ranks.nr_rows == 1 ? "" : "s");
		rc = HPM_EXIT_FAIL;
	}
	goto done;
fail:
	hpm_profile_writer__free(m.w);
	if (m.of_open)
		out_abort(&m.of);
done:
	hpm_profile__free(m.ref);
	htab__free(m.used);
	merge_table__release(&m.ranks);
	return rc;
}
