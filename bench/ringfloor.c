// SPDX-License-Identifier: MIT
/*
 * ringfloor: the least a sampling recorder can cost. It runs a command
 * with one sampling event per online CPU (inherited by the command's
 * threads and children, enabled at its exec) and a ring buffer per CPU,
 * and consumes the buffers without looking at a record: on each wakeup it
 * reads data_head and writes it back as data_tail (perf_event_open(2),
 * "MMAP layout"). What a run of it costs over the bare command is the
 * kernel's own cost of taking and writing the samples, plus the wakeups:
 * the floor any recorder of the same samples pays. bench/record-floor.sh
 * compares hpmon record and perf record with it.
 *
 *   ringfloor [-e cpu-clock|task-clock] [-F HZ] [-m PAGES] -- CMD [ARGS]
 *
 * The samples are as hpmon record's in frequency mode: IDENTIFIER, IP,
 * TID, TIME, CPU, PERIOD; user and kernel; a wakeup each quarter buffer.
 * Prints the records' bytes consumed on stderr; exits with the command's
 * status (128+N for signal N).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/perf_event.h>

#define MAX_CPUS 1024

struct ring {
	int fd;
	struct perf_event_mmap_page *meta;
	size_t len; /* mapping: one metadata page and the data pages */
};

static int perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return (int)syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Consume everything written so far: data_tail = data_head. */
static uint64_t consume(struct ring *r)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail;
	__atomic_store_n(&r->meta->data_tail, head, __ATOMIC_RELEASE);
	return head - tail;
}

static int parse_num(const char *s, long min, long max, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int online_cpus(int *cpu, int max)
{
	char buf[4096], *p = buf, *save = NULL;
	int n = 0;
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");

	if (!f || !fgets(buf, sizeof(buf), f)) {
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	for (char *tok = strtok_r(p, ",\n", &save); tok; tok = strtok_r(NULL, ",\n", &save)) {
		char *dash = strchr(tok, '-');
		long lo, hi;
		if (dash)
			*dash = '\0';
		if (parse_num(tok, 0, MAX_CPUS - 1, &lo) ||
		    parse_num(dash ? dash + 1 : tok, lo, MAX_CPUS - 1, &hi))
			return -1;
		for (long c = lo; c <= hi && n < max; c++)
			cpu[n++] = (int)c;
	}
	return n;
}

static int usage(void)
{
	fprintf(stderr, "usage: ringfloor [-e cpu-clock|task-clock] [-F HZ] [-m PAGES] -- CMD [ARGS]\n");
	return 2;
}

int main(int argc, char **argv)
{
	static struct ring ring[MAX_CPUS];
	static int cpu[MAX_CPUS];
	struct pollfd pfd[MAX_CPUS + 1];
	long freq = 20000, pages = 128, config = PERF_COUNT_SW_CPU_CLOCK;
	int opt, go[2], ncpu, status = 0;
	uint64_t bytes = 0;
	pid_t pid;

	while ((opt = getopt(argc, argv, "+e:F:m:")) != -1) {
		if (opt == 'e' && !strcmp(optarg, "cpu-clock"))
			config = PERF_COUNT_SW_CPU_CLOCK;
		else if (opt == 'e' && !strcmp(optarg, "task-clock"))
			config = PERF_COUNT_SW_TASK_CLOCK;
		else if (opt == 'F' && !parse_num(optarg, 1, 1000000, &freq))
			;
		else if (opt == 'm' && !parse_num(optarg, 1, 1L << 20, &pages) &&
			 !(pages & (pages - 1)))
			;
		else
			return usage();
	}
	if (optind >= argc)
		return usage();
	ncpu = online_cpus(cpu, MAX_CPUS);
	if (ncpu <= 0) {
		fprintf(stderr, "ringfloor: cannot read the online CPUs\n");
		return 1;
	}

	/* The command waits for the events before it execs. */
	if (pipe2(go, O_CLOEXEC))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		char c;
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "ringfloor: %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	close(go[0]);

	long page = sysconf(_SC_PAGESIZE);
	for (int i = 0; i < ncpu; i++) {
		struct perf_event_attr a = {
			.size = sizeof(a),
			.type = PERF_TYPE_SOFTWARE,
			.config = (uint64_t)config,
			.freq = 1,
			.sample_freq = (uint64_t)freq,
			.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				       PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD,
			.disabled = 1,
			.inherit = 1,
			.enable_on_exec = 1,
			.sample_id_all = 1,
			.watermark = 1,
			.wakeup_watermark = (uint32_t)(pages * page / 4),
		};
		ring[i].fd = perf_open(&a, pid, cpu[i]);
		if (ring[i].fd < 0) {
			fprintf(stderr, "ringfloor: perf_event_open on CPU %d: %s\n", cpu[i],
				strerror(errno));
			kill(pid, SIGKILL);
			return 1;
		}
		ring[i].len = (size_t)(pages + 1) * (size_t)page;
		void *m = mmap(NULL, ring[i].len, PROT_READ | PROT_WRITE, MAP_SHARED, ring[i].fd, 0);
		if (m == MAP_FAILED) {
			fprintf(stderr, "ringfloor: mmap of %zu bytes: %s\n", ring[i].len,
				strerror(errno));
			kill(pid, SIGKILL);
			return 1;
		}
		ring[i].meta = m;
		pfd[i] = (struct pollfd){ .fd = ring[i].fd, .events = POLLIN };
	}
	/* the command's end, as a readable pidfd */
	pfd[ncpu] = (struct pollfd){ .fd = (int)syscall(SYS_pidfd_open, pid, 0), .events = POLLIN };
	if (pfd[ncpu].fd < 0) {
		fprintf(stderr, "ringfloor: pidfd_open: %s\n", strerror(errno));
		kill(pid, SIGKILL);
		return 1;
	}
	if (write(go[1], "g", 1) != 1)
		return 1;
	close(go[1]);

	for (;;) {
		int n = poll(pfd, (nfds_t)ncpu + 1, -1);
		if (n < 0 && errno != EINTR)
			break;
		for (int i = 0; i < ncpu; i++)
			if (pfd[i].revents)
				bytes += consume(&ring[i]);
		if (pfd[ncpu].revents)
			break;
	}
	for (int i = 0; i < ncpu; i++)
		bytes += consume(&ring[i]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	fprintf(stderr, "ringfloor: %llu bytes of records consumed\n", (unsigned long long)bytes);
	for (int i = 0; i < ncpu; i++) {
		munmap(ring[i].meta, ring[i].len);
		close(ring[i].fd);
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
