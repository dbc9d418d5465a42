/* SPDX-License-Identifier: MIT */
/*
 * System-wide accounting per task (include/hpmon/sysacct.h): the CPUs'
 * groups, opened, enabled, read and synced. sysacct-tasks.c attributes
 * their records (sysacct-tasks-internal.h), given nothing of this file's.
 *
 * Why a sampled context-switches leader: the kernel emits its sample in
 * the switched-out task's context, before the next one runs, and
 * PERF_SAMPLE_READ puts the whole group's counts in it; the difference
 * from the CPU's previous sample is then exactly that task's share, for
 * every event of the group, with no per-task state in the kernel and
 * nothing lost when a task exits (its last switch-out is sampled too).
 * docs/hpmon-top.md gives the measured cost and the alternatives.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "count/sysacct-internal.h"
#include "count/sysacct-tasks-internal.h"
#include "core/cpus-internal.h"
#include "events/evlist-internal.h"
#include "sys/opts.h"
#include "sys/perf.h"
#include "sys/ring.h"

#define SA_DEFAULT_PAGES 256 /* 1 MiB per CPU: ~10000 samples of 8 events */

struct sa_cpu {
	int cpu;
	int *fd;                 /* [nr_ev + 1]: the leader, then the events */
	int side_fd;             /* the side band, into the leader's buffer */
	struct hpm_ring ring;
	uint64_t qlead;          /* the leader's count in its last queued sample */
};

/*
 * Ownership: struct hpm_sysacct owns everything below (the CPUs' buffers
 * and descriptors, the attribution's books and task table); it borrows
 * the event list and its context.
 */
struct hpm_sysacct {
	struct hpm_evlist *list;
	struct hpm_ctx *ctx;
	size_t nr_ev;
	/* the group's times come from the member fd[time_fd]'s own read, at
	 * sync, when it has members (tk.read_times false) */
	size_t time_fd;
	size_t nr_cpus;
	struct sa_cpu *cpu;
	size_t ring_pages;
	bool opened, enabled;
	size_t failed_ev;
	struct sa_tasks tk;      /* the attribution: the group's layout, the books */
	unsigned char scratch[HPM_RING_RECORD_MAX];
};

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* An event the leader counts already: every context switch, in every
 * mode (a second event would cost a read at every switch for nothing). */
static bool same_as_leader(const struct perf_event_attr *e)
{
	return e->type == PERF_TYPE_SOFTWARE && e->config == PERF_COUNT_SW_CONTEXT_SWITCHES &&
	       !e->exclude_user && !e->exclude_kernel && !e->exclude_hv && !e->exclude_idle;
}

struct hpm_sysacct *hpm_sysacct__new(struct hpm_evlist *list, const struct hpm_sysacct_opts *opts)
{
	struct hpm_sysacct *a;
	int *cpus = NULL;
	size_t n = 0;
	int rc;

