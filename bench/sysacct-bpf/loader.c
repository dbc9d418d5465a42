// SPDX-License-Identifier: MIT
/*
 * sysacct-bpf OBJ -- COMMAND...: the BPF prototype of per-task accounting
 * (sysacct.bpf.c), for bench/sysacct.sh only. Counts task-clock and
 * page-faults on every CPU, loads and attaches the program, runs COMMAND
 * and waits for it, then prints on stderr how many tasks the map holds
 * and the sums of their counts next to the CPUs' totals. Not part of
 * hpmon.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#define NR_EV 2
struct counts {
	__u64 v[NR_EV];
	__u64 switches;
};

static int counter(unsigned long config, int cpu)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = config;
	return (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

int main(int argc, char **argv)
{
	static const unsigned long cfg[NR_EV] = { PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_PAGE_FAULTS };
	int ncpu = libbpf_num_possible_cpus();
	if (argc < 4 || strcmp(argv[2], "--") || ncpu <= 0) {
		fprintf(stderr, "usage: sysacct-bpf OBJ -- COMMAND...\n");
		return 2;
	}
	struct bpf_object *obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "sysacct-bpf: cannot open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	struct bpf_map *ev[NR_EV] = { bpf_object__find_map_by_name(obj, "ev0"),
				      bpf_object__find_map_by_name(obj, "ev1") };
	for (int e = 0; e < NR_EV; e++)
		bpf_map__set_max_entries(ev[e], (__u32)ncpu);
	if (bpf_object__load(obj)) {
		fprintf(stderr, "sysacct-bpf: cannot load the program: %s\n", strerror(errno));
		return 1;
	}
	int *fd = calloc((size_t)ncpu * NR_EV, sizeof(int));
	for (int c = 0; c < ncpu; c++)
		for (int e = 0; e < NR_EV; e++) {
			__u32 k = (__u32)c;
			fd[c * NR_EV + e] = counter(cfg[e], c);
			if (fd[c * NR_EV + e] < 0)
				continue; /* an offline CPU */
			if (bpf_map_update_elem(bpf_map__fd(ev[e]), &k, &fd[c * NR_EV + e], BPF_ANY)) {
				fprintf(stderr, "sysacct-bpf: map update: %s\n", strerror(errno));
				return 1;
			}
		}
	struct bpf_link *link =
		bpf_program__attach(bpf_object__find_program_by_name(obj, "on_switch"));
	if (!link) {
		fprintf(stderr, "sysacct-bpf: cannot attach: %s\n", strerror(errno));
		return 1;
	}
	pid_t pid = fork();
	if (pid == 0) {
		execvp(argv[3], argv + 3);
		_exit(127);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	bpf_link__destroy(link);

	__u64 total[NR_EV] = { 0 }, sum[NR_EV] = { 0 }, switches = 0;
	for (int c = 0; c < ncpu; c++)
		for (int e = 0; e < NR_EV; e++) {
			__u64 v;
			if (fd[c * NR_EV + e] >= 0 && read(fd[c * NR_EV + e], &v, sizeof(v)) == sizeof(v))
				total[e] += v;
		}
	int map = bpf_object__find_map_by_name(obj, "tasks") ? bpf_map__fd(bpf_object__find_map_by_name(obj, "tasks")) : -1;
	__u32 key, next, *prev = NULL;
	size_t n = 0;
	struct counts v;
	while (bpf_map_get_next_key(map, prev, &next) == 0) {
		if (bpf_map_lookup_elem(map, &next, &v) == 0) {
			for (int e = 0; e < NR_EV; e++)
				sum[e] += v.v[e];
			switches += v.switches;
			n++;
		}
		key = next;
		prev = &key;
	}
	fprintf(stderr, "sysacct-bpf: %zu tasks, %llu switches; task-clock %llu of %llu ns, "
		"page-faults %llu of %llu (the parts since each CPU's last switch are no task's)\n",
		n, (unsigned long long)switches, (unsigned long long)sum[0],
		(unsigned long long)total[0], (unsigned long long)sum[1], (unsigned long long)total[1]);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
