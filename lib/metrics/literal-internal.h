/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/metrics/ owns metric expressions, sets and selections; may use events, core, sys.
 *
 * perf's literals (#SMT_on, #num_packages, #slots ...) on this machine
 * (metrics/literal.c), read at the first use and kept in a metric set.
 *
 * Ownership: struct hpm_literals is its owner's (a metric set's); the
 * context is borrowed for the call.
 */
#ifndef HPM_LITERAL_INTERNAL_H
#define HPM_LITERAL_INTERNAL_H

#include <stdbool.h>
#include <hpmon/metric.h>

struct hpm_ctx;

/* The machine's values; -1 or 0 where it does not say. */
struct hpm_literals {
	bool read;
	bool system_wide, cpu_list; /* what is counted (hpm_metricset_opts), for #core_wide */
	int smt_on;                 /* 1, 0, or -1 unknown */
	double num_cpus, num_cpus_online, num_packages, num_dies, num_cores;
	double slots, tsc_hz;
};

/* The value of literal @name into @out, or n/a saying what is not known;
 * @l is read from @ctx's sysfs and procfs at the first call. */
void hpm__literal_value(struct hpm_literals *l, const struct hpm_ctx *ctx, const char *name,
			struct hpm_value *out);

#endif
