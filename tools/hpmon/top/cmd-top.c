/* SPDX-License-Identifier: MIT */
/*
 * hpmon top: which tasks of the machine use the events, refreshed every
 * -d seconds, full-screen (top-tui.c) or as frames for scripts (-b:
 * top-batch.c). Counts come from system-wide accounting per task
 * (hpmon/sysacct.h), exact; without the privilege it needs, from the
 * user's own processes (--user, top-user.c).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hpmon/metric.h>
#include <hpmon/sysacct.h>
#include <hpmon/sysinfo.h>
#include "output/advice.h"
#include "builtin.h"
#include "launch/launch.h"
#include "top/top.h"

static const char usage[] =
	"usage: hpmon top [options]\n"
	"\n"
	"Which tasks use the events, refreshed every few seconds: every task of the\n"
	"machine, counted exactly (needs root, CAP_PERFMON or perf_event_paranoid <= 0),\n"
	"else your own processes (--user). Shown as top does: a clock as %CPU, other\n"
	"counts per second, the idle tasks on a line of their own (-b --json and -x:\n"
	"the counts).\n"
	"\n"
	"  -e, --event EVENTS   columns (default task-clock,context-switches)\n"
	"  -M, --metrics GROUPS metric columns (default ipc and branch where a PMU counts)\n"
	"      --metric 'NAME = FORMULA'  a metric column of your own\n"
	"  -H, --threads        a row per thread (default: per process)\n"
	"      --cgroup         a row per cgroup\n"
	"  -d, --delay SECS     refresh every SECS seconds (default 2)\n"
	"  -n, --frames N       stop after N frames\n"
	"  -c, --cumulative     counts since the start, exited tasks kept\n"
	"  -s, --sort COLUMN    sort by this column (an event or metric name, its header\n"
	"                       such as %CPU, or pid)\n"
	"  -u, --filter-user U  only the tasks of user U\n"
	"  -p, --pid PIDS       only these processes (comma separated)\n"
	"      --comm TEXT      only tasks whose name contains TEXT\n"
	"  -a, --all            every task of the machine, or fail saying why\n"
	"  -C, --cpu CPUS       system-wide on these CPUs only (0,2-3)\n"
	"      --user           your own processes only, attached one by one\n"
	"  -b, --batch          print frames as text instead of the full-screen view\n"
	"  -j, --json           batch: one JSON object per frame\n"
	"  -x, --field-separator SEP  batch: CSV, a line per row\n"
	"\n"
	"Keys: h help, q quit, < > sort column, r reverse, / name filter, u user filter,\n"
	"p pid filter, Esc clear filters, space pause, H threads, c cumulative.\n"
	"See docs/hpmon-top.md.\n";

enum { OPT_CGROUP = 256, OPT_USER, OPT_COMM, OPT_METRIC };

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "hpmon top: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return advice_usage_end("top");
}

static int parse_opts(int argc, char **argv, struct top_opts *o)
{
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "metrics", required_argument, NULL, 'M' },
		{ "metric", required_argument, NULL, OPT_METRIC },
		{ "threads", no_argument, NULL, 'H' },
		{ "cgroup", no_argument, NULL, OPT_CGROUP },
		{ "delay", required_argument, NULL, 'd' },
		{ "frames", required_argument, NULL, 'n' },
		{ "cumulative", no_argument, NULL, 'c' },
		{ "sort", required_argument, NULL, 's' },
		{ "filter-user", required_argument, NULL, 'u' },
		{ "pid", required_argument, NULL, 'p' },
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "all", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "user", no_argument, NULL, OPT_USER },
		{ "batch", no_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'j' },
		{ "field-separator", required_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	char *end;
	int c;

	o->delay_s = 2.0;
	o->by = SYSROWS_PROCESS;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:e:M:Hd:n:cs:u:p:aC:bjx:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'e': {
			size_t n = strlen(o->events);
			if (snprintf(o->events + n, sizeof(o->events) - n, "%s%s", n ? "," : "",
				     optarg) >= (int)(sizeof(o->events) - n))
				return usage_error("%s", "the event list is too long");
			o->events_given = true;
			break;
		}
		case 'M':
			if (o->nr_mgroups == TOP_MAX_ARGS)
				return usage_error("%s", "too many -M");
			o->mgroups[o->nr_mgroups++] = optarg;
			break;
		case OPT_METRIC:
			if (o->nr_minline == TOP_MAX_ARGS)
				return usage_error("%s", "too many --metric");
			o->minline[o->nr_minline++] = optarg;
			break;
		case 'H': o->by = SYSROWS_THREAD; break;
		case OPT_CGROUP: o->by = SYSROWS_CGROUP; break;
		case 'd':
			o->delay_s = strtod(optarg, &end);
			if (*end || !(o->delay_s >= 0.05) || o->delay_s > 86400)
				return usage_error("-d wants seconds from 0.05 to 86400, not '%s'", optarg);
			break;
		case 'n':
			o->frames = strtol(optarg, &end, 10);
			if (*end || o->frames < 1)
				return usage_error("-n wants a number of frames (1 or more), not '%s'", optarg);
			break;
		case 'c': o->cumulative = true; break;
		case 's': snprintf(o->sort, sizeof(o->sort), "%s", optarg); break;
		case 'u':
			if (top_parse_user(optarg, &o->filter.uid))
				return usage_error("no such user: '%s'", optarg);
			o->filter.by_uid = true;
			break;
		case 'p': {
			int ids[TOP_MAX_PIDS];
			if (parse_list(optarg, ids, TOP_MAX_PIDS, &o->filter.nr_pids, false))
				return usage_error("-p wants process ids separated by commas, not '%s'", optarg);
			for (size_t i = 0; i < o->filter.nr_pids; i++)
				o->filter.pids[i] = ids[i];
			break;
		}
		case OPT_COMM: snprintf(o->filter.comm, sizeof(o->filter.comm), "%s", optarg); break;
		case 'a': o->system = true; break;
		case 'C':
			if (parse_list(optarg, o->cpus, 1024, &o->nr_cpus, true) || !o->nr_cpus)
				return usage_error("-C wants CPUs such as 0,2-3, not '%s'", optarg);
			o->system = true;
			break;
		case OPT_USER: o->user_mode = true; break;
		case 'b': o->batch = true; break;
		case 'j': o->json = true; break;
		case 'x': o->sep = optarg; break;
		case 'h': fputs(usage, stdout); return -1;
		case ':': return usage_error("option '%s' needs a value", argv[optind - 1]);
		default: return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("top takes no command: '%s'", argv[optind]);
	if ((o->json || o->sep) && !o->batch)
		return usage_error("%s", "--json and -x print frames: add -b");
	if (o->json && o->sep)
		return usage_error("%s", "-x and --json exclude each other");
	if (o->user_mode && o->system)
		return usage_error("%s", "--user and -a/-C exclude each other");
	if (o->user_mode && o->by == SYSROWS_CGROUP)
		return usage_error("%s", "--cgroup needs every task of the machine, not --user");
	return 0;
}

static bool hw_counts_here(void)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_HARDWARE,
				     .config = PERF_COUNT_HW_INSTRUCTIONS };
	return hpm_sysinfo__probe(&a, 0, -1, HPM_PROBE_USER_ONLY, NULL) == 0;
}

/* The event list and the metrics, planned into it. HPM_EXIT_*. */
static int setup_events(struct top *t)
{
	struct top_opts *o = t->o;
	struct hpm_parse_error perr;
	static const char *const dflt_metrics[] = { "ipc", "branch" };
	struct metric_args ma = { .groups = o->mgroups, .nr_groups = o->nr_mgroups,
				  .inline_defs = o->minline, .nr_inline = o->nr_minline };
	int rc;

	/* as stat: metrics alone bring their own events */
	if (!o->events_given && !o->nr_mgroups && !o->nr_minline)
		snprintf(o->events, sizeof(o->events), "task-clock,context-switches");
	if (!o->nr_mgroups && !o->nr_minline && !o->events_given && hw_counts_here()) {
		ma.groups = dflt_metrics;
		ma.nr_groups = 2;
	}
	if (!o->events[0] && !(t->list = hpm_evlist__new(t->ctx)))
		return HPM_EXIT_FAIL;
	if (o->events[0] && (rc = hpm_evlist__parse(t->ctx, o->events, &t->list, &perr))) {
		return advice_parse_usage("top", o->events, &perr);
	}
	if (!metric_args_any(&ma))
		goto done;
	if ((rc = metric_args_load(t->ctx, "top", &ma, &t->ms, &t->sel)))
		return rc;
	char *spec = NULL;
	size_t first = hpm_evlist__count(t->list);
	if (hpm_msel__plan(t->sel, NULL, &spec))
		return HPM_EXIT_FAIL;
	rc = spec[0] ? hpm_evlist__add(t->list, spec, &perr) : 0;
	free(spec);
	if (rc || hpm_msel__bind(t->sel, t->list, first)) {
		fprintf(stderr, "hpmon top: cannot add the metrics' events\n");
		return HPM_EXIT_FAIL;
	}
	t->nr_metrics = hpm_msel__count(t->sel);
done:
	t->nr_ev = hpm_evlist__count(t->list);
	if (!t->nr_ev) {
		return advice_usage("top", "nothing to count: no metric selected has an event "
					   "that resolves here");
	}
	return top_columns(t) ? HPM_EXIT_FAIL : HPM_EXIT_OK;
}

