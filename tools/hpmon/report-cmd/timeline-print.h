/* SPDX-License-Identifier: MIT */
/*
 * report --timeline (timeline-print.c): sparklines of a timeline.
 * Room: tools/hpmon/report-cmd/ owns hpmon report's options, outputs and sparklines; may use pictures, export, timeline, report, counting, cache, output.
 * Ownership: both borrow their arguments during the call; @f is the
 * caller's to close.
 */
#ifndef HPMON_TOOL_TIMELINE_PRINT_H
#define HPMON_TOOL_TIMELINE_PRINT_H

#include <stdbool.h>
#include <stdio.h>

struct timeline;

/* @t as text for a terminal @width columns wide: a line per event and
 * thread, Unicode blocks with @utf8, else ASCII. 0 or -EIO. */
int timeline_print(FILE *f, const struct timeline *t, const char *name, unsigned width, bool utf8);
/* The timeline of @input, a profile or a stat -I JSON file (told apart by
 * its first bytes), printed to @f (a terminal's width when it is one,
 * UTF-8 when the locale says so). 0, or -1 said on stderr. */
int report_timeline(const char *input, FILE *f);

#endif
