/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/count/ owns counting; may use attach, metrics, events, location, core, runtime, sys.
 *
 * System-wide accounting per task, the attribution (sysacct-tasks.c):
 * the task table, the queue that puts every CPU's records in time order,
 * and each CPU's books (the group's counts at its last record). The
 * session (sysacct.c) opens, enables, reads and syncs the CPUs' groups
 * and hands their records here; this side knows nothing of file
 * descriptors or buffers, and calls nothing of the session's.
 *
 * Ownership: struct sa_tasks owns everything below (the task table, its
 * strings, the queue, the books, the group's layout vidx[]); it borrows
 * the context, which must outlive it.
 */
#ifndef HPM_SYSACCT_TASKS_INTERNAL_H
#define HPM_SYSACCT_TASKS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hpmon/sysacct.h>

struct hpm_ctx;

/* One task generation: a tid from its fork (or from before counting) to
 * its exit. A reused tid starts a new one. */
struct sa_task {
	struct hpm_systask t;
	uint64_t *counts;        /* [nr_ev] */
	char *cgroup;            /* owned, processes only */
	/* made for a sample, named from procfs: its fork record, when it
	 * comes, is this task's (sa_tasks_queue: a sample may be attributed
	 * before the fork record of another CPU) */
	bool provisional;
};

/* A record copied out of a CPU's buffer, waiting to be attributed in
 * time order with every other CPU's. */
struct sa_rec {
	uint64_t time;
	uint64_t seq;            /* order of arrival: ties keep ring order */
	size_t off, len;         /* in the batch's bytes */
	int slot;                /* CPU slot it came from */
};

/* A record hpm_sysacct__sync() makes: the group's counts read on the
 * CPU itself at @time, and who read them. */
#define SA_REC_SYNC 0x7fffu

/* A CPU's books: what its records said last. */
struct sa_books {
	int cpu;
	uint64_t *last;          /* [nr_ev]: counts at the last record */
	uint64_t lead;           /* the leader's count (its switches) then */
	uint64_t enabled, running; /* the group's times at the last read */
	/* time of its last queued record, or of the last read of its
	 * buffer: a sample (no time stamp of its own) comes no earlier */
	uint64_t qtime;
	bool after_lost;         /* the next sample's delta is not its task's */
	size_t idle;             /* its idle task's index */
	/* the task whose exit record this CPU wrote last, if no sample
	 * of another task came since (SIZE_MAX: none): its last switch may
	 * come named -1 */
	size_t exited;
};

struct sa_tasks {
	/* given before sa_tasks_init */
	struct hpm_ctx *ctx;
	size_t nr_ev;
	/* where each event's count is among the group's values: 0 for one
	 * the leader counts already (context-switches in all modes), else
	 * its member's place; nr_vals values in all, the leader's first */
	size_t *vidx;
	size_t nr_vals;
	/* the group's read holds its times only when it has no member */
	bool read_times;
	bool cgroups;
	/* made by sa_tasks_init */
	size_t nr_cpus;
	struct sa_books *cpu;
	uint64_t lost;
	uint64_t unsampled;      /* switch-outs counted without their sample */
	bool overflow;           /* the task table is full (SA_MAX_TASKS) */
	bool snapshotting;       /* tasks made now are not provisional */
	/* tasks: a vector, and tid -> current generation (open addressing) */
	struct sa_task *task;
	size_t nr_task, cap_task;
	int32_t *hkey;           /* tid, or -1 empty */
	size_t *hval;
	size_t hcap;             /* a power of two */
	size_t lost_row, unattr_row;
	/* records waiting for their turn */
	unsigned char *bytes;
	size_t nr_bytes, cap_bytes;
	struct sa_rec *rec;
	size_t nr_rec, cap_rec;
	struct sa_rec *tmp;      /* [cap_tmp]: sort_queue's other half */
	size_t cap_tmp;
	uint64_t seq;
};

/* A switch-out sample: header, pid and tid, then the group's read (nr,
 * the times if read_times, the values: the leader's first). */
#define SA_SAMPLE_READ_OFF 16
/* What sample_id_all appends to the other records: pid and tid, time. */
#define SA_ID_TAIL 16
static inline size_t sa_sample_lead(const struct sa_tasks *k)
{
	return SA_SAMPLE_READ_OFF + 8 + (k->read_times ? 16 : 0);
}

/* The books of CPUs @cpus (@nr_cpus of them, slot by slot), their idle
 * tasks and the rows of what is lost and unattributed. The fields above
 * "made by" are the caller's to fill first; vidx is then @k's. 0 or
 * -ENOMEM (sa_tasks_free frees what was made). */
int sa_tasks_init(struct sa_tasks *k, const int *cpus, size_t nr_cpus);
void sa_tasks_free(struct sa_tasks *k);
/* The tasks that exist now, from procfs: names, processes, owners. */
int sa_tasks_snapshot(struct sa_tasks *k);
/* Queue a record of CPU slot @slot (copied). */
int sa_tasks_queue(struct sa_tasks *k, int slot, const void *rec, size_t len, uint64_t time);
/* CPU slot @slot's buffer was read at @time: its next sample comes no
 * earlier. */
void sa_tasks_read_at(struct sa_tasks *k, int slot, uint64_t time);
/* Attribute every queued record older than @cutoff (all: UINT64_MAX), in
 * time order. Returns records handled or -error. */
int sa_tasks_process(struct sa_tasks *k, uint64_t cutoff);
/* The time stamp of a record from a CPU's buffer (0 if it has none: a
 * sample, or a record of the leader's, which has no sample_id_all). */
uint64_t sa_rec_time(const void *rec, size_t len);

#endif
