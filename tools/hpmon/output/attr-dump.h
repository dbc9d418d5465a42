/* SPDX-License-Identifier: MIT */
/*
 * -vv of stat and record: each perf_event_open the library makes, as perf
 * -vv prints it (hpm_attr__format), on standard error.
 * Room: tools/hpmon/output/ owns what the tool says and writes (advice, escaping, JSON, output files and names, exit codes); may use libc only.
 * Ownership: a struct attr_dump is the caller's (zeroed to start), and
 * must outlive the session or recording it is given to.
 */
#ifndef HPMON_TOOL_ATTR_DUMP_H
#define HPMON_TOOL_ATTR_DUMP_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/perf_event.h>

struct attr_dump {
	struct perf_event_attr last; /* the attr printed last */
	bool shown;
};

/*
 * An hpm_open_fn (hpm_session__on_open, hpm_record__on_open) with @arg a
 * struct attr_dump: the attr, once for the opens of one event that
 * follow each other (one per thread or CPU), as perf prints it, then the
 * sys_perf_event_open line of this open.
 */
void attr_dump_open(const struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		    unsigned long flags, int fd, void *arg);

#endif
