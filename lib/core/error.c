/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <hpmon/hpmon.h>

#include "core/error-internal.h"

static const char *const hpm_errors[HPM_ERR_MAX - HPM_ERR_BASE] = {
	[HPM_ERR_SYNTAX - HPM_ERR_BASE] = "event specification does not parse",
	[HPM_ERR_UNKNOWN_EVENT - HPM_ERR_BASE] = "unknown event",
	[HPM_ERR_UNKNOWN_PMU - HPM_ERR_BASE] = "unknown PMU",
	[HPM_ERR_UNKNOWN_TERM - HPM_ERR_BASE] = "unknown PMU format term",
	[HPM_ERR_BAD_VALUE - HPM_ERR_BASE] = "bad value",
	[HPM_ERR_BAD_MODIFIER - HPM_ERR_BASE] = "bad event modifier",
	[HPM_ERR_TOO_MANY - HPM_ERR_BASE] = "too many events",
	[HPM_ERR_SYSFS - HPM_ERR_BASE] = "malformed sysfs file",
	[HPM_ERR_PFM - HPM_ERR_BASE] = "libpfm4 could not encode the event",
	[HPM_ERR_LOST - HPM_ERR_BASE] = "the kernel dropped records",
	[HPM_ERR_NOT_OPEN - HPM_ERR_BASE] = "not opened",
	[HPM_ERR_NOT_REGULAR - HPM_ERR_BASE] =
		"not a regular file (a FIFO, device or socket), which could block or never end",
};

const char *hpm_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err == 0)
		return "success";
	if (err >= HPM_ERR_BASE && err < HPM_ERR_MAX && hpm_errors[err - HPM_ERR_BASE])
		return hpm_errors[err - HPM_ERR_BASE];
	if (err < HPM_ERR_BASE)
		return strerror(err); /* glibc: thread-safe for known codes */
	return "unknown error";
}

int hpm__parse_fail(size_t *errpos, size_t pos, char *msg, size_t msglen, int code,
		    const char *fmt, ...)
{
	va_list ap;

	*errpos = pos;
	va_start(ap, fmt);
	vsnprintf(msg, msglen, fmt, ap);
	va_end(ap);
	return code;
}
