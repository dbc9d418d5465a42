/* SPDX-License-Identifier: MIT */
/* Regular files named by input (core/file-internal.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
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

int hpm__open_private(const char *path, uint64_t min, uint64_t max, uint64_t *size)
{
	struct stat sb;
	/* no link followed, no FIFO waited on */
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), rc = -EBADMSG;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb)) {
		rc = -errno;
		goto fail;
	}
	if (!S_ISREG(sb.st_mode) || (uint64_t)sb.st_size < min || (uint64_t)sb.st_size > max)
		goto fail;
	/* only a file this user wrote, which no one else could change */
	if (sb.st_uid != geteuid() || (sb.st_mode & (S_IWGRP | S_IWOTH))) {
		rc = -EPERM;
		goto fail;
	}
	*size = (uint64_t)sb.st_size;
	return fd;
fail:
	close(fd);
	return rc;
}

static int write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int hpm__write_private(const char *path, const struct iovec *iov, size_t n)
{
	char tmp[4096];
	int rc, fd;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = fchmod(fd, 0600) ? -errno : 0; /* whatever the umask */
	for (size_t i = 0; i < n && !rc; i++)
		rc = write_full(fd, iov[i].iov_base, iov[i].iov_len);
	if (close(fd) && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path))
		rc = -errno;
	if (rc)
		unlink(tmp);
	return rc;
}
