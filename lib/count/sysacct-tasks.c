/* SPDX-License-Identifier: MIT */
/*
 * System-wide accounting per task, the attribution (sysacct-tasks-internal.h):
 * the task table (one entry per task generation: a reused tid starts a
 * new one at its fork record), the queue that puts every CPU's records
 * in time order, and each record's effect.
 *
 * A sample is a task's switch-out on a CPU with the group's counts: the
 * difference from the CPU's previous record is the task's, unless the
 * leader counted switches the kernel wrote no sample for in between
 * (charge_merged). Records of one CPU arrive in its own order; time
 * order across CPUs matters only for names and generations (a fork on
 * one CPU, the child's first switch on another), so the queue holds
 * records until every CPU's buffer is known to have what precedes them.
 * Samples carry no time stamp (it would cost every switch): each is
 * placed after its CPU's previous record and after the previous read of
 * its buffer, so at most one read early. A child's first samples may
 * then come before its fork record: the entry they make from procfs is
 * provisional, and the fork record adopts it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "count/sysacct-tasks-internal.h"
#include "events/evlist-internal.h"
#include <hpmon/hpmon.h>

/* Task generations kept, exited ones included: a bound on memory (about
 * 100 bytes and 8 per event each). Past it processing fails with
 * -EOVERFLOW; hpmon top starts its accounting afresh long before. */
#define SA_MAX_TASKS (1u << 20)

static size_t hslot(const struct sa_tasks *a, int32_t tid)
{
	return ((uint32_t)tid * 2654435761u) & (a->hcap - 1);
}

static int hgrow(struct sa_tasks *a)
{
	size_t ncap = a->hcap ? a->hcap * 2 : 1024;
	int32_t *k = malloc(ncap * sizeof(*k));
	size_t *v = malloc(ncap * sizeof(*v));
	int32_t *ok = a->hkey;
	size_t *ov = a->hval, ocap = a->hcap;
	if (!k || !v) {
		free(k);
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ncap; i++)
		k[i] = -1;
	a->hkey = k;
	a->hval = v;
	a->hcap = ncap;
	for (size_t i = 0; i < ocap; i++) {
		if (ok[i] < 0)
			continue;
		size_t s = hslot(a, ok[i]);
		while (k[s] >= 0)
			s = (s + 1) & (ncap - 1);
		k[s] = ok[i];
		v[s] = ov[i];
	}
	free(ok);
	free(ov);
	return 0;
}

/* The current generation of @tid, or SIZE_MAX. */
static size_t hget(const struct sa_tasks *a, pid_t tid)
{
	size_t s = hslot(a, tid);
	while (a->hkey[s] >= 0) {
		if (a->hkey[s] == tid)
			return a->hval[s];
		s = (s + 1) & (a->hcap - 1);
	}
	return SIZE_MAX;
}

static int hset(struct sa_tasks *a, pid_t tid, size_t idx)
{
	/* at most half full, so probes stay short */
	if (a->task && (a->nr_task + 1) * 2 > a->hcap) {
		int rc = hgrow(a);
		if (rc)
			return rc;
	}
	size_t s = hslot(a, tid);
	while (a->hkey[s] >= 0 && a->hkey[s] != tid)
		s = (s + 1) & (a->hcap - 1);
	a->hkey[s] = tid;
	a->hval[s] = idx;
	return 0;
}

/* A new task entry, its counts zero; SIZE_MAX when out of memory. */
static size_t add_task(struct sa_tasks *a, pid_t pid, pid_t tid, int cpu)
{
	if (a->nr_task == a->cap_task) {
		size_t ncap = a->cap_task ? a->cap_task * 2 : 256;
		if (ncap > SA_MAX_TASKS) {
			a->overflow = true;
			return SIZE_MAX;
		}
		struct sa_task *nt = realloc(a->task, ncap * sizeof(*nt));
		if (!nt)
			return SIZE_MAX;
		a->task = nt;
		a->cap_task = ncap;
	}
	struct sa_task *t = &a->task[a->nr_task];
	memset(t, 0, sizeof(*t));
	t->counts = calloc(a->nr_ev, sizeof(uint64_t));
	if (!t->counts)
		return SIZE_MAX;
	t->t.pid = pid;
	t->t.tid = tid;
	t->t.cpu = cpu;
	t->t.proc = a->nr_task;
	t->t.cgroup = "";
	t->t.uid = (uid_t)-1;
	return a->nr_task++;
}

