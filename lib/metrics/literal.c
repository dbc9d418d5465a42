/* SPDX-License-Identifier: MIT */
/*
 * perf's literals in metric formulas (#SMT_on, #num_packages, #slots ...):
 * the machine's topology and PMU capabilities as perf 6.1 reads them
 * (util/expr.c expr__get_literal, util/smt.c, util/cputopo.c), through
 * the context's sysfs and procfs roots. Read once per metric set
 * (metrics/literal-internal.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/file-internal.h"
#include "core/cpus-internal.h"
#include "metrics/literal-internal.h"

/* How many distinct strings the online CPUs' topology file @file (else
 * @alt) holds: perf's count of packages, dies and cores. 0: unknown. */
static int distinct(const struct hpm_ctx *ctx, const int *cpu, size_t nr, const char *file,
		    const char *alt)
{
	char (*seen)[64] = calloc(nr ? nr : 1, sizeof(*seen));
	size_t n = 0;

	if (!seen)
		return 0;
	for (size_t i = 0; i < nr; i++) {
		char path[PATH_MAX], buf[64];
		if (hpm__path(path, sizeof(path), ctx->sysfs,
			      "devices/system/cpu/cpu%d/topology/%s", cpu[i], file) ||
		    hpm__read_text(path, buf, sizeof(buf)) < 0) {
			if (!alt || hpm__path(path, sizeof(path), ctx->sysfs,
					      "devices/system/cpu/cpu%d/topology/%s", cpu[i], alt) ||
			    hpm__read_text(path, buf, sizeof(buf)) < 0) {
				n = 0;
				break;
			}
		}
		size_t k;
		for (k = 0; k < n && strcmp(seen[k], buf); k++)
			;
		if (k == n)
			snprintf(seen[n++], sizeof(seen[0]), "%s", buf);
	}
	free(seen);
	return (int)n;
}

/* Does any core run two threads (a core_cpus_list naming two CPUs)? */
static int smt_from_topology(const struct hpm_ctx *ctx, const int *cpu, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		char path[PATH_MAX], buf[64];
		if ((hpm__path(path, sizeof(path), ctx->sysfs,
			       "devices/system/cpu/cpu%d/topology/core_cpus_list", cpu[i]) ||
		     hpm__read_text(path, buf, sizeof(buf)) < 0) &&
		    (hpm__path(path, sizeof(path), ctx->sysfs,
			       "devices/system/cpu/cpu%d/topology/thread_siblings_list", cpu[i]) ||
		     hpm__read_text(path, buf, sizeof(buf)) < 0))
			return -1;
		if (strpbrk(buf, ",-"))
			return 1;
	}
	return nr ? 0 : -1;
}

/* The TSC's frequency as perf 6.1 takes it on x86: the "@ 2.10GHz" of
 * /proc/cpuinfo's model name. 0: unknown. */
static double tsc_hz(const struct hpm_ctx *ctx)
{
	char path[PATH_MAX], line[512];
	double hz = 0;
	FILE *f;

	/* a regular file only, and only its first processor's lines */
	if (hpm__path(path, sizeof(path), ctx->procfs, "cpuinfo") ||
	    !(f = hpm__fopen_input(path, 0)))
		return 0;
	while (fgets(line, sizeof(line), f) && line[0] != '\n') {
		const char *at;
		if (strncmp(line, "model name", 10) || !(at = strstr(line, "@ ")))
			continue;
		char *end;
		double v = strtod(at + 2, &end);
		if (end != at + 2 && v > 0 && !strncmp(end, "GHz", 3))
			hz = v * 1e9;
		break;
	}
	fclose(f);
	return hz;
}