	if (!list || !list->nr || (opts && !HPM_OPTS_VALID(opts, hpm_sysacct_opts))) {
		errno = EINVAL;
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->list = list;
	a->ctx = list->ctx;
	a->nr_ev = list->nr;
	a->failed_ev = SIZE_MAX;
	a->ring_pages = HPM_OPTS_GET(opts, ring_pages, 0);
	if (!a->ring_pages)
		a->ring_pages = SA_DEFAULT_PAGES;
	a->tk.ctx = a->ctx;
	a->tk.nr_ev = a->nr_ev;
	a->tk.cgroups = HPM_OPTS_GET(opts, cgroups, false);
	a->tk.vidx = malloc(a->nr_ev * sizeof(*a->tk.vidx));
	if (!a->tk.vidx) {
		rc = -ENOMEM;
		goto fail;
	}
	a->tk.nr_vals = 1;
	for (size_t i = 0; i < a->nr_ev; i++)
		a->tk.vidx[i] = same_as_leader(hpm_event__attr(&list->ev[i])) ? 0 : a->tk.nr_vals++;
	a->tk.read_times = a->tk.nr_vals == 1;
	if (a->ring_pages & (a->ring_pages - 1)) {
		rc = -EINVAL;
		goto fail;
	}
	const int *oc = HPM_OPTS_GET(opts, cpus, NULL);
	size_t on = HPM_OPTS_GET(opts, nr_cpus, 0);
	if (oc && on) {
		cpus = malloc(on * sizeof(*cpus));
		if (!cpus) {
			rc = -ENOMEM;
			goto fail;
		}
		memcpy(cpus, oc, on * sizeof(*cpus));
		n = on;
	} else if ((rc = hpm__online_cpus(a->ctx, &cpus, &n))) {
		goto fail;
	}
	a->cpu = calloc(n, sizeof(*a->cpu));
	if (!a->cpu) {
		rc = -ENOMEM;
		goto fail;
	}
	a->nr_cpus = n;
	for (size_t c = 0; c < n; c++) {
		struct sa_cpu *sc = &a->cpu[c];
		sc->cpu = cpus[c];
		sc->fd = malloc((a->nr_ev + 1) * sizeof(int));
		if (!sc->fd) {
			rc = -ENOMEM;
			goto fail;
		}
		for (size_t i = 0; i <= a->nr_ev; i++)
			sc->fd[i] = -1;
		sc->side_fd = -1;
	}
	rc = sa_tasks_init(&a->tk, cpus, n);
	free(cpus);
	cpus = NULL;
	if (rc)
		goto fail;
	return a;
fail:
	free(cpus);
	hpm_sysacct__free(a);
	errno = -rc;
	return NULL;
}

void hpm_sysacct__free(struct hpm_sysacct *a)
{
	if (!a)
		return;
	for (size_t c = 0; c < a->nr_cpus; c++) {
		struct sa_cpu *sc = &a->cpu[c];
		hpm_ring__unmap(&sc->ring);
		if (sc->side_fd >= 0)
			close(sc->side_fd);
		for (size_t i = 0; sc->fd && i <= a->nr_ev; i++)
			if (sc->fd[i] >= 0)
				close(sc->fd[i]);
		free(sc->fd);
	}
	free(a->cpu);
	sa_tasks_free(&a->tk);
	free(a);
}

/* The leader: a switch-out sample with the group's counts in it. What
 * each sample holds is what it costs the switch (docs/hpmon-top.md
 * measures each field), so it holds only the task and the counts: not
 * the CPU (each CPU has its buffer), nor the group's times (the same at
 * every sample of a pinned software group: read at sync, from a member's
 * own read or with the values when there is none), nor a time stamp
 * (the records of one CPU come in order; the side band has the times
 * that order the CPUs: sa_tasks_queue). */
static void leader_attr(const struct hpm_sysacct *a, struct perf_event_attr *pa, size_t data_len)
{
	memset(pa, 0, sizeof(*pa));
	pa->size = sizeof(*pa);
	pa->type = PERF_TYPE_SOFTWARE;
	pa->config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	pa->sample_period = 1;
	pa->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_READ;
	pa->read_format = PERF_FORMAT_GROUP;
	if (a->tk.read_times)
		pa->read_format |= PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	pa->disabled = 1;
	/* the side band's clock: the kernel keeps one clock per buffer */
	pa->use_clockid = 1;
	pa->clockid = CLOCK_MONOTONIC;
	pa->watermark = 1;
	pa->wakeup_watermark = (uint32_t)(data_len / 4);
}

/* The side band, written into the leader's buffer: fork, comm and exit
 * records that name the tasks, each with its time (CLOCK_MONOTONIC, as
 * sync's own records). Not switch records: they would name the tasks
 * whose switch-out the kernel counts without a sample (sysacct-tasks.c,
 * charge_merged), but two more records at every switch cost more than
 * the sample itself. */
static void side_attr(struct perf_event_attr *pa)
{
	memset(pa, 0, sizeof(*pa));
	pa->size = sizeof(*pa);
	pa->type = PERF_TYPE_SOFTWARE;
	pa->config = PERF_COUNT_SW_DUMMY;
	pa->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	pa->disabled = 1;
	pa->task = 1;
	pa->comm = 1;
	pa->comm_exec = 1;
	pa->sample_id_all = 1;
	pa->use_clockid = 1;
	pa->clockid = CLOCK_MONOTONIC;
}

static int open_cpu(struct hpm_sysacct *a, struct sa_cpu *sc, size_t data_len, long page)
{
	struct perf_event_attr pa;
	int fd;

	leader_attr(a, &pa, data_len);
	fd = hpm__perf_open(&pa, -1, sc->cpu, -1, PERF_FLAG_FD_CLOEXEC, 0, NULL);
	if (fd < 0) {
		a->failed_ev = SIZE_MAX;
		return fd;
	}
	sc->fd[0] = fd;
	for (size_t i = 0; i < a->nr_ev; i++) {
		const struct hpm_event *ev = &a->list->ev[i];
		enum hpm_event_kind k = hpm_event__kind(ev);
		if (k == HPM_EV_LOCATION || k == HPM_EV_SWCOUNTER) {
			a->failed_ev = i;
			return -EOPNOTSUPP;
		}
		if (!a->tk.vidx[i])
			continue; /* the leader's count */
		struct perf_event_attr ea = *hpm_event__attr(ev);
		ea.size = sizeof(ea);
		ea.disabled = 0;
		ea.inherit = 0;
		ea.inherit_stat = 0;
		ea.enable_on_exec = 0;
		ea.freq = 0;
		ea.sample_period = 0;
		ea.sample_type = 0;
		/* its own read (not the group's) gives the group's times */
		ea.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		/* the kernel refuses a group whose members' clocks differ */
		ea.use_clockid = 1;
		ea.clockid = CLOCK_MONOTONIC;
		fd = hpm__perf_open(&ea, -1, sc->cpu, sc->fd[0], PERF_FLAG_FD_CLOEXEC,
				    HPM_FALLBACK_GUEST | HPM_FALLBACK_USER, NULL);
		if (fd < 0) {
			a->failed_ev = i;
			return fd;
		}
		sc->fd[i + 1] = fd;
		if (!a->time_fd)
			a->time_fd = i + 1;
	}
	int rc = hpm_ring__map(&sc->ring, sc->fd[0], (size_t)page, data_len);
	if (rc)
		return rc;
	side_attr(&pa);
	fd = hpm__perf_open(&pa, -1, sc->cpu, -1, PERF_FLAG_FD_CLOEXEC, 0, NULL);
	if (fd < 0) {
		a->failed_ev = SIZE_MAX;
		return fd;
	}
	sc->side_fd = fd;
	return ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, sc->fd[0]) < 0 ? -errno : 0;
}

