/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/core/ owns the context, errors, data and CPU lists; may use sys.
 *
 * The CPUs and threads a session opens its events on, listed through the
 * context's sysfs and procfs roots (lib/core/cpus.c), for counting and
 * sampling sessions alike.
 *
 * Ownership: the arrays returned or grown here are the caller's to free();
 * @ctx is borrowed for the call only.
 */
#ifndef HPM_CPUS_INTERNAL_H
#define HPM_CPUS_INTERNAL_H

#include <stddef.h>
#include <sys/types.h>

#include "core/ctx-internal.h"

/* The online CPUs (sysfs devices/system/cpu/online, else the count of
 * online CPUs) into a new array *out of *nr. 0 or -errno/-HPM_ERR_SYSFS. */
int hpm__online_cpus(const struct hpm_ctx *ctx, int **out, size_t *nr);
/* The threads of process @pid (procfs @pid/task), appended to *v (*n used
 * of *cap; *v grows with realloc). 0, -ESRCH when there is no such
 * process, or -errno. */
int hpm__add_threads(const struct hpm_ctx *ctx, pid_t pid, pid_t **v, size_t *n, size_t *cap);

#endif
