/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/events/ owns event syntax to perf_event_attr; may use location, core, runtime, sys.
 *
 * Processor families (data/families.txt): which metric, preset and cost
 * files apply to a machine, and its counters when the machine does not say.
 *
 * Ownership: a struct hpm_family is a value the caller owns (no pointers
 * inside); the specs handed to a foreach callback are borrowed for the
 * call only (they point into the embedded data).
 */
#ifndef HPM_FAMILY_INTERNAL_H
#define HPM_FAMILY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
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
 * The "fixed" lines of family @family: @fn(spec, slot, @arg) for each event
 * spec that can take fixed counter @slot, in file order, until @fn returns
 * non-zero, which is returned (0 when it never does). The specs are
 * perf's syntax as written in the file, some of them aliases a machine
 * may not have: the caller, which knows event lists, resolves them.
 */
typedef int (*hpm_family_fixed_fn)(const char *spec, int slot, void *arg);
int hpm_family__foreach_fixed(const char *family, hpm_family_fixed_fn fn, void *arg);

#endif
