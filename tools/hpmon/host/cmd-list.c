/* SPDX-License-Identifier: MIT */
/*
 * hpmon list: every event this machine offers, from the library's
 * catalogue, each tried here: resolved as hpmon stat would resolve it,
 * opened on this thread, closed. What cannot be opened says why.
 */
#include <errno.h>
#include <limits.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include <hpmon/event.h>
#include <hpmon/metric.h>
#include <hpmon/preset.h>
#include <hpmon/sysinfo.h>
#include "output/advice.h"
#include "builtin.h"
#include "counting/costs-file.h"
#include "host/list-metrics.h"
#include "output/escape.h"
#include "output/json.h"

#define MAX_NOTES 16

struct list_opts {
	const char *pattern;
	bool json;
	bool probe;
	bool tracepoints;
	bool native;
	bool presets;    /* --presets: PAPI presets instead of events */
	bool metrics;    /* --metrics: the metrics and their groups */
};

/* What one `hpmon list` run carries from entry to entry. */
struct lister {
	struct hpm_ctx *ctx;
	const struct list_opts *o;
	bool exclude_kernel;  /* paranoid forbids kernel mode for this user */
	struct json j;
	const char *kind;     /* section being printed */
	char pmu[64];
	size_t shown, shown_native;
	/* the full advice behind each short reason, printed once at the end */
	char notes[MAX_NOTES][320];
	size_t nr_notes;
	/* Opening and closing a tracepoint costs the kernel an RCU grace
	 * period (tens of ms): one is opened, the others only resolved. */
	int tp_state;         /* -1 none opened yet, else whether it opened */
	char tp_advice[320];
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hpmon list [PATTERN] [--json] [--no-probe] [--tracepoints] [--native]\n"
		"       hpmon list --presets [PATTERN] [--json] [--no-probe]\n"
		"       hpmon list --metrics [PATTERN] [--json]\n\n"
		"List the events this machine offers, each with whether it can be\n"
		"opened here. PATTERN is a glob (sched:*, *cache*) or a substring of\n"
		"the name; a pattern also searches tracepoints and native events.\n\n"
		"  --json          print a JSON array of {name, kind, pmu, description,\n"
		"                  supported, reason, model, table_version}\n"
		"  --no-probe      do not open each event to see if it works\n"
		"  --tracepoints   include every tracepoint (thousands)\n"
		"  --native        include libpfm4's native events of this CPU's PMUs\n"
		"  --presets       PAPI's presets: each one's mapping here, or why none\n"
		"  --metrics       the metrics `hpmon stat -M` computes here, by group\n"
		"  -h, --help      show this help\n");
}

static bool matches(const char *pattern, const char *name)
{
	if (!pattern)
		return true;
	if (strpbrk(pattern, "*?["))
		return fnmatch(pattern, name, FNM_CASEFOLD) == 0;
	return strcasestr(name, pattern) != NULL;
}

