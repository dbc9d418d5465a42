// SPDX-License-Identifier: MIT
/*
 * The BPF alternative to hpmon's sampled context-switches leader, as a
 * prototype for bench/sysacct.sh only: at every sched_switch, read this
 * CPU's counters (task-clock, page-faults) and add what they moved since
 * the CPU's previous switch to the task switched out, in a hash map kept
 * in the kernel. Nothing is written into a buffer per switch; user space
 * reads the map at the end. Not part of hpmon.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define NR_EV 2

struct counts {
	__u64 v[NR_EV];
	__u64 switches;
};

/* one counting event per CPU and event, set by the loader */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} ev0 SEC(".maps"), ev1 SEC(".maps");

/* the CPU's counts at its previous switch */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct counts);
} last SEC(".maps");

/* per task (tid): what it used */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct counts);
} tasks SEC(".maps");

/* switches whose task found no room in the map */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} dropped SEC(".maps");

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct bpf_perf_event_value a, b;
	__u32 zero = 0, tid = prev->pid;
	struct counts *l = bpf_map_lookup_elem(&last, &zero);

	if (!l || bpf_perf_event_read_value(&ev0, BPF_F_CURRENT_CPU, &a, sizeof(a)) ||
	    bpf_perf_event_read_value(&ev1, BPF_F_CURRENT_CPU, &b, sizeof(b)))
		return 0;
	struct counts *t = bpf_map_lookup_elem(&tasks, &tid);
	if (!t) {
		struct counts z = {};
		bpf_map_update_elem(&tasks, &tid, &z, BPF_NOEXIST);
		t = bpf_map_lookup_elem(&tasks, &tid);
	}
	if (t) {
		t->v[0] += a.counter - l->v[0];
		t->v[1] += b.counter - l->v[1];
		t->switches++;
	} else {
		__u64 *d = bpf_map_lookup_elem(&dropped, &zero);
		if (d)
			(*d)++;
	}
	l->v[0] = a.counter;
	l->v[1] = b.counter;
	return 0;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
