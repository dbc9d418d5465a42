/* SPDX-License-Identifier: MIT */
/*
 * Processor families (data/families.txt): which metric, preset and cost
 * files apply to a machine, and its counters when the machine does not say.
 */
#ifndef HPM_FAMILY_INTERNAL_H
#define HPM_FAMILY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/perf_event.h>
#include "core/ctx-internal.h"

#define HPM_FAMILY_NAME_MAX 32
#define HPM_FAMILY_MAX_CHAIN 4

struct hpm_family {
	char name[HPM_FAMILY_NAME_MAX];
	/* the family itself first, then its parents: intel, generic, software */
	char chain[HPM_FAMILY_MAX_CHAIN][HPM_FAMILY_NAME_MAX];
	unsigned nr_chain;
	int nr_general, nr_fixed;  /* defaults of the "counters" line, or 0 */
};

/* Family @name from data/families.txt: 0 or -ENOENT. */
int hpm_family__get(const char *name, struct hpm_family *out);

/* The family of the context's machine (its first core PMU). 0 or -errno. */
int hpm_family__detect_into(const struct hpm_ctx *ctx, struct hpm_family *out);

/*
 * The fixed-counter slot an event of @ctx's core PMU can take in family
 * @family ("fixed" lines), or -1 when it needs a general counter.
 */
int hpm_family__fixed_slot(struct hpm_ctx *ctx, const char *family,
			   const struct perf_event_attr *attr);

#endif