static const char *section_title(const char *kind)
{
	static const struct { const char *kind, *title; } t[] = {
		{ "hardware", "Hardware events" },
		{ "software", "Software events" },
		{ "cache", "Hardware cache events" },
		{ "breakpoint", "Hardware breakpoints" },
		{ "tracepoint", "Tracepoints" },
		{ "native", "Native events (libpfm4)" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(t[i].kind, kind))
			return t[i].title;
	return kind;
}

/* Remember @advice as a note; its short form (up to the first ": " or
 * " (") becomes the reason. */
static void short_reason(struct lister *l, const char *advice, char *reason,
			 size_t len)
{
	const char *colon = strstr(advice, ": "), *paren = strstr(advice, " (");
	const char *cut = !colon ? paren : !paren ? colon : colon < paren ? colon : paren;
	size_t n = cut ? (size_t)(cut - advice) : strlen(advice);
	snprintf(reason, len, "%.*s", (int)n, advice);
	if (n == strlen(advice))
		return;
	for (size_t i = 0; i < l->nr_notes; i++)
		if (!strcmp(l->notes[i], advice))
			return;
	if (l->nr_notes < MAX_NOTES)
		snprintf(l->notes[l->nr_notes++], sizeof(l->notes[0]), "%s", advice);
}

/*
 * Open @a as hpmon stat would: on this thread, user mode only when
 * perf_event_paranoid demands it; on CPU 0 for a PMU that only counts whole
 * CPUs (uncore, energy), which sets @system. 0 or -errno.
 */
static int open_here(const struct lister *l, struct perf_event_attr *a,
		     bool *system)
{
	unsigned mode = l->exclude_kernel ? HPM_PROBE_USER_ONLY : 0;

	a->disabled = 1;
	a->inherit = 0;
	int rc = hpm_sysinfo__probe(a, 0, -1, mode, NULL);
	if (rc == -EINVAL && mode) {
		/* PMUs that cannot filter by mode (msr) refuse the exclusion:
		 * without it, the kernel says whether paranoid allows them. */
		mode = 0;
		rc = hpm_sysinfo__probe(a, 0, -1, mode, NULL);
	}
	if (rc == -EINVAL || rc == -EOPNOTSUPP) {
		int rc2 = hpm_sysinfo__probe(a, -1, 0, mode, NULL);
		if (rc2 == 0 || rc2 == -EACCES || rc2 == -EPERM) {
			rc = rc2;
			*system = true;
		}
	}
	return rc;
}

/* A breakpoint needs an address: a variable of our own does. */
static int bp_target;

/*
 * Resolve and open @name on this thread (or, for a PMU that only counts
 * whole CPUs, on CPU 0). Returns true when it opened; otherwise @advice
 * says why. @how notes a restriction of a supported event.
 */
static bool probe(struct lister *l, const struct hpm_catalog_entry *e,
		  char *advice, size_t len, const char **how)
{
	struct hpm_parse_error perr;
	struct hpm_evlist *list = NULL;
	char spec[300];
	bool ok = true;

	*how = "";
	if (!strcmp(e->kind, "breakpoint"))
		snprintf(spec, sizeof(spec), "mem:%p:rw", (void *)&bp_target);
	else
		snprintf(spec, sizeof(spec), "%s", e->name);
	memset(&perr, 0, sizeof(perr));
	int rc = hpm_evlist__parse(l->ctx, spec, &list, &perr);
	if (rc) {
		snprintf(advice, len, "%s", perr.msg[0] ? perr.msg : hpm_strerror(rc));
		return false;
	}
	bool tp = !strcmp(e->kind, "tracepoint");
	if (tp && l->tp_state >= 0) {
		hpm_evlist__free(list);
		snprintf(advice, len, "%s", l->tp_advice);
		return l->tp_state;
	}
	if (!strcmp(e->kind, "breakpoint")) {
		/* one that opens may still never count: as measured */
		struct hpm_bp_fact f = hpm_sysinfo__breakpoints(l->ctx, HPM_BP_DATA);
		if (f.fires == HPM_NO) {
			snprintf(advice, len, "hardware breakpoints do not fire on this host (one "
				 "on hpmon's own data counted %u of %u uses): see 'hpmon diag'",
				 f.counted, f.used);
			hpm_evlist__free(list);
			return false;
		}
	}
	for (size_t i = 0; ok && i < hpm_evlist__count(list); i++) {
		const struct hpm_event *ev = hpm_evlist__event(list, i);
		struct perf_event_attr a = *hpm_event__attr(ev);
		bool system = false;
		int fd = open_here(l, &a, &system);
		if (fd == 0) {
			if (system)
				*how = ", system-wide only: -a";
			continue;
		}
		advice_open(l->ctx, ev, fd, system ? ADVICE_SYSTEM : ADVICE_COMMAND, advice, len);
		ok = false;
	}
	hpm_evlist__free(list);
	if (tp) {
		l->tp_state = ok;
		snprintf(l->tp_advice, sizeof(l->tp_advice), "%s", ok ? "" : advice);
	}
	return ok;
}

static void print_line(struct lister *l, const struct hpm_catalog_entry *e,
		       int supported, const char *how, const char *reason)
{
	const char *kind = e->kind;

	if (!l->kind || strcmp(l->kind, kind) ||
	    (!strcmp(kind, "pmu") && strcmp(l->pmu, e->pmu))) {
		struct hpm_vendor_info vi;
		if (!strcmp(kind, "pmu"))
			printf("%sPMU events of %s:\n", l->kind ? "\n" : "", esc_text(e->pmu));
		else if (!strcmp(kind, "vendor") && !hpm_vendor__model(l->ctx, &vi))
			printf("%sVendor events of %s (tables %s, cpuid %s):\n",
			       l->kind ? "\n" : "", esc_text(vi.model), esc_text(vi.version),
			       esc_text(vi.cpuid));
		else
			printf("%s%s:\n", l->kind ? "\n" : "", section_title(kind));
		l->kind = kind;
		snprintf(l->pmu, sizeof(l->pmu), "%s", e->pmu);
	}
	printf("  %-34s [%s]%s%s", esc_text(e->name), kind, e->desc[0] ? "  " : "",
	       esc_text(e->desc));
	if (supported > 0)
		printf("  (supported%s)\n", how);
	else if (supported == 0)
		printf("  (not supported: %s)\n", esc_text(reason));
	else
		printf("  (not probed)\n");
}

static int entry_cb(const struct hpm_catalog_entry *e, void *arg)
{
	struct lister *l = arg;
	const struct list_opts *o = l->o;
	char advice[320], reason[320] = "";
	const char *how = "";
	int supported = -1;

	if (!matches(o->pattern, e->name))
		return 0;
	if (o->probe) {
		supported = probe(l, e, advice, sizeof(advice), &how);
		if (!supported)
			short_reason(l, advice, reason, sizeof(reason));
	}
	l->shown++;
	if (!strcmp(e->kind, "native"))
		l->shown_native++;
	if (!o->json) {
		print_line(l, e, supported, how, reason);
		return 0;
	}
	json_obj_open(&l->j, NULL);
	json_str(&l->j, "name", e->name);
	json_str(&l->j, "kind", e->kind);
	json_str(&l->j, "pmu", e->pmu);
	json_str(&l->j, "description", e->desc);
	/* every entry has every key: the vendor's table, null for the others */
	struct hpm_vendor_info vi = { 0 };
	if (strcmp(e->kind, "vendor") || hpm_vendor__model(l->ctx, &vi))
		vi.model = vi.version = NULL;
	json_str(&l->j, "model", vi.model);
	json_str(&l->j, "table_version", vi.version);
	if (supported < 0)
		json_null(&l->j, "supported");
	else
		json_bool(&l->j, "supported", supported);
	if (supported == 0)
		json_str(&l->j, "reason", advice);
	else if (supported > 0 && how[0])
		json_str(&l->j, "reason", "system-wide only (-a)");
	else
		json_null(&l->j, "reason");
	json_obj_close(&l->j);
	return 0;
}

/* Where the listing leaves things out, or found nothing, say so once. */
static void print_footer(FILE *f, struct lister *l,
			 const struct hpm_sysinfo *si, unsigned flags)
{
	const struct list_opts *o = l->o;

	fputc('\n', f);
	if (!si->tracefs[0])
		fprintf(f, "Tracepoints: none: tracefs is not mounted "
			   "(mount -t tracefs nodev /sys/kernel/tracing)\n");
	else if (!si->tracefs_readable)
		fprintf(f, "Tracepoints: none: %s cannot be read by you "
			   "(run as root)\n", si->tracefs);
	else if (!(flags & HPM_CATALOG_TRACEPOINTS))
		fprintf(f, "Tracepoints: not listed; use --tracepoints or a pattern "
			   "such as 'sched:*'\n");
	struct hpm_vendor_info vi;
	if (hpm_vendor__model(l->ctx, &vi) == -ENOENT)
		fprintf(f, "Vendor events: none: Linux 6.1 perf's tables have no model "
			   "for this processor (cpuid %s); generic events and sysfs "
			   "aliases only\n", vi.cpuid ? esc_text(vi.cpuid) : "unknown");
	if (!(flags & HPM_CATALOG_NATIVE))
		fprintf(f, "Native events (libpfm4): not listed; use --native or a "
			   "pattern\n");
	else if (!o->pattern && !l->shown_native)
		fprintf(f, "Native events (libpfm4): none: libpfm4 detected no PMU "
			   "of this CPU\n");
	if (l->nr_notes) {
		fprintf(f, "\nWhy events are not supported:\n");
		for (size_t i = 0; i < l->nr_notes; i++)
			fprintf(f, "  - %s\n", esc_text(l->notes[i]));
	}
}

static int parse_args(int argc, char **argv, struct list_opts *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--json")) {
			o->json = true;
		} else if (!strcmp(a, "--no-probe")) {
			o->probe = false;
		} else if (!strcmp(a, "--tracepoints")) {
			o->tracepoints = true;
		} else if (!strcmp(a, "--native")) {
			o->native = true;
		} else if (!strcmp(a, "--presets")) {
			o->presets = true;
		} else if (!strcmp(a, "--metrics")) {
			o->metrics = true;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 1;
		} else if (a[0] == '-' && a[1]) {
			advice_usage("list", "unknown option '%s'", a);
			return -1;
		} else if (o->pattern) {
			advice_usage("list", "one PATTERN only ('%s' and '%s')", o->pattern, a);
			return -1;
		} else {
			o->pattern = a;
		}
	}
	return 0;
}

