/* SPDX-License-Identifier: MIT */
/*
 * The facts `hpmon diag` reports: every file is read through the context's
 * roots; CPUID, uname, capget and test opens of counters happen only when
 * the caller's flags say the context is the running machine. This file
 * gathers them; each kind comes from a file of its own
 * (sysinfo-internal.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/breakpoints-internal.h"
#include "core/ctx-internal.h"
#include "sysinfo/sysinfo-internal.h"
#include "sys/opts.h"

const char *hpm_counters_source__str(enum hpm_counters_source s)
{
	static const char *const words[] = {
		[HPM_COUNTERS_NONE] = "none", [HPM_COUNTERS_UNKNOWN] = "unknown",
		[HPM_COUNTERS_CAPS] = "caps", [HPM_COUNTERS_CPUID] = "cpuid",
		[HPM_COUNTERS_PROBED] = "probed",
	};
	if ((unsigned)s < sizeof(words) / sizeof(words[0]) && words[s])
		return words[s];
	return "unknown";
}

struct hpm_sysinfo *hpm_sysinfo__read(struct hpm_ctx *ctx,
				      const struct hpm_sysinfo_opts *opts)
{
	struct hpm_sysinfo *si;

	if (!HPM_OPTS_VALID(opts, hpm_sysinfo_opts)) {
		errno = EINVAL;
		return NULL;
	}
	unsigned flags = HPM_OPTS_GET(opts, flags, 0u);
	if (flags & (HPM_SYSINFO_PROBE_RDPMC | HPM_SYSINFO_PROBE_COUNTERS |
		     HPM_SYSINFO_PROBE_BREAKPOINTS | HPM_SYSINFO_PROBE_SAMPLES))
		flags |= HPM_SYSINFO_LIVE;
	bool live = flags & HPM_SYSINFO_LIVE;

	si = calloc(1, sizeof(*si));
	if (!si)
		return NULL;
	si->hypervisor = HPM_UNKNOWN;
	si->rdpmc = HPM_UNKNOWN;
	si->bp_exec.fires = si->bp_data.fires = HPM_UNKNOWN;
	si->stack_user = si->kernel_chains = HPM_UNKNOWN;
	si->vdso_functions = UNKNOWN;

	hpm__si_read_cpu(ctx, si);
	hpm__si_read_kernel(ctx, si);
	hpm__si_read_caller(ctx, si, live);
	hpm__si_read_tracefs(ctx, si);
	hpm__si_read_uprobe_leftovers(ctx, si);
	if (live)
		hpm__si_cpuid_hypervisor(si); /* also names it */
	hpm__si_read_hypervisor_fw(ctx, si);
	if (live) {
		struct utsname u;
		if (uname(&u) == 0) {
			if (!si->kernel_release[0])
				hpm__si_copy_str(si->kernel_release, sizeof(si->kernel_release),
					 u.release);
			if (!si->arch[0])
				hpm__si_copy_str(si->arch, sizeof(si->arch), u.machine);
		}
		if (si->nr_cpus_online == UNKNOWN) {
			long n = sysconf(_SC_NPROCESSORS_ONLN);
			if (n > 0 && n < INT32_MAX)
				si->nr_cpus_online = (int)n;
		}
	}
	if (live)
		hpm__si_read_vdso(si);
	if (flags & HPM_SYSINFO_PROBE_SAMPLES)
		hpm__si_probe_samples(si);
	if (flags & HPM_SYSINFO_PROBE_BREAKPOINTS) {
		si->bp_exec = *hpm__ctx_breakpoints(ctx, HPM_BP_EXEC);
		si->bp_data = *hpm__ctx_breakpoints(ctx, HPM_BP_DATA);
	}

	int err = hpm__si_read_pmus(ctx, si);
	if (err) {
		hpm_sysinfo__free(si);
		errno = -err;
		return NULL;
	}
	for (size_t i = 0; i < si->nr_pmus; i++) {
		struct hpm_pmu_info *p = &si->pmus[i];
		if (!p->core || p->source == HPM_COUNTERS_CAPS)
			continue;
		if (flags & HPM_SYSINFO_PROBE_COUNTERS)
			hpm__si_probe_counters(p, si->nr_core_pmus > 1,
				       !strcmp(si->arch, "aarch64"));
		if (p->source != HPM_COUNTERS_PROBED && live && si->nr_core_pmus == 1 &&
		    hpm__si_cpuid_counters(&p->nr_general, &p->nr_fixed))
			p->source = HPM_COUNTERS_CPUID;
	}

	char rel[PATH_MAX];
	si->rdpmc_sysfs = UNKNOWN;
	for (size_t i = 0; i < si->nr_pmus && si->rdpmc_sysfs == UNKNOWN; i++) {
		if (!si->pmus[i].core)
			continue;
		si->rdpmc_sysfs = hpm__si_read_int(ctx->sysfs, hpm__si_pmu_file(rel, sizeof(rel),
								  si->pmus[i].name, "rdpmc"));
	}
	if (flags & HPM_SYSINFO_PROBE_RDPMC)
		hpm__si_probe_rdpmc(si);
	return si;
}

struct hpm_bp_fact hpm_sysinfo__breakpoints(const struct hpm_ctx *ctx, enum hpm_bp_kind kind)
{
	return *hpm__ctx_breakpoints(ctx, kind);
}

void hpm_sysinfo__free(struct hpm_sysinfo *si)
{
	if (!si)
		return;
	free(si->pmus);
	free(si);
}

const struct hpm_pmu_info *hpm_sysinfo__pmu(const struct hpm_sysinfo *si,
					    const char *name)
{
	for (size_t i = 0; i < si->nr_pmus; i++)
		if (!strcmp(si->pmus[i].name, name))
			return &si->pmus[i];
	return NULL;
}
