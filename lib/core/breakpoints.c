/* SPDX-License-Identifier: MIT */
/*
 * Whether hardware breakpoints fire here, and how many a thread has
 * (core/breakpoints-internal.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

#include "core/breakpoints-internal.h"
#include "core/ctx-internal.h"
#include "sys/perf.h"

/* The known places: a function the probe calls through a pointer the
 * compiler cannot see through, and a word it writes. */
__attribute__((noinline)) static void bp_probe_code(void)
{
	__asm__ volatile("" ::: "memory");
}
static volatile long bp_probe_word;

unsigned hpm__bp_slots(void)
{
	int fds[32];
	unsigned n = 0;

	for (; n < 32; n++) {
		struct perf_event_attr a = {
			.size = sizeof(a), .type = PERF_TYPE_BREAKPOINT, .bp_type = HW_BREAKPOINT_X,
			.bp_addr = (uint64_t)(uintptr_t)bp_probe_code, .bp_len = sizeof(long),
			.sample_period = 1, .disabled = 1, .exclude_kernel = 1, .exclude_hv = 1,
		};
#if defined(__aarch64__)
		a.bp_len = 4;
#endif
		int fd = hpm__sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			break;
		fds[n] = fd;
	}
	for (unsigned i = 0; i < n; i++)
		close(fds[i]);
	return n;
}

static void measure(struct hpm_bp_fact *f, enum hpm_bp_kind kind)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_BREAKPOINT, .disabled = 1,
		.exclude_kernel = 1, .exclude_hv = 1,
	};
	void (*volatile call)(void) = bp_probe_code;
	uint64_t v = 0;

	if (kind == HPM_BP_EXEC) {
		a.bp_type = HW_BREAKPOINT_X;
		a.bp_addr = (uint64_t)(uintptr_t)bp_probe_code;
		a.bp_len = sizeof(long);
#if defined(__aarch64__)
		a.bp_len = 4;
#endif
	} else {
		a.bp_type = HW_BREAKPOINT_W;
		a.bp_addr = (uint64_t)(uintptr_t)&bp_probe_word;
		a.bp_len = sizeof(bp_probe_word);
	}
	*f = (struct hpm_bp_fact){ .fires = HPM_UNKNOWN, .used = HPM_BP_PROBE_USES };
	int fd = hpm__sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		f->err = fd;
		return;
	}
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		f->err = -errno;
		close(fd);
		return;
	}
	for (long i = 0; i < HPM_BP_PROBE_USES; i++) {
		if (kind == HPM_BP_EXEC)
			call();
		else
			bp_probe_word = i;
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v)) {
		f->err = -EIO;
	} else {
		f->counted = v > HPM_BP_PROBE_USES ? HPM_BP_PROBE_USES + 1 : (unsigned)v;
		f->fires = v == HPM_BP_PROBE_USES ? HPM_YES : HPM_NO;
	}
	close(fd);
}

const struct hpm_bp_fact *hpm__ctx_breakpoints(const struct hpm_ctx *ctx, enum hpm_bp_kind kind)
{
	struct hpm_ctx *c = (struct hpm_ctx *)ctx; /* the measure, once */
	unsigned k = kind == HPM_BP_EXEC ? 0 : 1;

	pthread_mutex_lock(&c->bp_lock);
	if (!c->bp_measured[k]) {
		measure(&c->bp[k], kind);
		c->bp_measured[k] = true;
	}
	pthread_mutex_unlock(&c->bp_lock);
	return &c->bp[k];
}

void hpm__bp_why(const struct hpm_bp_fact *f, char *buf, size_t len)
{
	if (f->fires == HPM_YES)
		snprintf(buf, len, "%s", "");
	else if (f->fires == HPM_NO)
		snprintf(buf, len, "hardware breakpoints do not fire on this host (one on "
			 "hpmon's own code counted %u of %u uses; perf's mem: events count 0 "
			 "here too)", f->counted, f->used);
	else
		snprintf(buf, len, "hardware breakpoints cannot be opened here: %s",
			 strerror(f->err ? -f->err : ENODEV));
}
