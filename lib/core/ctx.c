/* SPDX-License-Identifier: MIT */
/* The library context: the roots it reads and its log callback. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/ctx-internal.h"
#include "sys/opts.h"

static int set_root(char *dst, const char *src)
{
	size_t n = strlen(src);
	if (n >= PATH_MAX)
		return -ENAMETOOLONG;
	memcpy(dst, src, n + 1);
	/* "/" alone stays; a trailing slash otherwise goes, so joins are clean */
	while (n > 1 && dst[n - 1] == '/')
		dst[--n] = '\0';
	return 0;
}

/* A root of its own: *@dst allocated, 0 or -errno. */
static int dup_root(char **dst, const char *src)
{
	size_t n = strlen(src);
	if (n >= PATH_MAX)
		return -ENAMETOOLONG;
	*dst = malloc(n + 1);
	if (!*dst)
		return -ENOMEM;
	memcpy(*dst, src, n + 1);
	while (n > 1 && (*dst)[n - 1] == '/')
		(*dst)[--n] = '\0';
	return 0;
}

/*
 * Default: tracefs under the sysfs root, mounted there or reached through
 * debugfs. Its root directory is 0700 unless an administrator opened it:
 * an ordinary user then sees it but cannot enter, which is told apart
 * from its absence so that errors can say which (tracefs_err).
 */
static void find_tracefs(struct hpm_ctx *ctx)
{
	static const char *const cand[] = { "kernel/tracing", "kernel/debug/tracing" };

	ctx->tracefs[0] = ctx->tracefs_closed[0] = '\0';
	ctx->tracefs_err = -ENOENT;
	for (size_t i = 0; i < 2; i++) {
		char p[PATH_MAX];
		struct stat st;
		if (hpm__path(p, sizeof(p), ctx->sysfs, "%s/events", cand[i]))
			continue;
		int r = stat(p, &st);
		if (r == 0 && S_ISDIR(st.st_mode)) {
			hpm__path(ctx->tracefs, sizeof(ctx->tracefs), ctx->sysfs, "%s", cand[i]);
			ctx->tracefs_err = 0;
			return;
		}
		/* tracefs' own mount point, closed; debugfs is closed to
		 * ordinary users anyway, and says nothing of tracefs */
		if (i == 0 && r && errno == EACCES) {
			hpm__path(ctx->tracefs_closed, sizeof(ctx->tracefs_closed), ctx->sysfs,
				  "%s", cand[i]);
			ctx->tracefs_err = -EACCES;
		}
	}
}

struct hpm_ctx *hpm_ctx__new(const struct hpm_ctx_opts *opts)
{
	if (!HPM_OPTS_VALID(opts, hpm_ctx_opts)) {
		errno = EINVAL;
		return NULL;
	}
	/* not calloc: the tracefs paths at the end (16 KiB of roots once)
	 * stay untouched until tracefs is needed, and a start faults in only
	 * the memory it uses (docs/hpmon-stat.md, START-UP) */
	struct hpm_ctx *ctx = malloc(sizeof(*ctx));
	const char *sysfs = "/sys", *procfs = "/proc", *tracefs = NULL;
	int err;

	if (!ctx)
		return NULL;
	memset(ctx, 0, offsetof(struct hpm_ctx, tracefs));
	pthread_mutex_init(&ctx->pmu_lock, NULL);
	pthread_mutex_init(&ctx->tracefs_lock, NULL);
	pthread_mutex_init(&ctx->bp_lock, NULL);
	pthread_mutex_init(&ctx->vendor_lock, NULL);
	if (HPM_OPTS_GET(opts, sysfs_root, NULL))
		sysfs = opts->sysfs_root;
	if (HPM_OPTS_GET(opts, procfs_root, NULL))
		procfs = opts->procfs_root;
	tracefs = HPM_OPTS_GET(opts, tracefs_root, NULL);
	ctx->log = HPM_OPTS_GET(opts, log, NULL);
	ctx->log_arg = HPM_OPTS_GET(opts, log_arg, NULL);
	err = dup_root(&ctx->sysfs, sysfs);
	if (!err)
		err = dup_root(&ctx->procfs, procfs);
	if (!err && HPM_OPTS_GET(opts, cpuid, NULL) && opts->cpuid[0] &&
	    !(ctx->cpuid = strdup(opts->cpuid)))
		err = -ENOMEM;
	if (!err && tracefs) {
		err = set_root(ctx->tracefs, tracefs);
		ctx->tracefs_closed[0] = '\0';
		ctx->tracefs_looked = true;
	} else if (!err) {
		/* looked for at the first need (look_tracefs): most command
		 * lines have no event that needs it */
		/* only the machine's own tracefs, never in a tree a test or a
		 * user pointed the context at */
		ctx->tracefs_mountable = HPM_OPTS_GET(opts, mount_tracefs, false) &&
					 !strcmp(ctx->sysfs, "/sys");
	}
	if (err) {
		hpm_ctx__free(ctx);
		errno = -err;
		return NULL;
	}
	return ctx;
}

