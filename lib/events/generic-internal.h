/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/events/ owns event syntax to perf_event_attr; may use location, core, runtime, sys.
 *
 * Generic (PMU-independent) events, read from data/generic-events.txt:
 * hardware, software and hardware-cache events by perf's names.
 * Ownership: the tables are static; returned names point into them.
 */
#ifndef HPM_GENERIC_INTERNAL_H
#define HPM_GENERIC_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>

enum hpm_generic_kind {
	HPM_GEN_HW, HPM_GEN_SW, HPM_GEN_UNIT, HPM_GEN_OP, HPM_GEN_RESULT
};

struct hpm_generic_entry {
	enum hpm_generic_kind kind;
	const char *names;   /* '|'-separated, first canonical (not NUL-split) */
	size_t names_len;
	uint64_t config;
	const char *desc;
};

/* Call @fn for every entry in file order; stops when it returns non-zero
 * and returns that value. */
typedef int (*hpm_generic_fn)(const struct hpm_generic_entry *e, void *arg);
int hpm_generic__foreach(hpm_generic_fn fn, void *arg);

/*
 * Resolve a generic name (case-insensitive for cache events, as perf) into
 * attr->type/config. Returns 0, or -HPM_ERR_UNKNOWN_EVENT.
 */
int hpm_generic__resolve(const char *name, struct perf_event_attr *attr);

/* Copy the canonical (first) name of @e into @buf. */
void hpm_generic__canonical(const struct hpm_generic_entry *e, char *buf,
			    size_t len);

#endif
