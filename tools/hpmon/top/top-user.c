/* SPDX-License-Identifier: MIT */
/*
 * hpmon top --user (top.h): the calling user's own threads, each counted
 * by a session of its own opened when a refresh first finds it in
 * procfs, and read at every refresh. What this misses, and
 * docs/hpmon-top.md says: tasks that start and end between two
 * refreshes, what a thread did before it was found, other users' tasks,
 * idle and the kernel's threads. A thread that ends keeps its last
 * counts; a reused thread id (another start time) is another row.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hpmon/session.h>
#include <hpmon/sysacct.h>
#include "top/top.h"

struct tu_task {
	struct hpm_systask t;
	unsigned long long start;  /* procfs start time (clock ticks since boot) */
	struct hpm_session *s;     /* NULL once it ended or could not be opened */
	uint64_t *counts;          /* [nr_ev] */
	bool present;              /* seen in this refresh */
};

struct top_user {
	struct hpm_evlist *list;
	size_t nr_ev;
	enum sysrows_by by;
	uid_t uid;
	struct tu_task *task;
	size_t nr, cap;
};

struct top_user *top_user_new(struct hpm_evlist *list, enum sysrows_by by)
{
	struct top_user *u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	u->list = list;
	u->nr_ev = hpm_evlist__count(list);
	u->by = by;
	u->uid = geteuid();
	return u;
}

void top_user_free(struct top_user *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->nr; i++) {
		hpm_session__free(u->task[i].s);
		free(u->task[i].counts);
	}
	free(u->task);
	free(u);
}

/* comm and start time of /proc/PID/task/TID/stat: 0, or -1 if gone. */
static int read_stat(pid_t pid, pid_t tid, char comm[16], unsigned long long *start)
{
	char path[96], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* "tid (comm) state ..." where comm may hold spaces and ')' */
	char *l = strchr(buf, '('), *r = strrchr(buf, ')');
	if (!l || !r || r < l)
		return -1;
	size_t cl = (size_t)(r - l - 1) < 15 ? (size_t)(r - l - 1) : 15;
	memcpy(comm, l + 1, cl);
	comm[cl] = '\0';
	/* field 22 (starttime): 20 fields after the state */
	char *p = r + 2, *save = NULL, *tok = strtok_r(p, " ", &save);
	for (int k = 3; tok && k < 22; k++)
		tok = strtok_r(NULL, " ", &save);
	*start = tok ? strtoull(tok, NULL, 10) : 0;
	return 0;
}

static struct tu_task *find(struct top_user *u, pid_t tid, unsigned long long start)
{
	for (size_t i = 0; i < u->nr; i++)
		if (u->task[i].t.tid == tid && u->task[i].start == start)
			return &u->task[i];
	return NULL;
}

static int add(struct top_user *u, pid_t pid, pid_t tid, const char *comm,
	       unsigned long long start)
{
	if (u->nr == u->cap) {
		size_t ncap = u->cap ? u->cap * 2 : 64;
		struct tu_task *v = realloc(u->task, ncap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		u->task = v;
		u->cap = ncap;
	}
	struct tu_task *k = &u->task[u->nr];
	memset(k, 0, sizeof(*k));
	k->counts = calloc(u->nr_ev ? u->nr_ev : 1, sizeof(uint64_t));
	if (!k->counts)
		return -ENOMEM;
	k->t.pid = pid;
	k->t.tid = tid;
	k->t.cpu = -1;
	k->t.uid = u->uid;
	k->t.cgroup = "";
	k->t.proc = u->nr;
	k->start = start;
	k->present = true;
	snprintf(k->t.comm, sizeof(k->t.comm), "%s", comm);
	struct hpm_session_opts so = { .sz = sizeof(so), .target = HPM_TARGET_TIDS,
				       .ids = &tid, .nr_ids = 1 };
	k->s = hpm_session__new(u->list, &so);
	if (k->s && (hpm_session__open(k->s) || hpm_session__enable(k->s))) {
		hpm_session__free(k->s);
		k->s = NULL; /* gone already, or not ours to count: no row */
	}
	u->nr++;
	return 0;
}

static bool digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* Find the user's threads: new ones attached, known ones marked present. */
static int scan(struct top_user *u)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int rc = 0;
	if (!d)
		return -errno;
	for (size_t i = 0; i < u->nr; i++)
		u->task[i].present = false;
	while (!rc && (e = readdir(d))) {
		char path[64];
		struct stat st;
		if (!digits(e->d_name))
			continue;
		snprintf(path, sizeof(path), "/proc/%s", e->d_name);
		if (stat(path, &st) || st.st_uid != u->uid)
			continue;
		pid_t pid = (pid_t)strtol(e->d_name, NULL, 10);
		snprintf(path, sizeof(path), "/proc/%s/task", e->d_name);
		DIR *td = opendir(path);
		if (!td)
			continue;
		struct dirent *te;
		while (!rc && (te = readdir(td))) {
			char comm[16];
			unsigned long long start;
			if (!digits(te->d_name))
				continue;
			pid_t tid = (pid_t)strtol(te->d_name, NULL, 10);
			if (read_stat(pid, tid, comm, &start))
				continue;
			struct tu_task *k = find(u, tid, start);
			if (k) {
				k->present = true;
				snprintf(k->t.comm, sizeof(k->t.comm), "%s", comm);
			} else {
				rc = add(u, pid, tid, comm, start);
			}
		}
		closedir(td);
	}
	closedir(d);
	return rc;
}

static const struct hpm_systask *src_task(const void *src, size_t i)
{
	const struct top_user *u = src;
	return &u->task[i].t;
}

static uint64_t src_count(const void *src, size_t i, size_t ev)
{
	const struct top_user *u = src;
	return u->task[i].counts[ev];
}

int top_user_update(struct top_user *u, struct sysrows *rows)
{
	int rc = scan(u);
	if (rc)
		return rc;
	for (size_t i = 0; i < u->nr; i++) {
		struct tu_task *k = &u->task[i];
		/* its process: the entry of its main thread */
		k->t.proc = i;
		for (size_t j = 0; j < u->nr && k->t.pid != k->t.tid; j++)
			if (u->task[j].t.tid == k->t.pid && u->task[j].t.pid == k->t.pid &&
			    (u->task[j].present || !k->present)) {
				k->t.proc = j;
				break;
			}
		if (!k->s)
			continue;
		for (size_t ev = 0; ev < u->nr_ev; ev++) {
			struct hpm_count c;
			if (hpm_session__read(k->s, ev, &c) == 0 && !c.err)
				k->counts[ev] = c.value;
		}
		k->t.seen = true;
		if (!k->present) {
			/* ended: its counts are final */
			k->t.exit_ns = 1;
			hpm_session__free(k->s);
			k->s = NULL;
		}
	}
	struct sysrows_src src = { .src = u, .nr = u->nr, .task = src_task, .count = src_count };
	return sysrows_update_from(rows, &src);
}
