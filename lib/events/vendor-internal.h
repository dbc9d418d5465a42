/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/events/ owns event syntax to perf_event_attr; may use location, core, runtime, sys.
 *
 * The vendors' tables (data/vendor/, docs/vendor-tables.md): which model
 * this machine is, as perf 6.1 finds it, and that model's events.txt and
 * metrics.txt. The files are compiled in zstd-compressed
 * (cmake/embed-vendor.cmake); a model's file is decompressed once, at its
 * first need, and its events are indexed (sorted by name) at the first
 * lookup. Nothing is read or decompressed while no one asks.
 *
 * Ownership: the model, its texts and its events are the context's: they
 * live until hpm_ctx__free, and every pointer handed out here is borrowed
 * from it. All calls are safe from several threads on one context.
 */
#ifndef HPM_VENDOR_INTERNAL_H
#define HPM_VENDOR_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

struct hpm_ctx;

/* One compressed file of data/vendor/, as the build embeds it
 * (the generated hpm-vendor-data.c; the table ends with path NULL). */
struct hpm_vendor_blob {
	const char *path;         /* "models.txt", "x86/skylakex/events.txt" */
	const unsigned char *z;   /* a zstd frame, with its content size */
	const unsigned char *z_end;
};
extern const struct hpm_vendor_blob hpm_vendor_blobs[];

struct hpm_vendor_model {
	const char *cpuid;   /* the cpuid string matched: "GenuineIntel-6-55-4" */
	const char *dir;     /* "x86/skylakex", "arm64/neoverse-n2" */
	const char *arch;    /* "x86", "arm64" */
	const char *name;    /* "skylakex" */
	const char *version; /* the table's version ("v1.28"), "-" when none */
};

/*
 * The model this context's machine is: the cpuid string from
 * hpm_ctx_opts.cpuid (HPMON_CPUID in the tool), else from /proc/cpuinfo
 * under the procfs root (x86: "%s-%u-%X-%X" of vendor_id, cpu family,
 * model, stepping) or the MIDR of CPU 0 under the sysfs root (arm64,
 * variant and revision cleared, "0x%016lx"), matched against models.txt
 * as perf 6.1 matches mapfile.csv. Found once per context.
 * 0 and *m; -ENOENT when the machine has no tables (*m NULL; the cpuid
 * string, if one was found, is then hpm__vendor_cpuid's).
 */
int hpm__vendor_model(struct hpm_ctx *ctx, const struct hpm_vendor_model **m);

/* The cpuid string hpm__vendor_model matched or failed to match; NULL
 * when none could be built (no cpuinfo, no MIDR). */
const char *hpm__vendor_cpuid(struct hpm_ctx *ctx);

/*
 * The text of @file ("events.txt", "metrics.txt") of model @m,
 * NUL-terminated, or NULL when the model has no such file (or it could
 * not be decompressed: errno says why).
 */
const char *hpm__vendor_text(const struct hpm_vendor_model *m, const char *file);

/* One line of events.txt. */
struct hpm_vendor_event {
	const char *name;   /* as the vendor spells it: "INST_RETIRED.ANY" */
	const char *pmu;    /* "cpu" (the core PMU, whatever its name),
			       "cpu_core", "cpu_atom", or an uncore PMU's name
			       or the prefix of its boxes' ("uncore_imc") */
	const char *terms;  /* perf's terms: "event=0xc0,period=2000003" */
	const char *scale_unit; /* the JSON's ScaleUnit ("64Bytes"), or NULL */
	const char *desc;   /* one line, may be "" */
	bool perpkg;        /* counted once per package (uncore) */
	bool deprecated;    /* perf lists it only with --deprecated */
};

/*
 * The events named @name (case-insensitive) of this machine's model: *ev
 * is the first of *nr >= 1 consecutive entries (more than one for a name
 * of several PMUs: cpu_core and cpu_atom), sorted by PMU.
 * 0; -ENOENT when there is no such event or no tables; -ENOMEM.
 */
int hpm__vendor_event(struct hpm_ctx *ctx, const char *name,
		      const struct hpm_vendor_event **ev, size_t *nr);

/* All events of this machine's model, sorted by name (case-insensitive),
 * then PMU. 0; -ENOENT without tables; -ENOMEM. */
int hpm__vendor_events(struct hpm_ctx *ctx, const struct hpm_vendor_event **ev,
		       size_t *nr);

/* Whether an entry of PMU @entry_pmu ("cpu", "cpu_core", "uncore_imc")
 * counts on sysfs PMU @pmu (@core: a core PMU), as perf 6.1 adds a
 * table's events to a PMU's aliases: "cpu" is every core PMU; any other
 * name is that PMU or the boxes named after it ("uncore_imc_0"). */
bool hpm__vendor_pmu_match(const char *entry_pmu, const char *pmu, bool core);

/* The entry of @name (case-insensitive) that counts on sysfs PMU @pmu,
 * or NULL. */
const struct hpm_vendor_event *hpm__vendor_event_on(struct hpm_ctx *ctx, const char *name,
						    const char *pmu, bool core);

/* What perf's ScaleUnit "64Bytes" or "6.103515625e-5MiB" means: the scale
 * (1 when it has no number) and the unit after it, into @unit. */
double hpm__vendor_scale_unit(const char *scale_unit, char *unit, size_t len);

#endif
