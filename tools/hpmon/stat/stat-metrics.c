/* SPDX-License-Identifier: MIT */
/*
 * hpmon stat's metrics: the metric set and selection (-M, --metric,
 * --metrics-file, and perf's default figures), the events they add to the
 * list, and their values for each report, from the report's counts. Uses
 * only the public API (hpmon/metric.h, hpmon/preset.h).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include <hpmon/preset.h>
#include <hpmon/sysinfo.h>
#include "output/advice.h"
#include "output/exit.h"
#include "counting/metric-args.h"
#include "stat/stat.h"

struct stat_metrics {
	struct hpm_ctx *ctx;
	struct hpm_metricset *ms;
	struct hpm_msel *sel;
	char *spec;           /* events the selection adds */
	size_t first;         /* index of the first of them in the list */
	size_t kinst;         /* the instructions event of --per-kinst */
	bool per_second, per_kinst;
	bool topdown;         /* --topdown: the perf_topdown group's figures too */
	int num_cpus;
	double cpu_hz;
	char **notes;
	size_t nr_notes;
};

void stat_metrics_free(struct stat_metrics *sm)
{
	if (!sm)
		return;
	hpm_msel__free(sm->sel);
	hpm_metricset__free(sm->ms);
	for (size_t i = 0; i < sm->nr_notes; i++)
		free(sm->notes[i]);
	free(sm->notes);
	free(sm->spec);
	free(sm);
}

static void add_note(struct stat_metrics *sm, const char *s)
{
	char **v = realloc(sm->notes, (sm->nr_notes + 1) * sizeof(*v));
	if (!v)
		return;
	sm->notes = v;
	if ((v[sm->nr_notes] = strdup(s)))
		sm->nr_notes++;
}

/* Which costs the cost metrics use, when one is shown: this machine's
 * (hpmon validate --calibrate) or the typical ones. */
static void cost_note(struct stat_metrics *sm)
{
	char note[PATH_MAX + 96];
	bool cost = false;
	for (size_t i = 0; i < hpm_msel__count(sm->sel); i++)
		if (!strncmp(hpm_metric__name(hpm_msel__metric(sm->sel, i)), "cost.", 5))
			cost = true;
	if (!cost)
		return;
	const char *cf = hpm_metricset__costs_file(sm->ms);
	if (cf)
		snprintf(note, sizeof(note), "cost: the costs measured on this machine (%s)", cf);
	else
		snprintf(note, sizeof(note), "cost: typical costs (data/costs-*.txt), not this "
					     "machine's: 'hpmon validate --calibrate' measures them");
	add_note(sm, note);
}

/* The CPU's nominal clock in Hz, where the machine says; 0 otherwise. */
static double read_cpu_hz(struct hpm_ctx *ctx)
{
	static const char *const files[] = {
		"devices/system/cpu/cpu0/cpufreq/base_frequency",
		"devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq",
	};
	char path[512], line[256];
	double hz = 0;
	FILE *f;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]) && hz <= 0; i++) {
		snprintf(path, sizeof(path), "%s/%s", hpm_ctx__sysfs_root(ctx), files[i]);
		if ((f = fopen(path, "r"))) {
			double khz;
			if (fscanf(f, "%lf", &khz) == 1 && khz > 0)
				hz = khz * 1e3;
			fclose(f);
		}
	}
	if (hz > 0)
		return hz;
	snprintf(path, sizeof(path), "%s/cpuinfo", hpm_ctx__procfs_root(ctx));
	if ((f = fopen(path, "r"))) {
		while (fgets(line, sizeof(line), f)) {
			const char *colon = strchr(line, ':');
			double mhz;
			if (!strncmp(line, "cpu MHz", 7) && colon && sscanf(colon + 1, "%lf", &mhz) == 1) {
				hz = mhz * 1e6;
				break;
			}
		}
		fclose(f);
	}
	return hz;
}

