/* SPDX-License-Identifier: MIT */
/*
 * DWARF unwinding of user stacks copied at sample time (hpmon record
 * --call-graph dwarf): the sampled registers and stack bytes, and the
 * executable mappings of the process, give the call chain, unwound with
 * the CFI (.eh_frame, .debug_frame) of the mapped objects by elfutils.
 *
 * Ownership: an unwinder copies the mappings (paths included), so the
 * caller's array may go after hpm_unwinder__new(); it borrows the sample
 * only during hpm_unwinder__unwind(); @ips is the caller's.
 */
#ifndef HPMON_UNWIND_H
#define HPMON_UNWIND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <hpmon/profile.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One executable file mapping of the process. */
struct hpm_unwind_map {
	uint64_t start, end, pgoff;
	const char *path;
};

struct hpm_unwinder;

/*
 * An unwinder for process @pid with these mappings (copied). NULL and
 * errno (ENOTSUP when this build cannot unwind the host's architecture).
 */
HPM_API struct hpm_unwinder *hpm_unwinder__new(pid_t pid, const struct hpm_unwind_map *maps,
					       size_t nr_maps);
HPM_API void hpm_unwinder__free(struct hpm_unwinder *u);
/*
 * Unwind sample @s (which must carry user registers and a stack copy,
 * taken on the architecture hpmon runs on) into @ips: the sampled address
 * first, then the return addresses of the callers. Returns the number of
 * entries (at least 1), or -errno (EINVAL: no registers or stack).
 */
HPM_API int hpm_unwinder__unwind(struct hpm_unwinder *u, const struct hpm_sample *s,
				 uint64_t *ips, size_t max);

#ifdef __cplusplus
}
#endif
#endif
