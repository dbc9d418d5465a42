/* SPDX-License-Identifier: MIT */
/*
 * The PMUs of the machine (sysinfo-internal.h): each one's type, kind,
 * CPUs, caps and aliases, and its counters when caps/ states them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ctx-internal.h"
#include "events/pmu-internal.h"
#include "sysinfo/sysinfo-internal.h"

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
const char *hpm__si_pmu_file(char *buf, size_t len, const char *pmu,
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
	hpm__si_copy_str(p->name, sizeof(p->name), name);
	if (hpm_pmu__load(l->ctx, name, &pmu) == 0) {
		p->type = (int)pmu.type;
		p->core = pmu.core;
	} else {
		p->type = -1; /* no readable type: not a PMU perf can open */
		p->core = false;
	}
	hpm_pmu__cpus_file(l->ctx, name, p->cpus, sizeof(p->cpus)); /* read once */
	hpm__si_read_str(sysfs, hpm__si_pmu_file(rel, sizeof(rel), name, "caps/pmu_name"), p->caps_name,
		 sizeof(p->caps_name));
	p->max_precise = hpm__si_read_int(sysfs, hpm__si_pmu_file(rel, sizeof(rel), name, "caps/max_precise"));
	hpm_pmu__foreach_alias(l->ctx, name, count_alias, &p->nr_aliases);

	p->source = HPM_COUNTERS_UNKNOWN;
	for (size_t i = 0; i < sizeof(uncounted_pmus) / sizeof(uncounted_pmus[0]); i++)
		if (!strcmp(name, uncounted_pmus[i]))
			p->source = HPM_COUNTERS_NONE;
	p->nr_general = hpm__si_read_int(sysfs, hpm__si_pmu_file(rel, sizeof(rel), name, CAPS_GENERAL));
	p->nr_fixed = UNKNOWN;
	if (p->nr_general != UNKNOWN) {
		p->source = HPM_COUNTERS_CAPS;
		p->nr_fixed = hpm__si_read_int(sysfs, hpm__si_pmu_file(rel, sizeof(rel), name, CAPS_FIXED));
	}
	if (p->core)
		si->nr_core_pmus++;
	si->nr_pmus++;
	return 0;
}

int hpm__si_read_pmus(const struct hpm_ctx *ctx, struct hpm_sysinfo *si)
{
	struct pmu_list l = { .ctx = ctx, .si = si };

	hpm_pmu__foreach(ctx, add_pmu, &l);
	return l.err;
}