/* System-wide accounting, or why not. 0, or -EACCES (said, if @say). */
static int open_system(struct top *t, bool say)
{
	char why[320];
	size_t bad;
	int rc = top_open_acct(t, &bad);
	if (!rc)
		return 0;
	const struct hpm_event *ev = hpm_evlist__event(t->list, bad == SIZE_MAX ? 0 : bad);
	bool perm = rc == -EACCES || rc == -EPERM;
	if (perm && !say)
		return rc;
	advice_open(t->ctx, ev, rc, ADVICE_SYSTEM, why, sizeof(why));
	if (bad == SIZE_MAX || perm)
		fprintf(stderr, "hpmon top: cannot count every task of the machine: %s\n", why);
	else
		fprintf(stderr, "hpmon top: cannot count '%s' on every CPU: %s\n",
			hpm_event__name(ev), why);
	if (perm)
		fprintf(stderr, "  or run 'hpmon top --user' to see your own processes only\n");
	return rc;
}

static int open_source(struct top *t)
{
	struct top_opts *o = t->o;
	if (!o->user_mode) {
		/* a user without the privilege gets their own processes */
		bool fallback = !o->system && geteuid() != 0;
		int rc = open_system(t, !fallback);
		if (!rc)
			return 0;
		if (!fallback || (rc != -EACCES && rc != -EPERM))
			return HPM_EXIT_FAIL;
		fprintf(stderr, "hpmon top: showing your own processes only (--user): every task "
			"of the machine needs perf_event_paranoid <= 0 (it is %d) or CAP_PERFMON\n",
			advice_paranoid(t->ctx));
		o->user_mode = true;
	}
	t->user = top_user_new(t->list, o->by);
	if (!t->user) {
		fprintf(stderr, "hpmon top: cannot count your processes: %s\n", strerror(errno));
		return HPM_EXIT_FAIL;
	}
	return 0;
}

