// SPDX-License-Identifier: MIT
/*
 * Merging profiles (tools/hpmon/merge/merge-prof.c) and the RANK record
 * (docs/profile-format.md, "Merged profiles"): the record reads back as
 * written and a profile of an older writer reads as no merge; ranks whose
 * task ids collide stay apart, each sample keeps its rank, its original
 * id and its host; a cut or foreign file is skipped and its rank reported
 * missing; profiles of other events, or without a rank, are refused and
 * nothing is written; merges merge again; report's --rank lists parse
 * (ranks and ranges) and refuse what is no rank. The tool is not a
 * library: its files are compiled into this test.
 */
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
#include <linux/perf_event.h>

#include <hpmon/profile.h>

#include "../../tools/hpmon/output/escape.c"
#include "../../tools/hpmon/output/json.c"
#include "../../tools/hpmon/output/json-read.c"
#include "../../tools/hpmon/merge/merge-table.c"
#include "../../tools/hpmon/output/output.c"
#include "../../tools/hpmon/report/table.c"
#include "../../tools/hpmon/merge/merge-prof.c"
#include "../../tools/hpmon/report/filter.c"

static char dir[] = "/tmp/test-merge-prof.XXXXXX";

static const struct hpm_profile_event ev_faults = {
	.name = "page-faults", .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_PAGE_FAULTS,
	.period = 1, .trigger = true,
	.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD,
	.leader = 0, .group_size = 1,
};

/* @name in the test's folder (kept until the test ends: the lists of
 * files hold several at once) */
static const char *path_of(const char *name)
{
	static char buf[64][512];
	static int k;
	char *p = buf[k++ % 64];
	snprintf(p, 512, "%s/%s", dir, name);
	return p;
}

static void add(struct hpm_profile_writer *w, const struct hpm_prec *r)
{
	assert_int_equal(hpm_profile_writer__add(w, r), 0);
}

/* rank_profile's timeline mode (hpm_profile_meta.timeline_mode): 0, no
 * timeline; else a 10 ms timeline read that way (no TIMELINE record is
 * needed for what the header says). */
static uint32_t tl_mode;

/* A rank's profile: process 100 (threads 100, 101) with a mapping, a
 * name, and 10 x (rank + 1) samples; @rank < 0: recorded outside a job. */
