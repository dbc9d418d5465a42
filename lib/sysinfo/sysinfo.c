/* SPDX-License-Identifier: MIT */
/*
 * The facts `hpmon diag` reports: every file is read through the context's
 * roots; CPUID, uname, capget and test opens of counters happen only when
 * the caller's flags say the context is the running machine.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <hpmon/sysinfo.h>
#include "core/ctx-internal.h"
#include "events/pmu-internal.h"
#include "sys/perf.h"

#define UNKNOWN HPM_SYSINFO_UNKNOWN
#define CAP_PERFMON_BIT 38 /* CAP_PERFMON, absent from older headers */
#define PROBE_MAX_COUNTERS 40 /* arm allows 31 + cycle; x86 fewer */

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

/* ---- small readers ---- */

/* Copy @src into @dst of @len bytes, cut short if need be. */
static void copy_str(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Read <root>/<rel> as one integer; UNKNOWN when absent or malformed. */
static int read_int(const char *root, const char *rel)
{
	char path[PATH_MAX];
	long v;

	if (hpm__path(path, sizeof(path), root, "%s", rel) ||
	    hpm__read_long(path, &v) || v < INT32_MIN + 1 || v > INT32_MAX)
		return UNKNOWN;
	return (int)v;
}

/* Read <root>/<rel> into @buf; "" when absent. */
static void read_str(const char *root, const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX];

	buf[0] = '\0';
	if (hpm__path(path, sizeof(path), root, "%s", rel) ||
	    hpm__read_text(path, buf, len) < 0)
		buf[0] = '\0';
}

/*
 * Find "key<spaces>: value" in @text (procfs cpuinfo/status style) and
 * copy the value, trimmed, into @buf. Only the first match counts, which
 * for cpuinfo is CPU 0.
 */
static bool find_key(const char *text, const char *key, char *buf, size_t len)
{
	size_t klen = strlen(key);

	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		const char *end = nl ? nl : line + strlen(line);
		const char *v = line + klen;
		if ((size_t)(end - line) > klen && !strncmp(line, key, klen)) {
			while (v < end && (*v == ' ' || *v == '\t'))
				v++;
			if (v < end && *v == ':') {
				v++;
				while (v < end && isspace((unsigned char)*v))
					v++;
				size_t vl = (size_t)(end - v);
				while (vl && isspace((unsigned char)v[vl - 1]))
					vl--;
				if (vl >= len)
					vl = len - 1;
				memcpy(buf, v, vl);
				buf[vl] = '\0';
				return true;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	return false;
}

/* The first @len - 1 bytes of a file, NUL-terminated: 0 or -errno. */
static int read_head(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;

	buf[0] = '\0';
	if (fd < 0)
		return -errno;
	while (got < len - 1) {
		ssize_t n = read(fd, buf + got, len - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	close(fd);
	return 0;
}

static bool has_word(const char *list, const char *word)
{
	size_t wl = strlen(word);
	for (const char *p = strstr(list, word); p; p = strstr(p + 1, word))
		if ((p == list || p[-1] == ' ') && (p[wl] == ' ' || p[wl] == '\0'))
			return true;
	return false;
}

/* Parse a CPU list such as "0-3,8,10-11". 0 or -EINVAL. */
static int cpulist_to_set(const char *s, cpu_set_t *set)
{
	CPU_ZERO(set);
	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b = a;
		if (end == s || a < 0)
			return -EINVAL;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1 || b < a)
				return -EINVAL;
			s = end;
		}
		for (long c = a; c <= b && c < CPU_SETSIZE; c++)
			CPU_SET((int)c, set);
		if (*s == ',')
			s++;
		else if (*s)
			return -EINVAL;
	}
	return 0;
}

/* ---- CPU ---- */

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
		copy_str(si->cpu_vendor, sizeof(si->cpu_vendor), vendor);
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

	if (!find_key(text, "CPU implementer", v, sizeof(v)))
		return 0;
	midr |= (strtoull(v, NULL, 0) & 0xff) << 24;
	if (find_key(text, "CPU variant", v, sizeof(v)))
		midr |= (strtoull(v, NULL, 0) & 0xf) << 20;
	if (find_key(text, "CPU architecture", v, sizeof(v)))
		midr |= 0xfull << 16; /* "8" means "see ID registers": 0xf */
	if (find_key(text, "CPU part", v, sizeof(v)))
		midr |= (strtoull(v, NULL, 0) & 0xfff) << 4;
	if (find_key(text, "CPU revision", v, sizeof(v)))
		midr |= strtoull(v, NULL, 0) & 0xf;
	return midr;
}