int hpm_sysacct__open(struct hpm_sysacct *a)
{
	long page = sysconf(_SC_PAGESIZE);
	if (!a || a->opened)
		return -EINVAL;
	if (page <= 0)
		return -EINVAL;
	size_t data_len = (size_t)page * a->ring_pages;
	for (size_t c = 0; c < a->nr_cpus; c++) {
		int rc = open_cpu(a, &a->cpu[c], data_len, page);
		if (rc)
			return rc;
	}
	a->opened = true;
	return 0;
}

size_t hpm_sysacct__failed_event(const struct hpm_sysacct *a)
{
	return a ? a->failed_ev : SIZE_MAX;
}

int hpm_sysacct__enable(struct hpm_sysacct *a)
{
	if (!a || !a->opened)
		return -EINVAL;
	/* the side band first: a task forked as counting starts is named */
	for (size_t c = 0; c < a->nr_cpus; c++)
		if (ioctl(a->cpu[c].side_fd, PERF_EVENT_IOC_ENABLE, 0) < 0)
			return -errno;
	for (size_t c = 0; c < a->nr_cpus; c++)
		if (ioctl(a->cpu[c].fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) < 0)
			return -errno;
	a->enabled = true;
	/* after enabling: a task made in between has both an entry and a
	 * fork record, and the fork record starts its own generation */
	return sa_tasks_snapshot(&a->tk);
}

size_t hpm_sysacct__nr_fds(const struct hpm_sysacct *a)
{
	return a && a->opened ? a->nr_cpus : 0;
}

int hpm_sysacct__fd(const struct hpm_sysacct *a, size_t i)
{
	return a && a->opened && i < a->nr_cpus ? a->cpu[i].fd[0] : -1;
}

