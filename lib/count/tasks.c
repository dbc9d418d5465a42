/* SPDX-License-Identifier: MIT */
/*
 * Task tracking for a launched command: every event is opened with
 * inherit_stat, and all of them write into one ring buffer. The kernel
 * then reports, exactly and without sampling:
 *   PERF_RECORD_FORK / EXIT   each thread and process as it starts and ends
 *   PERF_RECORD_COMM          names, and exec (misc COMM_EXEC)
 *   PERF_RECORD_READ          each exiting task's own final counts, per event
 * so per-thread and per-process counts are the kernel's own numbers.
 *
 * Two kernel details make this exact, and both hang on one extra event, a
 * non-inherited software dummy on the command's task:
 *  - the kernel mmaps no inherited per-task event, but inherited events may
 *    send their records (their children's too) to the dummy's buffer;
 *  - when two tasks with "equivalent" (cloned) contexts switch on a CPU the
 *    kernel swaps the contexts and, with inherit_stat, their counts, pairing
 *    events by list position. The command's own context lists events in
 *    open order, cloned ones in the kernel's tree order (by PMU), so a
 *    parent<->child swap could pair task-clock with page-faults. A
 *    non-inherited event makes children of the command's context no clones
 *    of it, so it is never swapped; clones of clones share one order.
 * The command's first task keeps the original events and gets no READ
 * record: its counts are the total minus every READ record.
 *
 * The buffer has writers on every CPU the command's tasks run on, which
 * the kernel's ring buffer does not expect: two tasks exiting at the same
 * moment on two CPUs can leave its nesting count wrong, after which the
 * kernel writes every record but never moves data_head again, and no LOST
 * record says so (on 2 CPUs, about 1 run in 300 of 4 threads that exit
 * together). The records are there, past data_head: the reader keeps a
 * copy of what it read (hpm_ring__map_shadowed), and once the command has
 * ended hpm_tracker__recover() reads what the kernel wrote without
 * publishing it, each record checked. What is still missing then is
 * reported as not known (-EAGAIN), never as a count.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "count/tasks-internal.h"
#include "sys/perf.h"
#include "sys/ring.h"

#define TRK_DATA_PAGES 128 /* 512 KiB with 4 KiB pages: ~6000 READ records */

struct trk_task {
	struct hpm_task t;
	struct hpm_count *counts; /* [nr_ev] final own counts */
	bool *have;               /* [nr_ev] READ record seen */
	unsigned *nreads;         /* [nr_ev] READ records seen (one per CPU) */
};

struct trk_buf {
	int fd;        /* the dummy event that owns the buffer */
	struct hpm_ring ring;
};

/* A record copied out of a buffer, to be handled in time order. */
struct trk_rec {
	uint64_t time;
	size_t off;    /* into the staging area */
};

/* A lifecycle event waiting to be reported: events are reported in time
 * order, and an exit only once its READ records are in, so the ones after
 * a pending exit wait for it. */
struct trk_note {
	enum hpm_task_event what;
	uint64_t time;
	size_t task;
	struct hpm_task snap;     /* the task as it was then (comm changes) */
};

struct hpm_tracker {
	int epfd;
	struct hpm_tracker_in in; /* borrowed arrays: see tasks-internal.h */
	hpm_tracker_fn fn;
	void *fn_arg;
	struct trk_note *notes;
	size_t nr_notes, notes_cap;
	size_t nr_ev, nr_slots;
	struct trk_buf *bufs;
	struct trk_task *tasks;
	size_t nr, cap;
	uint64_t lost;
	bool final_read;        /* hpm_tracker__recover() ran */
	unsigned char *scratch; /* one record that wrapped around */
	unsigned char *stage;   /* records of one drain */
	size_t stage_len, stage_cap;
	struct trk_rec *recs;
	size_t nr_recs, recs_cap;
};

