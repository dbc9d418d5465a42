/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/core/ owns the context, errors, data and CPU lists; may use sys.
 *
 * Whether hardware breakpoints fire on this host, measured rather than
 * assumed: some hosts (paravirtualised guests among them) open a
 * breakpoint and then never count it, and perf's mem:ADDR:x counts 0 there
 * too. A breakpoint is put on a known place of the library's own, the
 * place is used HPM_BP_PROBE_USES times, and the count is read.
 *
 * Measured once per context and kind, at the first need (the probe costs
 * one perf_event_open, a few calls and a read: about as much as reading a
 * cache file would); the answer is the context's.
 *
 * Ownership: the context is borrowed; the returned fact is the context's
 * and lives as long as it.
 */
#ifndef HPM_BREAKPOINTS_INTERNAL_H
#define HPM_BREAKPOINTS_INTERNAL_H

#include <hpmon/sysinfo.h>

#define HPM_BP_PROBE_USES 3

/* Measure (once) and return the fact for @kind. */
const struct hpm_bp_fact *hpm__ctx_breakpoints(const struct hpm_ctx *ctx, enum hpm_bp_kind kind);

/* How many breakpoints the calling thread can have at once: opened (on
 * code of the library's own, disabled) until the kernel refuses one. */
unsigned hpm__bp_slots(void);

/* "hardware breakpoints do not fire on this host (...)" or the reason
 * they cannot be opened, into @buf, for a message; "" when they fire. */
void hpm__bp_why(const struct hpm_bp_fact *f, char *buf, size_t len);

#endif