/* The file's start into @buf, up to the first newline with @line. */
static void read_start(const char *path, char *buf, size_t len, bool line)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	buf[0] = '\0';
	if (fd < 0)
		return;
	ssize_t n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	if (line)
		buf[strcspn(buf, "\n")] = '\0';
}

static void read_line(const char *path, char *buf, size_t len)
{
	read_start(path, buf, len, true);
}

/* The process's owner and cgroup (v2's line "0::/path", else the first
 * line's path), from procfs. */
static void read_process(struct sa_tasks *a, struct sa_task *t)
{
	const char *proc = hpm_ctx__procfs_root(a->ctx);
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%d", proc, (int)t->t.pid);
	if (stat(path, &st) == 0)
		t->t.uid = st.st_uid;
	if (!a->cgroups)
		return;
	char buf[1024];
	snprintf(path, sizeof(path), "%s/%d/cgroup", proc, (int)t->t.pid);
	read_start(path, buf, sizeof(buf), false);
	/* cgroup v2's line, else (v1 only) the first controller's */
	const char *p = !strncmp(buf, "0::", 3) ? buf : strstr(buf, "\n0::");
	p = p ? strstr(p, "::") + 1 : strchr(buf, ':') ? strchr(strchr(buf, ':') + 1, ':') : NULL;
	if (!p)
		return;
	t->cgroup = strndup(p + 1, strcspn(p + 1, "\n"));
	if (t->cgroup)
		t->t.cgroup = t->cgroup;
}

/* The process entry of @pid for a thread now: its current generation,
 * made (from procfs) if it is not known. */
static size_t process_of(struct sa_tasks *a, pid_t pid)
{
	size_t p = hget(a, pid);
	if (p != SIZE_MAX)
		return p;
	p = add_task(a, pid, pid, -1);
	if (p == SIZE_MAX || hset(a, pid, p))
		return SIZE_MAX;
	char path[256];
	snprintf(path, sizeof(path), "%s/%d/comm", hpm_ctx__procfs_root(a->ctx), (int)pid);
	read_line(path, a->task[p].t.comm, sizeof(a->task[p].t.comm));
	read_process(a, &a->task[p]);
	a->task[p].provisional = !a->snapshotting;
	return p;
}

/* A task that existed before counting: its names from procfs. */
static size_t known_task(struct sa_tasks *a, pid_t pid, pid_t tid)
{
	size_t t = hget(a, tid);
	if (t != SIZE_MAX)
		return t;
	if (pid == tid)
		return process_of(a, pid);
	size_t p = process_of(a, pid);
	if (p == SIZE_MAX)
		return SIZE_MAX;
	t = add_task(a, pid, tid, -1);
	if (t == SIZE_MAX || hset(a, tid, t))
		return SIZE_MAX;
	char path[256];
	snprintf(path, sizeof(path), "%s/%d/task/%d/comm", hpm_ctx__procfs_root(a->ctx),
		 (int)pid, (int)tid);
	read_line(path, a->task[t].t.comm, sizeof(a->task[t].t.comm));
	if (!a->task[t].t.comm[0])
		memcpy(a->task[t].t.comm, a->task[p].t.comm, sizeof(a->task[t].t.comm));
	a->task[t].t.proc = p;
	a->task[t].t.uid = a->task[p].t.uid;
	a->task[t].t.cgroup = a->task[p].t.cgroup;
	a->task[t].provisional = !a->snapshotting;
	return t;
}