/* The core PMU's counters, probed when this is the running machine. */
void stat_core_counters(struct hpm_ctx *ctx, int *nr_general, int *nr_fixed, char *core,
			size_t len)
{
	struct hpm_sysinfo_opts so = { .sz = sizeof(so) };
	struct hpm_sysinfo *si;

	*nr_general = 0;
	*nr_fixed = -1;
	if (core && len)
		core[0] = '\0';
	if (!strcmp(hpm_ctx__sysfs_root(ctx), "/sys"))
		so.flags = HPM_SYSINFO_LIVE | HPM_SYSINFO_PROBE_COUNTERS;
	si = hpm_sysinfo__read(ctx, &so);
	if (!si)
		return;
	for (size_t i = 0; i < si->nr_pmus; i++) {
		const struct hpm_pmu_info *p = &si->pmus[i];
		if (!p->core || p->nr_general == HPM_SYSINFO_UNKNOWN || p->nr_general <= 0)
			continue;
		*nr_general = p->nr_general;
		*nr_fixed = p->nr_fixed == HPM_SYSINFO_UNKNOWN ? -1 : p->nr_fixed;
		if (core && len)
			snprintf(core, len, "%s", p->name);
		/* the NMI watchdog holds a counter of its own on x86 */
		if (si->nmi_watchdog == 1 && !strcmp(si->arch, "x86_64") && *nr_general > 1)
			(*nr_general)--;
		break;
	}
	hpm_sysinfo__free(si);
}

static void counters(struct hpm_ctx *ctx, struct hpm_plan_opts *po)
{
	stat_core_counters(ctx, &po->nr_general, &po->nr_fixed, NULL, 0);
}

/* Read the metric set, select @a's metrics and perf's figures beside the
 * counts (the "default" group), and plan their events. */
static int load_set(struct stat_metrics *sm, const struct metric_args *a, bool any)
{
	int rc = metric_args_load(sm->ctx, "stat", a, &sm->ms, &sm->sel);
	if (rc)
		return rc;
	/* perf's figures beside the counts */
	hpm_msel__add_bound(sm->sel, "default");
	/* --topdown's figures: apart, so that no other list resolves their
	 * events (sysfs lookups of events most models lack) */
	if (sm->topdown)
		hpm_msel__add_bound(sm->sel, "perf_topdown");

	struct hpm_plan_opts po = { .sz = sizeof(po), .nr_general = 0, .nr_fixed = -1 };
	if (any)
		counters(sm->ctx, &po);
	rc = hpm_msel__plan(sm->sel, &po, &sm->spec);
	if (rc) {
		fprintf(stderr, "hpmon stat: cannot plan the metrics' events: %s\n", hpm_strerror(rc));
		return HPM_EXIT_FAIL;
	}
	for (size_t i = 0; i < hpm_msel__nr_notes(sm->sel); i++)
		add_note(sm, hpm_msel__note(sm->sel, i));
	cost_note(sm);
	return 0;
}

int stat_metrics_setup(struct hpm_ctx *ctx, const struct stat_metrics_opts *o,
		       struct stat_metrics **out)
{
	struct stat_metrics *sm = calloc(1, sizeof(*sm));
	bool any = metric_args_any(&o->metrics);
	int rc;

	*out = NULL;
	if (!sm)
		return HPM_EXIT_FAIL;
	sm->ctx = ctx;
	sm->per_second = o->per_second;
	sm->topdown = o->topdown;
	sm->per_kinst = o->per_kinst;
	sm->kinst = SIZE_MAX;
	/*
	 * No metric asked: only perf's figures beside the counts, which add
	 * no event. The set is read when the list is known, and only if it
	 * has an event that is not a software one (stat_metrics_bind): a
	 * software event's figure is print-stat.c's own (CPUs utilized, a
	 * rate), so `stat -e task-clock` starts without parsing the metric
	 * files (docs/hpmon-stat.md, START-UP).
	 */
	if (any && (rc = load_set(sm, &o->metrics, true))) {
		stat_metrics_free(sm);
		return rc;
	}
	*out = sm;
	return 0;
}

