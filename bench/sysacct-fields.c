// SPDX-License-Identifier: MIT
/*
 * What each part of the switch-out sample costs the kernel, for
 * docs/hpmon-top.md (run by bench/sysacct-fields.sh; not a test, not part
 * of hpmon). On every CPU a context-switches event sampled at every switch
 * is opened as each row below says, its buffer emptied by a thread, while
 * a pipe ping-pong pinned to CPU 0 runs; the pair's own CPU time (rusage:
 * the kernel's part is billed to the task switched out) is compared with
 * the bare run of the same round. Rows run in turns, round by round, so
 * that a shared machine's load hits them alike; the median over rounds is
 * printed.
 *
 *   sysacct-fields PINGPONG ROUND_TRIPS ROUNDS
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CPUS 64
#define DATA_LEN (256 * 4096UL)

enum { TC = 1, PF = 2 }; /* members: task-clock, page-faults */

struct row {
	const char *name;
	int sample;          /* 0: counting only */
	unsigned long type;  /* sample_type */
	unsigned long read;  /* read_format */
	int mono;            /* use_clockid CLOCK_MONOTONIC */
	int members;         /* TC | PF */
	int side;            /* task, comm, sample_id_all */
};

#define G PERF_FORMAT_GROUP
#define T (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)
#define S_TID PERF_SAMPLE_TID
#define S_RD PERF_SAMPLE_READ
#define S_TM PERF_SAMPLE_TIME
#define S_CPU PERF_SAMPLE_CPU

static const struct row rows[] = {
	{ "counting only (two members, no sample)", 0, 0, G | T, 1, TC | PF, 0 },
	{ "sample: header only", 1, 0, 0, 0, 0, 0 },
	{ "+ TID", 1, S_TID, 0, 0, 0, 0 },
	{ "+ READ (the leader alone)", 1, S_TID | S_RD, 0, 0, 0, 0 },
	{ "+ READ of the group (no member)", 1, S_TID | S_RD, G, 0, 0, 0 },
	{ "  group of task-clock", 1, S_TID | S_RD, G, 0, TC, 0 },
	{ "  group of page-faults", 1, S_TID | S_RD, G, 0, PF, 0 },
	{ "  group of both (hpmon now, but its side band)", 1, S_TID | S_RD, G, 1, TC | PF, 0 },
	{ "  + TIME", 1, S_TID | S_RD | S_TM, G, 0, TC | PF, 0 },
	{ "  + TIME in CLOCK_MONOTONIC", 1, S_TID | S_RD | S_TM, G, 1, TC | PF, 0 },
	{ "  + TIME (monotonic), times in the read", 1, S_TID | S_RD | S_TM, G | T, 1, TC | PF, 0 },
	{ "  + all that, CPU, side band (hpmon before)", 1, S_TID | S_RD | S_TM | S_CPU, G | T, 1,
	  TC | PF, 1 },
};
#define NR_ROWS (sizeof(rows) / sizeof(rows[0]))

static int nr_cpus;
static int fds[MAX_CPUS][3];
static void *maps[MAX_CPUS];
static volatile int stop;

static int perf_open(struct perf_event_attr *a, int cpu, int group)
{
	return (int)syscall(SYS_perf_event_open, a, -1, cpu, group, PERF_FLAG_FD_CLOEXEC);
}

static void *drain(void *arg)
{
	struct pollfd p[MAX_CPUS];
	(void)arg;
	for (int c = 0; c < nr_cpus; c++)
		p[c] = (struct pollfd){ .fd = fds[c][0], .events = POLLIN };
	while (!stop) {
		poll(p, (nfds_t)nr_cpus, 100);
		for (int c = 0; c < nr_cpus; c++) {
			struct perf_event_mmap_page *m = maps[c];
			__atomic_store_n(&m->data_tail, __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE),
					 __ATOMIC_RELEASE);
		}
	}
	return NULL;
}

