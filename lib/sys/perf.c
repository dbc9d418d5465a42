/* SPDX-License-Identifier: MIT */
/* perf_event_open and its fallback ladder (lib/sys/perf.h). */
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sys/perf.h"

int hpm__sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			     int group_fd, unsigned long flags)
{
	if (!attr->size)
		attr->size = sizeof(*attr);
	long fd = syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);
	return fd < 0 ? -errno : (int)fd;
}

/* The next fallback for refusal @err of @a, or 0 when none applies. */
static unsigned next_fallback(const struct perf_event_attr *a, int err, unsigned left)
{
	if ((left & HPM_FALLBACK_USER) && err == -EACCES && !a->exclude_kernel)
		return HPM_FALLBACK_USER;
	/* a feature the kernel may lack before a choice it may refuse: an
	 * old kernel's EINVAL for build ids must not cost host-only counting */
	if ((left & HPM_FALLBACK_BUILD_ID) && err == -EINVAL && a->build_id)
		return HPM_FALLBACK_BUILD_ID;
	if ((left & HPM_FALLBACK_GUEST) && (err == -EINVAL || err == -EOPNOTSUPP) &&
	    a->exclude_guest)
		return HPM_FALLBACK_GUEST;
	if ((left & HPM_FALLBACK_INHERIT) && err == -EINVAL && a->inherit &&
	    ((a->sample_type & PERF_SAMPLE_READ) || (a->read_format & PERF_FORMAT_GROUP)))
		return HPM_FALLBACK_INHERIT;
	return 0;
}

int hpm__perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		   unsigned long flags, unsigned allow, unsigned *did)
{
	unsigned taken = 0;
	int fd;

	for (;;) {
		fd = hpm__sys_perf_event_open(attr, pid, cpu, group_fd, flags);
		if (fd >= 0)
			break;
		unsigned step = next_fallback(attr, fd, allow & ~taken);
		if (!step)
			break;
		taken |= step;
		switch (step) {
		case HPM_FALLBACK_USER:
			attr->exclude_kernel = 1;
			attr->exclude_hv = 1;
			break;
		case HPM_FALLBACK_GUEST:
			attr->exclude_guest = 0;
			break;
		case HPM_FALLBACK_BUILD_ID:
			attr->build_id = 0;
			break;
		default:
			attr->inherit = 0;
			break;
		}
	}
	if (did)
		*did = taken;
	return fd;
}
