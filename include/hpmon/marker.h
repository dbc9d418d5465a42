/* SPDX-License-Identifier: MIT */
/*
 * Software counters and marks, in the measured program.
 *
 *   #include <hpmon/marker.h>
 *
 *   HPM_COUNT(cache_hit);             // one more cache_hit in this thread
 *   HPM_ADD(bytes_in, n);             // n more bytes_in
 *   hpm_mark(true);  ... hpm_mark(false);   // count only this (--marked)
 *
 * Link with -lhpmon-rt (pkg-config libhpmon-rt), the in-program runtime,
 * which needs nothing but libc; libhpmon brings it along too
 * (docs/api.md). A counter is a 64-bit number per
 * thread; an increment costs an ordinary memory increment plus two loads
 * (the thread's counter block and the site's slot). Nothing has to be set
 * up: the first increment of a site registers it, the first of a thread
 * gives the thread its block.
 *
 * Under `hpmon stat -e sw:NAME -- prog` the blocks live in memory shared
 * with hpmon, which reports each counter per thread and in total, beside
 * hardware events, and over time with -I. Without hpmon they are private
 * to the program (hpm_counter_get() reads them) and cost the same.
 *
 * The mask: hpm_counter_enable("NAME", false) stops one counter in every
 * thread of the process, hpm_counters_enable(false) all of them;
 * `hpmon stat --disable NAMES` / `--enable NAMES` set the mask the program
 * starts with. A masked increment lands in a sink: it costs the same.
 *
 * The mark (POWER2's process-mark bit): under `hpmon stat --marked`, a
 * thread counts hardware events, software events and these counters only
 * between hpm_mark(true) and hpm_mark(false). Threads start unmarked; a
 * process forked by a marked thread starts marked. Without --marked the
 * mark changes nothing.
 *
 * The runtime behind these calls (libhpmon-rt) runs in the measured
 * program; unlike libhpmon it keeps process-wide state (the shared area
 * and the registered sites) and reads one environment variable,
 * HPMON_MARKERS, which hpmon sets.
 *
 * Ownership: nothing here is freed by the program. Sites are static (one
 * per use of HPM_ADD) and the runtime keeps them listed to the end of the
 * process; a thread's counters live until the thread ends (under hpmon,
 * in hpmon's area, which keeps them after). Names given to the calls are
 * copied.
 *
 * Define HPM_NO_MARKERS before including this header to compile every
 * marker out.
 */
#ifndef HPMON_MARKER_H
#define HPMON_MARKER_H

#include <stdbool.h>
#include <stdint.h>
#include <hpmon/hpmon.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Longest counter or region name, with its NUL. */
#define HPM_MARKER_NAME_MAX 48

/*
 * One place in the code that counts (HPM_ADD makes a static one per use).
 * Sites live in the ELF section "hpm_markers", 64 bytes each with the name
 * inline at offset 16, so the counters of a binary can be listed without
 * running it (objdump -s -j hpm_markers PROG).
 */
struct hpm_marker_site {
	uint32_t idx;      /* slot incremented: 0 before registration, 1 (a
			      sink) while masked, else the counter's slot */
	uint32_t counter;  /* the counter's slot once registered */
	struct hpm_marker_site *next; /* the runtime's list of sites */
	char name[HPM_MARKER_NAME_MAX];
};

/* The calling thread's counter block (NULL before its first increment). */
extern HPM_API __thread uint64_t *hpm__marker_ctr;
/* First increment of a thread or of a site: register, then add @n. */
HPM_API void hpm__marker_slow(struct hpm_marker_site *site, uint64_t n);

#ifndef HPM_NO_MARKERS
/* Add @n to the counter NAME (an identifier, at most 47 characters) of
 * the calling thread. */
#define HPM_ADD(NAME, n)                                                        \
	do {                                                                    \
		_Static_assert(sizeof(#NAME) <= HPM_MARKER_NAME_MAX,            \
			       "counter name too long");                        \
		static struct hpm_marker_site hpm__site_                        \
			__attribute__((section("hpm_markers"), used, aligned(64))) = \
			{ 0, 0, 0, #NAME };                                     \
		uint64_t *hpm__c_ = hpm__marker_ctr;                            \
		uint32_t hpm__i_ = __atomic_load_n(&hpm__site_.idx, __ATOMIC_RELAXED); \
		if (__builtin_expect(hpm__c_ != 0 && hpm__i_ != 0, 1))          \
			__atomic_store_n(&hpm__c_[hpm__i_],                     \
					 __atomic_load_n(&hpm__c_[hpm__i_],     \
							 __ATOMIC_RELAXED) +    \
						 (uint64_t)(n),                 \
					 __ATOMIC_RELAXED);                     \
		else                                                            \
			hpm__marker_slow(&hpm__site_, (uint64_t)(n));           \
	} while (0)
#else
#define HPM_ADD(NAME, n) ((void)(n))
#endif

/* Add one to the counter NAME of the calling thread. */
#define HPM_COUNT(NAME) HPM_ADD(NAME, 1)

/*
 * The calling thread's count of counter @name (0 if no site of that name
 * ran in it). Without hpmon, and under hpmon while the thread is marked or
 * not in --marked mode, this is what hpmon reports for the thread.
 */
HPM_API uint64_t hpm_counter_get(const char *name);

/*
 * Mask: stop (@on false) or restart counter @name in every thread of the
 * process, from now on. A name no site has used yet is remembered and
 * masked when one does. 0, or -ENOSPC when the process already has the
 * most counter names the runtime keeps (256), -EINVAL for a name that is
 * empty or too long.
 */
HPM_API int hpm_counter_enable(const char *name, bool on);
/* Mask every counter of the process at once (@on false) or unmask it. */
HPM_API void hpm_counters_enable(bool on);

/*
 * Mark (@on true) or unmark the calling thread. Under `hpmon stat
 * --marked` the thread's events and counters count only while it is
 * marked; otherwise the mark is only remembered. Cheap: two ioctl calls
 * when the thread has hardware or software events to switch, none
 * otherwise.
 */
HPM_API void hpm_mark(bool on);
/* Whether the calling thread is marked. */
HPM_API bool hpm_marked(void);

#ifdef __cplusplus
}
#endif
#endif
