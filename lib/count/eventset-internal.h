/* SPDX-License-Identifier: MIT */
#ifndef HPM_EVENTSET_INTERNAL_H
#define HPM_EVENTSET_INTERNAL_H

#include <stdint.h>
#include <hpmon/counters.h>

/*
 * The absolute counts of every event of @es right now (not since start):
 * @out[i] = { value, enabled, running }. The markers runtime takes
 * differences of these at region begin and end. 0 or -errno.
 */
struct hpm_mk_count;
int hpm__eventset_read_raw(struct hpm_eventset *es, struct hpm_mk_count *out);
/* Enable or disable every event, without touching the start baseline. */
int hpm__eventset_enable(struct hpm_eventset *es, bool on);

#endif
