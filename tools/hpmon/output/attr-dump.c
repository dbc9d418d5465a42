/* SPDX-License-Identifier: MIT */
/* -vv: the library's perf_event_open calls on stderr (attr-dump.h). */
#include <stdio.h>
#include <string.h>

#include <hpmon/event.h>

#include "output/attr-dump.h"

void attr_dump_open(const struct perf_event_attr *a, pid_t pid, int cpu, int group_fd,
		    unsigned long flags, int fd, void *arg)
{
	struct attr_dump *d = arg;
	char buf[4096];

	if (!d->shown || memcmp(&d->last, a, sizeof(*a))) {
		hpm_attr__format(buf, sizeof(buf), a);
		fputs(buf, stderr);
		d->last = *a;
		d->shown = true;
	}
	hpm_attr__format_open(buf, sizeof(buf), pid, cpu, group_fd, flags, fd);
	fputs(buf, stderr);
}