int sa_tasks_init(struct sa_tasks *a, const int *cpus, size_t nr_cpus)
{
	a->cpu = calloc(nr_cpus, sizeof(*a->cpu));
	if (!a->cpu)
		return -ENOMEM;
	a->nr_cpus = nr_cpus;
	for (size_t c = 0; c < nr_cpus; c++) {
		a->cpu[c].cpu = cpus[c];
		a->cpu[c].exited = SIZE_MAX;
		a->cpu[c].last = calloc(a->nr_ev, sizeof(uint64_t));
		if (!a->cpu[c].last)
			return -ENOMEM;
	}
	int rc = hgrow(a);
	if (rc)
		return rc;
	for (size_t c = 0; c < a->nr_cpus; c++) {
		size_t t = add_task(a, 0, 0, a->cpu[c].cpu);
		if (t == SIZE_MAX)
			return -ENOMEM;
		snprintf(a->task[t].t.comm, sizeof(a->task[t].t.comm), "swapper/%d", a->cpu[c].cpu);
		a->task[t].t.uid = 0;
		a->cpu[c].idle = t;
	}
	a->lost_row = add_task(a, HPM_SYSTASK_LOST, HPM_SYSTASK_LOST, -1);
	a->unattr_row = add_task(a, HPM_SYSTASK_UNATTRIBUTED, HPM_SYSTASK_UNATTRIBUTED, -1);
	if (a->lost_row == SIZE_MAX || a->unattr_row == SIZE_MAX)
		return -ENOMEM;
	snprintf(a->task[a->lost_row].t.comm, 16, "[lost]");
	snprintf(a->task[a->unattr_row].t.comm, 16, "[unattributed]");
	return 0;
}