void stat_metrics_explain(const struct stat_metrics *sm, FILE *f)
{
	for (size_t i = 0; i < sm->nr_notes; i++)
		fprintf(f, "  %s\n", sm->notes[i]);
}

/* instructions, on a hybrid CPU of any core PMU (cpu_atom/instructions/) */
static bool is_instructions(const struct hpm_event *ev)
{
	const struct perf_event_attr *a = hpm_event__attr(ev);
	return a->type == PERF_TYPE_HARDWARE &&
	       (a->config & 0xffffffffull) == PERF_COUNT_HW_INSTRUCTIONS;
}

int stat_metrics_add_events(struct stat_metrics *sm, struct hpm_evlist *list)
{
	struct hpm_parse_error err;
	int rc;

	sm->first = hpm_evlist__count(list);
	if (sm->spec && sm->spec[0]) {
		/* as hpm_msel__plan resolved them: on a hybrid CPU, cpu_core's */
		rc = hpm_evlist__add_flags(list, sm->spec, HPM_EVLIST_MAIN_CORE, &err);
		if (rc) {
			/* the plan resolved each event alone: should not happen */
			advice_parse(stderr, sm->spec, &err);
			return HPM_EXIT_FAIL;
		}
	}
	if (sm->per_kinst) {
		for (size_t i = 0; i < hpm_evlist__count(list) && sm->kinst == SIZE_MAX; i++)
			if (is_instructions(hpm_evlist__event(list, i)))
				sm->kinst = i;
		if (sm->kinst == SIZE_MAX) {
			sm->kinst = hpm_evlist__count(list);
			if (hpm_evlist__add(list, "instructions", &err)) {
				advice_parse(stderr, "instructions", &err);
				return HPM_EXIT_FAIL;
			}
		}
	}
	return 0;
}

/* Mark the terms of derived presets: the first shows their sum. */
static void mark_derived(struct stat_report *r, const struct hpm_evlist *list)
{
	for (size_t i = 0; i < r->nr_ev; i++) {
		char p0[160], pk[160];
		int sign;
		if (!hpm_preset__component(hpm_event__name(hpm_evlist__event(list, i)), p0,
					   sizeof(p0), &sign))
			continue;
		size_t k = i + 1;
		while (k < r->nr_ev &&
		       hpm_preset__component(hpm_event__name(hpm_evlist__event(list, k)), pk,
					     sizeof(pk), &sign) &&
		       !strcmp(p0, pk) && hpm_event__leader(hpm_evlist__event(list, k)) ==
						 hpm_event__leader(hpm_evlist__event(list, i)))
			k++;
		r->ev[i].derived = (int)(k - i);
		snprintf(r->ev[i].name, sizeof(r->ev[i].name), "%s", p0);
		for (size_t j = i; j < k; j++) {
			const char *en = hpm_event__name(hpm_evlist__event(list, j));
			const char *paren = strchr(en, '(');
			hpm_preset__component(en, NULL, 0, &r->ev[j].sign);
			/* "PAPI_L1_TCM:u(+L1-dcache-load-misses)" -> "L1-dcache-load-misses" */
			snprintf(r->ev[j].term, sizeof(r->ev[j].term), "%.*s",
				 paren ? (int)strlen(paren + 2) - 1 : 0, paren ? paren + 2 : "");
			r->ev[j].hidden = j > i;
		}
		i = k - 1;
	}
}

/* Does @list count software events only (no default metric binds)? */
static bool software_only(const struct hpm_evlist *list)
{
	for (size_t i = 0; i < hpm_evlist__count(list); i++)
		if (hpm_event__attr(hpm_evlist__event(list, i))->type != PERF_TYPE_SOFTWARE)
			return false;
	return true;
}

int stat_metrics_bind(struct stat_metrics *sm, const struct hpm_evlist *list,
		      struct stat_report *r)
{
	size_t n = 0;
	int rc;

