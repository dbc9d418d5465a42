/* SPDX-License-Identifier: MIT */
/*
 * hpmon serve's counting side: one session on the CPUs (HPM_TARGET_CPUS,
 * as `stat -a`), kept open and read at every scrape; or, with
 * --per-process or --per-cgroup, the accounting per task (serve-tasks.c),
 * which gives the per-CPU counts as well. Counters must never
 * go down, or Prometheus takes it for a restart: a multiplexed count is
 * scaled (value * enabled / running), and the estimate can fall a little
 * when the event gets more time, so each series shows the largest value
 * it has shown so far. The -M metrics are evaluated over the time since
 * the previous scrape, from the differences of the totals.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hpmon/hpmon.h>
#include <hpmon/metric.h>
#include <hpmon/session.h>
#include "output/advice.h"
#include "output/exit.h"
#include "counting/metric-args.h"
#include "serve/serve.h"

struct serve_count {
	struct hpm_ctx *ctx;
	struct hpm_evlist *list;
	struct hpm_session *s;
	struct hpm_metricset *ms;
	struct hpm_msel *sel;
	size_t nr_ev;
	struct serve_event *ev;
	struct serve_tasks *tasks;    /* per process or cgroup, else NULL */
	struct serve_rows cpus;       /* the one row set */
	struct serve_set sets[2];     /* per process, per cgroup */
	struct serve_metric *metrics;
	size_t nr_metrics;
	double *prev_total;           /* totals at the previous scrape (metric inputs) */
	double *step_total;           /* the accounting's increase over the step */
	uint64_t prev_ns;
	struct serve_snap snap;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void serve_count__free(struct serve_count *sc)
{
	if (!sc)
		return;
	hpm_session__free(sc->s);
	serve_tasks__free(sc->tasks);
	hpm_msel__free(sc->sel);
	hpm_metricset__free(sc->ms);
	hpm_evlist__free(sc->list);
	free(sc->ev);
	free(sc->cpus.key);
	free(sc->cpus.val);
	free(sc->cpus.ratio);
	free(sc->cpus.ok);
	free(sc->metrics);
	free(sc->prev_total);
	free(sc->step_total);
	free(sc);
}

size_t serve_count__nr_cpus(const struct serve_count *sc)
{
	return sc->cpus.nr;
}

bool serve_count__per_task(const struct serve_count *sc)
{
	return sc->tasks != NULL;
}

/* The unit an event's count is shown in, into @buf, and the factor to get
 * there: clocks count ns and are shown in seconds; a sysfs event with a
 * unit (power/energy-pkg/: Joules) is its count times its scale. */
static double event_unit(const struct hpm_event *ev, char *buf, size_t len)
{
	const char *u = hpm_event__unit(ev);
	size_t n = 0;
	buf[0] = '\0';
	if (hpm_event__is_clock(ev)) {
		snprintf(buf, len, "seconds");
		return 1e-9;
	}
	if (!u[0])
		return 1;
	for (; *u && n + 1 < len; u++)
		buf[n++] = (*u >= 'A' && *u <= 'Z') ? (char)(*u - 'A' + 'a') :
			   ((*u >= 'a' && *u <= 'z') || (*u >= '0' && *u <= '9')) ? *u : '_';
	buf[n] = '\0';
	return hpm_event__scale(ev);
}

/* Parse the events and add the ones the metrics need. */
static int make_list(struct serve_count *sc, const struct serve_count_opts *o, size_t *first)
{
	struct hpm_parse_error err;
	char *spec = NULL;
	int rc = hpm_evlist__parse(sc->ctx, o->events, &sc->list, &err);
	if (rc)
		return advice_parse_usage("serve", o->events, &err);
	*first = hpm_evlist__count(sc->list);
	if (!o->metrics || !metric_args_any(o->metrics))
		return HPM_EXIT_OK;
	rc = metric_args_load(sc->ctx, "serve", o->metrics, &sc->ms, &sc->sel);
	if (rc)
		return rc;
	struct hpm_plan_opts po = { .sz = sizeof(po), .nr_general = 0, .nr_fixed = -1 };
	rc = hpm_msel__plan(sc->sel, &po, &spec);
	if (rc) {
		fprintf(stderr, "hpmon serve: cannot plan the metrics' events: %s\n",
			hpm_strerror(rc));
		return HPM_EXIT_FAIL;
	}
	for (size_t i = 0; i < hpm_msel__nr_notes(sc->sel); i++)
		fprintf(stderr, "hpmon serve: %s\n", hpm_msel__note(sc->sel, i));
	if (spec[0] && hpm_evlist__add_flags(sc->list, spec, HPM_EVLIST_MAIN_CORE, &err)) {
		advice_parse(stderr, spec, &err);
		free(spec);
		return HPM_EXIT_FAIL;
	}
	free(spec);
	return HPM_EXIT_OK;
}

