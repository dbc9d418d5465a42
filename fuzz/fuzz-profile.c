// SPDX-License-Identifier: MIT
/*
 * Fuzz the profile reader: any bytes as a profile file. The reader must
 * never crash, leak or read out of bounds, and must end (0) or fail
 * cleanly; every record it hands out must have sane lengths. Read again
 * skipping call chains and stacks (hpm_profile__skip), it must accept and
 * refuse exactly the same records; and so when each sample's repeats are
 * taken with it (hpm_profile__repeats), counting them.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <hpmon/profile.h>

static int fuzz_one(const uint8_t *data, size_t size);

/* Read it all; the records read, and the status, into *st. */
static uint64_t read_all(const uint8_t *data, size_t size, unsigned skip, bool runs,
			 struct hpm_profile_status *st)
{
	struct hpm_profile *p;
	struct hpm_prec r;
	volatile uint64_t sink = 0;
	uint64_t nr = 0;

	memset(st, 0, sizeof(*st));
	if (hpm_profile__open_mem(data, size, &p))
		return UINT64_MAX;
	hpm_profile__skip(p, skip);
	const struct hpm_profile_meta *m = hpm_profile__meta(p);
	for (uint32_t i = 0; i < m->nr_events; i++)
		sink += strlen(m->events[i].name) + m->events[i].leader;
	sink += strlen(m->command) + strlen(m->cpu_model);
	while (hpm_profile__next(p, &r) > 0) {
		nr++;
		if (skip && r.type == HPM_PREC_SAMPLE &&
		    (r.sample.nr_chain || r.sample.stack_len || r.sample.nr_regs))
			__builtin_trap();
		switch (r.type) {
		case HPM_PREC_SAMPLE:
			/* touch every byte the record claims to have */
			for (uint32_t k = 0; k < r.sample.nr_values; k++)
				sink += r.sample.values[k];
			for (uint32_t k = 0; k < r.sample.nr_chain; k++)
				sink += r.sample.chain[k];
			for (uint32_t k = 0; k < r.sample.nr_regs; k++)
				sink += r.sample.regs[k];
			for (uint32_t k = 0; k < r.sample.stack_len; k++)
				sink += r.sample.stack[k];
			if (r.sample.ev >= m->nr_events)
				__builtin_trap();
			/* any time bound, from the sample's own bytes */
			if (runs) {
				uint64_t until = r.sample.time + (r.sample.ip & 0xffff);
				nr += hpm_profile__repeats(p, until, UINT32_MAX);
			}
			break;
		case HPM_PREC_MMAP:
			sink += strlen(r.mmap.filename) + r.mmap.build_id_len;
			break;
		case HPM_PREC_COMM:
			sink += strlen(r.comm.comm);
			break;
		default:
			break;
		}
	}
	*st = *hpm_profile__status(p);
	hpm_profile__free(p);
	(void)sink;
	return nr;
}

static int fuzz_one(const uint8_t *data, size_t size)
{
	struct hpm_profile_status a, b;
	const unsigned skip = HPM_PROFILE_SKIP_CHAINS | HPM_PROFILE_SKIP_STACKS;
	for (int pass = 0; pass < 3; pass++) {
		uint64_t n = read_all(data, size, 0, false, &a);
		uint64_t k = read_all(data, size, pass ? skip : 0, pass != 1, &b);
		if (n != k || a.complete != b.complete || a.truncated != b.truncated ||
		    a.corrupt != b.corrupt || a.chunks != b.chunks || a.good_bytes != b.good_bytes)
			__builtin_trap();
	}
	return 0;
}

#include "fuzz-cpu.h"