	/* perf's default figures of a list with a hardware event: the set
	 * read now (once: -r binds again); they add no event to the list */
	if (!sm->sel && !software_only(list)) {
		const struct metric_args none = { 0 };
		rc = load_set(sm, &none, false);
		if (!rc && sm->spec && sm->spec[0]) {
			fprintf(stderr, "hpmon stat: perf's default figures would add events "
					"(%s): not expected\n", sm->spec);
			rc = HPM_EXIT_FAIL;
		}
		if (rc)
			return rc;
	}
	if (sm->sel) {
		rc = hpm_msel__bind(sm->sel, list, sm->first);
		if (rc) {
			fprintf(stderr, "hpmon stat: cannot bind the metrics: %s\n",
				hpm_strerror(rc));
			return HPM_EXIT_FAIL;
		}
		n = hpm_msel__count(sm->sel);
	}
	free(r->metrics);
	r->metrics = calloc(n ? n : 1, sizeof(*r->metrics));
	if (!r->metrics)
		return HPM_EXIT_FAIL;
	r->nr_metrics = n;
	for (size_t i = 0; i < n; i++) {
		const struct hpm_metric *m = hpm_msel__metric(sm->sel, i);
		struct stat_metric *sm_ = &r->metrics[i];
		sm_->name = hpm_metric__name(m);
		sm_->unit = hpm_msel__unit(sm->sel, i);
		sm_->desc = hpm_metric__desc(m);
		sm_->groups = hpm_metric__groups(m);
		sm_->form = hpm_metric__form(m);
		sm_->anchor = hpm_msel__anchor(sm->sel, i);
		sm_->dflt = hpm_msel__is_bound_only(sm->sel, i);
		sm_->perf = !strncmp(hpm_metric__origin(m), "data/vendor/", 12);
		hpm_value__na(&sm_->v, "not computed yet");
	}
	/* what the machine says of itself, only for a metric shown that
	 * needs it (once: -r binds again) */
	if (sm->sel && !sm->num_cpus && hpm_msel__uses(sm->sel, "num_cpus")) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		sm->num_cpus = cpus > 0 ? (int)cpus : -1; /* -1: not known */
	}
	if (sm->sel && !sm->cpu_hz && hpm_msel__uses(sm->sel, "cpu_hz")) {
		double hz = read_cpu_hz(sm->ctx);
		sm->cpu_hz = hz > 0 ? hz : -1;
	}
	r->per_second = sm->per_second;
	r->per_kinst = sm->per_kinst;
	r->notes = sm->notes;
	r->nr_notes = sm->nr_notes;
	mark_derived(r, list);
	return 0;
}

/* An event's count as a metric input: scaled, times its sysfs scale. */
static void input(const struct stat_event *e, const struct hpm_count *c, double sigma,
		  struct hpm_value *v)
{
	if (c->err) {
		/* the advice's first clause: "this machine exposes no hardware PMU" */
		const char *why = e->reason[0] ? e->reason : hpm_strerror(c->err);
		size_t n = strcspn(why, "(:;");
		while (n && why[n - 1] == ' ')
			n--;
		hpm_value__na(v, "not supported (%.*s)", (int)n, why);
		return;
	}
	if (!c->running) {
		hpm_value__na(v, "never counted (its group never got a counter)");
		return;
	}
	hpm_value__set(v, hpm_count__scaled(c) * e->scale, sigma * e->scale);
}

/* Uncertainty of a row's count: exact unless multiplexed, then unknown. */
static double row_sigma(const struct hpm_count *c)
{
	return c->running < c->enabled ? NAN : 0;
}

static void per_unit(const struct hpm_value *x, double base, double base_sigma,
		     const char *what, struct hpm_value *out)
{
	if (x->na) {
		*out = *x;
		return;
	}
	if (!(base > 0)) {
		hpm_value__na(out, "%s is 0 or unknown", what);
		return;
	}
	/* v = x / base: sigma^2 = (sigma_x / base)^2 + (v * sigma_base / base)^2 */
	double v = x->value / base;
	double a = x->sigma / base, b = v * base_sigma / base;
	hpm_value__set(out, v, sqrt(a * a + b * b));
}