/* The buffer owner: a dummy that is not inherited (see the top). */
static int open_dummy(pid_t pid, int cpu)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY, .exclude_kernel = 1, .exclude_hv = 1,
		.sample_id_all = 1, .sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
		.watermark = 1, .wakeup_watermark = 64 * 1024,
	};
	return hpm__sys_perf_event_open(&a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

void hpm__count_add(struct hpm_count *dst, const struct hpm_count *src, bool max_enabled)
{
	dst->value += src->value;
	dst->running += src->running;
	if (!max_enabled)
		dst->enabled += src->enabled;
	else if (src->enabled > dst->enabled)
		dst->enabled = src->enabled;
}

int hpm_tracker__new(const struct hpm_tracker_in *in, struct hpm_tracker **out)
{
	struct hpm_tracker *t = calloc(1, sizeof(*t));
	long page = sysconf(_SC_PAGESIZE);

	*out = t;
	if (!t)
		return -ENOMEM;
	t->in = *in;
	t->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (t->epfd < 0)
		return -errno;
	t->nr_ev = in->nr_ev;
	t->nr_slots = in->nr_slots;
	t->bufs = calloc(t->nr_slots, sizeof(*t->bufs));
	t->scratch = malloc(HPM_RING_RECORD_MAX);
	if (!t->bufs || !t->scratch)
		return -ENOMEM;
	for (size_t i = 0; i < t->nr_slots; i++)
		t->bufs[i].fd = -1;
	for (size_t i = 0; i < t->nr_slots; i++) {
		struct trk_buf *b = &t->bufs[i];
		b->fd = open_dummy(in->slot_pid[i], in->slot_cpu[i]);
		if (b->fd < 0)
			return b->fd;
		int rc = hpm_ring__map_shadowed(&b->ring, b->fd, (size_t)page,
				       (size_t)page * TRK_DATA_PAGES);
		if (rc)
			return rc;
		struct epoll_event ev = { .events = EPOLLIN, .data.u64 = i };
		if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, b->fd, &ev) < 0)
			return -errno;
	}
	/* The launched command itself is task 0; its pid is the target. */
	t->tasks = calloc(1, sizeof(*t->tasks));
	if (!t->tasks)
		return -ENOMEM;
	t->cap = 1;
	t->tasks[0].counts = calloc(t->nr_ev, sizeof(struct hpm_count));
	t->tasks[0].have = calloc(t->nr_ev, sizeof(bool));
	t->tasks[0].nreads = calloc(t->nr_ev, sizeof(unsigned));
	if (!t->tasks[0].counts || !t->tasks[0].have || !t->tasks[0].nreads)
		return -ENOMEM;
	t->tasks[0].t.pid = t->tasks[0].t.tid = in->slot_pid[0];
	t->nr = 1;
	return 0;
}

int hpm_tracker__attach(struct hpm_tracker *t, size_t slot, int fd)
{
	if (fd < 0)
		return 0;
	return ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, t->bufs[slot].fd) < 0 ? -errno : 0;
}

void hpm_tracker__free(struct hpm_tracker *t)
{
	if (!t)
		return;
	for (size_t i = 0; t->bufs && i < t->nr_slots; i++) {
		hpm_ring__unmap(&t->bufs[i].ring);
		if (t->bufs[i].fd >= 0)
			close(t->bufs[i].fd);
	}
	if (t->epfd >= 0)
		close(t->epfd);
	for (size_t i = 0; i < t->nr; i++) {
		free(t->tasks[i].counts);
		free(t->tasks[i].have);
		free(t->tasks[i].nreads);
	}
	free(t->bufs);
	free(t->tasks);
	free(t->scratch);
	free(t->stage);
	free(t->recs);
	free(t->notes);
	free(t);
}

void hpm_tracker__on_task(struct hpm_tracker *t, hpm_tracker_fn fn, void *arg)
{
	t->fn = fn;
	t->fn_arg = arg;
}

int hpm_tracker__fd(const struct hpm_tracker *t) { return t->epfd; }
uint64_t hpm_tracker__lost(const struct hpm_tracker *t) { return t->lost; }
size_t hpm_tracker__nr_tasks(const struct hpm_tracker *t) { return t->nr; }

const struct hpm_task *hpm_tracker__task(const struct hpm_tracker *t, size_t i)
{
	return i < t->nr ? &t->tasks[i].t : NULL;
}

static struct trk_task *find_task(struct hpm_tracker *t, pid_t tid)
{
	/* newest first: exits usually follow their forks closely */
	for (size_t i = t->nr; i-- > 0;)
		if (t->tasks[i].t.tid == tid)
			return &t->tasks[i];
	return NULL;
}

