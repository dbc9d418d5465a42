/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include <hpmon/hpmon.h>
#include <hpmon/metric.h>
#include <hpmon/sysinfo.h>
#include "output/advice.h"
#include "output/exit.h"
#include "counting/costs-file.h"
#include "counting/metric-args.h"

bool metric_args_any(const struct metric_args *a)
{
	return a->nr_groups || a->nr_inline || a->nr_files;
}

/* The name of a --metric definition ("NAME = FORMULA") into @name. */
static void inline_name(const char *def, char *name, size_t len)
{
	const char *eq = strchr(def, '=');
	while (*def == ' ' || *def == '\t')
		def++;
	size_t n = eq && eq > def ? (size_t)(eq - def) : 0;
	while (n && (def[n - 1] == ' ' || def[n - 1] == '\t'))
		n--;
	snprintf(name, len, "%.*s", (int)n, def);
}

/* Whether -M names the cost group or one of its metrics: only then is
 * this machine's CPU model looked up for its calibrated costs. */
static bool wants_costs(const struct metric_args *a)
{
	for (size_t i = 0; i < a->nr_groups; i++)
		if (strstr(a->groups[i], "cost"))
			return true;
	return false;
}

static int load(struct hpm_ctx *ctx, const char *cmd, const struct metric_args *a,
		struct hpm_metricset **ms, struct hpm_msel **sel)
{
	struct hpm_parse_error err;
	int rc;

	struct hpm_metricset_opts mo = { .sz = sizeof(mo), .system_wide = a->system_wide,
					 .cpu_list = a->cpu_list };
	char costs[PATH_MAX];
	if (wants_costs(a) && !costs_file_path(ctx, costs, sizeof(costs), NULL, 0))
		mo.costs_file = costs;
	*ms = hpm_metricset__new(ctx, &mo);
	if (!*ms && mo.costs_file) {
		fprintf(stderr, "hpmon %s: cannot read the calibrated costs %s: %s; remove it, "
				"or run 'hpmon validate --calibrate' again\n",
			cmd, costs, strerror(errno));
		return HPM_EXIT_FAIL;
	}
	if (!*ms) {
		fprintf(stderr, "hpmon %s: cannot load the metrics: %s\n", cmd, strerror(errno));
		return HPM_EXIT_FAIL;
	}
	for (size_t i = 0; i < a->nr_files; i++) {
		rc = hpm_metricset__add_file(*ms, a->files[i], &err);
		if (rc) {
			fprintf(stderr, "hpmon %s: %s\n", cmd, err.msg);
			return rc == -HPM_ERR_SYNTAX ? advice_usage_end(cmd) : HPM_EXIT_FAIL;
		}
	}
	for (size_t i = 0; i < a->nr_inline; i++) {
		const char *def = a->inline_defs[i];
		rc = hpm_metricset__add_inline(*ms, def, &err);
		if (rc) {
			fprintf(stderr, "hpmon %s: %s\n", cmd, err.msg);
			if (err.pos <= strlen(def) && strlen(def) < 200)
				fprintf(stderr, "  %s\n  %*s^\n", def, (int)err.pos, "");
			return advice_usage_end(cmd);
		}
	}
	*sel = hpm_msel__new(*ms);
	if (!*sel)
		return HPM_EXIT_FAIL;
	for (size_t i = 0; i < a->nr_groups; i++) {
		if (hpm_msel__add(*sel, a->groups[i], &err)) {
			advice_parse_cmd(stderr, cmd, a->groups[i], &err);
			return advice_usage_end(cmd);
		}
	}
	/* every --metric is shown; a file's metrics when -M names none */
	for (size_t i = 0; i < a->nr_inline; i++) {
		char name[128];
		inline_name(a->inline_defs[i], name, sizeof(name));
		if (hpm_msel__add(*sel, name, &err)) {
			advice_parse_cmd(stderr, cmd, name, &err);
			return advice_usage_end(cmd);
		}
	}
	for (size_t i = 0; i < a->nr_files && !a->nr_groups; i++) {
		size_t fl = strlen(a->files[i]);
		for (size_t k = 0; k < hpm_metricset__count(*ms); k++) {
			const struct hpm_metric *m = hpm_metricset__metric(*ms, k);
			const char *orig = hpm_metric__origin(m);
			if (!strncmp(orig, a->files[i], fl) && orig[fl] == ':' &&
			    hpm_msel__add(*sel, hpm_metric__name(m), &err)) {
				advice_parse_cmd(stderr, cmd, hpm_metric__name(m), &err);
				return advice_usage_end(cmd);
			}
		}
	}
	return HPM_EXIT_OK;
}