void sa_tasks_free(struct sa_tasks *a)
{
	for (size_t t = 0; t < a->nr_task; t++) {
		free(a->task[t].counts);
		free(a->task[t].cgroup);
	}
	free(a->task);
	for (size_t c = 0; a->cpu && c < a->nr_cpus; c++)
		free(a->cpu[c].last);
	free(a->cpu);
	free(a->vidx);
	free(a->hkey);
	free(a->hval);
	free(a->bytes);
	free(a->rec);
	free(a->tmp);
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

int sa_tasks_snapshot(struct sa_tasks *a)
{
	const char *proc = hpm_ctx__procfs_root(a->ctx);
	DIR *d = opendir(proc);
	struct dirent *e;
	int rc = 0;
	if (!d)
		return -errno;
	a->snapshotting = true;
	while ((e = readdir(d))) {
		if (!all_digits(e->d_name))
			continue;
		pid_t pid = (pid_t)strtol(e->d_name, NULL, 10);
		char path[256];
		snprintf(path, sizeof(path), "%s/%d/task", proc, (int)pid);
		DIR *td = opendir(path);
		if (!td)
			continue; /* gone already */
		struct dirent *te;
		while ((te = readdir(td))) {
			if (!all_digits(te->d_name))
				continue;
			pid_t tid = (pid_t)strtol(te->d_name, NULL, 10);
			if (known_task(a, pid, tid) == SIZE_MAX) {
				rc = -ENOMEM;
				break;
			}
		}
		closedir(td);
		if (rc)
			break;
	}
	closedir(d);
	a->snapshotting = false;
	return rc;
}

/* ---- the queue ---- */

/* sample_id_all's tail (TID, TIME: SA_ID_TAIL bytes) on the side band's
 * records (fork, comm, exit, and a LOST record the side band wrote: 24
 * bytes, and the tail). */
uint64_t sa_rec_time(const void *rec, size_t len)
{
	const struct perf_event_header *h = rec;
	uint64_t t = 0;
	bool tail = h->type == PERF_RECORD_FORK || h->type == PERF_RECORD_EXIT ||
		    h->type == PERF_RECORD_COMM ||
		    (h->type == PERF_RECORD_LOST && len >= 24 + SA_ID_TAIL);
	if (tail && len >= sizeof(*h) + SA_ID_TAIL)
		memcpy(&t, (const char *)rec + len - 8, 8);
	return t;
}

/* Records are kept 8-byte aligned in the batch, as in the kernel's
 * buffer: their headers are read in place. */
#define SA_ALIGN(n) (((n) + 7) & ~(size_t)7)

int sa_tasks_queue(struct sa_tasks *a, int slot, const void *rec, size_t len, uint64_t time)
{
	a->nr_bytes = SA_ALIGN(a->nr_bytes);
	if (a->nr_bytes + len > a->cap_bytes) {
		size_t ncap = a->cap_bytes ? a->cap_bytes : 65536;
		while (ncap < a->nr_bytes + len)
			ncap *= 2;
		unsigned char *nb = realloc(a->bytes, ncap);
		if (!nb)
			return -ENOMEM;
		a->bytes = nb;
		a->cap_bytes = ncap;
	}
	if (a->nr_rec == a->cap_rec) {
		size_t ncap = a->cap_rec ? a->cap_rec * 2 : 1024;
		struct sa_rec *nr = realloc(a->rec, ncap * sizeof(*nr));
		if (!nr)
			return -ENOMEM;
		a->rec = nr;
		a->cap_rec = ncap;
	}
	/* a CPU's records keep their order whatever their time stamps say
	 * (sync's own come from clock_gettime, the kernel's from its clock) */
	if (time < a->cpu[slot].qtime)
		time = a->cpu[slot].qtime;
	a->cpu[slot].qtime = time;
	memcpy(a->bytes + a->nr_bytes, rec, len);
	a->rec[a->nr_rec++] = (struct sa_rec){ .time = time, .seq = a->seq++,
					       .off = a->nr_bytes, .len = len, .slot = slot };
	a->nr_bytes += len;
	return 0;
}

void sa_tasks_read_at(struct sa_tasks *a, int slot, uint64_t time)
{
	if (a->cpu[slot].qtime < time)
		a->cpu[slot].qtime = time;
}

static inline bool rec_after(const struct sa_rec *p, const struct sa_rec *q)
{
	return p->time != q->time ? p->time > q->time : p->seq > q->seq;
}

/* The end of the run in order that starts at @i. */
static size_t run_end(const struct sa_rec *r, size_t i, size_t n)
{
	while (++i < n && !rec_after(&r[i - 1], &r[i]))
		;
	return i;
}

/*
 * Put the queue in time order (ties: order of arrival). It is made of
 * runs in order already: each CPU's buffer as one read found it, and
 * what the last round kept. Neighbouring runs are merged until one is
 * left: O(n log runs), where a general sort costs O(n log n) comparisons
 * through a pointer, at every sample (the larger part of what
 * attributing a sample cost).
 */
static int sort_queue(struct sa_tasks *a)
{
	size_t n = a->nr_rec;
	if (run_end(a->rec, 0, n) == n)
		return 0;
	if (a->cap_tmp < a->cap_rec) {
		struct sa_rec *t = realloc(a->tmp, a->cap_rec * sizeof(*t));
		if (!t)
			return -ENOMEM;
		a->tmp = t;
		a->cap_tmp = a->cap_rec;
	}
	struct sa_rec *src = a->rec, *dst = a->tmp;
	size_t runs;
	do {
		size_t i = 0, o = 0;
		for (runs = 0; i < n; runs++) {
			size_t m = run_end(src, i, n);
			size_t e = m < n ? run_end(src, m, n) : n;
			size_t x = i, y = m;
			while (x < m && y < e)
				dst[o++] = rec_after(&src[x], &src[y]) ? src[y++] : src[x++];
			memcpy(dst + o, src + x, (m - x) * sizeof(*dst));
			o += m - x;
			memcpy(dst + o, src + y, (e - y) * sizeof(*dst));
			o += e - y;
			i = e;
		}
		struct sa_rec *t = src;
		src = dst;
		dst = t;
	} while (runs > 1);
	if (src != a->rec) {
		size_t c = a->cap_rec;
		a->tmp = a->rec;
		a->rec = src;
		a->cap_rec = a->cap_tmp;
		a->cap_tmp = c;
	}
	return 0;
}

/* ---- each record's effect ---- */

/* @v: the group's values, unaligned (the leader's first) */
static void charge(struct sa_tasks *a, size_t slot, size_t t, const unsigned char *v)
{
	struct sa_books *sc = &a->cpu[slot];
	for (size_t i = 0; i < a->nr_ev; i++) {
		uint64_t x;
		memcpy(&x, v + 8 * a->vidx[i], 8);
		a->task[t].counts[i] += x - sc->last[i];
		sc->last[i] = x;
	}
	a->task[t].t.seen = true;
}

/*
 * A read whose interval holds switch-outs the kernel counted but wrote no
 * sample for (@missing of them: it writes nothing at all in the context
 * of some tasks, docs/hpmon-top.md): the turns of the tasks that ran then
 * and @t's own are merged, and no read tells them apart. Of the leader,
 * @t has its own switch (@own) and the others' switches go to the LOST
 * row. The other events' counts over the merged turns go to @t: the
 * silent tasks seen are the idle task and a system agent that count next
 * to nothing there, while @t's turn holds its page faults and its time,
 * which moving the whole read to LOST would take from it.
 */
static void charge_merged(struct sa_tasks *a, size_t slot, size_t t, uint64_t own,
			  uint64_t missing, const unsigned char *v)
{
	struct sa_books *sc = &a->cpu[slot];
	for (size_t i = 0; i < a->nr_ev; i++) {
		uint64_t x, d;
		memcpy(&x, v + 8 * a->vidx[i], 8);
		d = x - sc->last[i];
		sc->last[i] = x;
		/* the leader: one switch per switch-out is @t's */
		uint64_t mine = a->vidx[i] ? d : own;
		a->task[t].counts[i] += mine;
		a->task[a->lost_row].counts[i] += d - mine;
	}
	a->task[t].t.seen = true;
	a->task[a->lost_row].t.seen = true;
	a->unsampled += missing;
}

/* @v: the group's values (nr_vals, the leader's first). @own: 1 for a
 * switch-out sample (the leader counted its switch), 0 for a read at
 * sync. */
static void on_counts(struct sa_tasks *a, size_t slot, size_t t, const unsigned char *v,
		      uint64_t own)
{
	struct sa_books *sc = &a->cpu[slot];
	uint64_t lead;
	memcpy(&lead, v, 8);
	/* every switch-out since the last read is sampled, this one's
	 * included, unless the kernel skipped some */
	uint64_t switches = lead - sc->lead;
	if (sc->after_lost) {
		charge(a, slot, a->lost_row, v);
		sc->after_lost = false;
	} else if (switches > own) {
		charge_merged(a, slot, t, own, switches - own, v);
	} else {
		charge(a, slot, t, v);
	}
	sc->lead = lead;
}

static int on_sample(struct sa_tasks *a, size_t slot, const unsigned char *p, size_t len)
{
	uint32_t pid, tid;
	if (len < SA_SAMPLE_READ_OFF)
		return -EIO;
	memcpy(&pid, p + 8, 4);
	memcpy(&tid, p + 12, 4);
	struct sa_books *sc = &a->cpu[slot];
	size_t t;
	if (tid == UINT32_MAX)
		/* the last switch of a task its parent has reaped already:
		 * the kernel names it -1, but this CPU wrote its exit record
		 * and no other task went out since; else whose it was is not
		 * known */
		t = sc->exited != SIZE_MAX ? sc->exited : a->lost_row;
	else if (tid == 0)
		t = sc->idle; /* and tasks of another pid namespace */
	else
		t = known_task(a, (pid_t)pid, (pid_t)tid);
	if (t == SIZE_MAX)
		return -ENOMEM;
	/* preempted on its way out, the task is still to go out for good */
	if (tid == UINT32_MAX || t != sc->exited)
		sc->exited = SIZE_MAX;
	/* the group's read (sa_sample_lead): nr, [times,] values */
	size_t lo = sa_sample_lead(a);
	uint64_t nr;
	if (len < lo + a->nr_vals * 8)
		return -EIO;
	memcpy(&nr, p + SA_SAMPLE_READ_OFF, 8);
	if (nr != a->nr_vals)
		return -EIO;
	if (a->read_times) {
		memcpy(&sc->enabled, p + SA_SAMPLE_READ_OFF + 8, 8);
		memcpy(&sc->running, p + SA_SAMPLE_READ_OFF + 16, 8);
	}
	on_counts(a, slot, t, p + lo, 1);
	return 0;
}

static int on_fork(struct sa_tasks *a, const unsigned char *p, size_t len)
{
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
	if (len < 8 + 24)
		return -EIO;
	memcpy(&pid, p + 8, 4);
	memcpy(&ppid, p + 12, 4);
	memcpy(&tid, p + 16, 4);
	memcpy(&ptid, p + 20, 4);
	memcpy(&time, p + 24, 8);
	if (tid == 0)
		return 0;
	size_t parent = ptid ? known_task(a, (pid_t)ppid, (pid_t)ptid) : SIZE_MAX;
	/* its samples on another CPU may have come first (they have no
	 * time stamp: sa_tasks_queue) and made it from procfs: it is this task */
	size_t t = hget(a, (pid_t)tid);
	bool adopt = t != SIZE_MAX && a->task[t].provisional && !a->task[t].t.exit_ns &&
		     a->task[t].t.pid == (pid_t)pid;
	if (!adopt) {
		t = add_task(a, (pid_t)pid, (pid_t)tid, -1);
		if (t == SIZE_MAX || hset(a, (pid_t)tid, t))
			return -ENOMEM;
	}
	struct sa_task *nt = &a->task[t];
	nt->provisional = false;
	nt->t.start_ns = time;
	if (parent != SIZE_MAX && !nt->t.comm[0])
		memcpy(nt->t.comm, a->task[parent].t.comm, sizeof(nt->t.comm));
	if (pid != tid) {
		size_t pr = known_task(a, (pid_t)pid, (pid_t)pid);
		nt = &a->task[t]; /* the table may have moved */
		if (pr != SIZE_MAX) {
			nt->t.proc = pr;
			nt->t.uid = a->task[pr].t.uid;
			nt->t.cgroup = a->task[pr].t.cgroup;
		}
		return 0;
	}
	/* a new process: owner and cgroup as now (read already if adopted),
	 * else its parent's (it may have exited already) */
	if (!adopt)
		read_process(a, nt);
	if (parent != SIZE_MAX) {
		const struct sa_task *pp = &a->task[a->task[parent].t.proc];
		if (nt->t.uid == (uid_t)-1)
			nt->t.uid = pp->t.uid;
		if (!nt->cgroup && a->cgroups)
			nt->t.cgroup = pp->t.cgroup;
	}
	return 0;
}

/* Written in the exiting task's context, on its CPU: its switch-out
 * there is its last (or, preempted on the way out, the next to last). */
static int on_exit_rec(struct sa_tasks *a, size_t slot, const unsigned char *p, size_t len)
{
	uint32_t tid;
	uint64_t time;
	if (len < 8 + 24)
		return -EIO;
	memcpy(&tid, p + 16, 4);
	memcpy(&time, p + 24, 8);
	size_t t = tid ? hget(a, (pid_t)tid) : SIZE_MAX;
	if (t != SIZE_MAX)
		a->task[t].t.exit_ns = time;
	a->cpu[slot].exited = t;
	return 0;
}

static int on_comm(struct sa_tasks *a, const unsigned char *p, size_t len)
{
	uint32_t pid, tid;
	if (len < 8 + 8 + SA_ID_TAIL)
		return -EIO;
	memcpy(&pid, p + 8, 4);
	memcpy(&tid, p + 12, 4);
	size_t t = known_task(a, (pid_t)pid, (pid_t)tid);
	if (t == SIZE_MAX)
		return -ENOMEM;
	size_t n = len - 16 - SA_ID_TAIL;
	if (n > sizeof(a->task[t].t.comm) - 1)
		n = sizeof(a->task[t].t.comm) - 1;
	memcpy(a->task[t].t.comm, p + 16, n);
	a->task[t].t.comm[n] = '\0';
	return 0;
}

static int on_sync(struct sa_tasks *a, size_t slot, const unsigned char *p, size_t len)
{
	uint32_t pid, tid, attributed;
	if (len < 8 + 24)
		return -EIO;
	memcpy(&pid, p + 8, 4);
	memcpy(&tid, p + 12, 4);
	memcpy(&attributed, p + 16, 4);
	size_t t = attributed ? known_task(a, (pid_t)pid, (pid_t)tid) : a->unattr_row;
	if (t == SIZE_MAX)
		return -ENOMEM;
	/* sa_sync_rec: then time, nr, enabled, running, values */
	uint64_t nr;
	if (len < 32 + 24)
		return -EIO;
	memcpy(&nr, p + 32, 8);
	if (nr != a->nr_vals || len < 56 + nr * 8)
		return -EIO;
	memcpy(&a->cpu[slot].enabled, p + 40, 8);
	memcpy(&a->cpu[slot].running, p + 48, 8);
	on_counts(a, slot, t, p + 56, 0);
	return 0;
}

static int handle(struct sa_tasks *a, const struct sa_rec *r)
{
	const unsigned char *p = a->bytes + r->off;
	const struct perf_event_header *h = (const void *)p;
	size_t slot = (size_t)r->slot;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		return on_sample(a, slot, p, r->len);
	case PERF_RECORD_FORK:
		return on_fork(a, p, r->len);
	case PERF_RECORD_EXIT:
		return on_exit_rec(a, slot, p, r->len);
	case PERF_RECORD_COMM:
		return on_comm(a, p, r->len);
	case PERF_RECORD_LOST: {
		uint64_t n;
		if (r->len < 8 + 16)
			return -EIO;
		memcpy(&n, p + 16, 8);
		a->lost += n;
		a->cpu[slot].after_lost = true;
		return 0;
	}
	case SA_REC_SYNC:
		return on_sync(a, slot, p, r->len);
	default:
		return 0;
	}
}