/* The instructions event --per-kinst divides event @i by: on a hybrid CPU
 * those of @i's own core PMU (cpu_atom/cycles/ by cpu_atom/instructions/),
 * else the first counted. */
static size_t kinst_of(const struct stat_report *r, const struct stat_metrics *sm, size_t i)
{
	for (size_t k = 0; k < r->nr_ev && r->ev[i].pmu; k++)
		if (r->ev[k].type == PERF_TYPE_HARDWARE &&
		    r->ev[k].config == PERF_COUNT_HW_INSTRUCTIONS && r->ev[k].pmu &&
		    !strcmp(r->ev[k].pmu, r->ev[i].pmu))
			return k;
	return sm->kinst;
}

/* Derived presets and per-second / per-kinst values of one set of counts. */
static void fold(const struct stat_report *r, const struct stat_metrics *sm,
		 const struct hpm_count *cs, size_t stride, const struct hpm_count *row_mc,
		 const double *sig,
		 struct hpm_value *in, double *dval, struct hpm_count *dc,
		 struct hpm_value *per_sec, struct hpm_value *per_kinst, double secs)
{
	for (size_t i = 0; i < r->nr_ev; i++) {
		const struct hpm_count *c = (const struct hpm_count *)((const char *)cs + i * stride);
		input(&r->ev[i], c, sig ? sig[i] : row_sigma(c), &in[i]);
	}
	for (size_t i = 0; i < r->nr_ev; i++) {
		const struct stat_event *e = &r->ev[i];
		struct hpm_value x = in[i];
		if (e->derived) {
			struct hpm_count m = { .running = UINT64_MAX };
			double sum = 0, var = 0;
			bool na = false;
			char why[sizeof(x.reason)] = "";
			for (int k = 0; k < e->derived; k++) {
				const struct hpm_count *c =
					(const struct hpm_count *)((const char *)cs + (i + (size_t)k) * stride);
				if (in[i + (size_t)k].na && !na) {
					na = true;
					snprintf(why, sizeof(why), "%s", in[i + (size_t)k].reason);
				}
				if (c->err && !m.err)
					m.err = c->err;
				if (c->running < m.running)
					m.running = c->running;
				if (c->enabled > m.enabled)
					m.enabled = c->enabled;
				sum += r->ev[i + (size_t)k].sign * in[i + (size_t)k].value;
				var += in[i + (size_t)k].sigma * in[i + (size_t)k].sigma;
			}
			if (m.running == UINT64_MAX)
				m.running = 0;
			dval[i] = sum;
			dc[i] = m;
			if (na)
				hpm_value__na(&x, "%s", why);
			else
				hpm_value__set(&x, sum, sqrt(var));
		}
		if (e->merged) {
			/* a merged line's rates are of the instances' sum */
			const struct hpm_count *mc = row_mc ? &row_mc[i] : &e->mc;
			input(e, mc, sig ? e->msigma : row_sigma(mc), &x);
		}
		if (r->per_second)
			per_unit(&x, secs, 0, "the time counted", &per_sec[i]);
		if (r->per_kinst) {
			size_t ki = kinst_of(r, sm, i);
			if (ki >= r->nr_ev || in[ki].na)
				hpm_value__na(&per_kinst[i], "instructions: %s",
					      ki < r->nr_ev ? in[ki].reason : "not counted");
			else
				per_unit(&x, in[ki].value / 1000, in[ki].sigma / 1000,
					 "instructions", &per_kinst[i]);
		}
	}
}

/* The covariance of events @a and @b's values (scaled counts times their
 * scales), from the run's slices (stat_report.cov). Merged uncore lines
 * and derived presets sum several counts: independent. */
static double event_cov(void *arg, size_t a, size_t b)
{
	const struct stat_report *r = arg;
	const struct stat_event *ea = &r->ev[a], *eb = &r->ev[b];
	if (ea->merged || eb->merged || ea->derived || eb->derived)
		return 0;
	double c = r->cov[a * r->nr_ev + b];
	return isfinite(c) ? c * ea->scale * eb->scale : NAN;
}

