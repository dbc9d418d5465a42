/* SPDX-License-Identifier: MIT */
/* Regular files named by input (core/file-internal.h). */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hpmon/hpmon.h>
#include "core/file-internal.h"

int hpm__open_input(const char *path, uint64_t max, uint64_t *size)
{
	struct stat st;
	int fd, rc;

	/* O_NONBLOCK: opening a FIFO for reading waits for a writer */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		rc = -errno;
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = S_ISDIR(st.st_mode) ? -EISDIR : -HPM_ERR_NOT_REGULAR;
		goto fail;
	}
	if (max && (uint64_t)st.st_size > max) {
		rc = -EFBIG;
		goto fail;
	}
	/* a regular file never blocks, but libraries reading it may not
	 * expect EAGAIN from a flag they did not set */
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK)) {
		rc = -errno;
		goto fail;
	}
	if (size)
		*size = (uint64_t)st.st_size;
	return fd;
fail:
	close(fd);
	return rc;
}

FILE *hpm__fopen_input(const char *path, uint64_t max)
{
	int fd = hpm__open_input(path, max, NULL);
	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	FILE *f = fdopen(fd, "re");
	if (!f) {
		int e = errno;
		close(fd);
		errno = e;
	}
	return f;
}
