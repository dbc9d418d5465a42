/* SPDX-License-Identifier: MIT */
/*
 * The CPU's facts (sysinfo-internal.h): vendor, model and its name, arm64
 * MIDR, online CPUs, and whether a hypervisor runs it; from procfs and
 * sysfs, and from CPUID when the machine is the running one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "core/ctx-internal.h"
#include "sysinfo/sysinfo-internal.h"

static bool has_word(const char *list, const char *word)
{
	size_t wl = strlen(word);
	for (const char *p = strstr(list, word); p; p = strstr(p + 1, word))
		if ((p == list || p[-1] == ' ') && (p[wl] == ' ' || p[wl] == '\0'))
			return true;
	return false;
}


struct arm_name {
	unsigned impl, part; /* part 0xfff: any part of that implementer */
	const char *name;
};

/* MIDR implementer and part numbers of common cores. */
static const struct arm_name arm_names[] = {
	{ 0x41, 0xd03, "Cortex-A53" },  { 0x41, 0xd04, "Cortex-A35" },
	{ 0x41, 0xd05, "Cortex-A55" },  { 0x41, 0xd07, "Cortex-A57" },
	{ 0x41, 0xd08, "Cortex-A72" },  { 0x41, 0xd09, "Cortex-A73" },
	{ 0x41, 0xd0a, "Cortex-A75" },  { 0x41, 0xd0b, "Cortex-A76" },
	{ 0x41, 0xd0c, "Neoverse N1" }, { 0x41, 0xd0d, "Cortex-A77" },
	{ 0x41, 0xd40, "Neoverse V1" }, { 0x41, 0xd41, "Cortex-A78" },
	{ 0x41, 0xd44, "Cortex-X1" },   { 0x41, 0xd46, "Cortex-A510" },
	{ 0x41, 0xd47, "Cortex-A710" }, { 0x41, 0xd48, "Cortex-X2" },
	{ 0x41, 0xd49, "Neoverse N2" }, { 0x41, 0xd4f, "Neoverse V2" },
	{ 0x41, 0xd80, "Cortex-A520" }, { 0x41, 0xd81, "Cortex-A720" },
	{ 0x41, 0xd82, "Cortex-X4" },   { 0x41, 0xd84, "Neoverse V3" },
	{ 0x41, 0xd8e, "Neoverse N3" },
	{ 0x41, 0xfff, "ARM" },        { 0x42, 0xfff, "Broadcom" },
	{ 0x43, 0xfff, "Cavium" },     { 0x46, 0xfff, "Fujitsu" },
	{ 0x48, 0xfff, "HiSilicon" },  { 0x4e, 0xfff, "NVIDIA" },
	{ 0x50, 0xfff, "APM" },        { 0x51, 0xfff, "Qualcomm" },
	{ 0x61, 0xfff, "Apple" },      { 0xc0, 0xfff, "Ampere" },
	/* Implementer 0 is reserved for software: QEMU's "max" CPU. */
	{ 0x00, 0xfff, "software-defined" },
};

static void arm_describe(struct hpm_sysinfo *si)
{
	unsigned impl = (unsigned)(si->midr >> 24) & 0xff;
	unsigned part = (unsigned)(si->midr >> 4) & 0xfff;
	unsigned var = (unsigned)(si->midr >> 20) & 0xf;
	unsigned rev = (unsigned)si->midr & 0xf;
	const char *vendor = NULL, *core = NULL;

	for (size_t i = 0; i < sizeof(arm_names) / sizeof(arm_names[0]); i++) {
		if (arm_names[i].impl != impl)
			continue;
		if (arm_names[i].part == part)
			core = arm_names[i].name;
		else if (arm_names[i].part == 0xfff)
			vendor = arm_names[i].name;
	}
	if (vendor)
		hpm__si_copy_str(si->cpu_vendor, sizeof(si->cpu_vendor), vendor);
	else
		snprintf(si->cpu_vendor, sizeof(si->cpu_vendor),
			 "implementer 0x%02x", impl);
	if (core)
		snprintf(si->cpu_model, sizeof(si->cpu_model), "%s r%up%u",
			 core, var, rev);
	else
		snprintf(si->cpu_model, sizeof(si->cpu_model),
			 "part 0x%03x r%up%u", part, var, rev);
}