static struct trk_task *add_task(struct hpm_tracker *t, pid_t pid, pid_t tid)
{
	if (t->nr == t->cap) {
		size_t nc = t->cap * 2;
		struct trk_task *v = realloc(t->tasks, nc * sizeof(*v));
		if (!v)
			return NULL;
		t->tasks = v;
		t->cap = nc;
	}
	struct trk_task *k = &t->tasks[t->nr];
	memset(k, 0, sizeof(*k));
	k->counts = calloc(t->nr_ev, sizeof(struct hpm_count));
	k->have = calloc(t->nr_ev, sizeof(bool));
	k->nreads = calloc(t->nr_ev, sizeof(unsigned));
	if (!k->counts || !k->have || !k->nreads) {
		free(k->counts);
		free(k->have);
		free(k->nreads);
		return NULL;
	}
	k->t.pid = pid;
	k->t.tid = tid;
	t->nr++;
	return k;
}

int hpm_tracker__task_count(const struct hpm_tracker *t, size_t i, size_t ev,
			    struct hpm_count *out)
{
	memset(out, 0, sizeof(*out));
	if (i >= t->nr || ev >= t->nr_ev)
		return -EINVAL;
	if (!t->tasks[i].have[ev]) {
		out->err = -EAGAIN;
		return 0;
	}
	*out = t->tasks[i].counts[ev];
	return 0;
}

void hpm_tracker__exited_sum(const struct hpm_tracker *t, size_t ev,
			     struct hpm_count *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < t->nr; i++) {
		if (!t->tasks[i].have[ev])
			continue;
		out->value += t->tasks[i].counts[ev].value;
		out->enabled += t->tasks[i].counts[ev].enabled;
		out->running += t->tasks[i].counts[ev].running;
	}
}

/* Record layouts (sample_id_all with TID|TIME follows each). */
struct rec_task { uint32_t pid, ppid, tid, ptid; uint64_t time; };
struct rec_comm { uint32_t pid, tid; char comm[]; };
struct rec_read { uint32_t pid, tid; struct hpm_read_one v; };
struct rec_lost { uint64_t id, lost; };

/* The sample_id trailer's time: the record's last 8 bytes (TID|TIME). */
static uint64_t rec_time(const struct perf_event_header *h)
{
	uint64_t t;
	memcpy(&t, (const char *)h + h->size - sizeof(t), sizeof(t));
	return t;
}

static void notify(struct hpm_tracker *t, enum hpm_task_event what,
		   const struct trk_task *k, const struct perf_event_header *h)
{
	if (!t->fn)
		return;
	if (t->nr_notes == t->notes_cap) {
		size_t nc = t->notes_cap ? t->notes_cap * 2 : 64;
		struct trk_note *v = realloc(t->notes, nc * sizeof(*v));
		if (!v)
			return; /* the trace loses a line; counts are unaffected */
		t->notes = v;
		t->notes_cap = nc;
	}
	t->notes[t->nr_notes++] = (struct trk_note){
		.what = what, .time = rec_time(h), .task = (size_t)(k - t->tasks),
		.snap = k->t,
	};
}

static int handle(struct hpm_tracker *t, const struct perf_event_header *h)
{
	const void *body = h + 1;
	size_t blen = h->size - sizeof(*h);
	struct trk_task *k;

	switch (h->type) {
	case PERF_RECORD_FORK: {
		const struct rec_task *r = body;
		if (blen < sizeof(*r))
			return -EIO;
		k = find_task(t, (pid_t)r->tid);
		if (k && k != &t->tasks[0] && k->t.fork_ns)
			return 0;
		if (k == &t->tasks[0])
			return 0; /* the command itself: started by hpmon */
		if (!k)
			k = add_task(t, (pid_t)r->pid, (pid_t)r->tid);
		if (!k)
			return -ENOMEM;
		k->t.ppid = (pid_t)r->ppid;
		k->t.ptid = (pid_t)r->ptid;
		k->t.fork_ns = r->time;
		k->t.thread = r->pid == r->ppid;
		struct trk_task *parent = find_task(t, (pid_t)r->ptid);
		if (parent)
			memcpy(k->t.comm, parent->t.comm, sizeof(k->t.comm));
		notify(t, HPM_TASK_FORK, k, h);
		return 0;
	}
	case PERF_RECORD_COMM: {
		const struct rec_comm *r = body;
		if (blen < sizeof(*r) + 1)
			return -EIO;
		k = find_task(t, (pid_t)r->tid);
		if (!k)
			return 0;
		size_t max = blen - sizeof(*r);
		size_t n = strnlen(r->comm, max < sizeof(k->t.comm) ? max : sizeof(k->t.comm) - 1);
		memcpy(k->t.comm, r->comm, n);
		k->t.comm[n] = '\0';
		if (h->misc & PERF_RECORD_MISC_COMM_EXEC)
			notify(t, HPM_TASK_EXEC, k, h);
		return 0;
	}
	case PERF_RECORD_READ: {
		const struct rec_read *r = body;
		if (blen < sizeof(*r))
			return -EIO;
		k = find_task(t, (pid_t)r->tid);
		if (!k)
			k = add_task(t, (pid_t)r->pid, (pid_t)r->tid);
		if (!k)
			return -ENOMEM;
		/* one record per event and CPU: add the CPU's part */
		for (size_t i = 0; i < t->nr_ev * t->nr_slots; i++) {
			size_t ev = i / t->nr_slots;
			if (t->in.id[i] != r->v.id || t->in.ev_err[ev])
				continue;
			struct hpm_count part = { .value = r->v.value,
						  .enabled = r->v.enabled,
						  .running = r->v.running };
			hpm__count_add(&k->counts[ev], &part, t->in.max_enabled);
			k->have[ev] = true;
			k->nreads[ev]++;
			break;
		}
		return 0;
	}
	case PERF_RECORD_EXIT: {
		const struct rec_task *r = body;
		if (blen < sizeof(*r))
			return -EIO;
		k = find_task(t, (pid_t)r->tid);
		if (!k)
			return 0;
		k->t.exit_ns = r->time;
		k->t.exited = true;
		/* the READ records follow EXIT: report the exit once they are in */
		notify(t, HPM_TASK_EXIT, k, h);
		return 0;
	}
	case PERF_RECORD_LOST: {
		const struct rec_lost *r = body;
		if (blen >= sizeof(*r))
			t->lost += r->lost;
		return 0;
	}
	default:
		return 0;
	}
}