static void rank_profile(const char *name, int rank, const char *host,
			 const struct hpm_profile_event *ev)
{
	struct hpm_profile_meta m = {
		.sz = sizeof(m), .command = "./app", .host = host, .arch = "x86_64",
		.cpu_model = "test", .kernel = "6.1", .nr_events = 1, .events = ev,
		.page_size = 4096, .has_rank = rank >= 0, .rank = rank >= 0 ? (uint32_t)rank : 0,
		.job_size = 4, .job = "77",
		.timeline_ns = tl_mode ? 10000000 : 0, .timeline_mode = tl_mode,
	};
	int fd = open(path_of(name), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	struct hpm_profile_writer *w = hpm_profile_writer__new(fd, &m, NULL);
	assert_non_null(w);
	struct hpm_prec r = { .type = HPM_PREC_MMAP };
	r.mmap = (struct hpm_mmap_rec){ .pid = 100, .tid = 100, .time = 1, .start = 0x400000,
					.len = 0x1000, .prot = 5, .filename = "/bin/app" };
	add(w, &r);
	r = (struct hpm_prec){ .type = HPM_PREC_COMM };
	r.comm = (struct hpm_comm_rec){ 100, 101, 2, false, "worker" };
	add(w, &r);
	int n = 10 * (rank + 1);
	for (int i = 0; i < n; i++) {
		r = (struct hpm_prec){ .type = HPM_PREC_SAMPLE };
		r.sample = (struct hpm_sample){ .pid = 100, .tid = 100 + i % 2, .time = 10 + (uint64_t)i,
						.ip = 0x400100, .period = 1, .mode = HPM_MODE_USER };
		add(w, &r);
	}
	struct hpm_profile_totals t = { .samples = (uint64_t)n, .exit_status = 0 };
	assert_int_equal(hpm_profile_writer__close(w, &t), 0);
}

/* What a merged file holds, per rank. */
struct got {
	bool merged, has_rank;
	uint32_t job_size;
	int nr_ranks;
	uint32_t ranks[8];
	char hosts[8][32];
	int samples[8];        /* by rank */
	pid_t task_pid[32], task_orig[32];
	uint32_t task_rank[32];
	int nr_tasks;
	bool task_first;       /* every task was named by a RANK record before use */
	uint64_t total;
};

static int task_index(const struct got *g, pid_t pid)
{
	for (int i = 0; i < g->nr_tasks; i++)
		if (g->task_pid[i] == pid)
			return i;
	return -1;
}

static void read_merged(const char *path, struct got *g)
{
	struct hpm_profile *p;
	struct hpm_prec r;
	int rc;

	memset(g, 0, sizeof(*g));
	g->task_first = true;
	assert_int_equal(hpm_profile__open(path, &p), 0);
	const struct hpm_profile_meta *m = hpm_profile__meta(p);
	g->merged = m->merged;
	g->has_rank = m->has_rank;
	g->job_size = m->job_size;
	while ((rc = hpm_profile__next(p, &r)) > 0) {
		if (r.type == HPM_PREC_RANK && !r.rank.task) {
			assert_true(g->nr_ranks < 8);
			g->ranks[g->nr_ranks] = r.rank.rank;
			snprintf(g->hosts[g->nr_ranks++], 32, "%s", r.rank.host);
		} else if (r.type == HPM_PREC_RANK) {
			assert_true(g->nr_tasks < 32);
			assert_int_equal(task_index(g, r.rank.pid), -1); /* announced once */
			g->task_pid[g->nr_tasks] = r.rank.pid;
			g->task_orig[g->nr_tasks] = r.rank.orig_pid;
			g->task_rank[g->nr_tasks++] = r.rank.rank;
		} else if (r.type == HPM_PREC_SAMPLE) {
			int t = task_index(g, r.sample.pid);
			g->task_first &= t >= 0 && task_index(g, r.sample.tid) >= 0;
			if (t >= 0 && g->task_rank[t] < 8)
				g->samples[g->task_rank[t]]++;
		} else if (r.type == HPM_PREC_MMAP || r.type == HPM_PREC_COMM) {
			g->task_first &= task_index(g, r.type == HPM_PREC_MMAP ? r.mmap.pid : r.comm.pid) >= 0;
		}
	}
	assert_int_equal(rc, 0);
	assert_true(hpm_profile__status(p)->complete);
	g->total = hpm_profile__status(p)->totals.samples;
	hpm_profile__free(p);
}

/* The RANK record as written, and a writer's meta without `merged`. */
static void test_rank_record(void **state)
{
	(void)state;
	struct hpm_profile_meta m = {
		.sz = sizeof(m), .command = "c", .host = "h", .arch = "x86_64", .cpu_model = "",
		.kernel = "", .nr_events = 1, .events = &ev_faults, .merged = true,
	};
	int fd = open(path_of("rec.prof"), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	struct hpm_profile_writer *w = hpm_profile_writer__new(fd, &m, NULL);
	assert_non_null(w);
	struct hpm_prec r = { .type = HPM_PREC_RANK };
	r.rank = (struct hpm_rank_rec){ .rank = 0x7fffffff, .host = "node-17" };
	add(w, &r);
	r.rank = (struct hpm_rank_rec){ .task = true, .rank = 3, .pid = 4194305, .orig_pid = 42 };
	add(w, &r);
	r.rank = (struct hpm_rank_rec){ .rank = 0x80000000u, .host = "" };
	assert_int_equal(hpm_profile_writer__add(w, &r), -EINVAL); /* past the format's limit */
	assert_int_equal(hpm_profile_writer__close(w, NULL), 0);

	struct hpm_profile *p;
	assert_int_equal(hpm_profile__open(path_of("rec.prof"), &p), 0);
	assert_true(hpm_profile__meta(p)->merged);
	assert_int_equal(hpm_profile__next(p, &r), 1);
	assert_int_equal(r.type, HPM_PREC_RANK);
	assert_false(r.rank.task);
	assert_int_equal(r.rank.rank, 0x7fffffff);
	assert_string_equal(r.rank.host, "node-17");
	assert_int_equal(hpm_profile__next(p, &r), 1);
	assert_int_equal(r.type, HPM_PREC_RANK);
	assert_true(r.rank.task);
	assert_int_equal(r.rank.rank, 3);
	assert_int_equal(r.rank.pid, 4194305);
	assert_int_equal(r.rank.orig_pid, 42);
	assert_int_equal(hpm_profile__next(p, &r), 0);
	assert_true(hpm_profile__status(p)->complete);
	hpm_profile__free(p);

	/* a caller built before the field: no key 12 written, none read */
	m.sz = offsetof(struct hpm_profile_meta, merged);
	fd = open(path_of("old.prof"), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	w = hpm_profile_writer__new(fd, &m, NULL);
	assert_non_null(w);
	assert_int_equal(hpm_profile_writer__close(w, NULL), 0);
	assert_int_equal(hpm_profile__open(path_of("old.prof"), &p), 0);
	assert_false(hpm_profile__meta(p)->merged);
	hpm_profile__free(p);
}

/* Ranks 0, 1, 3 of 4, every one with process 100: each rank's samples
 * counted apart, ids renumbered where they collide, the first kept. */
static void test_merge_collide(void **state)
{
	(void)state;
	char *in[] = { (char *)path_of("prof.0"), (char *)path_of("prof.1"),
		       (char *)path_of("prof.3") };
	struct got g;

	rank_profile("prof.0", 0, "node-a", &ev_faults);
	rank_profile("prof.1", 1, "node-b", &ev_faults);
	rank_profile("prof.3", 3, "node-b", &ev_faults);
	/* rank 2 missing: merged, and the status says so */
	assert_int_equal(merge_prof(path_of("job.prof"), in, 3, true), 1);
	struct stat sb;
	assert_int_equal(stat(path_of("job.prof"), &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);
	read_merged(path_of("job.prof"), &g);
	assert_true(g.merged);
	assert_false(g.has_rank);
	assert_int_equal(g.job_size, 4);
	assert_int_equal(g.nr_ranks, 3);
	assert_int_equal(g.ranks[0], 0);
	assert_int_equal(g.ranks[1], 1);
	assert_int_equal(g.ranks[2], 3);
	assert_string_equal(g.hosts[0], "node-a");
	assert_string_equal(g.hosts[2], "node-b");
	assert_true(g.task_first);
	assert_int_equal(g.samples[0], 10);
	assert_int_equal(g.samples[1], 20);
	assert_int_equal(g.samples[2], 0);
	assert_int_equal(g.samples[3], 40);
	assert_int_equal(g.total, 70);
	assert_int_equal(g.nr_tasks, 6); /* 100 and 101 of each rank */
	for (int i = 0; i < g.nr_tasks; i++) {
		assert_int_equal(g.task_orig[i], i % 2 ? 101 : 100);
		if (g.task_rank[i] == 0) /* the first keeps its ids */
			assert_int_equal(g.task_pid[i], g.task_orig[i]);
		else
			assert_true(g.task_pid[i] >= PM_FIRST_NEW_ID);
	}
	/* all four: status 0 */
	rank_profile("prof.2", 2, "node-a", &ev_faults);
	char *all[] = { in[0], in[1], (char *)path_of("prof.2"), in[2] };
	assert_int_equal(merge_prof(path_of("all.prof"), all, 4, true), 0);
	read_merged(path_of("all.prof"), &g);
	assert_int_equal(g.nr_ranks, 4);
	assert_int_equal(g.samples[2], 30);
	assert_int_equal(g.total, 100);
}

static void copy_cut(const char *from, const char *to, long keep)
{
	FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
	assert_non_null(a);
	assert_non_null(b);
	int c;
	for (long i = 0; (keep < 0 || i < keep) && (c = fgetc(a)) != EOF; i++)
		fputc(c, b);
	fclose(a);
	fclose(b);
}

/* A cut profile and a file that is none are skipped; the rest merged. */
static void test_merge_damaged(void **state)
{
	(void)state;
	struct stat sb;
	struct got g;

	rank_profile("d.0", 0, "n", &ev_faults);
	rank_profile("d.1", 1, "n", &ev_faults);
	assert_int_equal(stat(path_of("d.1"), &sb), 0);
	copy_cut(path_of("d.1"), path_of("d.1.cut"), sb.st_size - 10);
	FILE *f = fopen(path_of("d.2"), "w");
	fputs("not a profile\n", f);
	fclose(f);
	char *in[] = { (char *)path_of("d.0"), (char *)path_of("d.1.cut"), (char *)path_of("d.2") };
	assert_int_equal(merge_prof(path_of("d.prof"), in, 3, true), 1);
	read_merged(path_of("d.prof"), &g);
	assert_int_equal(g.nr_ranks, 1);
	assert_int_equal(g.ranks[0], 0);
	assert_int_equal(g.total, 10);
	/* nothing whole: nothing written */
	char *none[] = { in[1], in[2] };
	assert_int_equal(merge_prof(path_of("none.prof"), none, 2, true), 1);
	assert_int_equal(access(path_of("none.prof"), F_OK), -1);
}

/* Other events, a profile without a rank, a rank twice: refused, and an
 * old file at the output's name is left as it was. */
static void test_merge_refused(void **state)
{
	(void)state;
	struct hpm_profile_event other = ev_faults;
	other.config = PERF_COUNT_SW_CPU_CLOCK;
	other.name = "cpu-clock";
	rank_profile("r.0", 0, "n", &ev_faults);
	rank_profile("r.1", 1, "n", &other);
	rank_profile("r.x", -1, "n", &ev_faults);
	FILE *f = fopen(path_of("r.prof"), "w");
	fputs("old", f);
	fclose(f);

	char *ev[] = { (char *)path_of("r.0"), (char *)path_of("r.1") };
	assert_int_equal(merge_prof(path_of("r.prof"), ev, 2, true), 1);
	char *norank[] = { (char *)path_of("r.0"), (char *)path_of("r.x") };
	assert_int_equal(merge_prof(path_of("r.prof"), norank, 2, true), 1);
	char *twice[] = { (char *)path_of("r.0"), (char *)path_of("r.0") };
	assert_int_equal(merge_prof(path_of("r.prof"), twice, 2, true), 1);
	struct stat sb;
	assert_int_equal(stat(path_of("r.prof"), &sb), 0);
	assert_int_equal(sb.st_size, 3);
}

/* The timeline's mode: carried into the merge when the ranks agree;
 * a rank read the other way refused, in either order, nothing written. */
static void test_merge_timeline_mode(void **state)
{
	(void)state;
	tl_mode = HPM_PROFILE_TL_PROCESS;
	rank_profile("m.0", 0, "n", &ev_faults);
	rank_profile("m.1", 1, "n", &ev_faults);
	tl_mode = HPM_PROFILE_TL_THREADS;
	rank_profile("m.2", 2, "n", &ev_faults);
	tl_mode = 0;

	struct hpm_profile *p;
	struct stat sb;
	char *same[] = { (char *)path_of("m.0"), (char *)path_of("m.1") };
	merge_prof(path_of("m.prof"), same, 2, true); /* 1: ranks 2 and 3 missing */
	assert_int_equal(hpm_profile__open(path_of("m.prof"), &p), 0);
	assert_true(hpm_profile__meta(p)->merged);
	assert_int_equal(hpm_profile__meta(p)->timeline_mode, HPM_PROFILE_TL_PROCESS);
	hpm_profile__free(p);
	assert_int_equal(unlink(path_of("m.prof")), 0);

	char *mixed[] = { (char *)path_of("m.0"), (char *)path_of("m.2") };
	assert_int_equal(merge_prof(path_of("m.prof"), mixed, 2, true), 1);
	assert_int_equal(stat(path_of("m.prof"), &sb), -1);
	char *mixed2[] = { (char *)path_of("m.2"), (char *)path_of("m.0") };
	assert_int_equal(merge_prof(path_of("m.prof"), mixed2, 2, true), 1);
	assert_int_equal(stat(path_of("m.prof"), &sb), -1);
}

/* Merged as a tree: (0, 1) and (2, 3), then the two: as at once. */
static void test_merge_tree(void **state)
{
	(void)state;
	struct got g;
	for (int r = 0; r < 4; r++) {
		char name[16];
		snprintf(name, sizeof(name), "t.%d", r);
		rank_profile(name, r, r < 2 ? "a" : "b", &ev_faults);
	}
	char *lo[] = { (char *)path_of("t.0"), (char *)path_of("t.1") };
	char *hi[] = { (char *)path_of("t.2"), (char *)path_of("t.3") };
	assert_int_equal(merge_prof(path_of("lo.prof"), lo, 2, true), 1);
	assert_int_equal(merge_prof(path_of("hi.prof"), hi, 2, true), 1);
	char *both[] = { (char *)path_of("hi.prof"), (char *)path_of("lo.prof") };
	assert_int_equal(merge_prof(path_of("tree.prof"), both, 2, true), 0);
	read_merged(path_of("tree.prof"), &g);
	assert_true(g.task_first);
	assert_int_equal(g.nr_ranks, 4);
	for (int r = 0; r < 4; r++)
		assert_int_equal(g.samples[r], 10 * (r + 1));
	assert_int_equal(g.total, 100);
	assert_int_equal(g.nr_tasks, 8);
	for (int i = 0; i < g.nr_tasks; i++) {
		assert_int_equal(g.task_orig[i], i % 2 ? 101 : 100);
		assert_string_equal(g.hosts[i / 2], g.ranks[i / 2] < 2 ? "a" : "b");
	}
	/* a merge and one of its ranks again: refused */
	char *dup[] = { (char *)path_of("lo.prof"), (char *)path_of("t.1") };
	assert_int_equal(merge_prof(path_of("dup.prof"), dup, 2, true), 1);
	assert_int_equal(access(path_of("dup.prof"), F_OK), -1);
}

/* --rank 0,2,5-7: single ranks and ranges; no negative, reversed or
 * empty item */
static void test_rank_filter(void **state)
{
	(void)state;
	struct rep_filter *f = calloc(1, sizeof(*f));
	char why[256];

	assert_non_null(f);
	assert_true(rep_filter__has_rank(f, 9)); /* no list: every rank */
	assert_false(rep_filter__any(f));
	assert_int_equal(rep_filter__add(f, RF_RANK, "0,2,5-7", why, sizeof(why)), 0);
	assert_true(rep_filter__any(f));
	assert_int_equal(f->nr_ranks, 3);
	bool want[9] = { true, false, true, false, false, true, true, true, false };
	for (uint32_t r = 0; r < 9; r++)
		assert_int_equal(rep_filter__has_rank(f, r), want[r]);
	assert_false(rep_filter__has_rank(f, REP_NO_RANK));
	static const char *const bad[] = { "-1", "3-1", "a", "1,,2", "2-", "-", "1-2-3", "+4",
					   "2147483648" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		assert_int_equal(rep_filter__add(f, RF_RANK, bad[i], why, sizeof(why)), -EINVAL);
		assert_non_null(strstr(why, "--rank"));
	}
	free(f);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[600];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rank_record),
		cmocka_unit_test(test_merge_collide),
		cmocka_unit_test(test_merge_damaged),
		cmocka_unit_test(test_merge_refused),
		cmocka_unit_test(test_merge_timeline_mode),
		cmocka_unit_test(test_merge_tree),
		cmocka_unit_test(test_rank_filter),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
