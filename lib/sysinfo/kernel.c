/* SPDX-License-Identifier: MIT */
/*
 * The kernel's facts and the caller's (sysinfo-internal.h): release, the
 * perf_event sysctls, the capabilities and what they and
 * perf_event_paranoid allow, and tracefs.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

#include "core/ctx-internal.h"
#include "core/tracefs-internal.h"
#include "sysinfo/sysinfo-internal.h"

#define CAP_PERFMON_BIT 38 /* CAP_PERFMON, absent from older headers */

void hpm__si_read_kernel(const struct hpm_ctx *ctx, struct hpm_sysinfo *si)
{
	const char *p = ctx->procfs;

	hpm__si_read_str(p, "sys/kernel/osrelease", si->kernel_release,
		 sizeof(si->kernel_release));
	si->perf_event_paranoid = hpm__si_read_int(p, "sys/kernel/perf_event_paranoid");
	si->perf_event_max_sample_rate = hpm__si_read_int(p, "sys/kernel/perf_event_max_sample_rate");
	si->perf_event_mlock_kb = hpm__si_read_int(p, "sys/kernel/perf_event_mlock_kb");
	si->nmi_watchdog = hpm__si_read_int(p, "sys/kernel/nmi_watchdog");
	si->perf_user_access = hpm__si_read_int(p, "sys/kernel/perf_user_access");
}

static void caps_from_mask(struct hpm_sysinfo *si, uint64_t eff)
{
	si->cap_perfmon = (eff >> CAP_PERFMON_BIT) & 1 ? HPM_YES : HPM_NO;
	si->cap_sys_admin = (eff >> CAP_SYS_ADMIN) & 1 ? HPM_YES : HPM_NO;
}

void hpm__si_read_caller(const struct hpm_ctx *ctx, struct hpm_sysinfo *si,
			bool live)
{
	char path[PATH_MAX], text[8192], v[32];

	si->cap_perfmon = si->cap_sys_admin = HPM_UNKNOWN;
	if (!hpm__path(path, sizeof(path), ctx->procfs, "self/status") &&
	    hpm__si_read_head(path, text, sizeof(text)) == 0 &&
	    hpm__si_find_key(text, "CapEff", v, sizeof(v)))
		caps_from_mask(si, strtoull(v, NULL, 16));
	else if (live) {
		struct __user_cap_header_struct hdr = {
			.version = _LINUX_CAPABILITY_VERSION_3 };
		struct __user_cap_data_struct data[2] = { { 0 } };
		if (syscall(SYS_capget, &hdr, data) == 0)
			caps_from_mask(si, data[0].effective |
					   (uint64_t)data[1].effective << 32);
	}

	bool priv = si->cap_perfmon == HPM_YES || si->cap_sys_admin == HPM_YES;
	int p = si->perf_event_paranoid == UNKNOWN ? 2 : si->perf_event_paranoid;
	si->allow_open = priv || p <= 2;
	si->allow_kernel = priv || p <= 1;
	si->allow_cpu_wide = priv || p <= 0;
	si->allow_raw_tp = priv || p <= -1;
}

void hpm__si_read_tracefs(const struct hpm_ctx *ctx, struct hpm_sysinfo *si)
{
	const char *root = hpm_ctx__tracefs_root(ctx);
	char path[PATH_MAX];

	if (!root) {
		/* Mounted but closed to the caller (mode 700): the context
		 * did not enter it, but it is there, and not readable. */
		if (hpm__ctx_tracefs_err(ctx) == -EACCES)
			hpm__si_copy_str(si->tracefs, sizeof(si->tracefs), ctx->tracefs_closed);
		return;
	}
	hpm__si_copy_str(si->tracefs, sizeof(si->tracefs), root);
	if (hpm__path(path, sizeof(path), root, "events"))
		return;
	DIR *d = opendir(path);
	if (d) {
		si->tracefs_readable = readdir(d) != NULL;
		closedir(d);
	}
}

static int add_leftover(void *arg, const char *probe, int pid, const char *target)
{
	struct hpm_sysinfo *si = arg;
	size_t max = sizeof(si->uprobe_leftovers) / sizeof(si->uprobe_leftovers[0]);

	if (si->nr_uprobe_leftovers < max) {
		struct hpm_uprobe_leftover *l = &si->uprobe_leftovers[si->nr_uprobe_leftovers];
		hpm__si_copy_str(l->probe, sizeof(l->probe), probe);
		hpm__si_copy_str(l->target, sizeof(l->target), target);
		l->pid = pid;
	}
	si->nr_uprobe_leftovers++;
	return 0;
}

void hpm__si_read_uprobe_leftovers(const struct hpm_ctx *ctx, struct hpm_sysinfo *si)
{
	const char *root = hpm_ctx__tracefs_root(ctx);

	if (root && hpm__path(si->uprobe_events, sizeof(si->uprobe_events), root,
			      "uprobe_events"))
		si->uprobe_events[0] = '\0';
	si->uprobe_leftovers_err = hpm__uprobe_leftovers(ctx, add_leftover, si);
}
