/* SPDX-License-Identifier: MIT */
/*
 * Turning library errors into advice: the one place where the tool says
 * what went wrong and what to do about it.
 * Ownership: the advice is written into the caller's buffer; the context,
 * events and errors are borrowed for the call.
 */
#ifndef HPMON_TOOL_ADVICE_H
#define HPMON_TOOL_ADVICE_H

#include <stddef.h>
#include <stdio.h>

struct hpm_ctx;
struct hpm_event;
struct hpm_parse_error;

/* What was being counted, for advice_open(). */
enum advice_target {
	ADVICE_COMMAND = 0, /* a command hpmon started */
	ADVICE_SYSTEM = 1,  /* CPUs, system-wide */
	ADVICE_ATTACH = 2,  /* existing processes or threads (-p, -t) */
};

/*
 * One line saying why @ev could not be opened (err = -errno) and what to do,
 * for a target of kind @target (enum advice_target).
 */
void advice_open(struct hpm_ctx *ctx, const struct hpm_event *ev, int err,
		 int target, char *buf, size_t len);

/* Print a parse error of @spec with a caret under the bad spot. */
void advice_parse(FILE *f, const char *spec, const struct hpm_parse_error *e);

/* perf_event_paranoid, or 99 if it cannot be read. */
int advice_paranoid(struct hpm_ctx *ctx);

/* True when sysfs shows no core (CPU) PMU: a VM without PMU passthrough. */
int advice_no_core_pmu(struct hpm_ctx *ctx);

#endif
