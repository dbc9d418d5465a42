// SPDX-License-Identifier: MIT
/*
 * What the host delivers, asked by a test itself rather than through the
 * library under test: the answer a test compares the library's with, or
 * chooses its expectations by.
 *
 *   host_bp_fires()  hardware breakpoints on code fire here: one on a
 *                    function of the test, called 5 times, counts 5 (as
 *                    perf's mem:ADDR:x would). Some hosts (paravirtualised
 *                    guests) open breakpoints and never fire them.
 *   host_hw_errno()  0 when this thread can open the hardware event
 *                    instructions:u, else the kernel's errno: ENOENT
 *                    (or EOPNOTSUPP, ENODEV) where the machine exposes
 *                    no hardware PMU (a virtual machine without PMU
 *                    passthrough).
 *
 * Ownership: nothing is kept; each call asks again.
 */
#ifndef HPM_TEST_HOST_H
#define HPM_TEST_HOST_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

__attribute__((noinline, unused)) static void host_bp_target(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((unused)) static bool host_bp_fires(void)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_BREAKPOINT, .bp_type = HW_BREAKPOINT_X,
		.bp_addr = (uint64_t)(uintptr_t)host_bp_target, .bp_len = sizeof(long),
		.exclude_kernel = 1, .exclude_hv = 1, .disabled = 1,
	};
	void (*volatile call)(void) = host_bp_target;
	uint64_t v = 0;
#if defined(__aarch64__)
	a.bp_len = 4;
__attribute__((unused)) static int host_hw_errno(void)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_INSTRUCTIONS, .exclude_kernel = 1, .exclude_hv = 1,
		.disabled = 1,
	};
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

#endif
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return false;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (int i = 0; i < 5; i++)
		call();
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		v = 0;
	close(fd);
	return v == 5;
}

__attribute__((unused)) static int host_hw_errno(void)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_INSTRUCTIONS, .exclude_kernel = 1, .exclude_hv = 1,
		.disabled = 1,
	};
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

#endif
