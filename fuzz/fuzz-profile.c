// SPDX-License-Identifier: MIT
/*
 * Fuzz the profile reader: any bytes as a profile file. The reader must
 * never crash, leak or read out of bounds, and must end (0) or fail
 * cleanly; every record it hands out must have sane lengths.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <hpmon/profile.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hpm_profile *p;
	struct hpm_prec r;
	volatile uint64_t sink = 0;

	if (hpm_profile__open_mem(data, size, &p))
		return 0;
	const struct hpm_profile_meta *m = hpm_profile__meta(p);
	for (uint32_t i = 0; i < m->nr_events; i++)
		sink += strlen(m->events[i].name) + m->events[i].leader;
	sink += strlen(m->command) + strlen(m->cpu_model);
	while (hpm_profile__next(p, &r) > 0) {
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
	sink += hpm_profile__status(p)->chunks;
	hpm_profile__free(p);
	(void)sink;
	return 0;
}