/* Mount tracefs where the kernel provides its mount point, as perf does
 * (tools/lib/api/fs/tracing_path.c), when none is there. */
static void mount_tracefs(struct hpm_ctx *ctx)
{
	char dir[PATH_MAX];

	if (ctx->tracefs_err != -ENOENT ||
	    hpm__path(dir, sizeof(dir), ctx->sysfs, "kernel/tracing"))
		return;
	if (mount("nodev", dir, "tracefs", 0, NULL)) {
		int err = -errno;
		hpm__log(ctx, HPM_LOG_INFO, "cannot mount tracefs at %s: %s", dir,
			 strerror(-err));
		if (err != -EPERM)
			ctx->tracefs_err = err;
		return;
	}
	find_tracefs(ctx);
	hpm__log(ctx, HPM_LOG_INFO, "mounted tracefs at %s, which was not mounted", dir);
}

/* Under tracefs_lock. */
static void look_tracefs(struct hpm_ctx *c)
{
	if (!c->tracefs_looked) {
		find_tracefs(c);
		c->tracefs_looked = true;
	}
}

const char *hpm__ctx_tracefs(const struct hpm_ctx *ctx)
{
	struct hpm_ctx *c = (struct hpm_ctx *)ctx; /* the mount, once */

	pthread_mutex_lock(&c->tracefs_lock);
	look_tracefs(c);
	if (!c->tracefs[0] && c->tracefs_mountable && !c->tracefs_mount_tried) {
		c->tracefs_mount_tried = true;
		mount_tracefs(c);
	}
	pthread_mutex_unlock(&c->tracefs_lock);
	return hpm_ctx__tracefs_root(ctx);
}

int hpm__ctx_tracefs_err(const struct hpm_ctx *ctx)
{
	hpm_ctx__tracefs_root(ctx);
	return ctx->tracefs[0] ? 0 : ctx->tracefs_err ? ctx->tracefs_err : -ENOENT;
}

void hpm_ctx__free(struct hpm_ctx *ctx)
{
	if (!ctx)
		return;
	for (size_t i = 0; i < ctx->nr_pmus; i++) {
		free(ctx->pmus[i].name);
		free(ctx->pmus[i].cpus);
		free(ctx->pmus[i].cpus_file);
		free(ctx->pmus[i].pmu);
	}
	free(ctx->pmus);
	pthread_mutex_destroy(&ctx->pmu_lock);
	pthread_mutex_destroy(&ctx->tracefs_lock);
	pthread_mutex_destroy(&ctx->bp_lock);
	if (ctx->vendor_free)
		ctx->vendor_free(ctx->vendor);
	pthread_mutex_destroy(&ctx->vendor_lock);
	free(ctx->cpuid);
	free(ctx->sysfs);
	free(ctx->procfs);
	free(ctx);
}

const char *hpm_ctx__sysfs_root(const struct hpm_ctx *ctx) { return ctx->sysfs; }
const char *hpm_ctx__procfs_root(const struct hpm_ctx *ctx) { return ctx->procfs; }
const char *hpm_ctx__tracefs_root(const struct hpm_ctx *ctx)
{
	struct hpm_ctx *c = (struct hpm_ctx *)ctx; /* the look, once */

	pthread_mutex_lock(&c->tracefs_lock);
	look_tracefs(c);
	pthread_mutex_unlock(&c->tracefs_lock);
	return ctx->tracefs[0] ? ctx->tracefs : NULL;
}

void hpm__log(const struct hpm_ctx *ctx, enum hpm_log_level level,
	      const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!ctx || !ctx->log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ctx->log(level, msg, ctx->log_arg);
}

int hpm__path(char *buf, size_t len, const char *root, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(buf, len, "%s/", strcmp(root, "/") ? root : "");
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	va_start(ap, fmt);
	int m = vsnprintf(buf + n, len - (size_t)n, fmt, ap);
	va_end(ap);
	if (m < 0 || (size_t)m >= len - (size_t)n)
		return -ENAMETOOLONG;
	return 0;
}

int hpm__read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	size_t got = 0;

	if (fd < 0)
		return -errno;
	while (got < len) {
		n = read(fd, buf + got, len - got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = -errno;
			close(fd);
			return e;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (got == len)
		return -EFBIG;
	while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == ' '))
		got--;
	buf[got] = '\0';
	return (int)got;
}

int hpm__read_long(const char *path, long *out)
{
	char buf[64], *end;
	int n = hpm__read_text(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	errno = 0;
	long v = strtol(buf, &end, 0);
	if (end == buf || errno)
		return -HPM_ERR_SYSFS;
	*out = v;
	return 0;
}