int metric_args_load(struct hpm_ctx *ctx, const char *cmd, const struct metric_args *a,
		     struct hpm_metricset **ms, struct hpm_msel **sel)
{
	*ms = NULL;
	*sel = NULL;
	int rc = load(ctx, cmd, a, ms, sel);
	if (rc != HPM_EXIT_OK) {
		hpm_msel__free(*sel);
		hpm_metricset__free(*ms);
		*ms = NULL;
		*sel = NULL;
	}
	return rc;
}

int metric_args_keep(const char *cmd, const char **v, size_t *n, const char *arg,
		     const char *opt)
{
	if (*n >= METRIC_ARGS_MAX) {
		return advice_usage(cmd, "too many %s options (at most %d)", opt, METRIC_ARGS_MAX);
	}
	v[(*n)++] = arg;
	return 0;
}

int count_args_append(char *events, size_t len, const char *spec)
{
	size_t n = strlen(events);
	if (n + strlen(spec) + 2 > len)
		return -1;
	snprintf(events + n, len - n, "%s%s", n ? "," : "", spec);
	return 0;
}

int count_args_event(const char *cmd, char *events, size_t len, const char *opt,
		     const char *val)
{
	if (!val[0] || val[0] == '-') {
		char name[64];
		/* the option's name without a value joined to it ("--event=", "-e-x") */
		snprintf(name, sizeof(name), "%.*s",
			 opt[1] == '-' ? (int)strcspn(opt, "=") : 2, opt);
		fprintf(stderr, "hpmon %s: option '%s' needs a value: ", cmd, name);
		if (val[0])
			fprintf(stderr, "'%s' is an option, not an event list\n", val);
		else
			fprintf(stderr, "the event list is empty\n");
		fprintf(stderr, "  e.g. '%s task-clock,page-faults'; 'hpmon list' shows the events\n"
				"See 'hpmon %s --help'.\n", name, cmd);
		return HPM_EXIT_USAGE;
	}
	if (count_args_append(events, len, val)) {
		return advice_usage(cmd, "event list too long: '%s'", val);
	}
	return 0;
}

int count_args_cpus(struct hpm_ctx *ctx, const char *cmd, const int *cpus, size_t nr)
{
	char path[512], online[256] = "";
	FILE *f;
	snprintf(path, sizeof(path), "%s/devices/system/cpu/online", hpm_ctx__sysfs_root(ctx));
	if ((f = fopen(path, "r"))) {
		if (fgets(online, sizeof(online), f))
			online[strcspn(online, "\n")] = '\0';
		fclose(f);
	}
	for (size_t i = 0; i < nr; i++) {
		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d",
			 hpm_ctx__sysfs_root(ctx), cpus[i]);
		if (access(path, F_OK) != 0)
			return advice_usage(cmd, "CPU %d does not exist here (online CPUs: %s)",
					    cpus[i], online[0] ? online : "unknown");
	}
	return 0;
}

/* ---- the default event set ---- */

static bool hw_counts_here(void)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_HARDWARE,
				     .config = PERF_COUNT_HW_INSTRUCTIONS };
	return hpm_sysinfo__probe(&a, 0, -1, HPM_PROBE_USER_ONLY, NULL) == 0;
}

const char *count_args_default_events(void)
{
	static const char sw[] = "task-clock,context-switches,cpu-migrations,page-faults";
	static const char hw[] = "task-clock,context-switches,cpu-migrations,page-faults,"
				 "cycles,instructions,branches,branch-misses";
	return hw_counts_here() ? hw : sw;
}