static void open_row(const struct row *k)
{
	static const unsigned long cfg[2] = { PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_PAGE_FAULTS };
	for (int c = 0; c < nr_cpus; c++) {
		struct perf_event_attr a;
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
		a.sample_period = k->sample ? 1 : 0;
		a.sample_type = k->type;
		a.read_format = k->read;
		a.disabled = 1;
		a.task = a.comm = a.sample_id_all = (unsigned)k->side;
		a.use_clockid = (unsigned)k->mono;
		a.clockid = CLOCK_MONOTONIC;
		a.watermark = 1;
		a.wakeup_watermark = DATA_LEN / 4;
		if ((fds[c][0] = perf_open(&a, c, -1)) < 0) {
			perror("sysacct-fields: perf_event_open");
			exit(1);
		}
		for (int i = 0; i < 2; i++) {
			fds[c][i + 1] = -1;
			if (!(k->members & (1 << i)))
				continue;
			struct perf_event_attr e;
			memset(&e, 0, sizeof(e));
			e.size = sizeof(e);
			e.type = PERF_TYPE_SOFTWARE;
			e.config = cfg[i];
			e.read_format = k->read;
			e.use_clockid = (unsigned)k->mono;
			e.clockid = CLOCK_MONOTONIC;
			if ((fds[c][i + 1] = perf_open(&e, c, fds[c][0])) < 0) {
				perror("sysacct-fields: perf_event_open (member)");
				exit(1);
			}
		}
		maps[c] = NULL;
		if (k->sample) {
			maps[c] = mmap(NULL, 4096 + DATA_LEN, PROT_READ | PROT_WRITE, MAP_SHARED,
				       fds[c][0], 0);
			if (maps[c] == MAP_FAILED) {
				perror("sysacct-fields: mmap");
				exit(1);
			}
		}
		ioctl(fds[c][0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	}
}

static void close_row(void)
{
	for (int c = 0; c < nr_cpus; c++) {
		for (int i = 0; i < 3; i++)
			if (fds[c][i] >= 0)
				close(fds[c][i]);
		if (maps[c])
			munmap(maps[c], 4096 + DATA_LEN);
	}
}

/* The pair's CPU time in s, under row @k (NULL: bare). */
static double run(const struct row *k, const char *pp, const char *trips)
{
	pthread_t th;
	if (k) {
		open_row(k);
		stop = 0;
		if (k->sample)
			pthread_create(&th, NULL, drain, NULL);
	}
	pid_t pid = fork();
	if (pid == 0) {
		cpu_set_t s;
		CPU_ZERO(&s);
		CPU_SET(0, &s);
		sched_setaffinity(0, sizeof(s), &s);
		execl(pp, pp, trips, (char *)NULL);
		_exit(127);
	}
	int status;
	struct rusage ru;
	if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "sysacct-fields: %s failed\n", pp);
		exit(1);
	}
	if (k) {
		stop = 1;
		if (k->sample)
			pthread_join(th, NULL);
		close_row();
	}
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static int cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

int main(int argc, char **argv)
{
	char *end;
	long trips, rounds;
	if (argc != 4 || (trips = strtol(argv[2], &end, 10)) <= 0 || *end ||
	    (rounds = strtol(argv[3], &end, 10)) <= 0 || *end || rounds > 1000) {
		fprintf(stderr, "usage: sysacct-fields PINGPONG ROUND_TRIPS ROUNDS\n");
		return 2;
	}
	nr_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (nr_cpus > MAX_CPUS)
		nr_cpus = MAX_CPUS;
	double *ns = calloc(NR_ROWS * (size_t)rounds, sizeof(double));
	if (!ns)
		return 1;
	double switches = 2.0 * (double)trips;
	for (long r = 0; r < rounds; r++) {
		double bare = run(NULL, argv[1], argv[2]);
		for (size_t i = 0; i < NR_ROWS; i++) {
			size_t k = (i + (size_t)r) % NR_ROWS;
			ns[k * (size_t)rounds + (size_t)r] =
				(run(&rows[k], argv[1], argv[2]) - bare) * 1e9 / switches;
		}
	}
	printf("extra CPU of the pair per switch over its bare run, median of %ld rounds [min - max]\n",
	       rounds);
	for (size_t k = 0; k < NR_ROWS; k++) {
		double *v = ns + k * (size_t)rounds;
		qsort(v, (size_t)rounds, sizeof(*v), cmp);
		printf("%-52s %6.0f ns [%5.0f - %5.0f]\n", rows[k].name, v[rounds / 2], v[0],
		       v[rounds - 1]);
	}
	free(ns);
	return 0;
}
