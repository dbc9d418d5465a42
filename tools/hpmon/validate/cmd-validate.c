/* SPDX-License-Identifier: MIT */
/*
 * hpmon validate: count events around microbenchmarks whose answers are
 * known in advance (validate-bench.c, validate-checks.c), and say for each
 * event whether it is exact, within a tolerance, biased, broken or not
 * supported here.
 *
 * Each event is measured alone (no multiplexing) in this thread around
 * the benchmark run with n and with 2n units of work; the difference is
 * n units' count, with everything else (hpmon's own enabling and reading,
 * the benchmark's entry and exit, the loop's set-up) cancelled out. That
 * is Weaver's calibration against the same code run without the work. It
 * is repeated to tell whether the event is deterministic.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <hpmon/hpmon.h>
#include <hpmon/counters.h>
#include <hpmon/event.h>
#include <hpmon/sysinfo.h>
#include "output/advice.h"
#include "builtin.h"
#include "output/json.h"
#include "validate/validate.h"

#define MAX_REPEATS 16
#define MAX_WANTED 64

struct vopts {
	bool json, quick, list, calibrate;
	const char *output;
	int repeats;
	char *wanted[MAX_WANTED]; /* -e names, split */
	bool used[MAX_WANTED];
	size_t nr_wanted;
};

static const char *const verdict_names[] = { "exact", "within", "biased", "broken",
					     "not supported", "not delivered by this host" };

struct vresult {
	const struct vcheck *c;
	const struct vbench *b;
	char event[96];
	struct vjudgement j;
	char reason[384];     /* why not supported, or a note */
	uint64_t units;
	int repeats;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hpmon validate [-e EVENTS] [--quick] [--json] [-r N] [--list]\n"
		"       hpmon validate --calibrate [-o FILE] [--json] [-r N]\n\n"
		"Count events around microbenchmarks whose counts are known in advance\n"
		"(loops of known length, branches on random bits, pointer chases over\n"
		"each cache level, page faults, sleeps, breakpoint hits) and judge each\n"
		"event: exact, within a tolerance, biased (with the bias per unit of\n"
		"work), broken, or not supported (with the reason).\n\n"
		"  -e, --event EVENTS  only these events (as --list spells them)\n"
		"  -r, --repeat N      measure each event N times (default 5, 3 with --quick)\n"
		"      --quick         fewer units of work: under 10 seconds\n"
		"      --json          the whole table as one JSON object\n"
		"      --list          the checks, their benchmarks and events\n"
		"      --calibrate     measure this machine's latencies and costs (caches,\n"
		"                      memory, page walks, mispredictions) into the costs\n"
		"                      file `-M cost` uses for this CPU model, in\n"
		"                      $XDG_DATA_HOME/hpmon (~/.local/share/hpmon)\n"
		"  -o, --output FILE   --calibrate writes FILE instead\n"
		"  -h, --help          this help\n\n"
		"Exit status: 0 when no event is broken (events this host does not support or\n"
		"deliver are listed with the reason), 1 when an event is broken or a benchmark\n"
		"could not be set up, 129 for a bad option. See docs/hpmon-validate.md.\n");
}

