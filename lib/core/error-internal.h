/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/core/ owns the context, errors, data and CPU lists; may use sys.
 *
 * Errors of the small parsers that report a position and one sentence
 * (exec: locations, sw: counters). Ownership: @errpos and @msg are the
 * caller's; nothing is kept.
 */
#ifndef HPM_CORE_ERROR_INTERNAL_H
#define HPM_CORE_ERROR_INTERNAL_H

#include <stddef.h>

/* Set *@errpos to @pos and @msg to the formatted sentence; return @code. */
int hpm__parse_fail(size_t *errpos, size_t pos, char *msg, size_t msglen, int code,
		    const char *fmt, ...) __attribute__((format(printf, 6, 7)));

#endif
