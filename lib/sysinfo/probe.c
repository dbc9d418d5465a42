/* SPDX-License-Identifier: MIT */
/*
 * Probes (sysinfo-internal.h, hpm_sysinfo__probe): what only opening
 * counters on the calling thread tells, through the one perf_event_open
 * wrapper (sys/perf.h): whether an event opens, how many counters a core
 * PMU has, whether rdpmc works.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "sys/perf.h"
#include "sysinfo/sysinfo-internal.h"

#define PROBE_MAX_COUNTERS 40 /* arm allows 31 + cycle; x86 fewer */

static int perf_open(struct perf_event_attr *attr, int group_fd)
{
	return hpm__sys_perf_event_open(attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
}

int hpm_sysinfo__probe(const struct perf_event_attr *attr, pid_t pid, int cpu,
		       unsigned flags, bool *user_only)
{
	struct perf_event_attr a = *attr;
	unsigned did = 0;

	if (flags & ~(HPM_PROBE_USER_ONLY | HPM_PROBE_FALLBACK_USER))
		return -EINVAL;
	if (flags & HPM_PROBE_USER_ONLY) {
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
	}
	int fd = hpm__perf_open(&a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC,
				flags & HPM_PROBE_FALLBACK_USER ? HPM_FALLBACK_USER : 0,
				&did);
	if (user_only)
		*user_only = a.exclude_kernel;
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/* One event of a probe: perf_event_attr type and config. */
struct probe_ev {
	uint32_t type;
	uint64_t config;
};

static void probe_attr(struct perf_event_attr *a, const struct probe_ev *ev)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = ev->type;
	a->config = ev->config;
	a->exclude_kernel = 1; /* allowed at any paranoid level */
	a->exclude_hv = 1;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			 PERF_FORMAT_TOTAL_TIME_RUNNING;
}

/* A generic hardware event, on core PMU @pmu_type when @ext (hybrid). */
static struct probe_ev hw_ev(uint64_t id, bool ext, int pmu_type)
{
	struct probe_ev ev = { PERF_TYPE_HARDWARE, id };
	if (ext)
		ev.config |= (uint64_t)(uint32_t)pmu_type << PERF_PMU_TYPE_SHIFT;
	return ev;
}

static void spin(void)
{
	for (volatile unsigned i = 0; i < 200000; i++)
		;
}

/*
 * Open a group of the @nr events @evs on the calling thread and run it
 * briefly. 1: it was scheduled; 0: it did not fit (refused with EINVAL or
 * ENOSPC at open, or never ran); -errno: an event could not be opened.
 */
static int try_group(const struct probe_ev *evs, int nr)
{
	int fds[PROBE_MAX_COUNTERS + 4] = { -1 };
	int n = 0, rc = 1;

	if (nr < 1 || nr > PROBE_MAX_COUNTERS + 4)
		return -EINVAL;
	for (; n < nr; n++) {
		struct perf_event_attr a;
		probe_attr(&a, &evs[n]);
		a.disabled = n == 0;
		int fd = perf_open(&a, n ? fds[0] : -1);
		if (fd < 0) {
			rc = (fd == -EINVAL || fd == -ENOSPC) && n > 0 ? 0 : fd;
			goto out;
		}
		fds[n] = fd;
	}
	uint64_t v[3] = { 0 };
	ioctl(fds[0], PERF_EVENT_IOC_ENABLE, 0);
	spin();
	ioctl(fds[0], PERF_EVENT_IOC_DISABLE, 0);
	if (read(fds[0], v, sizeof(v)) != (ssize_t)sizeof(v))
		rc = 0;
	else
		rc = v[2] > 0;
out:
	while (n-- > 0)
		close(fds[n]);
	return rc;
}

/*
 * Count the counters of core PMU @p: the largest group of copies of an
 * event that only a general counter can count, then how many of cycles,
 * instructions, ref-cycles fit beside it (x86 fixed counters, the arm
 * cycle counter). Counts what a new group can have now: counters held by
 * the NMI watchdog or other users are not seen.
 */
void hpm__si_probe_counters(struct hpm_pmu_info *p, bool hybrid, bool arm)
{
	struct probe_ev general[4], evs[PROBE_MAX_COUNTERS + 4];
	size_t nr_general = 0;
	cpu_set_t old, want;
	bool pinned = false;
	int rc = -ENOENT, g = 0;

	/* arm's SW_INCR (raw 0x00) exists on every PMUv3, emulated ones
	 * included, and only general counters count it. */
	if (arm)
		general[nr_general++] = (struct probe_ev){ (uint32_t)p->type, 0x00 };
	general[nr_general++] = hw_ev(PERF_COUNT_HW_BRANCH_INSTRUCTIONS, hybrid, p->type);
	general[nr_general++] = hw_ev(PERF_COUNT_HW_BRANCH_MISSES, hybrid, p->type);
	general[nr_general++] = hw_ev(PERF_COUNT_HW_CACHE_REFERENCES, hybrid, p->type);
	const struct probe_ev fixed[] = {
		hw_ev(PERF_COUNT_HW_CPU_CYCLES, hybrid, p->type),
		hw_ev(PERF_COUNT_HW_INSTRUCTIONS, hybrid, p->type),
		hw_ev(PERF_COUNT_HW_REF_CPU_CYCLES, hybrid, p->type),
	};

	/* A PMU of some CPUs only counts while the thread runs on one. */
	if (hybrid && p->cpus[0] && hpm__si_cpulist(p->cpus, &want) == 0 &&
	    sched_getaffinity(0, sizeof(old), &old) == 0 &&
	    sched_setaffinity(0, sizeof(want), &want) == 0)
		pinned = true;

	/* The first of them this PMU supports. */
	size_t i;
	for (i = 0; i < nr_general; i++)
		if ((rc = try_group(&general[i], 1)) == 1)
			break;
	if (rc != 1) {
		p->probe_err = rc < 0 ? rc : -EBUSY;
		goto out;
	}
	evs[0] = general[i];
	for (g = 1; g < PROBE_MAX_COUNTERS; g++) {
		evs[g] = general[i];
		if ((rc = try_group(evs, g + 1)) != 1)
			break;
	}
	if (rc < 0) {
		p->probe_err = rc;
		goto out;
	}
	p->nr_general = g;
	p->nr_fixed = 0;
	for (size_t f = 0; f < sizeof(fixed) / sizeof(fixed[0]); f++) {
		evs[g + (int)f] = fixed[f];
		if (try_group(evs, g + (int)f + 1) != 1)
			break;
		p->nr_fixed++;
	}
	p->source = HPM_COUNTERS_PROBED;
out:
	if (pinned)
		sched_setaffinity(0, sizeof(old), &old);
}

void hpm__si_probe_rdpmc(struct hpm_sysinfo *si)
{
	const struct hpm_pmu_info *core = NULL;
	struct perf_event_attr a;
	long page = sysconf(_SC_PAGESIZE);

	for (size_t i = 0; i < si->nr_pmus && !core; i++)
		if (si->pmus[i].core)
			core = &si->pmus[i];
	if (!core) {
		si->rdpmc = HPM_NO;
		si->rdpmc_err = -ENODEV;
		return;
	}
	struct probe_ev cycles = hw_ev(PERF_COUNT_HW_CPU_CYCLES, si->nr_core_pmus > 1,
				       core->type);
	probe_attr(&a, &cycles);
#if defined(__aarch64__)
	a.config1 = 0x2; /* arm64 "rdpmc" format bit: ask for user access */
#endif
	int fd = perf_open(&a, -1);
	if (fd < 0) {
		si->rdpmc = HPM_NO;
		si->rdpmc_err = fd;
		return;
	}
	void *m = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		si->rdpmc = HPM_UNKNOWN;
		si->rdpmc_err = -errno;
	} else {
		const volatile struct perf_event_mmap_page *pc = m;
		spin(); /* the page is refreshed when the event is scheduled */
		/* arm64 sets the capability even when kernel.perf_user_access
		 * forbids the reads; an index of 0 says so. */
		si->rdpmc = pc->cap_user_rdpmc && pc->index ? HPM_YES : HPM_NO;
		munmap(m, (size_t)page);
	}
	close(fd);
}