static int run_batch(struct top *t)
{
	FILE *f = stdout;
	for (long k = 0; !t->o->frames || k < t->o->frames; k++) {
		if (top_wait(t, t->o->delay_s, -1) < 0)
			break;
		int rc = top_frame(t);
		if (rc) {
			fprintf(stderr, "hpmon top: reading the counts failed: %s\n", top_strerror(rc));
			return HPM_EXIT_FAIL;
		}
		if (t->o->json)
			top_print_json(t, f);
		else if (t->o->sep)
			top_print_csv(t, f, k == 0);
		else
			top_print_batch(t, f);
		fflush(f);
		if ((rc = top_after_frame(t))) {
			fprintf(stderr, "hpmon top: cannot start counting afresh: %s\n", hpm_strerror(rc));
			return HPM_EXIT_FAIL;
		}
	}
	return got_signal && got_signal != SIGINT ? 128 + got_signal : HPM_EXIT_OK;
}

int cmd_top(int argc, char **argv, struct hpm_ctx *ctx)
{
	struct top_opts *o = calloc(1, sizeof(*o));
	struct top t = { .o = o, .ctx = ctx, .sort_col = 0 };
	int rc;

	if (!o)
		return HPM_EXIT_FAIL;
	rc = parse_opts(argc, argv, o);
	if (rc) {
		free(o);
		return rc < 0 ? HPM_EXIT_OK : rc;
	}
	if ((rc = setup_events(&t)))
		goto out;
	if (o->sort[0]) {
		t.sort_col = !strcmp(o->sort, "pid") ? SIZE_MAX : top_col_find(&t, o->sort);
		t.sort_asc = t.sort_col == SIZE_MAX;
		if (t.sort_col == SIZE_MAX && strcmp(o->sort, "pid")) {
			rc = usage_error("-s: no column '%s' (an event or metric shown, or pid)", o->sort);
			goto out;
		}
	}
	sysrows_init(&t.rows, o->by, t.nr_ev);
	if ((rc = open_source(&t)))
		goto out;
	install_signals();
	/* the first frame starts now: everything before is not shown */
	if ((rc = top_frame(&t))) {
		fprintf(stderr, "hpmon top: reading the counts failed: %s\n", top_strerror(rc));
		rc = HPM_EXIT_FAIL;
		goto out;
	}
	rc = o->batch ? run_batch(&t) : top_tui(&t);
out:
	hpm_sysacct__free(t.acct);
	top_user_free(t.user);
	sysrows_release(&t.rows);
	top_frame_free(&t);
	hpm_msel__free(t.sel);
	hpm_metricset__free(t.ms);
	hpm_evlist__free(t.list);
	free(o);
	return rc;
}