/* Why the accounting could not be opened (one group per CPU: every event
 * or none). */
static int tasks_failed(struct serve_count *sc, int err, size_t bad)
{
	const struct hpm_event *ev = hpm_evlist__event(sc->list, bad == SIZE_MAX ? 0 : bad);
	char why[320];
	if (err == -EOPNOTSUPP && bad != SIZE_MAX &&
	    (hpm_event__kind(ev) == HPM_EV_LOCATION || hpm_event__kind(ev) == HPM_EV_SWCOUNTER)) {
		fprintf(stderr, "hpmon serve: '%s' counts in one program and cannot be counted "
			"system-wide per task: drop it\n", hpm_event__name(ev));
		return advice_usage_end("serve");
	}
	advice_open(sc->ctx, ev, err, ADVICE_SYSTEM, why, sizeof(why));
	if (bad == SIZE_MAX)
		fprintf(stderr, "hpmon serve: cannot count every task of the machine: %s\n", why);
	else
		fprintf(stderr, "hpmon serve: cannot count '%s' on every CPU (each task's share "
			"needs every event in one group; drop it, or serve without "
			"--per-process/--per-cgroup): %s\n", hpm_event__name(ev), why);
	return HPM_EXIT_FAIL;
}

static int open_tasks(struct serve_count *sc, const struct serve_count_opts *o)
{
	struct serve_tasks_opts to = {
		.cpus = o->cpus, .nr_cpus = o->nr_cpus,
		.per_process = o->per_process, .per_cgroup = o->per_cgroup,
		.sel = sc->sel,
	};
	size_t bad;
	int rc = serve_tasks__new(sc->list, &to, &sc->tasks, &bad);
	return rc ? tasks_failed(sc, rc, bad) : HPM_EXIT_OK;
}

static int open_session(struct serve_count *sc, const struct serve_count_opts *o)
{
	struct hpm_session_opts so = {
		.sz = sizeof(so),
		.target = HPM_TARGET_CPUS,
		.cpus = o->cpus,
		.nr_cpus = o->nr_cpus,
	};
	char why[320];

	sc->s = hpm_session__new(sc->list, &so);
	if (!sc->s) {
		fprintf(stderr, "hpmon serve: cannot set up counting: %s\n", hpm_strerror(-errno));
		return HPM_EXIT_FAIL;
	}
	int rc = hpm_session__open(sc->s);
	for (size_t i = 0; i < sc->nr_ev; i++) {
		const struct hpm_event *ev = hpm_evlist__event(sc->list, i);
		int e = rc && i == 0 ? rc : hpm_session__event_error(sc->s, i);
		if (!e)
			continue;
		sc->ev[i].err = e;
		advice_open(sc->ctx, ev, e, ADVICE_SYSTEM, why, sizeof(why));
		fprintf(stderr, "hpmon serve: %s '%s': %s\n", rc ? "cannot count" : "not counting",
			hpm_event__name(ev), why);
		if (rc)
			return HPM_EXIT_FAIL;
	}
	rc = hpm_session__enable(sc->s);
	if (rc) {
		fprintf(stderr, "hpmon serve: cannot start counting: %s\n", hpm_strerror(rc));
		return HPM_EXIT_FAIL;
	}
	return HPM_EXIT_OK;
}

/* Exposition names; an event whose name repeats an earlier one's (a
 * metric's event that the list already had) is counted but not shown. */
