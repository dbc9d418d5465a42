/* SPDX-License-Identifier: MIT */
/*
 * libhpmon: the context object, errors and logging.
 *
 * Conventions used by every libhpmon header:
 *  - functions returning int return 0 on success or a negative error: a
 *    negated errno value, or a negated HPM_ERR_* code (>= 4000);
 *  - functions returning a pointer return NULL and set errno on failure;
 *  - options structs start with `size_t sz` (set it to sizeof the struct)
 *    so the ABI can grow;
 *  - the library never prints, exits or reads the environment: it reports
 *    through return values and the optional log callback of its context.
 *  - ownership: each header says once at its top who owns what a call
 *    returns and what must outlive what. Here: a context is the caller's
 *    (hpm_ctx__free); every object made from it borrows it, so it must
 *    outlive them all. Strings returned by getters are the object's.
 */
#ifndef HPMON_HPMON_H
#define HPMON_HPMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HPM_API __attribute__((visibility("default")))

#define HPM_VERSION_MAJOR 0
#define HPM_VERSION_MINOR 1
#define HPM_VERSION_PATCH 0
#define HPM_VERSION_STRING "0.1.0"

/* Library error codes beyond errno, returned negated. */
enum hpm_error {
	HPM_ERR_BASE = 4000,
	HPM_ERR_SYNTAX = 4000,      /* event specification does not parse */
	HPM_ERR_UNKNOWN_EVENT,      /* no event of that name */
	HPM_ERR_UNKNOWN_PMU,        /* no PMU of that name under sysfs */
	HPM_ERR_UNKNOWN_TERM,       /* PMU has no format field of that name */
	HPM_ERR_BAD_VALUE,          /* term value out of range / malformed */
	HPM_ERR_BAD_MODIFIER,       /* unknown or conflicting modifier */
	HPM_ERR_TOO_MANY,           /* more events than the library allows */
	HPM_ERR_SYSFS,              /* sysfs file unreadable or malformed */
	HPM_ERR_PFM,                /* libpfm4 failed to encode the event */
	HPM_ERR_LOST,               /* kernel dropped records: data incomplete */
	HPM_ERR_NOT_OPEN,           /* object used before it was opened */
	HPM_ERR_NOT_REGULAR,        /* a file input names is a FIFO, device or socket */
	HPM_ERR_MAX
};

/* Human-readable text for 0, -errno or -HPM_ERR_*. Never NULL. */
HPM_API const char *hpm_strerror(int err);

/*
 * "Did you mean": of @names (@nr of them), the ones closest to @word, a
 * name the user got wrong, as "a, b, c" (closest first, at most three)
 * into @buf (@len bytes), "" when none is close: a few edits away
 * (case-insensitive), or holding the word or held in it (3 characters or
 * more). The library's own messages suggest names this way.
 */
HPM_API void hpm_suggest(const char *word, const char *const *names, size_t nr, char *buf,
			 size_t len);

enum hpm_log_level { HPM_LOG_WARN, HPM_LOG_INFO, HPM_LOG_DEBUG };
typedef void (*hpm_log_fn)(enum hpm_log_level level, const char *msg,
			   void *arg);

struct hpm_ctx_opts {
	size_t sz;               /* sizeof(struct hpm_ctx_opts) */
	const char *sysfs_root;  /* default "/sys" */
	const char *procfs_root; /* default "/proc" */
	const char *tracefs_root;/* default: first of /sys/kernel/tracing,
				    /sys/kernel/debug/tracing that exists */
	hpm_log_fn log;          /* optional */
	void *log_arg;
	/* When no tracefs is mounted at the default place (sysfs and tracefs
	 * roots not given), mount it at /sys/kernel/tracing the first time an
	 * event needs it (a tracepoint or a uprobe), as perf does. The only
	 * change the library makes outside its own objects, so only when the
	 * caller asks; it needs privilege (root) and logs what it did. */
	bool mount_tracefs;
	/* The cpuid string that names the processor model for the vendors'
	 * event tables ("GenuineIntel-6-55-4", "0x00000000410fd0c0"), as
	 * PERF_CPUID does for perf; default: this machine's (docs/vendor-tables.md). */
	const char *cpuid;
};

/*
 * A context holds the paths the library reads and the log callback. It is
 * the only shared state; every other object refers to one. Tests point the
 * roots at recorded trees of other machines.
 */
struct hpm_ctx;

/* opts may be NULL for the defaults. NULL and errno on failure. */
HPM_API struct hpm_ctx *hpm_ctx__new(const struct hpm_ctx_opts *opts);
HPM_API void hpm_ctx__free(struct hpm_ctx *ctx);
HPM_API const char *hpm_ctx__sysfs_root(const struct hpm_ctx *ctx);
HPM_API const char *hpm_ctx__procfs_root(const struct hpm_ctx *ctx);
/* NULL when no tracefs is mounted, or it is closed to the caller (its
 * default mode is 0700: root only). Never mounts it. */
HPM_API const char *hpm_ctx__tracefs_root(const struct hpm_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