int sa_tasks_process(struct sa_tasks *a, uint64_t cutoff)
{
	size_t n = 0, keep = 0;
	int rc = 0;

	if (!a->nr_rec)
		return 0; /* nothing queued yet: no array to sort */
	if ((rc = sort_queue(a)))
		return rc;
	while (n < a->nr_rec && a->rec[n].time <= cutoff) {
		rc = handle(a, &a->rec[n]);
		n++;
		/* a malformed record is dropped: the kernel wrote it */
		if (rc == -ENOMEM || rc == -EOVERFLOW)
			break;
	}
	/* keep what is too recent, in a buffer of its own: sorted by time,
	 * the records' bytes are in no order, so moving them in place could
	 * overwrite one still to be moved */
	size_t off = 0, need = 0;
	for (size_t i = n; i < a->nr_rec; i++)
		need += SA_ALIGN(a->rec[i].len);
	unsigned char *nb = need ? malloc(need) : NULL;
	if (need && !nb)
		return -ENOMEM;
	for (size_t i = n; i < a->nr_rec; i++) {
		struct sa_rec r = a->rec[i];
		memcpy(nb + off, a->bytes + r.off, r.len);
		r.off = off;
		off += SA_ALIGN(r.len);
		a->rec[keep++] = r;
	}
	if (nb) {
		memcpy(a->bytes, nb, off);
		free(nb);
	}
	a->nr_rec = keep;
	a->nr_bytes = off;
	if (rc == -ENOMEM && a->overflow)
		rc = -EOVERFLOW;
	return rc == -ENOMEM || rc == -EOVERFLOW ? rc : (int)n;
}
