/* SPDX-License-Identifier: MIT */
/*
 * Output files of the tool (output.h): 0600, never through a symlink,
 * never an old file cut short.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/exit.h"
#include "output/output.h"

static int say(const struct out_file *of, int err, const char *why)
{
	fprintf(stderr, "%s: cannot write '%s': %s\n", of->cmd, of->path, why ? why : strerror(err));
	return -err;
}

/* A device or FIFO the user named (/dev/null, /dev/full, a pipe): written
 * in place. O_NONBLOCK so that a FIFO without a reader fails at once
 * (ENXIO) instead of hanging; the descriptor then blocks as usual. */
static int open_in_place(struct out_file *of, const struct stat *lsb, int extra)
{
	struct stat sb;
	int fd = open(of->path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | extra);

	if (fd < 0) {
		int e = errno;
		return say(of, e, e == ENXIO ? "it is a FIFO that no one reads" : NULL);
	}
	/* the same file lstat saw, not one swapped in since */
	if (fstat(fd, &sb) || sb.st_dev != lsb->st_dev || sb.st_ino != lsb->st_ino ||
	    (sb.st_mode & S_IFMT) != (lsb->st_mode & S_IFMT)) {
		close(fd);
		return say(of, EAGAIN, "it changed while hpmon opened it; run again");
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK)) {
		int e = errno;
		close(fd);
		return say(of, e, NULL);
	}
	of->fd = fd;
	return 0;
}

/* The new file beside NAME: ".NAME.XXXXXX" in the same directory (so that
 * rename is atomic), created with O_EXCL by mkostemp: no one can have
 * planted a link there. Mode 0600 whatever the umask. */
static int open_beside(struct out_file *of)
{
	const char *slash = strrchr(of->path, '/');
	int dlen = slash ? (int)(slash - of->path + 1) : 0;
	const char *base = slash ? slash + 1 : of->path;
	int n = snprintf(of->tmp, sizeof(of->tmp), "%.*s.%s.XXXXXX", dlen, of->path, base);

	if (n < 0 || (size_t)n >= sizeof(of->tmp)) {
		of->tmp[0] = '\0';
		return say(of, ENAMETOOLONG, NULL);
	}
	int fd = mkostemp(of->tmp, O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		of->tmp[0] = '\0';
		if (e == EACCES || e == EPERM || e == EROFS)
			fprintf(stderr, "%s: cannot create a file in the directory of '%s' (%s): hpmon "
				"writes a new file there and renames it, so the directory must be "
				"writable\n", of->cmd, of->path, strerror(e));
		else
			say(of, e, NULL);
		return -e;
	}
	if (fchmod(fd, 0600)) {
		int e = errno;
		close(fd);
		unlink(of->tmp);
		of->tmp[0] = '\0';
		return say(of, e, NULL);
	}
	of->fd = fd;
	return 0;
}

/* --append: an existing regular file, opened without following a link. */
static int open_append(struct out_file *of, const struct stat *lsb)
{
	struct stat sb;
	int fd = open(of->path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return say(of, errno, NULL);
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_dev != lsb->st_dev ||
	    sb.st_ino != lsb->st_ino) {
		close(fd);
		return say(of, EAGAIN, "it changed while hpmon opened it; run again");
	}
	of->fd = fd;
	return 0;
}

int out_open(struct out_file *of, const char *cmd, const char *path, enum out_mode mode)
{
	struct stat sb;

	*of = (struct out_file){ .cmd = cmd, .path = path, .mode = mode, .fd = -1 };
	if (!path[0])
		return say(of, EINVAL, "the file name is empty");
	if (lstat(path, &sb)) {
		if (errno != ENOENT)
			return say(of, errno, NULL);
		return open_beside(of);
	}
	if (S_ISDIR(sb.st_mode))
		return say(of, EISDIR, "it is a directory; name a file");
	if (S_ISLNK(sb.st_mode)) {
		if (mode == OUT_KEEP_OLD)
			return open_beside(of); /* the link is moved to NAME.old */
		return say(of, ELOOP, "it is a symbolic link, and hpmon never writes through one "
			   "(it could name another user's file); name the file itself");
	}
	if (S_ISCHR(sb.st_mode) || S_ISFIFO(sb.st_mode))
		return open_in_place(of, &sb, mode == OUT_APPEND ? O_APPEND : 0);
	if (!S_ISREG(sb.st_mode))
		return say(of, EINVAL, "it is not a regular file, a device or a FIFO");
	if (mode == OUT_APPEND)
		return open_append(of, &sb);
	return open_beside(of);
}

