/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/sysinfo/ owns the facts hpmon diag shows; may use events, core, sys.
 *
 * Between the files of lib/sysinfo, which gather the facts of
 * hpmon/sysinfo.h: readers.c (small file readers), cpu.c (the CPU and the
 * hypervisor), kernel.c (the kernel, the caller's privileges, tracefs),
 * pmus.c (the PMUs and what caps/ says of their counters), probe.c (what
 * only opening counters tells); sysinfo.c puts them together. Each file
 * uses readers.c and nothing else of the folder.
 *
 * Ownership: every function fills the caller's struct hpm_sysinfo (or a
 * PMU of it) and keeps nothing; the context and buffers are borrowed for
 * the call. Facts that cannot be read are left UNKNOWN or "".
 */
#ifndef HPM_SYSINFO_INTERNAL_H
#define HPM_SYSINFO_INTERNAL_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <hpmon/sysinfo.h>

#define UNKNOWN HPM_SYSINFO_UNKNOWN

struct hpm_ctx;

/* ---- readers.c ---- */

/* Copy @src into @dst of @len bytes, cut short if need be. */
void hpm__si_copy_str(char *dst, size_t len, const char *src);
/* Read <root>/<rel> as one integer; UNKNOWN when absent or malformed. */
int hpm__si_read_int(const char *root, const char *rel);
/* Read <root>/<rel> into @buf; "" when absent. */
void hpm__si_read_str(const char *root, const char *rel, char *buf, size_t len);
/* Find "key<spaces>: value" in @text (procfs cpuinfo/status style) and
 * copy the value, trimmed, into @buf. Only the first match counts, which
 * for cpuinfo is CPU 0. */
bool hpm__si_find_key(const char *text, const char *key, char *buf, size_t len);
/* The first @len - 1 bytes of a file, NUL-terminated: 0 or -errno. */
int hpm__si_read_head(const char *path, char *buf, size_t len);
/* Parse a CPU list such as "0-3,8,10-11". 0 or -EINVAL. */
int hpm__si_cpulist(const char *s, cpu_set_t *set);

/* ---- cpu.c ---- */

/* Vendor, model, MIDR and online CPUs from procfs and sysfs. */
void hpm__si_read_cpu(const struct hpm_ctx *ctx, struct hpm_sysinfo *si);
/* A hypervisor as the firmware tables in sysfs tell it. */
void hpm__si_read_hypervisor_fw(const struct hpm_ctx *ctx, struct hpm_sysinfo *si);
/* A hypervisor as CPUID tells it (x86, running machine only). */
void hpm__si_cpuid_hypervisor(struct hpm_sysinfo *si);
/* The running CPU's counters from CPUID leaf 0xa; false when it does
 * not say (not x86, or not Intel's leaf). */
bool hpm__si_cpuid_counters(int *general, int *fixed);

/* ---- kernel.c ---- */

/* Release and the perf_event sysctls. */
void hpm__si_read_kernel(const struct hpm_ctx *ctx, struct hpm_sysinfo *si);
/* Capabilities (procfs, or capget when @live) and what they and
 * perf_event_paranoid allow; after hpm__si_read_kernel. */
void hpm__si_read_caller(const struct hpm_ctx *ctx, struct hpm_sysinfo *si, bool live);
/* Where tracefs is and whether its events can be listed. */
void hpm__si_read_tracefs(const struct hpm_ctx *ctx, struct hpm_sysinfo *si);
/* The uprobes dead hpmons left behind (core/tracefs-internal.h). */
void hpm__si_read_uprobe_leftovers(const struct hpm_ctx *ctx, struct hpm_sysinfo *si);

/* ---- pmus.c ---- */

/* "bus/event_source/devices/<pmu>/<file>" into @buf, relative to the
 * sysfs root; returns @buf. */
const char *hpm__si_pmu_file(char *buf, size_t len, const char *pmu, const char *file);
/* Every PMU into si->pmus (core PMUs counted in nr_core_pmus). 0 or
 * -ENOMEM. */
int hpm__si_read_pmus(const struct hpm_ctx *ctx, struct hpm_sysinfo *si);

/* ---- probe.c: these open counters on the calling thread ---- */

/* Count core PMU @p's counters by opening groups until one does not
 * fit; @hybrid: one of several core PMUs; @arm: an arm64 PMUv3. */
void hpm__si_probe_counters(struct hpm_pmu_info *p, bool hybrid, bool arm);
/* Whether rdpmc works, from the first page of a cycles event. */
void hpm__si_probe_rdpmc(struct hpm_sysinfo *si);

/* ---- samples.c: what samples and the vdso hold here ---- */

/* stack_user, kernel_chains, samples_err: from samples of the calling
 * thread (HPM_SYSINFO_PROBE_SAMPLES). */
void hpm__si_probe_samples(struct hpm_sysinfo *si);
/* vdso_functions: the function symbols of this process's vdso. */
void hpm__si_read_vdso(struct hpm_sysinfo *si);

#endif