void stat_metrics_compute(struct stat_metrics *sm, struct stat_report *r)
{
	struct hpm_value *in = calloc(r->nr_ev ? r->nr_ev : 1, sizeof(*in));
	struct hpm_value *mv = calloc(r->nr_metrics ? r->nr_metrics : 1, sizeof(*mv));
	double *sig = calloc(r->nr_ev ? r->nr_ev : 1, sizeof(double));
	double *dval = calloc(r->nr_ev ? r->nr_ev : 1, sizeof(double));
	struct hpm_count *dc = calloc(r->nr_ev ? r->nr_ev : 1, sizeof(*dc));
	struct hpm_value *ps = calloc(r->nr_ev ? r->nr_ev : 1, sizeof(*ps));
	struct hpm_value *pk = calloc(r->nr_ev ? r->nr_ev : 1, sizeof(*pk));
	double secs = (double)(r->interval ? r->span_ns : r->elapsed_ns) / 1e9;
	struct hpm_metric_env env = {
		.sz = sizeof(env),
		.events = in,
		.nr_events = r->nr_ev,
		.duration_s = secs,
		.interval_s = r->interval ? (double)r->interval_ns / 1e9 : 0,
		.num_cpus = sm->num_cpus,
		.cpu_hz = sm->cpu_hz,
		/* the totals' events of one group share their slices (not with
		 * -r, whose uncertainty is over runs) */
		.cov = r->cov && r->runs <= 1 ? event_cov : NULL,
		.cov_arg = r,
	};

	if (!in || !mv || !sig || !dval || !dc || !ps || !pk)
		goto out;
	for (size_t i = 0; i < r->nr_ev; i++)
		sig[i] = r->ev[i].sigma;
	/* totals */
	fold(r, sm, &r->ev[0].c, sizeof(r->ev[0]), NULL, sig, in, dval, dc, ps, pk, secs);
	for (size_t i = 0; i < r->nr_ev; i++) {
		if (r->ev[i].derived) {
			r->ev[i].dval = dval[i];
			r->ev[i].dc = dc[i];
		}
		r->ev[i].per_sec = ps[i];
		r->ev[i].per_kinst = pk[i];
	}
	if (sm->sel)
		hpm_msel__eval(sm->sel, &env, mv);
	for (size_t k = 0; k < r->nr_metrics; k++)
		r->metrics[k].v = mv[k];
	env.cov = NULL; /* rows: no slices of their own */
	/* rows */
	for (size_t k = 0; k < r->nr_rows; k++) {
		struct stat_row *row = &r->rows[k];
		if (!row->mv)
			row->mv = calloc(r->nr_metrics ? r->nr_metrics : 1, sizeof(*row->mv));
		if (!row->per_sec)
			row->per_sec = calloc(r->nr_ev, sizeof(*row->per_sec));
		if (!row->per_kinst)
			row->per_kinst = calloc(r->nr_ev, sizeof(*row->per_kinst));
		if (!row->dval)
			row->dval = calloc(r->nr_ev, sizeof(*row->dval));
		if (!row->dc)
			row->dc = calloc(r->nr_ev, sizeof(*row->dc));
		if (!row->mv || !row->per_sec || !row->per_kinst || !row->dval || !row->dc)
			continue;
		if (!row->mc && r->nr_ev && !(row->mc = calloc(r->nr_ev, sizeof(*row->mc))))
			continue;
		fold(r, sm, row->c, sizeof(row->c[0]), row->mc, NULL, in, row->dval, row->dc,
		     row->per_sec, row->per_kinst, secs);
		if (sm->sel)
			hpm_msel__eval(sm->sel, &env, row->mv);
	}
out:
	free(in);
	free(mv);
	free(sig);
	free(dval);
	free(dc);
	free(ps);
	free(pk);
}
