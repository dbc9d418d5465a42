/* SPDX-License-Identifier: MIT */
/*
 * PAPI presets (PAPI_TOT_INS, PAPI_L1_DCM, ...): portable event names,
 * mapped per processor family (data/presets.txt, data/families.txt) to
 * native or generic events, some to sums and differences of events.
 *
 * A preset is accepted wherever an event is (hpm_evlist__parse), with
 * modifiers (PAPI_TOT_INS:u). A preset mapped to one event resolves to one
 * event named as written. A derived preset resolves to a group of its
 * terms, each named "PRESET(+TERM)" or "PRESET(-TERM)", so that a printer
 * can show their sum (hpm_preset__component).
 *
 * Ownership: nothing here allocates; results are filled into the caller's
 * structures and buffers, and the info a callback is given is valid for
 * that call only.
 */
#ifndef HPMON_PRESET_H
#define HPMON_PRESET_H

#include <stdbool.h>
#include <hpmon/hpmon.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One preset as it applies to the context's machine. */
struct hpm_preset_info {
	char name[32];       /* PAPI_L1_DCM */
	char desc[128];      /* PAPI's description */
	char family[32];     /* family whose mapping applies, or "" */
	char mapping[256];   /* "L1-dcache-load-misses + L1-icache-load-misses",
				or "" when there is none */
	char why[192];       /* when there is none: why */
	bool derived;        /* mapped to more than one event */
};

typedef int (*hpm_preset_fn)(const struct hpm_preset_info *p, void *arg);

/*
 * Call @fn for every preset hpmon knows, in PAPI's order, with its mapping
 * on the context's machine (family from its sysfs). Stops early and returns
 * @fn's value if it returns non-zero.
 */
HPM_API int hpm_preset__foreach(struct hpm_ctx *ctx, hpm_preset_fn fn, void *arg);
/* Preset @name (without modifiers): 0, or -ENOENT when there is none. */
HPM_API int hpm_preset__find(struct hpm_ctx *ctx, const char *name,
			     struct hpm_preset_info *out);

/*
 * If @evname names a term of a derived preset ("PAPI_L1_TCM:u(+L1-...)"),
 * copy the preset as written ("PAPI_L1_TCM:u") to @preset, set *@sign to
 * +1 or -1 and return true.
 */
HPM_API bool hpm_preset__component(const char *evname, char *preset,
				   size_t len, int *sign);

/*
 * The processor family of the context's machine ("intel", "amd", "arm",
 * "generic" or "software"), from its first core PMU in sysfs. 0 or -errno.
 */
HPM_API int hpm_family__detect(struct hpm_ctx *ctx, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