/*
 * Report waiting lifecycle events in time order, up to the first exit
 * whose READ records (one per opened event and CPU) are not all in; with
 * @final, all of them, with what can be known.
 */
static void notify_exits(struct hpm_tracker *t, bool final)
{
	size_t done = 0;

	for (; done < t->nr_notes && t->fn; done++) {
		struct trk_note *n = &t->notes[done];
		struct trk_task *k = &t->tasks[n->task];
		bool complete = true;
		for (size_t ev = 0; n->what == HPM_TASK_EXIT && ev < t->nr_ev; ev++)
			if (!t->in.ev_err[ev] && k->nreads[ev] < t->nr_slots)
				complete = false;
		if (!complete && !final)
			break;
		t->fn(n->what, n->task, &n->snap, n->time, t->fn_arg);
	}
	if (done && done < t->nr_notes)
		memmove(t->notes, t->notes + done, (t->nr_notes - done) * sizeof(*t->notes));
	t->nr_notes -= done;
}

/* Copy record @h to the end of the staging area. */
static int stage_record(struct hpm_tracker *t, const struct perf_event_header *h)
{
	if (t->stage_len + h->size > t->stage_cap) {
		size_t nc = t->stage_cap ? t->stage_cap * 2 : 65536;
		while (nc < t->stage_len + h->size)
			nc *= 2;
		unsigned char *v = realloc(t->stage, nc);
		if (!v)
			return -ENOMEM;
		t->stage = v;
		t->stage_cap = nc;
	}
	if (t->nr_recs == t->recs_cap) {
		size_t nc = t->recs_cap ? t->recs_cap * 2 : 1024;
		struct trk_rec *v = realloc(t->recs, nc * sizeof(*v));
		if (!v)
			return -ENOMEM;
		t->recs = v;
		t->recs_cap = nc;
	}
	memcpy(t->stage + t->stage_len, h, h->size);
	t->recs[t->nr_recs].off = t->stage_len;
	t->recs[t->nr_recs].time = rec_time(h);
	t->nr_recs++;
	t->stage_len += (h->size + 7) & ~(size_t)7;
	return 0;
}

/* Copy every waiting record of buffer @b to the staging area. A
 * malformed record stops the round where it is: -EIO. */
static int stage_buffer(struct hpm_tracker *t, struct trk_buf *b)
{
	const struct perf_event_header *h;
	int rc;

	hpm_ring__read_init(&b->ring);
	while (!(rc = hpm_ring__next(&b->ring, t->scratch, HPM_RING_RECORD_MAX, &h))) {
		if (h->size < sizeof(*h) + 16) { /* the TID|TIME trailer */
			rc = -EIO;
			break;
		}
		/* Its time comes last and is never 0: a record published while
		 * another CPU still writes it (the race at the top) is read at
		 * the next round, complete. */
		if (!rec_time(h))
			break;
		rc = stage_record(t, h);
		if (rc)
			break;
		hpm_ring__consume(&b->ring);
	}
	hpm_ring__read_done(&b->ring);
	return rc == 1 ? 0 : rc;
}

