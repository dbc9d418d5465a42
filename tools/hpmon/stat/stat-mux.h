/* SPDX-License-Identifier: MIT */
/*
 * hpmon's own multiplexer (stat --mux hpmon, the default): when a
 * command's hardware events do not fit the counters at once, hpmon puts
 * sets of groups that fit on the counters in turn, in random order, for
 * random dwell times (1 to 7 ms), instead of the kernel's fixed 4 ms
 * rotation. A workload whose phases line up
 * with a fixed rotation shows a group always the same phase: an error the
 * slices cannot see. With random dwells the error becomes variance, which
 * they estimate (docs/metrics.md: how far, measured).
 *
 * A group that hpmon turned off does not accrue enabled time, so the
 * kernel's own scaling (enabled / running) would cover only its turns:
 * stat_mux__fix makes its enabled time the whole run's, as if it had been
 * on all along and the kernel had multiplexed it.
 *
 * Room: tools/hpmon/stat/ owns hpmon stat; may use counting, launch, output.
 * Ownership: the multiplexer borrows the session and the list for its
 * life; the caller frees it.
 */
#ifndef HPMON_TOOL_STAT_MUX_H
#define HPMON_TOOL_STAT_MUX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hpm_count;
struct hpm_evlist;
struct hpm_session;
struct stat_mux;

/*
 * A multiplexer for the groups of @list on the core PMU (@core_pmu, and
 * the generic hardware types), packed in order into sets of at most
 * @nr_counters events. NULL when there is nothing to do: they fit at
 * once, @nr_counters is unknown (<= 0), or out of memory. @seed 0: from
 * the clock.
 */
struct stat_mux *stat_mux__new(struct hpm_session *s, const struct hpm_evlist *list,
			       int nr_counters, const char *core_pmu, uint64_t seed);
void stat_mux__free(struct stat_mux *m);
size_t stat_mux__nr_sets(const struct stat_mux *m);

/* Counting began at @now (CLOCK_MONOTONIC ns) with every group on
 * (enable_on_exec, or the session's enable): the first switch is due. */
void stat_mux__start(struct stat_mux *m, uint64_t now);
/* When the next set is due. */
uint64_t stat_mux__due(const struct stat_mux *m);
/* Put the next set on the counters; the next is due a random dwell after
 * @now. 0 or -errno. */
int stat_mux__switch(struct stat_mux *m, uint64_t now);
/* Read the sets' enabled times: call before reading counts to fix. */
void stat_mux__sync(struct stat_mux *m);
/* The count @c of event @idx, read after the last sync, with the enabled
 * time it would have had had it been on all along. */
void stat_mux__fix(const struct stat_mux *m, size_t idx, struct hpm_count *c);

#endif
