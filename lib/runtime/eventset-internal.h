/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/runtime/ owns what runs in the measured program; may use sys.
 *
 * Event sets inside libhpmon (include/hpmon/counters.h has the API): what
 * the markers runtime (lib/runtime/thread-counters.c) and libhpmon's
 * spec-parsing constructor (lib/count/eventset.c) use beyond it.
 *
 * Ownership: a set owns its file descriptors, mappings and copies of the
 * names; the attributes and names given to a constructor are borrowed for
 * the call only. A set is freed with hpm_eventset__free() by whoever made it.
 *
 * libhpmon calls hpm__eventset_open() across the library boundary: it is
 * listed in lib/libhpmon-rt.map, in its part for libhpmon only.
 */
#ifndef HPM_RUNTIME_EVENTSET_INTERNAL_H
#define HPM_RUNTIME_EVENTSET_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <hpmon/counters.h>

/* Absolute counts, as read_format gives them: value, time enabled, running. */
struct hpm_es_count {
	uint64_t value, enabled, running;
};

/*
 * Open @n events of @attrs (@names may be NULL; @drop_kernel[i], or every
 * event when @drop_kernel is NULL, may fall back to user-only when
 * perf_event_paranoid refuses kernel counting). The set, or NULL with
 * *@errp = -errno and *@bad the event the kernel refused (0 also when the
 * failure was no event's: bad options, no memory).
 */
struct hpm_eventset *hpm__eventset_open(const struct perf_event_attr *attrs,
					const char *const *names, const bool *drop_kernel,
					size_t n, const struct hpm_eventset_opts *opts,
					size_t *bad, int *errp);

/*
 * The absolute counts of every event of @es right now (not since start)
 * into @out[count]. The markers runtime takes differences of these at
 * region begin and end. 0 or -errno.
 */
int hpm__eventset_read_raw(struct hpm_eventset *es, struct hpm_es_count *out);
/* Enable or disable every event, without touching the start baseline. */
int hpm__eventset_enable(struct hpm_eventset *es, bool on);

#endif
