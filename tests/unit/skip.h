// SPDX-License-Identifier: MIT
/*
 * Skips of the unit tests, counted and explained. Include it after
 * <cmocka.h>:
 *
 *   #include "skip.h"
 *
 * A whole program that cannot run on this machine (say, before
 * cmocka_run_group_tests in main):
 *
 *   if (!have_tracefs())
 *           hpm_skip_program("tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)");
 *
 * prints "SKIP: unit/test-NAME: why", appends "unit/test-NAME: why" to the
 * file named by $HPM_SKIP_LOG (scripts/check sets it) and exits 77, the
 * SKIP_RETURN_CODE tests/CMakeLists.txt gives every unit test: CTest counts
 * the program as skipped, not passed. Exit 77 means "skipped" and nothing
 * else; never exit 77 for any other reason.
 *
 * One test case (inside the test function) that cannot run here:
 *
 *   if (msr_type() < 0)
 *           hpm_skip_test("no msr PMU on this machine");
 *
 * logs "unit/test-NAME/FUNCTION: why" the same way and calls cmocka's
 * skip(): the case is reported "[  SKIPPED ]", the other cases still run
 * and the program still passes. scripts/check counts every skipped case
 * (also a bare skip(), from the "[  SKIPPED ]" lines of the test's output)
 * and lists it with the reason hpm_skip_test gave ("no reason given" for
 * a bare skip()). FUNCTION is the function that calls hpm_skip_test: call
 * it from the test function itself, as skip(). A case whose name is not
 * its function's (one function run under several names with a state)
 * names itself:
 *
 *   hpm_skip_note(__FILE__, "native_arm_n1", "libpfm4 does not know %s", pmu);
 *   skip();
 *
 * All three take a printf format. scripts/check pairs each "SKIP: ..."
 * line with the "[  SKIPPED ]" line that follows it in the test's output.
 */
#ifndef HPM_TEST_SKIP_H
#define HPM_TEST_SKIP_H

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#define HPM_SKIP_STATUS 77

/* Print "SKIP: unit/PROGRAM[/CASE]: why" and append the same, without
 * "SKIP: ", as one line to $HPM_SKIP_LOG (if set). PROGRAM is the source
 * file's name without ".c". */
__attribute__((format(printf, 3, 0))) static inline void
hpm_skip_note_v(const char *file, const char *test, const char *fmt, va_list ap)
{
	char name[256], why[768], line[1100];
	const char *base = strrchr(file, '/');
	size_t n;
	int len;

	base = base ? base + 1 : file;
	n = strcspn(base, ".");
	if (n >= sizeof(name))
		n = sizeof(name) - 1;
	memcpy(name, base, n);
	name[n] = '\0';
	vsnprintf(why, sizeof(why), fmt, ap);
	for (char *p = why; *p; p++)
		if (*p == '\n')
			*p = ' ';
	len = snprintf(line, sizeof(line), "unit/%s%s%s: %s\n", name, test ? "/" : "",
		       test ? test : "", why);
	if (len < 0)
		return;
	if ((size_t)len >= sizeof(line)) {
		len = (int)sizeof(line) - 1;
		line[len - 1] = '\n';
	}
	printf("SKIP: %s", line);
	fflush(stdout);

	const char *log = getenv("HPM_SKIP_LOG");
	if (log && *log) {
		int fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		if (fd >= 0) {
			/* one write: lines of tests running side by side do not mix */
			if (write(fd, line, (size_t)len) != len) {
				/* the skip stands; only its reason is lost */
			}
			close(fd);
		}
	}
}

__attribute__((format(printf, 3, 4))) static inline void
hpm_skip_note(const char *file, const char *test, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	hpm_skip_note_v(file, test, fmt, ap);
	va_end(ap);
}

/* hpm_skip_program(fmt, ...): the whole program is skipped (exit 77). */
#define hpm_skip_program(...)                                                  \
	do {                                                                   \
		hpm_skip_note(__FILE__, NULL, __VA_ARGS__);                    \
		exit(HPM_SKIP_STATUS);                                         \
	} while (0)

/* hpm_skip_test(fmt, ...): this test case is skipped (cmocka's skip()). */
#define hpm_skip_test(...)                                                     \
	do {                                                                   \
		hpm_skip_note(__FILE__, __func__, __VA_ARGS__);                \
		skip();                                                        \
	} while (0)

#endif