/* Copy every record of CPU slot @c's buffer into the queue. */
static int read_ring(struct hpm_sysacct *a, size_t c)
{
	struct hpm_ring *r = &a->cpu[c].ring;
	const struct perf_event_header *h;
	int rc, n = 0;
	/* what the next read finds was written after this moment: its
	 * samples, which have no time stamp, are at least this late */
	uint64_t before = mono_ns();
	hpm_ring__read_init(r);
	while ((rc = hpm_ring__next(r, a->scratch, sizeof(a->scratch), &h)) == 0) {
		/* a sample's leader count (sa_sample_lead) */
		size_t lo = sa_sample_lead(&a->tk);
		if (h->type == PERF_RECORD_SAMPLE && h->size >= lo + 8)
			memcpy(&a->cpu[c].qlead, (const char *)h + lo, 8);
		int q = sa_tasks_queue(&a->tk, (int)c, h, h->size, sa_rec_time(h, h->size));
		hpm_ring__consume(r);
		if (q) {
			hpm_ring__read_done(r);
			return q;
		}
		n++;
	}
	if (rc < 0 && rc != -EMSGSIZE)
		hpm_ring__discard(r);
	hpm_ring__read_done(r);
	sa_tasks_read_at(&a->tk, (int)c, before);
	return rc < 0 ? rc : n;
}

static int read_rings(struct hpm_sysacct *a)
{
	int n = 0;
	for (size_t c = 0; c < a->nr_cpus; c++) {
		int rc = read_ring(a, c);
		if (rc < 0)
			return rc;
		n += rc;
	}
	return n;
}

/* Records are written as they happen, each CPU's in its own buffer: one
 * this much older than now is in its buffer, whatever CPU wrote it. */
#define SA_SETTLE_NS 2000000ull

int hpm_sysacct__drain(struct hpm_sysacct *a)
{
	if (!a || !a->enabled)
		return -EINVAL;
	uint64_t cutoff = mono_ns() - SA_SETTLE_NS;
	int rc = read_rings(a);
	if (rc < 0)
		return rc;
	return sa_tasks_process(&a->tk, cutoff);
}

struct sa_sync_rec {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint32_t attributed, pad;
	uint64_t time;
	uint64_t nr, enabled, running;
	uint64_t v[];
};

/* Read CPU slot @c's group; on its own CPU if @here. The CPU's buffer is
 * read next, so that the sync record follows every record written
 * before it (a CPU's records keep their queue order: sa_tasks_queue). A
 * switch sampled between the two (the reader preempted, or not on that CPU)
 * carries newer counts than the read: the read is then dropped, the
 * sample has brought the books further already. */