/* ---- --presets ---- */

static int preset_cb(const struct hpm_preset_info *p, void *arg)
{
	struct lister *l = arg;
	const struct list_opts *o = l->o;
	char advice[320] = "", reason[320] = "";
	const char *how = "";
	int supported = -1;

	if (!matches(o->pattern, p->name) && !matches(o->pattern, p->mapping))
		return 0;
	if (!p->mapping[0]) {
		supported = 0;
		snprintf(advice, sizeof(advice), "%s", p->why);
		snprintf(reason, sizeof(reason), "%s", p->why);
	} else if (o->probe) {
		struct hpm_catalog_entry e = { .name = p->name, .kind = "preset", .pmu = "",
					       .desc = p->desc };
		supported = probe(l, &e, advice, sizeof(advice), &how);
		if (!supported)
			short_reason(l, advice, reason, sizeof(reason));
	}
	l->shown++;
	if (o->json) {
		json_obj_open(&l->j, NULL);
		json_str(&l->j, "name", p->name);
		json_str(&l->j, "description", p->desc);
		json_str(&l->j, "family", p->family[0] ? p->family : NULL);
		json_str(&l->j, "mapping", p->mapping[0] ? p->mapping : NULL);
		json_bool(&l->j, "derived", p->derived);
		if (supported < 0)
			json_null(&l->j, "supported");
		else
			json_bool(&l->j, "supported", supported);
		json_str(&l->j, "reason", supported == 0 ? advice : NULL);
		json_obj_close(&l->j);
		return 0;
	}
	printf("  %-13s %-40s %s", p->name, p->mapping[0] ? p->mapping : "-", p->desc);
	if (p->mapping[0] && p->family[0])
		printf(" [%s%s]", p->family, p->derived ? ", derived" : "");
	if (supported > 0)
		printf("  (supported%s)\n", how);
	else if (supported == 0)
		printf("  (%s%s)\n", p->mapping[0] ? "not supported: " : "", reason);
	else
		printf("  (not probed)\n");
	return 0;
}

