/* SPDX-License-Identifier: MIT */
/* The library context: the roots it reads and its log callback. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

struct hpm_ctx *hpm_ctx__new(const struct hpm_ctx_opts *opts)
{
	if (!HPM_OPTS_VALID(opts, hpm_ctx_opts)) {
		errno = EINVAL;
		return NULL;
	}
	struct hpm_ctx *ctx = calloc(1, sizeof(*ctx));
	if (ctx)
		pthread_mutex_init(&ctx->pmu_lock, NULL);
	const char *sysfs = "/sys", *procfs = "/proc", *tracefs = NULL;
	int err;

	if (!ctx)
		return NULL;
	if (HPM_OPTS_GET(opts, sysfs_root, NULL))
		sysfs = opts->sysfs_root;
	if (HPM_OPTS_GET(opts, procfs_root, NULL))
		procfs = opts->procfs_root;
	tracefs = HPM_OPTS_GET(opts, tracefs_root, NULL);
	ctx->log = HPM_OPTS_GET(opts, log, NULL);
	ctx->log_arg = HPM_OPTS_GET(opts, log_arg, NULL);
	err = set_root(ctx->sysfs, sysfs);
	if (!err)
		err = set_root(ctx->procfs, procfs);
	if (!err && tracefs) {
		err = set_root(ctx->tracefs, tracefs);
	} else if (!err) {
		/* Default: tracefs under the sysfs root, mounted or via debugfs. */
		static const char *const cand[] = { "kernel/tracing",
						    "kernel/debug/tracing" };
		for (size_t i = 0; i < 2 && !ctx->tracefs[0]; i++) {
			char p[PATH_MAX];
			if (hpm__path(p, sizeof(p), ctx->sysfs, "%s/events", cand[i]) == 0 &&
			    is_dir(p))
				hpm__path(ctx->tracefs, sizeof(ctx->tracefs),
					  ctx->sysfs, "%s", cand[i]);
		}
	}
	if (err) {
		free(ctx);
		errno = -err;
		return NULL;
	}
	return ctx;
}

void hpm_ctx__free(struct hpm_ctx *ctx)
{
	if (!ctx)
		return;
	for (size_t i = 0; i < ctx->nr_pmus; i++)
		free(ctx->pmus[i]);
	free(ctx->pmus);
	pthread_mutex_destroy(&ctx->pmu_lock);
	free(ctx);
}

const char *hpm_ctx__sysfs_root(const struct hpm_ctx *ctx) { return ctx->sysfs; }
const char *hpm_ctx__procfs_root(const struct hpm_ctx *ctx) { return ctx->procfs; }
const char *hpm_ctx__tracefs_root(const struct hpm_ctx *ctx)
{
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