static void name_events(struct serve_count *sc)
{
	for (size_t i = 0; i < sc->nr_ev; i++) {
		const struct hpm_event *ev = hpm_evlist__event(sc->list, i);
		struct serve_event *e = &sc->ev[i];
		e->event = hpm_event__name(ev);
		e->factor = event_unit(ev, e->unit, sizeof(e->unit));
		serve_expo_name(e->name, sizeof(e->name), e->event, e->unit);
		e->shown = true;
		for (size_t k = 0; k < i; k++)
			if (!strcmp(sc->ev[k].name, e->name))
				e->shown = false;
	}
}

int serve_count__new(struct hpm_ctx *ctx, const struct serve_count_opts *o,
		     struct serve_count **out)
{
	struct serve_count *sc = calloc(1, sizeof(*sc));
	size_t first = 0;
	int rc;

	*out = NULL;
	if (!sc)
		return HPM_EXIT_FAIL;
	sc->ctx = ctx;
	rc = make_list(sc, o, &first);
	if (rc)
		goto fail;
	sc->nr_ev = hpm_evlist__count(sc->list);
	sc->ev = calloc(sc->nr_ev, sizeof(*sc->ev));
	sc->prev_total = calloc(sc->nr_ev, sizeof(*sc->prev_total));
	rc = HPM_EXIT_FAIL;
	if (!sc->ev || !sc->prev_total)
		goto fail;
	name_events(sc);
	if (sc->sel && hpm_msel__bind(sc->sel, sc->list, first)) {
		fprintf(stderr, "hpmon serve: cannot bind the metrics to their events\n");
		goto fail;
	}
	rc = o->per_process || o->per_cgroup ? open_tasks(sc, o) : open_session(sc, o);
	if (rc)
		goto fail;
	sc->prev_ns = mono_ns();

	size_t nc = sc->tasks ? serve_tasks__nr_cpus(sc->tasks) : hpm_session__nr_cpus(sc->s);
	size_t ne = sc->nr_ev;
	sc->cpus.label = "cpu";
	sc->cpus.nr = nc;
	sc->cpus.key = calloc(nc ? nc : 1, sizeof(*sc->cpus.key));
	sc->cpus.val = calloc(nc * ne + 1, sizeof(double));
	sc->cpus.ratio = calloc(nc * ne + 1, sizeof(double));
	sc->cpus.ok = calloc(nc * ne + 1, sizeof(bool));
	sc->nr_metrics = sc->sel ? hpm_msel__count(sc->sel) : 0;
	sc->metrics = calloc(sc->nr_metrics + 1, sizeof(*sc->metrics));
	sc->step_total = calloc(ne + 1, sizeof(double));
	rc = HPM_EXIT_FAIL;
	if (!sc->cpus.key || !sc->cpus.val || !sc->cpus.ratio || !sc->cpus.ok || !sc->metrics ||
	    !sc->step_total)
		goto fail;
	for (size_t c = 0; c < nc; c++)
		snprintf(sc->cpus.key[c], sizeof(sc->cpus.key[c]), "%d",
			 sc->tasks ? serve_tasks__cpu(sc->tasks, c) : hpm_session__cpu(sc->s, c));
	for (size_t m = 0; m < sc->nr_metrics; m++) {
		const struct hpm_metric *hm = hpm_msel__metric(sc->sel, m);
		struct serve_metric *sm = &sc->metrics[m];
		char what[192];
		snprintf(what, sizeof(what), "metric_%s", hpm_metric__name(hm));
		serve_expo_name(sm->name, sizeof(sm->name), what, "");
		sm->metric = hpm_metric__name(hm);
		sm->unit = hpm_msel__unit(sc->sel, m);
		sm->desc = hpm_metric__desc(hm);
	}
	sc->snap.start_time = (double)time(NULL);
	*out = sc;
	return HPM_EXIT_OK;
fail:
	serve_count__free(sc);
	return rc;
}

