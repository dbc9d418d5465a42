/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/profile/ owns the profile file, written and read; may use core, sys.
 *
 * The profile writer's TIMELINE records (profile-write-timeline.c), held
 * back and written together at the end of their chunk, for the writer
 * (profile-write.c: records in chunks, the worker that compresses them,
 * the header).
 *
 * Ownership: a batch owns the readings and values it holds (copies of
 * what it is given); tl_batch__release frees them.
 */
#ifndef HPM_PROFILE_WRITE_TIMELINE_INTERNAL_H
#define HPM_PROFILE_WRITE_TIMELINE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <hpmon/profile.h>
#include "profile/encode-internal.h"

/*
 * A chunk's TIMELINE records, held until the chunk is written: then
 * sorted by thread, CPU and event (in the order they came within each)
 * and encoded one after the other, after the chunk's other records. So
 * a thread's readings follow each other and each is written as little
 * differences from its previous one, and they do not break the runs of
 * alike samples that zstd compresses.
 */
struct tl_held;

struct tl_batch {
	struct tl_held *v;
	size_t nr, cap;
	uint64_t *vals;          /* the readings' values, one after the other */
	size_t nr_vals, cap_vals;
	size_t bytes;            /* at most what they take once encoded */
};

/* Hold a copy of @r (checked by the caller). 0 or -ENOMEM. */
int tl_batch__add(struct tl_batch *b, const struct hpm_read_rec *r);
/* Encode the held readings into @out (they count in out->nr) with times
 * in units of @unit ns, and empty the batch. @prev: [nr_ev] scratch for
 * each event's previous value. 0 or -ENOMEM (the batch is kept then). */
int tl_batch__write(struct tl_batch *b, struct wbuf *out, uint64_t *prev, uint32_t nr_ev,
		    uint64_t unit);
void tl_batch__release(struct tl_batch *b);

#endif
