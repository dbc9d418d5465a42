/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/core/ owns the context, errors, data and CPU lists; may use sys.
 *
 * Opening a file that input names (a profile, an object an MMAP record or
 * an exec: location names, a metrics file): a regular file only. A FIFO
 * would block the open or the first read for ever, a device or /proc file
 * may never end; so the file is opened with O_NONBLOCK (and O_NOCTTY), and
 * refused unless fstat says it is a regular file, before anything reads.
 *
 * Files hpmon keeps for itself (the caches of symbols) are the user's
 * alone: read only when the user owns them and no one else can write
 * them, written aside under a new name and renamed into place, 0600.
 *
 * Ownership: the descriptor or stream returned is the caller's to close;
 * what is written is only read during the call.
 */
#ifndef HPM_FILE_INTERNAL_H
#define HPM_FILE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/uio.h>

/*
 * Open @path for reading: a descriptor (O_CLOEXEC, blocking again) of a
 * regular file of at most @max bytes (0: any size), or -errno:
 * -HPM_ERR_NOT_REGULAR for a FIFO, device or socket, -EISDIR for a
 * directory, -EFBIG past @max. *@size (when not NULL) gets its size.
 */
int hpm__open_input(const char *path, uint64_t max, uint64_t *size);
/* The same as a stream ("re"); NULL and errno set to the positive code. */
FILE *hpm__fopen_input(const char *path, uint64_t max);

/*
 * Open a file hpmon saved for the user (a cache): a descriptor of a
 * regular file of at least @min and at most @max bytes, its size in
 * *@size; or -ENOENT, -ELOOP (@path is a symlink: never followed),
 * -EPERM (not the effective user's, or writable by group or others),
 * -EBADMSG (not a regular file, or a size out of bounds). No FIFO is
 * waited on.
 */
int hpm__open_private(const char *path, uint64_t min, uint64_t max, uint64_t *size);
/*
 * Write the @n pieces of @iov as the whole of @path, mode 0600 whatever
 * the umask: into a name beside @path created with O_EXCL (mkostemp, an
 * unpredictable name, so a link planted there is never followed), then
 * renamed over @path (a link at @path is replaced, never followed). A
 * reader never sees half a file; on failure nothing is left behind and
 * @path is as it was. 0 or -errno.
 */
int hpm__write_private(const char *path, const struct iovec *iov, size_t n);

#endif