static int parse_events(struct vopts *o, char *arg)
{
	char *save = NULL;
	for (char *t = strtok_r(arg, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (o->nr_wanted == MAX_WANTED) {
			return advice_usage("validate", "more than %d events in -e", MAX_WANTED);
		}
		o->wanted[o->nr_wanted++] = t;
	}
	return 0;
}

static int parse_opts(int argc, char **argv, struct vopts *o)
{
	static const struct option lo[] = {
		{ "event", required_argument, NULL, 'e' }, { "repeat", required_argument, NULL, 'r' },
		{ "quick", no_argument, NULL, 'q' },       { "json", no_argument, NULL, 'j' },
		{ "list", no_argument, NULL, 'l' },        { "help", no_argument, NULL, 'h' },
		{ "calibrate", no_argument, NULL, 'C' },   { "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	char *end;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":e:r:o:h", lo, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (parse_events(o, optarg))
				return -1;
			break;
		case 'r': {
			long v = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end || v < 1 || v > MAX_REPEATS) {
				return advice_usage("validate", "-r takes 1 to %d, not '%s'",
						    MAX_REPEATS, optarg);
			}
			o->repeats = (int)v;
			break;
		}
		case 'q': o->quick = true; break;
		case 'j': o->json = true; break;
		case 'l': o->list = true; break;
		case 'C': o->calibrate = true; break;
		case 'o': o->output = optarg; break;
		case 'h': usage(stdout); exit(0);
		case ':':
			return advice_usage("validate", "option '%s' needs a value", argv[optind - 1]);
		default:
			return advice_usage("validate", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc) {
		return advice_usage("validate", "unexpected argument '%s' (validate runs its own "
				    "benchmarks, not a command)", argv[optind]);
	}
	if (!o->repeats)
		o->repeats = o->quick ? 3 : 5;
	if (o->output && !o->calibrate) {
		return advice_usage("validate", "-o is for --calibrate's costs file");
	}
	if (o->calibrate && (o->nr_wanted || o->list)) {
		return advice_usage("validate", "--calibrate measures costs, not events: drop "
				    "-e and --list");
	}
	return 0;
}

/* The event's spelling with the breakpoint's address filled in. */
static void spell(const char *tmpl, char *buf, size_t len)
{
	const char *at = strstr(tmpl, "{target}");
	if (!at) {
		snprintf(buf, len, "%s", tmpl);
		return;
	}
	snprintf(buf, len, "%.*s%#lx%s", (int)(at - tmpl), tmpl,
		 (unsigned long)(uintptr_t)hpm_validate_target, at + strlen("{target}"));
}

/* Whether the user's name @w means the check's spelling @tmpl: equal, or
 * equal but for the :u the suite adds, case aside. */
static bool names(const char *w, const char *tmpl)
{
	size_t lw = strlen(w), lt = strlen(tmpl);
	if (lt > 2 && !strcmp(tmpl + lt - 2, ":u") && lw == lt - 2)
		return !strncasecmp(w, tmpl, lw);
	return !strcasecmp(w, tmpl) ||
	       (!strcmp(tmpl, "mem:{target}:x") && !strcasecmp(w, "breakpoint"));
}

/* -1 when @tmpl is not wanted; otherwise the index of -e's name, or
 * MAX_WANTED when there is no -e. */
static int wanted(struct vopts *o, const char *tmpl)
{
	if (!o->nr_wanted)
		return MAX_WANTED;
	for (size_t i = 0; i < o->nr_wanted; i++)
		if (names(o->wanted[i], tmpl))
			return (int)i;
	return -1;
}

/* One measured run of @units: the event's count, or -errno. */
static int measure(struct hpm_eventset *es, const struct vbench *b, struct vstate *st,
		   uint64_t units, uint64_t *count, bool *scaled)
{
	struct hpm_count c;
	int rc;

	st->extra = 0;
	rc = hpm_eventset__start(es);
	if (rc)
		return rc;
	b->run(st, units);
	rc = hpm_eventset__stop(es);
	if (!rc)
		rc = hpm_eventset__read(es, &c);
	if (rc)
		return rc;
	if (c.running != c.enabled)
		*scaled = true;
	*count = c.value;
	return 0;
}

/* Measure @res's event around its benchmark, whose state is @st. */
static void run_check(struct hpm_ctx *ctx, const struct vopts *o, struct vresult *res,
		      struct vstate *st)
{
	struct hpm_eventset_opts eo = { .sz = sizeof(eo), .no_group = true };
	struct hpm_parse_error perr;
	struct hpm_eventset *es;
	int open_errno;
	uint64_t val[MAX_REPEATS], m1 = 0, m2 = 0, warm;
	double exp[MAX_REPEATS];
	bool scaled = false;
	int rc = 0;

	if (!strncmp(res->c->events[0], "mem:{target}", 12)) {
		/* a breakpoint opens on hosts where it never fires: as measured */
		struct hpm_bp_fact f = hpm_sysinfo__breakpoints(ctx, HPM_BP_EXEC);
		if (f.fires == HPM_NO) {
			res->j.v = V_NOT_DELIVERED;
			snprintf(res->j.detail, sizeof(res->j.detail), "%s",
				 verdict_names[V_NOT_DELIVERED]);
			snprintf(res->reason, sizeof(res->reason), "hardware breakpoints do not "
				 "fire on this host (one on hpmon's own code counted %u of %u uses; "
				 "perf's mem: events count 0 here too): see 'hpmon diag'",
				 f.counted, f.used);
			return;
		}
	}
	es = hpm_eventset__new(ctx, res->event, &eo, &perr);
	open_errno = errno;
	if (!es) {
		struct hpm_evlist *list = NULL;
		struct hpm_parse_error pe2;
		res->j.v = V_UNSUPPORTED;
		snprintf(res->j.detail, sizeof(res->j.detail), "not supported");
		if (!hpm_evlist__parse(ctx, res->event, &list, &pe2) &&
		    hpm_evlist__count(list) > 0)
			advice_open(ctx, hpm_evlist__event(list, 0), perr.err ? perr.err : -open_errno,
				    ADVICE_COMMAND, res->reason, sizeof(res->reason));
		else
			snprintf(res->reason, sizeof(res->reason), "%s", perr.msg);
		hpm_evlist__free(list);
		return;
	}
	/* once unmeasured: pages faulted in, caches and predictors warm */
	rc = measure(es, res->b, st, res->units, &warm, &scaled);
	for (int i = 0; !rc && i < o->repeats; i++) {
		uint64_t e1, e2;
		rc = measure(es, res->b, st, res->units, &m1, &scaled);
		e1 = st->extra;
		if (!rc)
			rc = measure(es, res->b, st, 2 * res->units, &m2, &scaled);
		e2 = st->extra;
		val[i] = m2 >= m1 ? m2 - m1 : 0;
		exp[i] = res->c->per_unit * (double)res->units +
			 (res->c->add_extra ? (double)e2 - (double)e1 : 0);
	}
	hpm_eventset__free(es);
	if (rc) {
		res->j.v = V_UNSUPPORTED;
		snprintf(res->j.detail, sizeof(res->j.detail), "not supported");
		snprintf(res->reason, sizeof(res->reason), "reading it failed: %s",
			 hpm_strerror(rc));
		return;
	}
	res->repeats = o->repeats;
	vjudge(res->c, res->b->unit, res->units, val, exp, o->repeats, &res->j);
	if (scaled)
		snprintf(res->reason, sizeof(res->reason),
			 "it was multiplexed (not on a counter all the time)");
}

static void list_checks(void)
{
	printf("%-26s %-14s %-13s %s\n", "CHECK", "BENCHMARK", "ANSWER", "EVENTS");
	for (size_t i = 0; i < vchecks_nr; i++) {
		const struct vcheck *c = &vchecks[i];
		const struct vbench *b = vbench__find(c->bench);
		char ans[32];
		if (c->add_extra && c->per_unit == 0)
			snprintf(ans, sizeof(ans), "rusage's");
		else
			snprintf(ans, sizeof(ans), "%g/%s", c->per_unit, b ? b->unit : "unit");
		printf("%-26s %-14s %-13s", c->what, c->bench, ans);
		for (size_t e = 0; e < sizeof(c->events) / sizeof(c->events[0]) && c->events[e]; e++)
			printf("%s%s", e ? ", " : " ",
			       strcmp(c->events[e], "mem:{target}:x") ? c->events[e] : "breakpoint");
		printf("\n");
	}
}

/* The reasons events are not supported, each printed once under the
 * table and referred to by number: on a machine without a PMU they are
 * all the same sentence. */
static size_t footnote(const char **notes, size_t *nr, const char *reason)
{
	for (size_t i = 0; i < *nr; i++)
		if (!strcmp(notes[i], reason))
			return i + 1;
	notes[(*nr)++] = reason;
	return *nr;
}

static void print_table(const struct vresult *r, size_t n, const struct vopts *o)
{
	const char **notes = calloc(n ? n : 1, sizeof(*notes));
	size_t nr_notes = 0;
	struct utsname u;

	if (!notes)
		return;
	if (uname(&u))
		snprintf(u.machine, sizeof(u.machine), "?");
	printf("hpmon validate: %zu events on %s, each measured alone %d times over n and "
	       "2n units%s\n\n",
	       n, u.machine, o->repeats, o->quick ? " (quick)" : "");
	printf("%-26s %-30s %10s %10s %9s  %s\n", "CHECK", "EVENT", "EXPECTED", "MEASURED",
	       "ERROR", "VERDICT");
	for (size_t i = 0; i < n; i++) {
		const struct vresult *x = &r[i];
		char ev[96], e[24], unit[40];
		snprintf(ev, sizeof(ev), "%s", x->event);
		if (!strncmp(x->c->events[0], "mem:{target}", 12))
			snprintf(ev, sizeof(ev), "breakpoint");
		if (x->j.v == V_UNSUPPORTED || x->j.v == V_NOT_DELIVERED) {
			printf("%-26s %-30s %10s %10s %9s  %s [%zu]\n", x->c->what, ev, "", "", "",
			       verdict_names[x->j.v], footnote(notes, &nr_notes, x->reason));
			continue;
		}
		if (x->j.expected != 0)
			snprintf(e, sizeof(e), "%+.2f %%", x->j.error * 100);
		else
			snprintf(e, sizeof(e), "%+.3f", x->j.error);
		snprintf(unit, sizeof(unit), "/%s", x->b->unit);
		printf("%-26s %-30s %10.4g %10.4g %9s  %s (%s)", x->c->what, ev, x->j.expected,
		       x->j.measured, e, x->j.detail,
		       x->j.deterministic ? "deterministic" : "varies over repeats");
		if (x->reason[0])
			printf(" [%zu]", footnote(notes, &nr_notes, x->reason));
		printf("\n");
	}
	printf("\nEXPECTED and MEASURED are counts per unit of work: per %s.\n",
	       "iteration, page, hop, sleep or call (hpmon validate --list)");
	for (size_t i = 0; i < nr_notes; i++)
		printf("[%zu] %s\n", i + 1, notes[i]);
	free(notes);
}

static void print_json(const struct vresult *r, size_t n, const struct vopts *o)
{
	struct json j;
	struct utsname u;
	if (uname(&u))
		snprintf(u.machine, sizeof(u.machine), "?");
	json_init(&j, stdout, true);
	json_obj_open(&j, NULL);
	json_str(&j, "arch", u.machine);
	json_i64(&j, "repeats", o->repeats);
	json_bool(&j, "quick", o->quick);
	json_arr_open(&j, "checks");
	for (size_t i = 0; i < n; i++) {
		const struct vresult *x = &r[i];
		json_obj_open(&j, NULL);
		json_str(&j, "check", x->c->what);
		json_str(&j, "event", x->event);
		json_str(&j, "benchmark", x->c->bench);
		json_str(&j, "unit", x->b->unit);
		json_str(&j, "verdict", verdict_names[x->j.v]);
		json_str(&j, "detail", x->j.detail);
		json_str(&j, "model", x->j.alt ? x->c->alt_model : x->c->model);
		if (x->j.v != V_UNSUPPORTED && x->j.v != V_NOT_DELIVERED) {
			json_u64(&j, "units", x->units);
			json_dbl(&j, "expected_per_unit", x->j.expected);
			json_dbl(&j, "measured_per_unit", x->j.measured);
			if (x->j.expected != 0)
				json_dbl(&j, "error_pct", x->j.error * 100);
			json_dbl(&j, "bias_per_unit", x->j.measured - x->j.expected);
			json_dbl(&j, "tolerance", x->c->tol);
			json_bool(&j, "deterministic", x->j.deterministic);
		}
		json_str(&j, "reason", x->reason[0] ? x->reason : NULL);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	json_obj_close(&j);
	json_end(&j);
}

int cmd_validate(int argc, char **argv, struct hpm_ctx *ctx)
{
	struct vopts o = { 0 };
	struct vresult *res = NULL;
	struct vstate st = { 0 };
	const struct vbench *cur = NULL;
	size_t nres = 0, cache[4];
	int status = HPM_EXIT_OK;

	if (parse_opts(argc, argv, &o))
		return HPM_EXIT_USAGE;
	if (o.list) {
		list_checks();
		return HPM_EXIT_OK;
	}
	if (o.calibrate)
		return validate_calibrate(ctx, o.output, o.repeats, o.json);
	res = calloc(vchecks_nr * 10, sizeof(*res));
	if (!res) {
		fprintf(stderr, "hpmon validate: out of memory\n");
		return HPM_EXIT_FAIL;
	}
	vcache__sizes(ctx, cache);
	for (size_t i = 0; i < vchecks_nr; i++) {
		const struct vcheck *c = &vchecks[i];
		for (size_t e = 0; e < sizeof(c->events) / sizeof(c->events[0]) && c->events[e]; e++) {
			int w = wanted(&o, c->events[e]);
			if (w < 0)
				continue;
			if (w < MAX_WANTED)
				o.used[w] = true;
			struct vresult *x = &res[nres];
			x->c = c;
			spell(c->events[e], x->event, sizeof(x->event));
			x->b = vbench__find(c->bench);
			if (!x->b) {
				x->b = vbench__find("calls"); /* for its unit only */
				x->j.v = V_UNSUPPORTED;
				snprintf(x->reason, sizeof(x->reason), "%s", vbench__arch_missing());
				nres++;
				continue;
			}
			/* A name of another machine's PMU: not ours to judge,
			 * unless asked for by name. */
			struct hpm_evlist *l = NULL;
			struct hpm_parse_error pe;
			int prc = hpm_evlist__parse(ctx, x->event, &l, &pe);
			hpm_evlist__free(l);
			if (prc) {
				if (w == MAX_WANTED)
					continue;
				x->j.v = V_UNSUPPORTED;
				snprintf(x->j.detail, sizeof(x->j.detail), "not supported");
				snprintf(x->reason, sizeof(x->reason), "%s", pe.msg);
				nres++;
				continue;
			}
			x->units = o.quick ? x->b->quick_units : x->b->units;
			if (cur != x->b) {
				if (cur && cur->teardown)
					cur->teardown(&st);
				memset(&st, 0, sizeof(st));
				cur = x->b;
				int rc = cur->setup ? cur->setup(&st, 2 * x->units,
								 cache[cur->cache_level])
						    : 0;
				if (rc) {
					fprintf(stderr, "hpmon validate: cannot set up the %s "
							"benchmark: %s\n", cur->name, strerror(-rc));
					status = HPM_EXIT_FAIL;
					goto out;
				}
			}
			run_check(ctx, &o, x, &st);
			if (x->j.v == V_BROKEN)
				status = HPM_EXIT_FAIL;
			nres++;
		}
	}
	for (size_t i = 0; i < o.nr_wanted; i++)
		if (!o.used[i]) {
			status = advice_usage("validate", "no benchmark knows the answer for '%s'; "
					      "'hpmon validate --list' shows the events it checks",
					      o.wanted[i]);
			goto out;
		}
	if (o.json)
		print_json(res, nres, &o);
	else
		print_table(res, nres, &o);
out:
	if (cur && cur->teardown)
		cur->teardown(&st);
	free(res);
	return status;
}
