/* SPDX-License-Identifier: MIT */
/*
 * Opening a file that input names (a profile, an object an MMAP record or
 * an exec: location names, a metrics file): a regular file only. A FIFO
 * would block the open or the first read for ever, a device or /proc file
 * may never end; so the file is opened with O_NONBLOCK (and O_NOCTTY), and
 * refused unless fstat says it is a regular file, before anything reads.
 *
 * Ownership: the descriptor or stream returned is the caller's to close.
 */
#ifndef HPM_FILE_INTERNAL_H
#define HPM_FILE_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

/*
 * Open @path for reading: a descriptor (O_CLOEXEC, blocking again) of a
 * regular file of at most @max bytes (0: any size), or -errno:
 * -HPM_ERR_NOT_REGULAR for a FIFO, device or socket, -EISDIR for a
 * directory, -EFBIG past @max. *@size (when not NULL) gets its size.
 */
int hpm__open_input(const char *path, uint64_t max, uint64_t *size);
/* The same as a stream ("re"); NULL and errno set to the positive code. */
FILE *hpm__fopen_input(const char *path, uint64_t max);

#endif
