/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/count/ owns counting; may use attach, metrics, events, location, core, runtime, sys.
 *
 * System-wide accounting per task (include/hpmon/sysacct.h), the
 * session's way in for tests and fuzzers: records queued and attributed
 * as if read from a CPU's buffer, with no kernel (tests/unit/test-sysacct.c,
 * fuzz/fuzz-sysacct.c). The attribution itself is sysacct-tasks-internal.h's.
 *
 * Ownership: as the session's (hpm_sysacct__new): records are copied.
 */
#ifndef HPM_SYSACCT_INTERNAL_H
#define HPM_SYSACCT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <hpmon/sysacct.h>
#include "count/sysacct-tasks-internal.h"
#include "sys/ring.h"  /* HPM_RING_RECORD_MAX: a record's largest size */

/* Queue a record of CPU slot @slot (copied): sa_tasks_queue. */
int sa_queue(struct hpm_sysacct *a, int slot, const void *rec, size_t len, uint64_t time);
/* Attribute every queued record older than @cutoff: sa_tasks_process. */
int sa_process(struct hpm_sysacct *a, uint64_t cutoff);

#endif