/* Enough for CPU 0's block of cpuinfo, which is all that is read. */
#define CPUINFO_MAX (16 * 1024)

static void read_cpu(const struct hpm_ctx *ctx, struct hpm_sysinfo *si)
{
	char path[PATH_MAX], v[128];
	char *text = malloc(CPUINFO_MAX);

	si->cpu_family = si->cpu_model_nr = si->cpu_stepping = UNKNOWN;
	if (text && (hpm__path(path, sizeof(path), ctx->procfs, "cpuinfo") ||
		     read_head(path, text, CPUINFO_MAX) < 0))
		text[0] = '\0';

	read_str(ctx->sysfs, "devices/system/cpu/cpu0/regs/identification/midr_el1",
		 v, sizeof(v));
	if (v[0])
		si->midr = strtoull(v, NULL, 16);
	else if (text)
		si->midr = midr_from_cpuinfo(text);

	if (text && find_key(text, "vendor_id", v, sizeof(v))) {
		copy_str(si->arch, sizeof(si->arch), "x86_64");
		copy_str(si->cpu_vendor, sizeof(si->cpu_vendor), v);
		if (find_key(text, "model name", v, sizeof(v)))
			copy_str(si->cpu_model, sizeof(si->cpu_model), v);
		if (find_key(text, "cpu family", v, sizeof(v)))
			si->cpu_family = atoi(v);
		if (find_key(text, "model", v, sizeof(v)))
			si->cpu_model_nr = atoi(v);
		if (find_key(text, "stepping", v, sizeof(v)))
			si->cpu_stepping = atoi(v);
		char *flags = malloc(8192);
		if (flags && find_key(text, "flags", flags, 8192)) {
			si->hypervisor = has_word(flags, "hypervisor") ? HPM_YES : HPM_NO;
			if (si->hypervisor == HPM_YES)
				copy_str(si->hypervisor_how, sizeof(si->hypervisor_how),
					 "cpuinfo flag");
		}
		free(flags);
	} else if (si->midr) {
		copy_str(si->arch, sizeof(si->arch), "aarch64");
		arm_describe(si);
	}
	free(text);

	cpu_set_t online;
	read_str(ctx->sysfs, "devices/system/cpu/online", v, sizeof(v));
	if (v[0] && cpulist_to_set(v, &online) == 0 && CPU_COUNT(&online) > 0)
		si->nr_cpus_online = CPU_COUNT(&online);
	else
		si->nr_cpus_online = UNKNOWN;
}

/*
 * Without a cpuinfo flag (arm), a hypervisor shows in the firmware tables:
 * QEMU's "virt" board in the devicetree, or DMI strings of a VM vendor.
 */
static void read_hypervisor_fw(const struct hpm_ctx *ctx, struct hpm_sysinfo *si)
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
				copy_str(si->hypervisor_how, sizeof(si->hypervisor_how),
					 "devicetree: linux,dummy-virt (QEMU virt)");
				return;
			}
		}
	}
	read_str(ctx->sysfs, "hypervisor/type", buf, sizeof(buf));
	if (buf[0]) {
		si->hypervisor = HPM_YES;
		snprintf(si->hypervisor_how, sizeof(si->hypervisor_how),
			 "sysfs hypervisor/type: %.24s", buf);
		return;
	}
	read_str(ctx->sysfs, "class/dmi/id/sys_vendor", buf, sizeof(buf));
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
static void cpuid_hypervisor(struct hpm_sysinfo *si)
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
static bool cpuid_counters(int *general, int *fixed)
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
static void cpuid_hypervisor(struct hpm_sysinfo *si) { (void)si; }
static bool cpuid_counters(int *general, int *fixed)
{
	(void)general;
	(void)fixed;
	return false;
}
#endif

/* ---- kernel, caller ---- */