/* The -M metrics over the time since the previous read. */
static int eval_metrics(struct serve_count *sc, uint64_t now)
{
	struct hpm_value *in = calloc(sc->nr_ev + 1, sizeof(*in));
	struct hpm_value *mv = calloc(sc->nr_metrics + 1, sizeof(*mv));
	int rc = -ENOMEM;

	if (!in || !mv)
		goto out;
	for (size_t i = 0; i < sc->nr_ev; i++) {
		const struct hpm_event *ev = hpm_evlist__event(sc->list, i);
		struct hpm_count c;
		if (sc->tasks) {
			/* exact: one group, every task's share of it */
			hpm_value__set(&in[i], sc->step_total[i] * hpm_event__scale(ev), 0);
			continue;
		}
		if (hpm_session__read(sc->s, i, &c) || c.err) {
			hpm_value__na(&in[i], "not counted here");
			continue;
		}
		double total = hpm_count__scaled(&c) * hpm_event__scale(ev);
		/* multiplexed: an estimate, of unknown uncertainty */
		hpm_value__set(&in[i], total - sc->prev_total[i], c.running < c.enabled ? NAN : 0);
		sc->prev_total[i] = total;
	}
	struct hpm_metric_env env = {
		.sz = sizeof(env),
		.events = in,
		.nr_events = sc->nr_ev,
		.duration_s = (double)(now - sc->prev_ns) / 1e9,
		.num_cpus = (int)sc->cpus.nr,
	};
	hpm_msel__eval(sc->sel, &env, mv);
	for (size_t m = 0; m < sc->nr_metrics; m++) {
		struct serve_metric *sm = &sc->metrics[m];
		sm->ok = !mv[m].na && isfinite(mv[m].value);
		sm->value = mv[m].value;
		snprintf(sm->why, sizeof(sm->why), "%s", mv[m].na ? mv[m].reason : "not finite");
	}
	rc = 0;
out:
	free(in);
	free(mv);
	return rc;
}

int serve_count__drain(struct serve_count *sc)
{
	if (!sc->tasks)
		return 0;
	/* no scrape for long on a machine that forks a lot: a step, unseen,
	 * renews the accounting before it reaches its limit */
	if (serve_tasks__full(sc->tasks) && !serve_count__read(sc))
		return -errno;
	return serve_tasks__drain(sc->tasks);
}

/* The per-CPU counts of the session. */
static void read_cpus(struct serve_count *sc)
{
	struct serve_rows *r = &sc->cpus;
	for (size_t c = 0; c < r->nr; c++) {
		for (size_t i = 0; i < sc->nr_ev; i++) {
			size_t k = c * sc->nr_ev + i;
			struct hpm_count cnt;
			if (sc->ev[i].err || hpm_session__read_cpu(sc->s, i, c, &cnt) || cnt.err ||
			    !cnt.enabled) {
				/* not open on this CPU (its PMU counts elsewhere), or not yet */
				r->ok[k] = r->ok[k] && !sc->ev[i].err;
				continue;
			}
			double v = hpm_count__scaled(&cnt) * sc->ev[i].factor;
			if (!r->ok[k] || v > r->val[k])
				r->val[k] = v;
			r->ratio[k] = (double)cnt.running / (double)cnt.enabled;
			r->ok[k] = true;
		}
	}
	sc->snap.lost = hpm_session__lost(sc->s);
}

const struct serve_snap *serve_count__read(struct serve_count *sc)
{
	uint64_t now = mono_ns();

	sc->snap.nr_sets = 0;
	if (sc->tasks) {
		int rc = serve_tasks__read(sc->tasks, sc->ev, &sc->cpus, &sc->snap.lost,
					   sc->step_total, sc->sets, &sc->snap.nr_sets);
		if (rc) {
			errno = rc == -ENOMEM ? ENOMEM : EIO;
			return NULL;
		}
	} else {
		read_cpus(sc);
	}
	if (sc->nr_metrics && eval_metrics(sc, now)) {
		errno = ENOMEM;
		return NULL;
	}
	sc->prev_ns = now;
	sc->snap.ev = sc->ev;
	sc->snap.nr_ev = sc->nr_ev;
	sc->snap.rows = &sc->cpus;
	sc->snap.nr_rows = 1;
	sc->snap.metrics = sc->metrics;
	sc->snap.nr_metrics = sc->nr_metrics;
	sc->snap.sets = sc->sets;
	sc->snap.one_ratio = sc->tasks != NULL;
	return &sc->snap;
}