static int list_presets(struct hpm_ctx *ctx, struct lister *l, bool live)
{
	char fam[32] = "?";
	int rc;

	hpm_family__detect(ctx, fam, sizeof(fam));
	if (l->o->json) {
		json_init(&l->j, stdout, true);
		json_arr_open(&l->j, NULL);
	} else {
		printf("PAPI presets, as this machine counts them (processor family %s):\n", fam);
	}
	rc = hpm_preset__foreach(ctx, preset_cb, l);
	if (l->o->json) {
		json_arr_close(&l->j);
		json_end(&l->j);
	} else if (l->shown) {
		if (l->nr_notes) {
			printf("\nWhy presets are not supported:\n");
			for (size_t i = 0; i < l->nr_notes; i++)
				printf("  - %s\n", l->notes[i]);
		}
		if (!live)
			printf("\nPresets were not opened: sysfs root %s is not this machine's\n",
			       hpm_ctx__sysfs_root(ctx));
	}
	if (rc < 0) {
		fprintf(stderr, "hpmon list: %s\n", hpm_strerror(rc));
		return HPM_EXIT_FAIL;
	}
	if (!l->shown) {
		fprintf(stderr, "hpmon list: no preset matches '%s'\n",
			l->o->pattern ? l->o->pattern : "");
		return HPM_EXIT_FAIL;
	}
	return HPM_EXIT_OK;
}