static void read_kernel(const struct hpm_ctx *ctx, struct hpm_sysinfo *si)
{
	const char *p = ctx->procfs;

	read_str(p, "sys/kernel/osrelease", si->kernel_release,
		 sizeof(si->kernel_release));
	si->perf_event_paranoid = read_int(p, "sys/kernel/perf_event_paranoid");
	si->perf_event_max_sample_rate = read_int(p, "sys/kernel/perf_event_max_sample_rate");
	si->perf_event_mlock_kb = read_int(p, "sys/kernel/perf_event_mlock_kb");
	si->nmi_watchdog = read_int(p, "sys/kernel/nmi_watchdog");
	si->perf_user_access = read_int(p, "sys/kernel/perf_user_access");
}

static void caps_from_mask(struct hpm_sysinfo *si, uint64_t eff)
{
	si->cap_perfmon = (eff >> CAP_PERFMON_BIT) & 1 ? HPM_YES : HPM_NO;
	si->cap_sys_admin = (eff >> CAP_SYS_ADMIN) & 1 ? HPM_YES : HPM_NO;
}

static void read_caller(const struct hpm_ctx *ctx, struct hpm_sysinfo *si,
			bool live)
{
	char path[PATH_MAX], text[8192], v[32];

	si->cap_perfmon = si->cap_sys_admin = HPM_UNKNOWN;
	if (!hpm__path(path, sizeof(path), ctx->procfs, "self/status") &&
	    read_head(path, text, sizeof(text)) == 0 &&
	    find_key(text, "CapEff", v, sizeof(v)))
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

static void read_tracefs(const struct hpm_ctx *ctx, struct hpm_sysinfo *si)
{
	const char *root = hpm_ctx__tracefs_root(ctx);
	char path[PATH_MAX];
	struct stat st;

	if (!root) {
		/* Mounted but closed to the caller (mode 700): the context
		 * did not see it, but it is there, and not readable. */
		if (!hpm__path(path, sizeof(path), ctx->sysfs, "kernel/tracing/events") &&
		    stat(path, &st) && errno == EACCES)
			hpm__path(si->tracefs, sizeof(si->tracefs), ctx->sysfs,
				  "kernel/tracing");
		return;
	}
	copy_str(si->tracefs, sizeof(si->tracefs), root);
	if (hpm__path(path, sizeof(path), root, "events"))
		return;
	DIR *d = opendir(path);
	if (d) {
		si->tracefs_readable = readdir(d) != NULL;
		closedir(d);
	}
}

/* ---- PMUs ---- */

/* PMUs that count without a limited set of counters. */
static const char *const uncounted_pmus[] = {
	"software", "tracepoint", "kprobe", "uprobe", "breakpoint", "msr", "power",
};

/*
 * caps/ files stating a PMU's counters. No mainline driver has them as of
 * Linux 6.18 (Intel caps/ holds pmu_name, max_precise, branches; arm64
 * holds slots, bus_slots, bus_width: none of them counters), so a core
 * PMU's counters are usually probed or read from CPUID; they are read
 * first so a driver that adds them is believed.
 */
#define CAPS_GENERAL "caps/num_counters"
#define CAPS_FIXED "caps/num_counters_fixed"

struct pmu_list {
	const struct hpm_ctx *ctx;
	struct hpm_sysinfo *si;
	size_t cap;
	int err;
};

static int count_alias(const char *pmu, const char *alias, const char *terms,
		       void *arg)
{
	(void)pmu; (void)alias; (void)terms;
	(*(int *)arg)++;
	return 0;
}

/* "bus/event_source/devices/<pmu>/<file>", relative to the sysfs root. */
static const char *pmu_file(char *buf, size_t len, const char *pmu,
			    const char *file)
{
	snprintf(buf, len, "bus/event_source/devices/%s/%s", pmu, file);
	return buf;
}

static int add_pmu(const char *name, void *arg)
{
	struct pmu_list *l = arg;
	struct hpm_sysinfo *si = l->si;
	const char *sysfs = l->ctx->sysfs;
	struct hpm_pmu_info *p;
	struct hpm_pmu pmu;
	char rel[PATH_MAX];

	if (si->nr_pmus == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		void *n = realloc(si->pmus, cap * sizeof(*si->pmus));
		if (!n) {
			l->err = -ENOMEM;
			return 1;
		}
		si->pmus = n;
		l->cap = cap;
	}
	p = &si->pmus[si->nr_pmus];
	memset(p, 0, sizeof(*p));
	copy_str(p->name, sizeof(p->name), name);
	if (hpm_pmu__load(l->ctx, name, &pmu) == 0) {
		p->type = (int)pmu.type;
		p->core = pmu.core;
	} else {
		p->type = -1; /* no readable type: not a PMU perf can open */
		p->core = false;
	}
	read_str(sysfs, pmu_file(rel, sizeof(rel), name, "cpus"), p->cpus, sizeof(p->cpus));
	read_str(sysfs, pmu_file(rel, sizeof(rel), name, "caps/pmu_name"), p->caps_name,
		 sizeof(p->caps_name));
	p->max_precise = read_int(sysfs, pmu_file(rel, sizeof(rel), name, "caps/max_precise"));
	hpm_pmu__foreach_alias(l->ctx, name, count_alias, &p->nr_aliases);

	p->source = HPM_COUNTERS_UNKNOWN;
	for (size_t i = 0; i < sizeof(uncounted_pmus) / sizeof(uncounted_pmus[0]); i++)
		if (!strcmp(name, uncounted_pmus[i]))
			p->source = HPM_COUNTERS_NONE;
	p->nr_general = read_int(sysfs, pmu_file(rel, sizeof(rel), name, CAPS_GENERAL));
	p->nr_fixed = UNKNOWN;
	if (p->nr_general != UNKNOWN) {
		p->source = HPM_COUNTERS_CAPS;
		p->nr_fixed = read_int(sysfs, pmu_file(rel, sizeof(rel), name, CAPS_FIXED));
	}
	if (p->core)
		si->nr_core_pmus++;
	si->nr_pmus++;
	return 0;
}

/* ---- probes: these open counters on the calling thread ---- */

static int perf_open(struct perf_event_attr *attr, int group_fd)
{
	return hpm__sys_perf_event_open(attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
}

int hpm_sysinfo__probe(const struct perf_event_attr *attr, pid_t pid, int cpu,
		       unsigned flags, bool *user_only)
{
	struct perf_event_attr a = *attr;
	unsigned did = 0;

	if (flags & ~(HPM_PROBE_USER_ONLY | HPM_PROBE_FALLBACK_USER))
		return -EINVAL;
	if (flags & HPM_PROBE_USER_ONLY) {
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
	}
	int fd = hpm__perf_open(&a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC,
				flags & HPM_PROBE_FALLBACK_USER ? HPM_FALLBACK_USER : 0,
				&did);
	if (user_only)
		*user_only = a.exclude_kernel;
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/* One event of a probe: perf_event_attr type and config. */
struct probe_ev {
	uint32_t type;
	uint64_t config;
};

static void probe_attr(struct perf_event_attr *a, const struct probe_ev *ev)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = ev->type;
	a->config = ev->config;
	a->exclude_kernel = 1; /* allowed at any paranoid level */
	a->exclude_hv = 1;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			 PERF_FORMAT_TOTAL_TIME_RUNNING;
}

/* A generic hardware event, on core PMU @pmu_type when @ext (hybrid). */
static struct probe_ev hw_ev(uint64_t id, bool ext, int pmu_type)
{
	struct probe_ev ev = { PERF_TYPE_HARDWARE, id };
	if (ext)
		ev.config |= (uint64_t)(uint32_t)pmu_type << PERF_PMU_TYPE_SHIFT;
	return ev;
}

static void spin(void)
{
	for (volatile unsigned i = 0; i < 200000; i++)
		;
}

/*
 * Open a group of the @nr events @evs on the calling thread and run it
 * briefly. 1: it was scheduled; 0: it did not fit (refused with EINVAL or
 * ENOSPC at open, or never ran); -errno: an event could not be opened.
 */
static int try_group(const struct probe_ev *evs, int nr)
{
	int fds[PROBE_MAX_COUNTERS + 4] = { -1 };
	int n = 0, rc = 1;

	if (nr < 1 || nr > PROBE_MAX_COUNTERS + 4)
		return -EINVAL;
	for (; n < nr; n++) {
		struct perf_event_attr a;
		probe_attr(&a, &evs[n]);
		a.disabled = n == 0;
		int fd = perf_open(&a, n ? fds[0] : -1);
		if (fd < 0) {
			rc = (fd == -EINVAL || fd == -ENOSPC) && n > 0 ? 0 : fd;
			goto out;
		}
		fds[n] = fd;
	}
	uint64_t v[3] = { 0 };
	ioctl(fds[0], PERF_EVENT_IOC_ENABLE, 0);
	spin();
	ioctl(fds[0], PERF_EVENT_IOC_DISABLE, 0);
	if (read(fds[0], v, sizeof(v)) != (ssize_t)sizeof(v))
		rc = 0;
	else
		rc = v[2] > 0;
out:
	while (n-- > 0)
		close(fds[n]);
	return rc;
}

/*
 * Count the counters of core PMU @p: the largest group of copies of an
 * event that only a general counter can count, then how many of cycles,
 * instructions, ref-cycles fit beside it (x86 fixed counters, the arm
 * cycle counter). Counts what a new group can have now: counters held by
 * the NMI watchdog or other users are not seen.
 */
static void probe_counters(struct hpm_pmu_info *p, bool hybrid, bool arm)
{
	struct probe_ev general[4], evs[PROBE_MAX_COUNTERS + 4];
	size_t nr_general = 0;
	cpu_set_t old, want;
	bool pinned = false;
	int rc = -ENOENT, g = 0;

	/* arm's SW_INCR (raw 0x00) exists on every PMUv3, emulated ones
	 * included, and only general counters count it. */
	if (arm)
		general[nr_general++] = (struct probe_ev){ (uint32_t)p->type, 0x00 };
	general[nr_general++] = hw_ev(PERF_COUNT_HW_BRANCH_INSTRUCTIONS, hybrid, p->type);
	general[nr_general++] = hw_ev(PERF_COUNT_HW_BRANCH_MISSES, hybrid, p->type);
	general[nr_general++] = hw_ev(PERF_COUNT_HW_CACHE_REFERENCES, hybrid, p->type);
	const struct probe_ev fixed[] = {
		hw_ev(PERF_COUNT_HW_CPU_CYCLES, hybrid, p->type),
		hw_ev(PERF_COUNT_HW_INSTRUCTIONS, hybrid, p->type),
		hw_ev(PERF_COUNT_HW_REF_CPU_CYCLES, hybrid, p->type),
	};

	/* A PMU of some CPUs only counts while the thread runs on one. */
	if (hybrid && p->cpus[0] && cpulist_to_set(p->cpus, &want) == 0 &&
	    sched_getaffinity(0, sizeof(old), &old) == 0 &&
	    sched_setaffinity(0, sizeof(want), &want) == 0)
		pinned = true;

	/* The first of them this PMU supports. */
	size_t i;
	for (i = 0; i < nr_general; i++)
		if ((rc = try_group(&general[i], 1)) == 1)
			break;
	if (rc != 1) {
		p->probe_err = rc < 0 ? rc : -EBUSY;
		goto out;
	}
	evs[0] = general[i];
	for (g = 1; g < PROBE_MAX_COUNTERS; g++) {
		evs[g] = general[i];
		if ((rc = try_group(evs, g + 1)) != 1)
			break;
	}
	if (rc < 0) {
		p->probe_err = rc;
		goto out;
	}
	p->nr_general = g;
	p->nr_fixed = 0;
	for (size_t f = 0; f < sizeof(fixed) / sizeof(fixed[0]); f++) {
		evs[g + (int)f] = fixed[f];
		if (try_group(evs, g + (int)f + 1) != 1)
			break;
		p->nr_fixed++;
	}
	p->source = HPM_COUNTERS_PROBED;
out:
	if (pinned)
		sched_setaffinity(0, sizeof(old), &old);
}

static void probe_rdpmc(struct hpm_sysinfo *si)
{
	const struct hpm_pmu_info *core = NULL;
	struct perf_event_attr a;
	long page = sysconf(_SC_PAGESIZE);

	for (size_t i = 0; i < si->nr_pmus && !core; i++)
		if (si->pmus[i].core)
			core = &si->pmus[i];
	if (!core) {
		si->rdpmc = HPM_NO;
		si->rdpmc_err = -ENODEV;
		return;
	}
	struct probe_ev cycles = hw_ev(PERF_COUNT_HW_CPU_CYCLES, si->nr_core_pmus > 1,
				       core->type);
	probe_attr(&a, &cycles);
#if defined(__aarch64__)
	a.config1 = 0x2; /* arm64 "rdpmc" format bit: ask for user access */
#endif
	int fd = perf_open(&a, -1);
	if (fd < 0) {
		si->rdpmc = HPM_NO;
		si->rdpmc_err = fd;
		return;
	}
	void *m = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		si->rdpmc = HPM_UNKNOWN;
		si->rdpmc_err = -errno;
	} else {
		const volatile struct perf_event_mmap_page *pc = m;
		spin(); /* the page is refreshed when the event is scheduled */
		/* arm64 sets the capability even when kernel.perf_user_access
		 * forbids the reads; an index of 0 says so. */
		si->rdpmc = pc->cap_user_rdpmc && pc->index ? HPM_YES : HPM_NO;
		munmap(m, (size_t)page);
	}
	close(fd);
}

struct hpm_sysinfo *hpm_sysinfo__read(struct hpm_ctx *ctx,
				      const struct hpm_sysinfo_opts *opts)
{
	unsigned flags = 0;
	struct hpm_sysinfo *si;

	if (opts) {
		if (opts->sz < offsetof(struct hpm_sysinfo_opts, flags) + sizeof(unsigned)) {
			errno = EINVAL;
			return NULL;
		}
		flags = opts->flags;
	}
	if (flags & (HPM_SYSINFO_PROBE_RDPMC | HPM_SYSINFO_PROBE_COUNTERS))
		flags |= HPM_SYSINFO_LIVE;
	bool live = flags & HPM_SYSINFO_LIVE;

	si = calloc(1, sizeof(*si));
	if (!si)
		return NULL;
	si->hypervisor = HPM_UNKNOWN;
	si->rdpmc = HPM_UNKNOWN;

	read_cpu(ctx, si);
	read_kernel(ctx, si);
	read_caller(ctx, si, live);
	read_tracefs(ctx, si);
	if (live)
		cpuid_hypervisor(si); /* also names it */
	read_hypervisor_fw(ctx, si);
	if (live) {
		struct utsname u;
		if (uname(&u) == 0) {
			if (!si->kernel_release[0])
				copy_str(si->kernel_release, sizeof(si->kernel_release),
					 u.release);
			if (!si->arch[0])
				copy_str(si->arch, sizeof(si->arch), u.machine);
		}
		if (si->nr_cpus_online == UNKNOWN) {
			long n = sysconf(_SC_NPROCESSORS_ONLN);
			if (n > 0 && n < INT32_MAX)
				si->nr_cpus_online = (int)n;
		}
	}

	struct pmu_list l = { .ctx = ctx, .si = si };
	hpm_pmu__foreach(ctx, add_pmu, &l);
	if (l.err) {
		hpm_sysinfo__free(si);
		errno = -l.err;
		return NULL;
	}
	for (size_t i = 0; i < si->nr_pmus; i++) {
		struct hpm_pmu_info *p = &si->pmus[i];
		if (!p->core || p->source == HPM_COUNTERS_CAPS)
			continue;
		if (flags & HPM_SYSINFO_PROBE_COUNTERS)
			probe_counters(p, si->nr_core_pmus > 1,
				       !strcmp(si->arch, "aarch64"));
		if (p->source != HPM_COUNTERS_PROBED && live && si->nr_core_pmus == 1 &&
		    cpuid_counters(&p->nr_general, &p->nr_fixed))
			p->source = HPM_COUNTERS_CPUID;
	}

	char rel[PATH_MAX];
	si->rdpmc_sysfs = UNKNOWN;
	for (size_t i = 0; i < si->nr_pmus && si->rdpmc_sysfs == UNKNOWN; i++) {
		if (!si->pmus[i].core)
			continue;
		si->rdpmc_sysfs = read_int(ctx->sysfs, pmu_file(rel, sizeof(rel),
								  si->pmus[i].name, "rdpmc"));
	}
	if (flags & HPM_SYSINFO_PROBE_RDPMC)
		probe_rdpmc(si);
	return si;
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
