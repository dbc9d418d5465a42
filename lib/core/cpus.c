/* SPDX-License-Identifier: MIT */
/* Listing CPUs and threads through the context's roots (core/cpus-internal.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/cpus-internal.h"

int hpm__add_threads(const struct hpm_ctx *ctx, pid_t pid, pid_t **v, size_t *n, size_t *cap)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	if (hpm__path(path, sizeof(path), ctx->procfs, "%d/task", (int)pid))
		return -ENAMETOOLONG;
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? -ESRCH : -errno;
	while ((de = readdir(d))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);
		if (*end || tid <= 0)
			continue;
		if (*n == *cap) {
			size_t nc = *cap ? *cap * 2 : 16;
			pid_t *nv = realloc(*v, nc * sizeof(**v));
			if (!nv) {
				closedir(d);
				return -ENOMEM;
			}
			*v = nv;
			*cap = nc;
		}
		(*v)[(*n)++] = (pid_t)tid;
	}
	closedir(d);
	return 0;
}

int hpm__online_cpus(const struct hpm_ctx *ctx, int **out, size_t *nr)
{
	char path[PATH_MAX], buf[4096];
	int *v = NULL;
	size_t n = 0;
	int rc;

	if (hpm__path(path, sizeof(path), ctx->sysfs, "devices/system/cpu/online"))
		return -ENAMETOOLONG;
	rc = hpm__read_text(path, buf, sizeof(buf));
	if (rc < 0) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);
		snprintf(buf, sizeof(buf), "0-%ld", c > 0 ? c - 1 : 0);
	}
	for (char *p = buf; *p;) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;
		if (end == p)
			break;
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			p = end;
		}
		if (lo < 0 || hi < lo || hi > 65535)
			break;
		int *nv = realloc(v, (n + (size_t)(hi - lo + 1)) * sizeof(*v));
		if (!nv) {
			free(v);
			return -ENOMEM;
		}
		v = nv;
		for (long c = lo; c <= hi; c++)
			v[n++] = (int)c;
		if (*p == ',')
			p++;
		else
			break;
	}
	if (!n) {
		free(v);
		return -HPM_ERR_SYSFS;
	}
	*out = v;
	*nr = n;
	return 0;
}