/* ---- --metrics ---- */

static int list_metrics(struct hpm_ctx *ctx, struct lister *l)
{
	const struct list_opts *o = l->o;
	struct hpm_metricset_opts mo = { .sz = sizeof(mo) };
	char costs[PATH_MAX];
	if (!costs_file_path(ctx, costs, sizeof(costs), NULL, 0))
		mo.costs_file = costs;
	struct hpm_metricset *ms = hpm_metricset__new(ctx, &mo);

	if (!ms) {
		fprintf(stderr, "hpmon list: cannot load the metrics: %s\n", strerror(errno));
		return HPM_EXIT_FAIL;
	}
	if (o->json) {
		json_init(&l->j, stdout, true);
		json_arr_open(&l->j, NULL);
	} else {
		printf("Metrics for `hpmon stat -M GROUP|NAME` (processor family %s; from data/",
		       hpm_metricset__family(ms));
		for (size_t i = 0; i < hpm_metricset__nr_files(ms); i++)
			printf("%s%s", i ? ", " : "", hpm_metricset__file(ms, i));
		printf("):\n");
	}
	for (size_t i = 0; i < hpm_metricset__count(ms); i++) {
		const struct hpm_metric *m = hpm_metricset__metric(ms, i);
		struct hpm_parse_error err;
		if (!matches(o->pattern, hpm_metric__name(m)) &&
		    !matches(o->pattern, hpm_metric__groups(m)))
			continue;
		int rc = hpm_metricset__check(ms, m, &err);
		l->shown++;
		if (o->json) {
			json_obj_open(&l->j, NULL);
			json_str(&l->j, "name", hpm_metric__name(m));
			json_str(&l->j, "groups", hpm_metric__groups(m));
			json_str(&l->j, "formula", hpm_metric__formula(m));
			json_str(&l->j, "form", hpm_metric_form__str(hpm_metric__form(m)));
			json_str(&l->j, "unit", hpm_metric__unit(m));
			json_str(&l->j, "description", hpm_metric__desc(m));
			json_str(&l->j, "origin", hpm_metric__origin(m));
			json_bool(&l->j, "resolves", rc == 0);
			json_str(&l->j, "reason", rc ? err.msg : NULL);
			json_obj_close(&l->j);
			continue;
		}
		printf("  %-24s [%s] %s (%s%s%s)\n      = %s\n", esc_text(hpm_metric__name(m)),
		       esc_text(hpm_metric__groups(m)), esc_text(hpm_metric__desc(m)),
		       hpm_metric_form__str(hpm_metric__form(m)), hpm_metric__unit(m)[0] ? ", " : "",
		       esc_text(hpm_metric__unit(m)), esc_text(hpm_metric__formula(m)));
		if (rc)
			printf("      n/a here: %s\n", esc_text(err.msg));
	}
	if (o->json) {
		json_arr_close(&l->j);
		json_end(&l->j);
	}
	hpm_metricset__free(ms);
	if (!l->shown) {
		fprintf(stderr, "hpmon list: no metric matches '%s'\n", o->pattern ? o->pattern : "");
		return HPM_EXIT_FAIL;
	}
	return HPM_EXIT_OK;
}