/* The stream's writes, each checked, keeping the first error's errno:
 * stdio's error flag says that a write failed but not why. */
static ssize_t stream_write(void *cookie, const char *buf, size_t len)
{
	struct out_file *of = cookie;
	size_t done = 0;

	while (done < len) {
		ssize_t w = write(of->fd, buf + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!of->err)
				of->err = w < 0 ? errno : EIO;
			return done ? (ssize_t)done : -1;
		}
		done += (size_t)w;
	}
	return (ssize_t)len;
}

static int stream_close(void *cookie)
{
	struct out_file *of = cookie;
	int rc = close(of->fd);

	if (rc && !of->err)
		of->err = errno;
	of->fd = -1;
	return rc;
}

FILE *out_stream(struct out_file *of)
{
	static const cookie_io_functions_t io = { .write = stream_write, .close = stream_close };

	if (of->f)
		return of->f;
	of->f = fopencookie(of, "w", io);
	if (!of->f)
		say(of, errno, NULL);
	return of->f;
}

int out_take_fd(struct out_file *of)
{
	int fd = of->fd;
	of->fd = -1;
	return fd;
}

/* Put the new file at NAME (an old NAME moved to NAME.old first when
 * asked): from here on NAME is the new file, still open for writing. */
int out_publish(struct out_file *of)
{
	char old[PATH_MAX + 8];
	struct stat sb;

	if (!of->tmp[0])
		return 0;
	if (of->mode == OUT_KEEP_OLD && lstat(of->path, &sb) == 0) {
		if ((size_t)snprintf(old, sizeof(old), "%s.old", of->path) >= sizeof(old))
			return say(of, ENAMETOOLONG, NULL);
		/* rename moves a symlink itself, never what it names */
		if (rename(of->path, old)) {
			int e = errno;
			fprintf(stderr, "%s: cannot move '%s' to '%s': %s\n", of->cmd, of->path, old,
				strerror(e));
			return -e;
		}
	}
	if (rename(of->tmp, of->path)) {
		int e = errno;
		fprintf(stderr, "%s: cannot rename '%s' to '%s': %s\n", of->cmd, of->tmp, of->path,
			strerror(e));
		return -e;
	}
	of->tmp[0] = '\0';
	return 0;
}

int out_commit(struct out_file *of, bool keep_partial)
{
	int err = 0;

	if (of->f) {
		/* a failed earlier write leaves its errno in of->err */
		if (fflush(of->f) && !of->err)
			of->err = errno;
		if (ferror(of->f) && !of->err)
			of->err = EIO;
		fclose(of->f);
		of->f = NULL;
		err = of->err;
	} else if (of->fd >= 0) {
		if (close(of->fd))
			err = errno;
		of->fd = -1;
	}
	if (err) {
		say(of, err, NULL);
		if (!keep_partial) {
			out_abort(of);
			return -err;
		}
	}
	int rc = out_publish(of);
	if (rc)
		out_abort(of);
	return err ? -err : rc;
}

void out_abort(struct out_file *of)
{
	if (of->f)
		fclose(of->f); /* closes fd */
	else if (of->fd >= 0)
		close(of->fd);
	of->f = NULL;
	of->fd = -1;
	if (of->tmp[0])
		unlink(of->tmp);
	of->tmp[0] = '\0';
}

int out_close_std(int rc)
{
	int err = 0;

	if (fflush(stdout))
		err = errno;
	if (ferror(stdout) && !err)
		err = EIO;
	/* EBADF: standard output was closed and nothing was written to it */
	if (fclose(stdout) && !err && errno != EBADF)
		err = errno;
	if (err) {
		/* EIO from the error flag alone: stdio no longer knows why */
		fprintf(stderr, "hpmon: writing the standard output failed: %s\n",
			err == EIO ? "a write failed (a full disk?), some output is lost" :
				     strerror(err));
		if (!rc)
			rc = HPM_EXIT_FAIL;
	}
	if ((fflush(stderr) || ferror(stderr)) && !rc)
		rc = HPM_EXIT_FAIL;
	return rc;
}

void out_at_once(FILE *f, void (*print)(FILE *f, void *arg), void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (m) {
		print(m, arg);
		if (fclose(m) == 0)
			fwrite(buf, 1, len, f);
		else
			print(f, arg); /* out of memory: nothing of it written yet */
		free(buf);
	} else {
		print(f, arg);
	}
	fflush(f);
}
