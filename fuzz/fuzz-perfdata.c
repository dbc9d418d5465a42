// SPDX-License-Identifier: MIT
/*
 * Fuzz the perf.data reader (lib/profile/perfdata*.c) through the profile
 * API: any bytes after perf.data's magic (set here, unless the input has
 * the other byte order's, so mutations are not spent finding it). The
 * reader must never crash, leak or read out of bounds, must end, and
 * every record it hands out must have sane lengths; read again skipping
 * call chains and stacks, it must hand out the same records. The seeds
 * (fuzz/corpus/perfdata/) are files perf 6.1 wrote: fuzz/gen-perfdata.sh.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hpmon/profile.h>

static int fuzz_one(const uint8_t *data, size_t size);

static uint64_t read_all(const uint8_t *data, size_t size, unsigned skip,
			 struct hpm_profile_status *st)
{
	struct hpm_profile *p;
	struct hpm_profile_rectype t[8];
	struct hpm_prec r;
	volatile uint64_t sink = 0;
	uint64_t nr = 0;

	memset(st, 0, sizeof(*st));
	if (hpm_profile__open_mem(data, size, &p))
		return UINT64_MAX;
	hpm_profile__skip(p, skip);
	const struct hpm_profile_meta *m = hpm_profile__meta(p);
	for (uint32_t i = 0; i < m->nr_events; i++) {
		if (strlen(m->events[i].name) > 4096)
			__builtin_trap();
		if (m->events[i].leader >= m->nr_events || !m->events[i].group_size ||
		    m->events[i].group_size > m->nr_events)
			__builtin_trap();
	}
	/* what a profile can hold (hpmon convert writes them) */
	if (strlen(m->command) > 4096 || strlen(m->cpu_model) > 4096 || strlen(m->host) > 4096 ||
	    strlen(m->arch) > 4096 || strlen(m->kernel) > 4096)
		__builtin_trap();
	while (hpm_profile__next(p, &r) > 0) {
		nr++;
		switch (r.type) {
		case HPM_PREC_SAMPLE:
			if (r.sample.ev >= m->nr_events || r.sample.nr_chain > 4096 ||
			    r.sample.stack_len > 65536 || r.sample.nr_regs > 64 ||
			    r.sample.nr_values > m->nr_events)
				__builtin_trap();
			if (skip && (r.sample.nr_chain || r.sample.stack_len || r.sample.nr_regs))
				__builtin_trap();
			for (uint32_t k = 0; k < r.sample.nr_values; k++)
				sink += r.sample.values[k];
			for (uint32_t k = 0; k < r.sample.nr_chain; k++)
				sink += r.sample.chain[k];
			for (uint32_t k = 0; k < r.sample.nr_regs; k++)
				sink += r.sample.regs[k];
			for (uint32_t k = 0; k < r.sample.stack_len; k++)
				sink += r.sample.stack[k];
			break;
		case HPM_PREC_MMAP:
			if (r.mmap.build_id_len > HPM_BUILD_ID_MAX)
				__builtin_trap();
			if (strlen(r.mmap.filename) > 4096)
				__builtin_trap();
			break;
		case HPM_PREC_COMM:
			if (strlen(r.comm.comm) > 4096)
				__builtin_trap();
			break;
		default:
			break;
		}
	}
	size_t n = hpm_profile__rectypes(p, t, 8);
	for (size_t i = 0; i < n && i < 8; i++)
		sink += strlen(t[i].name) + t[i].count;
	*st = *hpm_profile__status(p);
	hpm_profile__free(p);
	(void)sink;
	return nr;
}

static int fuzz_one(const uint8_t *data, size_t size)
{
	static const uint8_t swapped[8] = { '2', 'E', 'L', 'I', 'F', 'R', 'E', 'P' };
	struct hpm_profile_status a, b;
	uint8_t *buf = malloc(size + 8);

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	if (size < 8 || memcmp(buf, swapped, 8))
		memcpy(buf, "PERFILE2", size < 8 ? size : 8);
	uint64_t n = read_all(buf, size, 0, &a);
	uint64_t k = read_all(buf, size, HPM_PROFILE_SKIP_CHAINS | HPM_PROFILE_SKIP_STACKS, &b);
	if (n != k || a.complete != b.complete || a.truncated != b.truncated ||
	    a.corrupt != b.corrupt || a.good_bytes != b.good_bytes)
		__builtin_trap();
	free(buf);
	return 0;
}

#include "fuzz-cpu.h"