/* An arm64 MIDR from the cpuinfo fields when sysfs has no regs/. */
static uint64_t midr_from_cpuinfo(const char *text)
{
	char v[32];
	uint64_t midr = 0;

	if (!hpm__si_find_key(text, "CPU implementer", v, sizeof(v)))
		return 0;
	midr |= (strtoull(v, NULL, 0) & 0xff) << 24;
	if (hpm__si_find_key(text, "CPU variant", v, sizeof(v)))
		midr |= (strtoull(v, NULL, 0) & 0xf) << 20;
	if (hpm__si_find_key(text, "CPU architecture", v, sizeof(v)))
		midr |= 0xfull << 16; /* "8" means "see ID registers": 0xf */
	if (hpm__si_find_key(text, "CPU part", v, sizeof(v)))
		midr |= (strtoull(v, NULL, 0) & 0xfff) << 4;
	if (hpm__si_find_key(text, "CPU revision", v, sizeof(v)))
		midr |= strtoull(v, NULL, 0) & 0xf;
	return midr;
}

/* Enough for CPU 0's block of cpuinfo, which is all that is read. */
#define CPUINFO_MAX (16 * 1024)

void hpm__si_read_cpu(const struct hpm_ctx *ctx, struct hpm_sysinfo *si)
{
	char path[PATH_MAX], v[128];
	char *text = malloc(CPUINFO_MAX);

	si->cpu_family = si->cpu_model_nr = si->cpu_stepping = UNKNOWN;
	if (text && (hpm__path(path, sizeof(path), ctx->procfs, "cpuinfo") ||
		     hpm__si_read_head(path, text, CPUINFO_MAX) < 0))
		text[0] = '\0';

	hpm__si_read_str(ctx->sysfs, "devices/system/cpu/cpu0/regs/identification/midr_el1",
		 v, sizeof(v));
	if (v[0])
		si->midr = strtoull(v, NULL, 16);
	else if (text)
		si->midr = midr_from_cpuinfo(text);

	if (text && hpm__si_find_key(text, "vendor_id", v, sizeof(v))) {
		hpm__si_copy_str(si->arch, sizeof(si->arch), "x86_64");
		hpm__si_copy_str(si->cpu_vendor, sizeof(si->cpu_vendor), v);
		if (hpm__si_find_key(text, "model name", v, sizeof(v)))
			hpm__si_copy_str(si->cpu_model, sizeof(si->cpu_model), v);
		if (hpm__si_find_key(text, "cpu family", v, sizeof(v)))
			si->cpu_family = (int)strtol(v, NULL, 10);
		if (hpm__si_find_key(text, "model", v, sizeof(v)))
			si->cpu_model_nr = (int)strtol(v, NULL, 10);
		if (hpm__si_find_key(text, "stepping", v, sizeof(v)))
			si->cpu_stepping = (int)strtol(v, NULL, 10);
		char *flags = malloc(8192);
		if (flags && hpm__si_find_key(text, "flags", flags, 8192)) {
			si->hypervisor = has_word(flags, "hypervisor") ? HPM_YES : HPM_NO;
			if (si->hypervisor == HPM_YES)
				hpm__si_copy_str(si->hypervisor_how, sizeof(si->hypervisor_how),
					 "cpuinfo flag");
		}
		free(flags);
	} else if (si->midr) {
		hpm__si_copy_str(si->arch, sizeof(si->arch), "aarch64");
		arm_describe(si);
	}
	free(text);

	cpu_set_t online;
	hpm__si_read_str(ctx->sysfs, "devices/system/cpu/online", v, sizeof(v));
	if (v[0] && hpm__si_cpulist(v, &online) == 0 && CPU_COUNT(&online) > 0)
		si->nr_cpus_online = CPU_COUNT(&online);
	else
		si->nr_cpus_online = UNKNOWN;
}

/*
 * Without a cpuinfo flag (arm), a hypervisor shows in the firmware tables:
 * QEMU's "virt" board in the devicetree, or DMI strings of a VM vendor.
 */