static int cmp_rec(const void *a, const void *b)
{
	const struct trk_rec *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Whether @h has a kind the tracker asks for and that kind's size (with
 * the TID|TIME trailer; COMM's varies with the name). */
static bool expected_record(const struct perf_event_header *h)
{
	const size_t trailer = 16, hdr = sizeof(*h);

	switch (h->type) {
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		return h->size == hdr + sizeof(struct rec_task) + trailer;
	case PERF_RECORD_READ:
		return h->size == hdr + sizeof(struct rec_read) + trailer;
	case PERF_RECORD_LOST:
		return h->size == hdr + sizeof(struct rec_lost) + trailer;
	case PERF_RECORD_COMM:
		return h->size >= hdr + sizeof(struct rec_comm) + 8 + trailer &&
		       h->size <= hdr + sizeof(struct rec_comm) + 16 + trailer &&
		       h->size % 8 == 0;
	default:
		return false;
	}
}

/* Stage what the kernel wrote into buffer @b without publishing it: every
 * record must be of a kind and size asked for, and complete (its time set);
 * the first that is not ends the reading and leaves the breakdown
 * incomplete. */
static int stage_unpublished(struct hpm_tracker *t, struct trk_buf *b)
{
	const struct perf_event_header *h;
	int rc;

	if (hpm_ring__read_unpublished(&b->ring))
		return 0;
	while (!(rc = hpm_ring__next(&b->ring, t->scratch, HPM_RING_RECORD_MAX, &h))) {
		if (!expected_record(h) || !rec_time(h))
			break; /* what follows cannot be trusted */
		rc = stage_record(t, h);
		if (rc)
			break;
		hpm_ring__consume(&b->ring);
	}
	hpm_ring__read_done(&b->ring);
	return rc == -ENOMEM ? rc : 0;
}

/* Handle the staged records in time order, then report what is complete. */
static int handle_staged(struct hpm_tracker *t)
{
	int rc = 0, n = 0;

	/* records of different CPUs interleave: handle them in time order */
	if (t->nr_recs > 1)
		qsort(t->recs, t->nr_recs, sizeof(*t->recs), cmp_rec);
	for (size_t i = 0; i < t->nr_recs && !rc; i++, n++)
		rc = handle(t, (const void *)(t->stage + t->recs[i].off));
	notify_exits(t, false);
	return rc ? rc : n;
}

int hpm_tracker__drain(struct hpm_tracker *t)
{
	int err = 0;

	t->stage_len = 0;
	t->nr_recs = 0;
	for (size_t i = 0; i < t->nr_slots && err != -ENOMEM; i++)
		if (t->bufs[i].ring.base) {
			int rc = stage_buffer(t, &t->bufs[i]);
			if (rc && !err)
				err = rc;
		}
	if (err == -ENOMEM)
		return err;
	/* A round that stopped at a bad record (or one published before
	 * another CPU wrote its header) still hands what came before it,
	 * consumed already; the rest waits for the next round. */
	int n = handle_staged(t);
	return err ? err : n;
}

int hpm_tracker__recover(struct hpm_tracker *t)
{
	int drained = hpm_tracker__drain(t), rc = 0;

	/* a published round that stopped at a bad record is no reason to
	 * stop here: the unpublished round starts at that record */
	if (drained == -ENOMEM || t->final_read)
		return drained;
	t->final_read = true;
	t->stage_len = 0;
	t->nr_recs = 0;
	for (size_t i = 0; i < t->nr_slots && !rc; i++)
		if (t->bufs[i].ring.base)
			rc = stage_unpublished(t, &t->bufs[i]);
	if (rc)
		return rc;
	int n = handle_staged(t);
	return n < 0 ? n : drained < 0 ? drained : drained + n;
}

size_t hpm_tracker__nr_missing(const struct hpm_tracker *t, size_t ev,
			       size_t *which)
{
	size_t n = 0;
	for (size_t i = 0; i < t->nr; i++)
		if (!t->tasks[i].have[ev]) {
			n++;
			*which = i;
		}
	return n;
}

void hpm_tracker__flush(struct hpm_tracker *t)
{
	notify_exits(t, true);
}
