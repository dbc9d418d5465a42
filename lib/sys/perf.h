/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/sys/ owns perf_event_open, the ring reader, options; may use libc only.
 *
 * The perf_event_open system call, once for the whole tree, and the one
 * fallback ladder: what hpmon may change in an attribute when the kernel
 * refuses it, as perf does, and a report of what it changed.
 *
 * This folder (lib/sys) uses nothing but libc and the kernel's headers:
 * it is part of the in-program runtime (libhpmon-rt), which libhpmon
 * links. Nothing here keeps state. libhpmon.so calls these across the
 * library boundary: every function of lib/sys that libhpmon calls is
 * listed in lib/libhpmon-rt.map, in its part for libhpmon only.
 *
 * Ownership: every call borrows @attr for its duration only; a returned
 * file descriptor is the caller's to close.
 */
#ifndef HPM_SYS_PERF_H
#define HPM_SYS_PERF_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/perf_event.h>

/*
 * perf_event_open(2) itself: a file descriptor, or -errno. @attr->size is
 * set to sizeof(*attr) when it is 0. The one place in hpmon that makes
 * the system call.
 */
int hpm__sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			     int group_fd, unsigned long flags);

/*
 * The fallbacks hpm__perf_open() may take (@allow) and took (@did), each
 * once, in whatever order the kernel's refusals call for:
 *  GUEST     EINVAL/EOPNOTSUPP with exclude_guest set: count guest too.
 *            Host-only is perf's default, not the user's choice, and PMUs
 *            that cannot tell guest from host refuse it. Not to be allowed
 *            when the user wrote :H or :G.
 *  USER      EACCES while kernel counting is asked for: user only
 *            (exclude_kernel, exclude_hv), as perf does when
 *            perf_event_paranoid forbids the kernel part. Not to be
 *            allowed when the user wrote :u/:k/:h.
 *  BUILD_ID  EINVAL with build_id set: MMAP2 records without build ids
 *            (kernels before 5.12).
 *  INHERIT   EINVAL with inherit and PERF_SAMPLE_READ or
 *            PERF_FORMAT_GROUP: no inherit (kernels before 6.12).
 */
#define HPM_FALLBACK_GUEST    0x1u
#define HPM_FALLBACK_USER     0x2u
#define HPM_FALLBACK_BUILD_ID 0x4u
#define HPM_FALLBACK_INHERIT  0x8u
#define HPM_FALLBACK_ALL      0xfu

/*
 * Open @attr with the fallbacks of @allow. On success the file descriptor,
 * with @attr as it was opened and *@did (if not NULL) the fallbacks taken;
 * else the last -errno, with @attr and *@did as of the last attempt.
 */
int hpm__perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		   unsigned long flags, unsigned allow, unsigned *did);

#endif
