// SPDX-License-Identifier: MIT
/* core/file.c: files named by input are opened only when regular, and
 * never block (a FIFO nobody writes to is refused at once). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <hpmon/hpmon.h>
#include "core/file-internal.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/hpm-file.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char p[128];
	(void)state;
	snprintf(p, sizeof(p), "%s/fifo", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/reg", dir);
	unlink(p);
	rmdir(dir);
	return 0;
}

static void regular_file(void **state)
{
	char p[128];
	uint64_t size = 0;
	(void)state;
	snprintf(p, sizeof(p), "%s/reg", dir);
	FILE *f = fopen(p, "we");
	assert_non_null(f);
	fputs("0123456789", f);
	assert_int_equal(fclose(f), 0);

	int fd = hpm__open_input(p, 0, &size);
	assert_true(fd >= 0);
	assert_int_equal(size, 10);
	/* blocking again, and not inherited by a command hpmon starts */
	assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);

	/* the size cap: at the limit, and one byte under it */
	fd = hpm__open_input(p, 10, NULL);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(hpm__open_input(p, 9, NULL), -EFBIG);

	f = hpm__fopen_input(p, 0);
	assert_non_null(f);
	char buf[16] = "";
	assert_non_null(fgets(buf, sizeof(buf), f));
	assert_string_equal(buf, "0123456789");
	fclose(f);
}

static void fifo_refused_at_once(void **state)
{
	char p[128];
	(void)state;
	snprintf(p, sizeof(p), "%s/fifo", dir);
	assert_int_equal(mkfifo(p, 0600), 0);
	/* nobody writes to it: a blocking open would never return */
	assert_int_equal(hpm__open_input(p, 0, NULL), -HPM_ERR_NOT_REGULAR);
	errno = 0;
	assert_null(hpm__fopen_input(p, 0));
	assert_int_equal(errno, HPM_ERR_NOT_REGULAR);
	assert_string_equal(hpm_strerror(-HPM_ERR_NOT_REGULAR),
			    "not a regular file (a FIFO, device or socket), which could block "
			    "or never end");
}

static void others_refused(void **state)
{
	(void)state;
	assert_int_equal(hpm__open_input("/dev/null", 0, NULL), -HPM_ERR_NOT_REGULAR);
	assert_int_equal(hpm__open_input(dir, 0, NULL), -EISDIR);
	assert_int_equal(hpm__open_input("/nonexistent/hpm-file", 0, NULL), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(regular_file),
		cmocka_unit_test(fifo_refused_at_once),
		cmocka_unit_test(others_refused),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
