/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/core/ owns the context, errors, data and CPU lists; may use sys.
 *
 * The context's insides, for the library only. Ownership: every object of
 * the library borrows its context, so the context must outlive them all;
 * the PMU list is the context's and is freed with it.
 */
#ifndef HPM_CTX_INTERNAL_H
#define HPM_CTX_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <hpmon/hpmon.h>
#include <hpmon/sysinfo.h>

struct hpm_ctx {
	char *sysfs;            /* the roots, without a trailing '/' */
	char *procfs;
	/* Why there is no tracefs: -ENOENT not mounted, -EACCES mounted at
	 * tracefs_closed but closed to the caller (mode 0700). */
	int tracefs_err;
	/* mount tracefs when an event needs it (hpm_ctx_opts.mount_tracefs,
	 * default roots only); once, under tracefs_lock */
	bool tracefs_looked;    /* tracefs and tracefs_err found (at the first need) */
	bool tracefs_mountable;
	bool tracefs_mount_tried;
	pthread_mutex_t tracefs_lock;
	hpm_log_fn log;
	void *log_arg;
	/* The PMUs sysfs lists, read at the first need and once (pmu.c):
	 * resolving one event list walks them many times (core PMUs,
	 * instances, aliases written alone), and sysfs does not change under
	 * a running tool. Each PMU's files are read once, when asked for. */
	pthread_mutex_t pmu_lock;
	bool pmus_read;
	int pmus_err;
	struct hpm_pmu_ent *pmus; /* core PMUs first, then the rest, each sorted */
	size_t nr_pmus;
	/* Whether breakpoints fire, exec and data (core/breakpoints.c):
	 * measured at the first need, under bp_lock. */
	pthread_mutex_t bp_lock;
	bool bp_measured[2];
	struct hpm_bp_fact bp[2];
	/* The vendors' tables of this machine's model (events/vendor.c):
	 * found at the first need, under vendor_lock, and freed with
	 * vendor_free. cpuid is hpm_ctx_opts.cpuid, NULL when not given. */
	char *cpuid;
	pthread_mutex_t vendor_lock;
	void *vendor;
	void (*vendor_free)(void *vendor);
	/* Last, and not zeroed by hpm_ctx__new: 8 KiB that a command with no
	 * tracepoint never touches. Written when tracefs is looked for
	 * (tracefs_looked), or given. */
	char tracefs[PATH_MAX]; /* "" when none */
	char tracefs_closed[PATH_MAX];
};

/* What the context knows of one listed PMU (pmu.c fills it, under
 * pmu_lock; the context owns it all). */
struct hpm_pmu_ent {
	char *name;
	bool core;
	bool type_read;
	int type_err;               /* 0, or why "type" gave no number */
	uint32_t type;
	bool cpus_file_read;
	int cpus_file_rc;           /* reading "cpus": its length or -errno */
	char *cpus_file;            /* its contents ("" unless cpus_file_rc > 0) */
	bool cpus_read;
	char *cpus;                 /* "cpus" or "cpumask", "" when neither */
	bool loaded;
	int load_err;
	struct hpm_pmu *pmu;        /* hpm_pmu__load's result */
};

/*
 * The tracefs root for an event that needs it (a tracepoint, a uprobe):
 * hpm_ctx__tracefs_root, after mounting tracefs if the context may
 * (hpm_ctx_opts.mount_tracefs) and none is there. NULL when there is
 * none; hpm__ctx_tracefs_err then says why (-ENOENT, -EACCES, or the
 * mount's error).
 */
const char *hpm__ctx_tracefs(const struct hpm_ctx *ctx);
int hpm__ctx_tracefs_err(const struct hpm_ctx *ctx);

/* Log through the context's callback, if any. */
void hpm__log(const struct hpm_ctx *ctx, enum hpm_log_level level,
	      const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * Build "<root>/<fmt...>" into @buf. Returns 0 or -ENAMETOOLONG.
 */
int hpm__path(char *buf, size_t len, const char *root, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * Read a small text file into @buf (NUL-terminated, trailing newline
 * removed). Returns length or -errno; -EFBIG if it does not fit.
 */
int hpm__read_text(const char *path, char *buf, size_t len);
/* Read a file holding one integer. 0 or -errno / -HPM_ERR_SYSFS. */
int hpm__read_long(const char *path, long *out);

#endif
