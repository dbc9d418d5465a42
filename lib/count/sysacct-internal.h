/* SPDX-License-Identifier: MIT */
/*
 * System-wide accounting per task (include/hpmon/sysacct.h), shared by
 * its two files: sysacct.c opens, enables, reads and syncs the CPUs'
 * groups; sysacct-tasks.c keeps the task table and attributes each
 * record's counts, knowing nothing of file descriptors.
 *
 * Ownership: struct hpm_sysacct owns everything below (the task table,
 * its strings, the CPUs' buffers and descriptors); it borrows the event
 * list and its context.
 */
#ifndef HPM_SYSACCT_INTERNAL_H
#define HPM_SYSACCT_INTERNAL_H

#include <hpmon/sysacct.h>
#include "sys/ring.h"

struct hpm_ctx;

/* One task generation: a tid from its fork (or from before counting) to
 * its exit. A reused tid starts a new one. */
struct sa_task {
	struct hpm_systask t;
	uint64_t *counts;        /* [nr_ev] */
	char *cgroup;            /* owned, processes only */
	/* made for a sample, named from procfs: its fork record, when it
	 * comes, is this task's (sa_queue: a sample may be attributed
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

struct sa_cpu {
	int cpu;
	int *fd;                 /* [nr_ev + 1]: the leader, then the events */
	int side_fd;             /* the side band, into the leader's buffer */
	struct hpm_ring ring;
	uint64_t *last;          /* [nr_ev]: counts at the last record */
	uint64_t lead;           /* the leader's count (its switches) then */
	uint64_t enabled, running; /* the group's times at the last read */
	/* time of its last queued record, or of the last read of its
	 * buffer: a sample (no time stamp of its own) comes no earlier */
	uint64_t qtime;
	uint64_t qlead;          /* the leader's count in its last queued sample */
	bool after_lost;         /* the next sample's delta is not its task's */
	size_t idle;             /* its idle task's index */
	/* the task whose exit record this CPU wrote last, if no sample
	 * of another task came since (SIZE_MAX: none): its last switch may
	 * come named -1 */
	size_t exited;
};

struct hpm_sysacct {
	struct hpm_evlist *list;
	struct hpm_ctx *ctx;
	size_t nr_ev;
	/* where each event's count is among the group's values: 0 for one
	 * the leader counts already (context-switches in all modes), else
	 * its member's place; nr_vals values in all, the leader's first */
	size_t *vidx;
	size_t nr_vals;
	/* the group's read holds its times only when it has no member;
	 * else they come from the member fd[time_fd]'s own read, at sync */
	bool read_times;
	size_t time_fd;
	size_t nr_cpus;
	struct sa_cpu *cpu;
	size_t ring_pages;
	bool cgroups;
	bool opened, enabled;
	size_t failed_ev;
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
	unsigned char scratch[HPM_RING_RECORD_MAX];
};

/* A switch-out sample: header, pid and tid, then the group's read (nr,
 * the times if read_times, the values: the leader's first). */
#define SA_SAMPLE_READ_OFF 16
/* What sample_id_all appends to the other records: pid and tid, time. */
#define SA_ID_TAIL 16
static inline size_t sa_sample_lead(const struct hpm_sysacct *a)
{
	return SA_SAMPLE_READ_OFF + 8 + (a->read_times ? 16 : 0);
}

/* ---- sysacct-tasks.c ---- */

int sa_tasks_init(struct hpm_sysacct *a);
void sa_tasks_free(struct hpm_sysacct *a);
/* The tasks that exist now, from procfs: names, processes, owners. */
int sa_tasks_snapshot(struct hpm_sysacct *a);
/* Queue a record of CPU slot @slot (copied). */
int sa_queue(struct hpm_sysacct *a, int slot, const void *rec, size_t len, uint64_t time);
/* Attribute every queued record older than @cutoff (all: UINT64_MAX), in
 * time order. Returns records handled or -error. */
int sa_process(struct hpm_sysacct *a, uint64_t cutoff);
/* The time stamp of a record from a CPU's buffer (0 if it has none: a
 * sample, or a record of the leader's, which has no sample_id_all). */
uint64_t sa_rec_time(const void *rec, size_t len);

#endif
