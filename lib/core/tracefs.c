/* SPDX-License-Identifier: MIT */
/*
 * hpmon's uprobes left behind in tracefs (core/tracefs-internal.h). The
 * kernel lists every uprobe in uprobe_events, one a line:
 *
 *   p:hpmon_1234/s55d0c8a2e2a0_0 /usr/bin/prog:0x0000000000001139
 *
 * ('r' for a return probe). Only groups named hpmon_PID are hpmon's.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/ctx-internal.h"
#include "core/tracefs-internal.h"

/* What the caller is: a process with the same name or program as the
 * caller may be a hpmon that still runs. */
struct self {
	char comm[32];
	char exe[PATH_MAX];
};

static void read_link(const char *procfs, const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n = -1;
	if (!hpm__path(path, sizeof(path), procfs, "%s", rel))
		n = readlink(path, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
}

/* Whether process @pid holds a perf event: the owner of a uprobe in use
 * does. True when its descriptors cannot be read (in doubt, it runs). */
static bool holds_perf_event(const char *procfs, int pid)
{
	char path[PATH_MAX], link[64];
	struct dirent *de;
	bool found = false;

	if (hpm__path(path, sizeof(path), procfs, "%d/fd", pid))
		return true;
	DIR *d = opendir(path);
	if (!d)
		return errno != ENOENT;
	while (!found && (de = readdir(d))) {
		char rel[96];
		if (de->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof(rel), "%d/fd/%.32s", pid, de->d_name);
		read_link(procfs, rel, link, sizeof(link));
		found = !strcmp(link, "anon_inode:[perf_event]");
	}
	closedir(d);
	return found;
}

/* Whether the hpmon that defined group hpmon_@pid may still run. Pids are
 * reused: a live process with that pid is the owner only if it could be
 * a hpmon. */
static bool owner_runs(const struct hpm_ctx *ctx, const struct self *self, int pid)
{
	char path[PATH_MAX], comm[32], exe[PATH_MAX], rel[32];

	if (hpm__path(path, sizeof(path), ctx->procfs, "%d/comm", pid))
		return true;
	int n = hpm__read_text(path, comm, sizeof(comm));
	if (n == -ENOENT || n == -ESRCH)
		return false; /* no such process */
	if (n < 0)
		return true;
	if (self->comm[0] && !strcmp(comm, self->comm))
		return true;
	snprintf(rel, sizeof(rel), "%d/exe", pid);
	read_link(ctx->procfs, rel, exe, sizeof(exe));
	if (self->exe[0] && !strcmp(exe, self->exe))
		return true;
	return holds_perf_event(ctx->procfs, pid);
}

/* "hpmon_PID" -> PID, or 0 when @group is not one of hpmon's. */
static int group_pid(const char *group, size_t len)
{
	static const char pfx[] = "hpmon_";
	const size_t plen = sizeof(pfx) - 1;
	long pid = 0;

	if (len <= plen || len > plen + 10 || memcmp(group, pfx, plen))
		return 0;
	for (size_t i = plen; i < len; i++) {
		if (group[i] < '0' || group[i] > '9')
			return 0;
		pid = pid * 10 + (group[i] - '0');
	}
	return pid > 0 && pid <= 0x7fffffff ? (int)pid : 0;
}

int hpm__uprobe_leftovers(const struct hpm_ctx *ctx, hpm_uprobe_fn fn, void *arg)
{
	const char *root = hpm_ctx__tracefs_root(ctx);
	char path[PATH_MAX], line[PATH_MAX + 256];
	struct self self;
	int rc = 0;

	if (!root)
		return hpm__ctx_tracefs_err(ctx);
	if (hpm__path(path, sizeof(path), root, "uprobe_events"))
		return -ENAMETOOLONG;
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	if (hpm__path(path, sizeof(path), ctx->procfs, "self/comm") ||
	    hpm__read_text(path, self.comm, sizeof(self.comm)) < 0)
		self.comm[0] = '\0';
	read_link(ctx->procfs, "self/exe", self.exe, sizeof(self.exe));
	while (!rc && fgets(line, sizeof(line), f)) {
		size_t len = strcspn(line, "\n");
		if (line[len] != '\n' && !feof(f)) {
			/* longer than any uprobe of ours: skip the rest of it */
			int c;
			while ((c = fgetc(f)) != EOF && c != '\n')
				;
			continue;
		}
		line[len] = '\0';
		/* TYPE:GROUP/EVENT TARGET [ARGS] */
		if ((line[0] != 'p' && line[0] != 'r') || line[1] != ':')
			continue;
		char *probe = line + 2, *slash = strchr(probe, '/');
		char *space = strchr(probe, ' ');
		if (!slash || !space || slash > space)
			continue;
		int pid = group_pid(probe, (size_t)(slash - probe));
		if (!pid || pid == (int)getpid())
			continue;
		*space = '\0';
		char *target = space + 1;
		target[strcspn(target, " ")] = '\0';
		if (!owner_runs(ctx, &self, pid))
			rc = fn(arg, probe, pid, target);
	}
	fclose(f);
	return rc;
}
