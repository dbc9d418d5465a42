/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/events/ owns event syntax to perf_event_attr; may use location, core, runtime, sys.
 *
 * PMUs as sysfs describes them: bus/event_source/devices/<name>/ with
 * type, format/<field> ("config:0-7,32-35"), events/<alias> ("event=0x3c")
 * plus <alias>.scale / <alias>.unit, caps/, cpus or cpumask.
 *
 * Ownership: a struct hpm_pmu is a value the caller owns (fixed arrays, no
 * heap inside); the context's PMU name list (ctx-internal.h) is the
 * context's, and names returned from it are borrowed from the context.
 * Every file of a listed PMU is read at most once per context (the
 * context keeps what it read: type, cpus, formats).
 */
#ifndef HPM_PMU_INTERNAL_H
#define HPM_PMU_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include <hpmon/event.h>
#include "core/ctx-internal.h"

#define HPM_PMU_NAME_MAX 64
#define HPM_PMU_MAX_FORMATS 48
/* A field's bit ranges: at most one per bit (perf's test PMU has a field
 * of six ranges, "config1:0,2,4,6,8,20-28"). */
#define HPM_FORMAT_MAX_RANGES 64
/* Format files kept by name when hpmon cannot use them, to say so. */
#define HPM_PMU_MAX_UNSUPPORTED 4

struct hpm_format {
	char name[32];
	unsigned word;              /* 0 config, 1 config1, 2 config2, 3 config3 */
	unsigned nr;                /* ranges used */
	uint8_t lo[HPM_FORMAT_MAX_RANGES], hi[HPM_FORMAT_MAX_RANGES];
};

/* Why a format file is in hpm_pmu.unsupported. */
enum hpm_format_unsup {
	HPM_FORMAT_NO_CONFIG3,  /* config3, and this build's headers lack attr.config3 */
	HPM_FORMAT_TOO_MANY,    /* past HPM_PMU_MAX_FORMATS fields */
	HPM_FORMAT_BAD_TEXT,    /* not configN:LO[-HI][,...] */
};

struct hpm_pmu {
	char name[HPM_PMU_NAME_MAX];
	uint32_t type;
	bool core;                  /* the CPU's own PMU */
	unsigned nr_formats;
	struct hpm_format formats[HPM_PMU_MAX_FORMATS];
	/* format files hpmon cannot apply, kept to say why when a term names
	 * one: its name, its first line, and why (enum hpm_format_unsup) */
	unsigned nr_unsupported;
	struct {
		char name[32];
		char text[64];
		int why;
	} unsupported[HPM_PMU_MAX_UNSUPPORTED];
	/* not a sysfs PMU: the terms of a generic event or raw code
	 * (cycles/period=1000/), which has no format fields or aliases */
	bool no_sysfs;
};

/*
 * Sorted entry names of directory @dir, dot files left out; with @dirs_only
 * only its subdirectories. Free with hpm__free_names(). 0 or -errno.
 */
int hpm__list_dir(const char *dir, bool dirs_only, char ***out, size_t *nr);
void hpm__free_names(char **v, size_t n);

/* Directory of all PMUs under the context's sysfs root. */
int hpm_pmu__devices_dir(const struct hpm_ctx *ctx, char *buf, size_t len);

/*
 * Load PMU @name: exact name first, then "<name>_<N>" (perf's armv8_pmuv3
 * for armv8_pmuv3_0). 0, -HPM_ERR_UNKNOWN_PMU or -HPM_ERR_SYSFS.
 */
int hpm_pmu__load(const struct hpm_ctx *ctx, const char *name,
		  struct hpm_pmu *pmu);

/* Call @fn with each PMU name (sorted, core PMUs first). */
typedef int (*hpm_pmu_name_fn)(const char *name, void *arg);
int hpm_pmu__foreach(const struct hpm_ctx *ctx, hpm_pmu_name_fn fn, void *arg);

/* hpm_pmu__core_name (hpmon/event.h): the first core PMU's name. */
bool hpm_pmu__is_core(const struct hpm_ctx *ctx, const char *name);
/* PMU @name's type (its "type" file, read once per context): 0,
 * -HPM_ERR_UNKNOWN_PMU (no such file) or -HPM_ERR_SYSFS. */
int hpm_pmu__type(const struct hpm_ctx *ctx, const char *name, uint32_t *type);
/* The CPUs PMU @name counts on: its "cpus" (core PMUs of a hybrid CPU) or
 * "cpumask" (uncore) file into @buf; "" when it has neither or the list
 * does not fit. */
void hpm_pmu__cpus(const struct hpm_ctx *ctx, const char *name, char *buf, size_t len);
/* Its "cpus" file alone (a core PMU's CPUs), "" when it has none or the
 * list does not fit. */
void hpm_pmu__cpus_file(const struct hpm_ctx *ctx, const char *name, char *buf, size_t len);
/* The longest CPU list kept: longer ones are "" to every caller. */
#define HPM_PMU_CPUS_MAX 4096

/* Parse a format file's contents ("config1:0-15,32"): 0, -HPM_ERR_SYSFS
 * (malformed) or -EOPNOTSUPP (config3 where the build's linux/perf_event.h
 * has no attr.config3). */
int hpm_format__parse(const char *text, struct hpm_format *f);

/*
 * Set format field @term of @pmu to @value in @attr. Fields spread over
 * several bit ranges receive the value's low bits first.
 * 0, -HPM_ERR_UNKNOWN_TERM or -HPM_ERR_BAD_VALUE (does not fit).
 */
int hpm_pmu__set_term(const struct hpm_pmu *pmu, const char *term,
		      uint64_t value, struct perf_event_attr *attr);

/* An alias (events/<name>) with its terms text, scale and unit. */
struct hpm_alias {
	char terms[256];
	double scale;     /* 1.0 when no .scale file */
	char unit[32];    /* "" when no .unit file */
};
/* 0, -ENOENT (no such alias) or -errno. */
int hpm_pmu__alias(const struct hpm_ctx *ctx, const struct hpm_pmu *pmu,
		   const char *alias, struct hpm_alias *out);

/* Call @fn for each alias of PMU @name (sorted; .scale/.unit skipped). */
typedef int (*hpm_alias_fn)(const char *pmu, const char *alias,
			    const char *terms, void *arg);
int hpm_pmu__foreach_alias(const struct hpm_ctx *ctx, const char *name,
			   hpm_alias_fn fn, void *arg);

#endif
