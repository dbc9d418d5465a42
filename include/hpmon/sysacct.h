/* SPDX-License-Identifier: MIT */
/*
 * System-wide accounting per task: every event counted on every CPU, and
 * each count attributed exactly to the thread that ran while it accrued,
 * idle (pid 0, one per CPU) and kernel threads included, and tasks that
 * have exited kept. The sum over tasks equals the system-wide total.
 *
 * How (lib/count/sysacct.c): on each CPU the events form one group led by
 * a software context-switches event sampled at every switch with
 * PERF_SAMPLE_READ: each sample carries the group's counts at the moment
 * a task is switched out, so the difference from the CPU's previous
 * sample belongs to that task. The kernel counts some switches without
 * writing their sample (hpm_sysacct__unsampled): the leader's count says
 * so, and what no read can split goes to the LOST row. Fork, comm and
 * exit records name the tasks and separate a reused pid from its
 * predecessor. hpm_sysacct__sync()
 * closes the books: the calling thread visits each CPU in turn and reads
 * its group there, so what accrued since the last switch is its own.
 *
 * Lifecycle: hpm_sysacct__new -> __open -> __enable -> (__drain when the
 * poll fds are readable, __sync at each report) ... -> __stop -> __free.
 *
 * Ownership: the accounting borrows its event list (and the context in
 * it), which must outlive it; the options' CPUs are copied. It owns the
 * tasks it returns (valid until the next __drain, __sync or __stop, which
 * may grow the table) and their strings until it is freed.
 */
#ifndef HPMON_SYSACCT_H
#define HPMON_SYSACCT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <hpmon/event.h>

#ifdef __cplusplus
extern "C" {
#endif

struct hpm_sysacct_opts {
	size_t sz;          /* sizeof(struct hpm_sysacct_opts) */
	const int *cpus;    /* NULL: every online CPU */
	size_t nr_cpus;
	size_t ring_pages;  /* data pages per CPU's buffer, a power of two; 0: 256 */
	bool cgroups;       /* read each process's cgroup path (procfs) */
};

/* What a task is. Special rows have pid < 0: see HPM_SYSTASK_*. */
struct hpm_systask {
	pid_t pid, tid;     /* idle: 0, 0 */
	int cpu;            /* idle: its CPU; else -1 */
	char comm[16];      /* latest name */
	uint64_t start_ns;  /* CLOCK_MONOTONIC of its fork, 0 if it existed before */
	uint64_t exit_ns;   /* of its exit, 0 while alive */
	size_t proc;        /* index of its process's main thread */
	const char *cgroup; /* its process's cgroup path, or "" */
	uid_t uid;          /* owner of its process, (uid_t)-1 unknown */
	bool seen;          /* it has counts (it ran while counted) */
};

/* Rows that are no task: counts after records the kernel dropped (ring
 * buffer full) or never wrote (hpm_sysacct__unsampled): whose they were
 * is not known; and what accrued on a CPU the calling thread could not
 * visit (sched_setaffinity refused). */
#define HPM_SYSTASK_LOST (-1)
#define HPM_SYSTASK_UNATTRIBUTED (-2)

struct hpm_sysacct;

HPM_API struct hpm_sysacct *hpm_sysacct__new(struct hpm_evlist *list,
					     const struct hpm_sysacct_opts *opts);
HPM_API void hpm_sysacct__free(struct hpm_sysacct *a);

/*
 * Open one group per CPU, disabled. Location and software-counter events
 * (exec:, sw:) cannot be counted system-wide: -EOPNOTSUPP. Without
 * CAP_PERFMON and with perf_event_paranoid > 0, -EACCES. An event the
 * kernel refuses fails the whole open: a group counts all or nothing.
 * hpm_sysacct__failed_event() says which.
 */
HPM_API int hpm_sysacct__open(struct hpm_sysacct *a);
/* The event whose open failed last, or SIZE_MAX (the leader). */
HPM_API size_t hpm_sysacct__failed_event(const struct hpm_sysacct *a);
/* Start counting on every CPU, and list the tasks that exist now. */
HPM_API int hpm_sysacct__enable(struct hpm_sysacct *a);

/* The CPUs' buffer descriptors, to poll for POLLIN (each is woken when a
 * quarter full). */
HPM_API size_t hpm_sysacct__nr_fds(const struct hpm_sysacct *a);
HPM_API int hpm_sysacct__fd(const struct hpm_sysacct *a, size_t i);
/* Read the buffers and attribute what is old enough to be in order (a
 * few ms). Returns records handled or -error: -EOVERFLOW when more than
 * 1,048,576 tasks (exited ones included) would have to be kept. */
HPM_API int hpm_sysacct__drain(struct hpm_sysacct *a);
/*
 * Bring every task's counts up to now: the calling thread runs on each
 * CPU in turn (its affinity is restored after), reads the CPU's group
 * there, and everything before is attributed; the part since the CPU's
 * last switch is the caller's own. 0 or -error.
 */
HPM_API int hpm_sysacct__sync(struct hpm_sysacct *a);
/* As __sync, disabling each CPU's group while there: the counts are then
 * final, and their sum over tasks is exactly the total. */
HPM_API int hpm_sysacct__stop(struct hpm_sysacct *a);

HPM_API size_t hpm_sysacct__nr_events(const struct hpm_sysacct *a);
HPM_API size_t hpm_sysacct__nr_tasks(const struct hpm_sysacct *a);
HPM_API const struct hpm_systask *hpm_sysacct__task(const struct hpm_sysacct *a, size_t t);
/* Task @t's count of event @ev since enable. */
HPM_API uint64_t hpm_sysacct__count(const struct hpm_sysacct *a, size_t t, size_t ev);
/*
 * The system-wide total of event @ev as of the last __sync/__stop: the
 * sum of the CPUs' counts read there, with the time the group was
 * enabled and on the counters (summed over CPUs). Independent of the
 * attribution: the sum of __count over tasks equals it.
 */
HPM_API int hpm_sysacct__total(const struct hpm_sysacct *a, size_t ev, uint64_t *value,
			       uint64_t *enabled, uint64_t *running);
/* The same, for CPU slot @c (hpm_sysacct__cpu(a, c) is its number). */
HPM_API size_t hpm_sysacct__nr_cpus(const struct hpm_sysacct *a);
HPM_API int hpm_sysacct__cpu(const struct hpm_sysacct *a, size_t c);
HPM_API uint64_t hpm_sysacct__cpu_count(const struct hpm_sysacct *a, size_t c, size_t ev);
/* Switch records the kernel dropped (their counts went to the LOST row). */
HPM_API uint64_t hpm_sysacct__lost(const struct hpm_sysacct *a);
/*
 * Switch-outs the kernel counted but wrote no sample for: it writes
 * nothing at all in the context of some tasks, with no LOST record and
 * no lost-sample count (docs/hpmon-top.md). The next sample's task is
 * charged its own switch only; these switches, and what the other
 * events counted over the turns they merged, went to the LOST row.
 */
HPM_API uint64_t hpm_sysacct__unsampled(const struct hpm_sysacct *a);

#ifdef __cplusplus
}
#endif
#endif
