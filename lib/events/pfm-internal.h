/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/events/ owns event syntax to perf_event_attr; may use location, core, runtime, sys.
 *
 * libpfm4 bridge. libpfm4 ships its own copy of perf_event.h, which cannot
 * share a file with <linux/perf_event.h>, so only plain fields cross here.
 * Ownership: encodings are values in the caller's storage; libpfm4's own
 * tables are process-wide and initialised once (hpm_pfm__init).
 */
#ifndef HPM_PFM_INTERNAL_H
#define HPM_PFM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hpm_pfm_enc {
	uint32_t type;
	uint64_t config, config1, config2;
	bool exclude_user, exclude_kernel, exclude_hv;
	unsigned precise_ip;
	char pmu[64];      /* libpfm4's PMU name, e.g. "skl" */
};

/* libpfm4 ready (initialised once per process); 0 or -HPM_ERR_PFM. */
int hpm_pfm__init(void);
/* Resolve a native name. 0, -HPM_ERR_UNKNOWN_EVENT, -HPM_ERR_BAD_MODIFIER
 * or -HPM_ERR_PFM. */
int hpm_pfm__resolve(const char *name, struct hpm_pfm_enc *out);

#endif
