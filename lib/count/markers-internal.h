/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/count/ owns counting; may use attach, metrics, events, location, core, runtime, sys.
 *
 * What a counting session (lib/count/session.c) reads from the markers
 * area's measuring side (lib/count/markers.c): the software counters and
 * marked counts of an event, given the area and the session's data; the
 * session calls, markers.c knows nothing of sessions.
 *
 * Ownership: everything is borrowed for the call; the messages are static.
 */
#ifndef HPM_COUNT_MARKERS_INTERNAL_H
#define HPM_COUNT_MARKERS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <hpmon/counters.h>
#include <hpmon/session.h>

struct hpm_event;

/* CLOCK_MONOTONIC now, in ns: the time base of sw: counters. */
uint64_t hpm__markers_now_ns(void);
/*
 * Event @ev (index @idx of the session's list), if area @m counts it (a
 * sw: counter; any event when @marked): its count over the threads
 * @pid/@tid (0: all) into @out, counted since @since_ns
 * (hpm__markers_now_ns), and true. False for an event the session reads
 * itself, or without an area (@m NULL).
 */
bool hpm__markers_read_event(const struct hpm_markers *m, bool marked,
			     const struct hpm_event *ev, size_t idx, uint64_t since_ns,
			     pid_t pid, pid_t tid, struct hpm_count *out);
/* Why event @ev cannot be counted with area @m (or without one), or NULL. */
const char *hpm__markers_message(const struct hpm_markers *m, bool marked,
				 const struct hpm_event *ev);

#endif