static void read_all(struct hpm_literals *l, const struct hpm_ctx *ctx)
{
	char path[PATH_MAX], buf[256];
	int *cpu = NULL;
	size_t nr = 0;
	long v;

	bool sw = l->system_wide, cl = l->cpu_list;
	memset(l, 0, sizeof(*l));
	l->read = true;
	l->system_wide = sw;
	l->cpu_list = cl;
	if (hpm__online_cpus(ctx, &cpu, &nr))
		nr = 0;
	l->num_cpus_online = (double)nr;
	l->smt_on = -1;
	if (!hpm__path(path, sizeof(path), ctx->sysfs, "devices/system/cpu/smt/active") &&
	    !hpm__read_long(path, &v))
		l->smt_on = v == 1;
	else
		l->smt_on = smt_from_topology(ctx, cpu, nr);
	l->num_packages = distinct(ctx, cpu, nr, "package_cpus_list", "core_siblings_list");
	l->num_dies = distinct(ctx, cpu, nr, "die_cpus_list", NULL);
	l->num_cores = distinct(ctx, cpu, nr, "core_cpus_list", "thread_siblings_list");
	free(cpu);
	/* perf: the highest present CPU's number plus one */
	if (!hpm__path(path, sizeof(path), ctx->sysfs, "devices/system/cpu/present") &&
	    hpm__read_text(path, buf, sizeof(buf)) > 0) {
		const char *p = buf + strlen(buf);
		while (p > buf && p[-1] >= '0' && p[-1] <= '9')
			p--;
		l->num_cpus = strtol(p, NULL, 10) + 1;
	}
	static const char *const core_pmu[] = { "cpu", "cpu_core" };
	for (size_t i = 0; i < 2 && !l->slots; i++)
		if (!hpm__path(path, sizeof(path), ctx->sysfs,
			       "bus/event_source/devices/%s/caps/slots", core_pmu[i]) &&
		    !hpm__read_long(path, &v) && v > 0)
			l->slots = (double)v;
	l->tsc_hz = tsc_hz(ctx);
}

void hpm__literal_value(struct hpm_literals *l, const struct hpm_ctx *ctx, const char *name,
			struct hpm_value *out)
{
	double v = 0;
	const char *where = "";

	if (!l->read)
		read_all(l, ctx);
	if (!strcasecmp(name, "#SMT_on")) {
		v = l->smt_on;
		where = "sysfs devices/system/cpu/smt/active or the cores' core_cpus_list";
	} else if (!strcasecmp(name, "#core_wide")) {
		/* perf 6.1 (util/smt.c core_wide): 0 unless every CPU is
		 * counted; then 1 without SMT or without a CPU list; with
		 * both, whether the list holds whole cores (not done here) */
		v = !l->system_wide ? 0 : (l->smt_on == 0 || !l->cpu_list) ? 1 : -1;
		where = "whether -C's CPUs are whole cores, with SMT on";
	} else if (!strcasecmp(name, "#num_cpus")) {
		v = l->num_cpus ? l->num_cpus : -1;
		where = "sysfs devices/system/cpu/present";
	} else if (!strcasecmp(name, "#num_cpus_online")) {
		v = l->num_cpus_online ? l->num_cpus_online : -1;
		where = "sysfs devices/system/cpu/online";
	} else if (!strcasecmp(name, "#num_packages")) {
		v = l->num_packages ? l->num_packages : -1;
		where = "sysfs topology/package_cpus_list of the online CPUs";
	} else if (!strcasecmp(name, "#num_dies")) {
		v = l->num_dies ? l->num_dies : -1;
		where = "sysfs topology/die_cpus_list of the online CPUs";
	} else if (!strcasecmp(name, "#num_cores")) {
		v = l->num_cores ? l->num_cores : -1;
		where = "sysfs topology/core_cpus_list of the online CPUs";
	} else if (!strcasecmp(name, "#slots")) {
		v = l->slots ? l->slots : -1;
		where = "the core PMU's sysfs caps/slots";
	} else if (!strcasecmp(name, "#system_tsc_freq")) {
		v = l->tsc_hz ? l->tsc_hz : -1;
		where = "the '@ N GHz' of /proc/cpuinfo's model name";
	} else {
		hpm_value__na(out, "unknown literal '%s'", name);
		return;
	}
	if (v < 0)
		hpm_value__na(out, "%s is not known here (%s)", name, where);
	else
		hpm_value__set(out, v, 0);
}
