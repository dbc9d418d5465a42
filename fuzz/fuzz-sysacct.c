/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the records system-wide accounting per task reads
 * from the kernel's buffers (lib/count/sysacct-tasks.c). The kernel
 * writes them, and ring.h treats what it writes as untrusted: each input
 * is cut into records (a byte for the CPU slot, then a record whose
 * header's size says how much follows, cut to what is left), queued as
 * the CPUs' buffers would queue them, and attributed: samples, fork,
 * exit, comm, lost and sync records alike, malformed ones included. The
 * procfs root is a directory that does not exist, so tasks get no names
 * from the machine. Built by fuzz/CMakeLists.txt, run by scripts/fuzz.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hpmon/hpmon.h>
#include <hpmon/sysacct.h>
#include "count/sysacct-internal.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
static int fuzz_one(const uint8_t *data, size_t size);

static struct hpm_ctx *ctx;
static struct hpm_evlist *list;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct hpm_ctx_opts co = { .sz = sizeof(co), .procfs_root = "/nonexistent-hpmon-fuzz" };
	struct hpm_parse_error perr;
	(void)argc;
	(void)argv;
	ctx = hpm_ctx__new(&co);
	if (!ctx || hpm_evlist__parse(ctx, "task-clock,page-faults", &list, &perr))
		abort();
	return 0;
}

static int fuzz_one(const uint8_t *data, size_t size)
{
	static const int cpus[] = { 0, 1 };
	struct hpm_sysacct_opts o = { .sz = sizeof(o), .cpus = cpus, .nr_cpus = 2 };
	struct hpm_sysacct *a = hpm_sysacct__new(list, &o);
	uint64_t rec[HPM_RING_RECORD_MAX / 8];
	size_t off = 0;

	if (!a)
		abort();
	while (size - off > 1 + sizeof(struct perf_event_header)) {
		int slot = data[off] & 1;
		struct perf_event_header h;
		off++;
		memcpy(&h, data + off, sizeof(h));
		size_t len = h.size < sizeof(h) ? sizeof(h) : h.size;
		if (len > size - off)
			len = size - off;
		memcpy(rec, data + off, len);
		((struct perf_event_header *)rec)->size = (uint16_t)len;
		off += len;
		if (sa_queue(a, slot, rec, len, sa_rec_time(rec, len)))
			abort();
		/* now and then a round, as drains come */
		if (data[off - 1] == 0xa5)
			sa_process(a, UINT64_MAX / 2);
	}
	sa_process(a, UINT64_MAX);
	/* the sum over tasks is the CPUs' counts, whatever the records said */
	for (size_t ev = 0; ev < hpm_sysacct__nr_events(a); ev++) {
		uint64_t total = 0, sum = 0;
		hpm_sysacct__total(a, ev, &total, NULL, NULL);
		for (size_t t = 0; t < hpm_sysacct__nr_tasks(a); t++)
			sum += hpm_sysacct__count(a, t, ev);
		if (sum != total)
			abort();
		for (size_t t = 0; t < hpm_sysacct__nr_tasks(a); t++)
			if (strnlen(hpm_sysacct__task(a, t)->comm, 16) == 16)
				abort();
	}
	hpm_sysacct__free(a);
	return 0;
}

#include "fuzz-cpu.h"