int cmd_list(int argc, char **argv, struct hpm_ctx *ctx)
{
	struct list_opts o = { .probe = true };
	int rc = parse_args(argc, argv, &o);

	if (rc)
		return rc > 0 ? HPM_EXIT_OK : HPM_EXIT_USAGE;
	if (o.presets && o.metrics) {
		return advice_usage("list", "--presets and --metrics exclude each other");
	}
	/* perf's words: hpmon list metrics, hpmon list metricgroups */
	if (!o.presets && !o.metrics && !o.json && list_perf_metrics_word(o.pattern))
		return list_perf_metrics(ctx, o.pattern);

	/* Only files: whether kernel mode may be counted, and tracefs. */
	struct hpm_sysinfo_opts so = { .sz = sizeof(so) };
	struct hpm_sysinfo *si = hpm_sysinfo__read(ctx, &so);
	if (!si) {
		fprintf(stderr, "hpmon list: %s\n", strerror(errno));
		return HPM_EXIT_FAIL;
	}
	struct lister *l = calloc(1, sizeof(*l));
	if (!l) {
		hpm_sysinfo__free(si);
		fprintf(stderr, "hpmon list: %s\n", strerror(ENOMEM));
		return HPM_EXIT_FAIL;
	}
	l->ctx = ctx;
	l->o = &o;
	l->exclude_kernel = !si->allow_kernel;
	l->tp_state = -1;

	/* Events resolved against another machine's sysfs tree mean nothing
	 * to this kernel: list them without opening them. */
	bool live = !strcmp(hpm_ctx__sysfs_root(ctx), "/sys");
	if (!live)
		o.probe = false;
	if (o.presets || o.metrics) {
		int st = o.presets ? list_presets(ctx, l, live) : list_metrics(ctx, l);
		free(l);
		hpm_sysinfo__free(si);
		return st;
	}

	unsigned flags = 0;
	if (si->tracefs_readable && (o.tracepoints || o.pattern))
		flags |= HPM_CATALOG_TRACEPOINTS;
	if (o.native || o.pattern)
		flags |= HPM_CATALOG_NATIVE;

	if (o.json) {
		json_init(&l->j, stdout, true);
		json_arr_open(&l->j, NULL);
	}
	rc = hpm_catalog__foreach(ctx, flags, entry_cb, l);
	if (o.json) {
		json_arr_close(&l->j);
		json_end(&l->j);
	} else if (l->shown) {
		print_footer(stdout, l, si, flags);
		if (!live)
			printf("Events were not opened: sysfs root %s is not this "
			       "machine's\n", hpm_ctx__sysfs_root(ctx));
	}

	int status = HPM_EXIT_OK;
	if (rc < 0) {
		fprintf(stderr, "hpmon list: %s\n", hpm_strerror(rc));
		status = HPM_EXIT_FAIL;
	} else if (!l->shown) {
		fprintf(stderr, "hpmon list: no event matches '%s'\n",
			o.pattern ? o.pattern : "");
		if (!o.json && si->tracefs_readable == false)
			print_footer(stderr, l, si, flags);
		status = HPM_EXIT_FAIL;
	}
	free(l);
	hpm_sysinfo__free(si);
	return status;
}
