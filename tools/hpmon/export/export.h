/* SPDX-License-Identifier: MIT */
/*
 * hpmon report's exports to other tools' formats (docs/formats.md):
 * pprof's profile.proto (gzipped), the Trace Event Format JSON that
 * Perfetto and chrome://tracing load, and speedscope's JSON. Each reads
 * every sample of the loaded profile through the report layer's sink
 * (report/report.h), so it sees what report's filters let through, with
 * the same names and call stacks as `report --folded`.
 *
 * Use: export_new before rep_load (it sets the options' sink and asks for
 * call chains), rep_load (the trace is written as the samples come), then
 * export_write once, then export_free.
 *
 * Room: tools/hpmon/export/ owns report's samples as pprof, trace-event and speedscope; may use report, output.
 * Ownership: export_new returns an object the caller frees with
 * export_free, after rep_free or before it; it borrows the rep_opts it
 * was given (which must outlive rep_load) and the stream, which it writes
 * and never closes. export_write borrows the rep.
 */
#ifndef HPMON_TOOL_EXPORT_H
#define HPMON_TOOL_EXPORT_H

#include <stdio.h>
#include "report/report.h"

enum export_fmt { EXPORT_PPROF, EXPORT_TRACE_EVENT, EXPORT_SPEEDSCOPE };

struct export;

/* An export of @fmt to @f, hooked into @o. NULL when memory runs out. */
struct export *export_new(enum export_fmt fmt, struct rep_opts *o, FILE *f);
/* Finish the export of the loaded @r. 0, or -errno after printing why
 * (prefixed "hpmon report:"). A write error of the stream shows at its
 * close. */
int export_write(struct export *x, struct rep *r);
/* Whether the format is binary (not for a terminal). */
bool export_binary(enum export_fmt fmt);
/* Accepts NULL. */
void export_free(struct export *x);

#endif