void hpm__si_read_hypervisor_fw(const struct hpm_ctx *ctx, struct hpm_sysinfo *si)
{
	static const char *const dmi_vms[] = {
		"QEMU", "KVM", "VMware", "VirtualBox", "Xen", "Microsoft Corporation",
		"Amazon EC2", "Google Compute Engine", "Parallels", "BHYVE",
	};
	char buf[256];
	char path[PATH_MAX];
	int n;

	if (si->hypervisor != HPM_UNKNOWN)
		return;
	/* compatible is a list of NUL-separated strings */
	if (!hpm__path(path, sizeof(path), ctx->sysfs,
		       "firmware/devicetree/base/compatible") &&
	    (n = hpm__read_text(path, buf, sizeof(buf))) > 0) {
		for (int i = 0; i < n; i += (int)strlen(buf + i) + 1) {
			if (!strcmp(buf + i, "linux,dummy-virt")) {
				si->hypervisor = HPM_YES;
				hpm__si_copy_str(si->hypervisor_how, sizeof(si->hypervisor_how),
					 "devicetree: linux,dummy-virt (QEMU virt)");
				return;
			}
		}
	}
	hpm__si_read_str(ctx->sysfs, "hypervisor/type", buf, sizeof(buf));
	if (buf[0]) {
		si->hypervisor = HPM_YES;
		snprintf(si->hypervisor_how, sizeof(si->hypervisor_how),
			 "sysfs hypervisor/type: %.24s", buf);
		return;
	}
	hpm__si_read_str(ctx->sysfs, "class/dmi/id/sys_vendor", buf, sizeof(buf));
	for (size_t i = 0; buf[0] && i < sizeof(dmi_vms) / sizeof(dmi_vms[0]); i++) {
		if (strstr(buf, dmi_vms[i])) {
			si->hypervisor = HPM_YES;
			snprintf(si->hypervisor_how, sizeof(si->hypervisor_how),
				 "DMI vendor: %.32s", buf);
			return;
		}
	}
}

#if defined(__x86_64__) || defined(__i386__)
/* The hypervisor's CPUID signature ("KVMKVMKVM", "TCGTCGTCGTCG" ...). */
void hpm__si_cpuid_hypervisor(struct hpm_sysinfo *si)
{
	unsigned a, b, c, d;
	char sig[13];

	__cpuid(1, a, b, c, d);
	if (!(c & (1u << 31)))
		return;
	si->hypervisor = HPM_YES;
	__cpuid(0x40000000, a, b, c, d);
	memcpy(sig, &b, 4);
	memcpy(sig + 4, &c, 4);
	memcpy(sig + 8, &d, 4);
	sig[12] = '\0';
	for (int i = 11; i >= 0 && (sig[i] == '\0' || sig[i] == ' '); i--)
		sig[i] = '\0';
	if (sig[0])
		snprintf(si->hypervisor_how, sizeof(si->hypervisor_how),
			 "CPUID signature %s", sig);
}

/* General and fixed counters from CPUID (Intel leaf 0xa, AMD ext leaves). */
bool hpm__si_cpuid_counters(int *general, int *fixed)
{
	unsigned a, b, c, d;
	char vendor[13];

	__cpuid(0, a, b, c, d);
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = '\0';
	if (!strcmp(vendor, "GenuineIntel")) {
		if (a < 0xa)
			return false;
		__cpuid_count(0xa, 0, a, b, c, d);
		if ((a & 0xff) == 0)
			return false;
		*general = (int)((a >> 8) & 0xff);
		*fixed = (a & 0xff) > 1 ? (int)(d & 0x1f) : 0;
		return true;
	}
	if (!strcmp(vendor, "AuthenticAMD") || !strcmp(vendor, "HygonGenuine")) {
		__cpuid(0x80000000, a, b, c, d);
		unsigned max = a;
		if (max >= 0x80000022) {
			__cpuid_count(0x80000022, 0, a, b, c, d);
			if (a & 1) { /* PerfMonV2 */
				*general = (int)(b & 0xf);
				*fixed = 0;
				return true;
			}
		}
		__cpuid(0x80000001, a, b, c, d);
		*general = (c & (1u << 23)) ? 6 : 4; /* PerfCtrExtCore */
		*fixed = 0;
		return true;
	}
	return false;
}
#else
void hpm__si_cpuid_hypervisor(struct hpm_sysinfo *si) { (void)si; }
bool hpm__si_cpuid_counters(int *general, int *fixed)
{
	(void)general;
	(void)fixed;
	return false;
}
#endif
