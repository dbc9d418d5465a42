// SPDX-License-Identifier: MIT
/*
 * The fallback ladder (lib/sys/perf.c) against the real kernel: the msr
 * PMU cannot tell guest from host and refuses exclude_guest (EINVAL), as
 * PMUs of uncore and virtual machines do. With GUEST allowed the ladder
 * drops it and says so; without, the refusal stands; a fallback that
 * does not apply is never taken.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

#include "sys/perf.h"

/* The msr PMU's type, or -1 when the machine has none. */
static int msr_type(void)
{
	FILE *f = fopen("/sys/bus/event_source/devices/msr/type", "re");
	int t = -1;

	if (f) {
		if (fscanf(f, "%d", &t) != 1)
			t = -1;
		fclose(f);
	}
	return t;
}

static void test_guest(void **state)
{
	(void)state;
	int type = msr_type();
	if (type < 0)
		skip(); /* no msr PMU on this machine */
	struct perf_event_attr a = { .type = (uint32_t)type, .config = 0 /* tsc */,
				     .exclude_guest = 1 };
	unsigned did = ~0u;

	/* the refusal, when the fallback is not allowed */
	int fd = hpm__perf_open(&a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC, 0, &did);
	if (fd >= 0) {
		close(fd);
		skip(); /* this kernel's msr PMU takes exclude_guest */
	}
	assert_int_equal(fd, -EINVAL);
	assert_int_equal(did, 0);
	assert_int_equal(a.exclude_guest, 1);
	assert_int_equal(a.size, sizeof(a)); /* filled in for the caller */

	/* the same with every other fallback allowed: none applies */
	fd = hpm__perf_open(&a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC,
			    HPM_FALLBACK_ALL & ~HPM_FALLBACK_GUEST, &did);
	assert_int_equal(fd, -EINVAL);
	assert_int_equal(did, 0);

	/* GUEST allowed: opened as host and guest, and reported */
	fd = hpm__perf_open(&a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC, HPM_FALLBACK_GUEST, &did);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(did, HPM_FALLBACK_GUEST);
	assert_int_equal(a.exclude_guest, 0);
	assert_int_equal(a.exclude_kernel, 0); /* nothing else changed */
}

/* An attribute the kernel takes as it is: no fallback, *did 0. */
static void test_no_fallback(void **state)
{
	(void)state;
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_TASK_CLOCK, .exclude_guest = 1 };
	unsigned did = ~0u;
	int fd = hpm__perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC, HPM_FALLBACK_ALL, &did);

	if (fd == -EACCES || fd == -ENOENT || fd == -ENOSYS)
		skip(); /* perf events unavailable */
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(did, 0);
	assert_int_equal(a.exclude_guest, 1);

	/* the raw call reports -errno, not -1 */
	struct perf_event_attr bad = { .size = sizeof(bad), .type = 0xfffffu };
	fd = hpm__sys_perf_event_open(&bad, 0, -1, -1, 0);
	assert_true(fd < 0 && fd != -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_guest),
		cmocka_unit_test(test_no_fallback),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