static int read_group(struct hpm_sysacct *a, size_t c, bool here, bool disable)
{
	size_t nv = a->tk.nr_vals;
	size_t len = sizeof(struct sa_sync_rec) + nv * sizeof(uint64_t);
	struct sa_cpu *sc = &a->cpu[c];
	int rc;

	if (len > HPM_RING_RECORD_MAX)
		return -E2BIG;
	struct sa_sync_rec *s = malloc(len);
	if (!s)
		return -ENOMEM;
	if (disable && (ioctl(sc->fd[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP) < 0 ||
			ioctl(sc->side_fd, PERF_EVENT_IOC_DISABLE, 0) < 0)) {
		rc = -errno;
		goto out;
	}
	/* the values (and the times, when the group has no member): nr
	 * lands where the values' header ends, the values in v[] */
	size_t skip = a->tk.read_times ? 0 : 2 * sizeof(uint64_t);
	ssize_t want = (ssize_t)((3 + nv) * sizeof(uint64_t) - skip);
	unsigned char *dst = (unsigned char *)&s->nr + skip;
	uint64_t nr = 0;
	if (read(sc->fd[0], dst, (size_t)want) != want) {
		rc = -EIO;
		goto out;
	}
	memcpy(&nr, dst, sizeof(nr));
	if (nr != nv) {
		rc = -EIO;
		goto out;
	}
	s->nr = nv;
	if (skip) {
		/* a member's own read: its times are the group's */
		uint64_t m[3];
		if (read(sc->fd[a->time_fd], m, sizeof(m)) != (ssize_t)sizeof(m)) {
			rc = -EIO;
			goto out;
		}
		s->enabled = m[1];
		s->running = m[2];
	}
	s->time = mono_ns();
	if ((rc = read_ring(a, c)) < 0)
		goto out;
	rc = 0;
	if (sc->qlead > s->v[0])
		goto out;
	s->h.type = SA_REC_SYNC;
	s->h.misc = 0;
	s->h.size = (uint16_t)len;
	s->pid = (uint32_t)getpid();
	s->tid = (uint32_t)syscall(SYS_gettid);
	s->attributed = here;
	s->pad = 0;
	rc = sa_tasks_queue(&a->tk, (int)c, s, len, s->time);
out:
	free(s);
	return rc;
}

static int sync_all(struct hpm_sysacct *a, bool disable)
{
	cpu_set_t old, one;
	bool can_move = sched_getaffinity(0, sizeof(old), &old) == 0;
	int rc = 0;

	if (!a || !a->enabled)
		return -EINVAL;
	for (size_t c = 0; c < a->nr_cpus && !rc; c++) {
		bool here = false;
		if (can_move && a->cpu[c].cpu < CPU_SETSIZE) {
			CPU_ZERO(&one);
			CPU_SET(a->cpu[c].cpu, &one);
			here = sched_setaffinity(0, sizeof(one), &one) == 0 &&
			       sched_getcpu() == a->cpu[c].cpu;
		}
		rc = read_group(a, c, here, disable);
	}
	if (can_move)
		sched_setaffinity(0, sizeof(old), &old);
	if (rc)
		return rc;
	uint64_t cutoff = mono_ns();
	rc = read_rings(a);
	if (rc < 0)
		return rc;
	/* stopped: nothing more will come, everything is in order */
	rc = sa_tasks_process(&a->tk, disable ? UINT64_MAX : cutoff);
	return rc < 0 ? rc : 0;
}

int hpm_sysacct__sync(struct hpm_sysacct *a)
{
	return sync_all(a, false);
}

int hpm_sysacct__stop(struct hpm_sysacct *a)
{
	int rc = sync_all(a, true);
	if (!rc)
		a->enabled = false;
	return rc;
}

size_t hpm_sysacct__nr_events(const struct hpm_sysacct *a)
{
	return a ? a->nr_ev : 0;
}

size_t hpm_sysacct__nr_tasks(const struct hpm_sysacct *a)
{
	return a ? a->tk.nr_task : 0;
}

const struct hpm_systask *hpm_sysacct__task(const struct hpm_sysacct *a, size_t t)
{
	if (!a || t >= a->tk.nr_task) {
		errno = EINVAL;
		return NULL;
	}
	return &a->tk.task[t].t;
}

uint64_t hpm_sysacct__count(const struct hpm_sysacct *a, size_t t, size_t ev)
{
	if (!a || t >= a->tk.nr_task || ev >= a->nr_ev)
		return 0;
	return a->tk.task[t].counts[ev];
}

int hpm_sysacct__total(const struct hpm_sysacct *a, size_t ev, uint64_t *value,
		       uint64_t *enabled, uint64_t *running)
{
	uint64_t v = 0, en = 0, run = 0;
	if (!a || ev >= a->nr_ev)
		return -EINVAL;
	for (size_t c = 0; c < a->nr_cpus; c++) {
		v += a->tk.cpu[c].last[ev];
		en += a->tk.cpu[c].enabled;
		run += a->tk.cpu[c].running;
	}
	if (value)
		*value = v;
	if (enabled)
		*enabled = en;
	if (running)
		*running = run;
	return 0;
}

size_t hpm_sysacct__nr_cpus(const struct hpm_sysacct *a)
{
	return a ? a->nr_cpus : 0;
}

int hpm_sysacct__cpu(const struct hpm_sysacct *a, size_t c)
{
	return a && c < a->nr_cpus ? a->cpu[c].cpu : -1;
}

uint64_t hpm_sysacct__cpu_count(const struct hpm_sysacct *a, size_t c, size_t ev)
{
	return a && c < a->nr_cpus && ev < a->nr_ev ? a->tk.cpu[c].last[ev] : 0;
}

uint64_t hpm_sysacct__lost(const struct hpm_sysacct *a)
{
	return a ? a->tk.lost : 0;
}

uint64_t hpm_sysacct__unsampled(const struct hpm_sysacct *a)
{
	return a ? a->tk.unsampled : 0;
}

/* ---- the tests' way in (sysacct-internal.h) ---- */

int sa_queue(struct hpm_sysacct *a, int slot, const void *rec, size_t len, uint64_t time)
{
	return sa_tasks_queue(&a->tk, slot, rec, len, time);
}

int sa_process(struct hpm_sysacct *a, uint64_t cutoff)
{
	return sa_tasks_process(&a->tk, cutoff);
}
