/* SPDX-License-Identifier: MIT */
/*
 * Regions of code, measured from inside the program (LIKWID's marker API,
 * PAPI's and perfex's start/stop, CPPMon's start_pm/stop_pm).
 *
 *   #include <hpmon/region.h>
 *
 *   hpm_region_begin("solve");
 *   solve();
 *   hpm_region_end("solve");
 *
 * Under `hpmon stat --regions -e EVENTS -- prog`, each thread counts
 * EVENTS itself (its own counters, read with rdpmc where the kernel allows
 * user-space reads, else read(2)), and hpmon reports per region and per
 * thread how often it ran and each event's count. Without --regions (or
 * without hpmon) a begin/end pair costs two loads and two branches.
 *
 * Unlike LIKWID's markers:
 *  - regions nest, in each other and in themselves (recursion: each
 *    instance counts, so the outer instances include the inner ones);
 *  - they may end in another order than they began;
 *  - counts are per thread and 64 bits, so a thread that migrates or is
 *    switched out keeps exact counts and nothing overflows;
 *  - an end in a thread where the region is not open (it began in another
 *    thread, or never) is counted and flagged, not silently mixed in; so
 *    is a region still open when its thread ends.
 *
 * Names: at most 47 bytes, up to 64 regions per program. The name is
 * looked up by its pointer first, so pass the same literal each time for
 * the fastest path; any string with the same text is the same region.
 *
 * Link with -lhpmon-rt (pkg-config libhpmon-rt), the in-program runtime,
 * which needs nothing but libc; libhpmon brings it along too
 * (docs/api.md).
 *
 * Ownership: nothing to free. The text of @name is copied on a region's
 * first use; its pointer is remembered per thread as a lookup key, so a
 * name's storage must keep its text while it is used (a literal does).
 */
#ifndef HPMON_REGION_H
#define HPMON_REGION_H

#include <hpmon/hpmon.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Begin region @name in the calling thread: read its counters. 0, or
 * -ENOSPC (too many regions, or nested deeper than 32), -EINVAL (NULL,
 * empty or overlong name); 0 also when nothing measures regions.
 */
HPM_API int hpm_region_begin(const char *name);
/*
 * End the innermost open instance of region @name in the calling thread:
 * read its counters and add the differences to the region's totals.
 * 0, or -ENOENT when the region is not open in this thread (it is then
 * flagged HPM_REGION_UNMATCHED).
 */
HPM_API int hpm_region_end(const char *name);

#ifdef __cplusplus
}
#endif
#endif
