/* SPDX-License-Identifier: MIT */
/*
 * hpmon serve: count system-wide, continuously, and serve the counts to
 * Prometheus at /metrics (serve.h: counting, exposition, HTTP). The main
 * thread sets up, then waits for SIGINT, SIGTERM or the end of -d, and
 * meanwhile reads the accounting's buffers every DRAIN_MS (per process and
 * per cgroup); the HTTP server's one thread reads the counts at each
 * scrape. The two take turns under one lock, and the server is stopped
 * before the counting is freed.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hpmon/hpmon.h>
#include "builtin.h"
#include "launch/launch.h"
#include "counting/metric-args.h"
#include "serve/serve.h"

#define DRAIN_MS 100    /* the accounting's buffers stay small: as stat -a --per-process */
#define DEFAULT_PROCESSES 20
#define DEFAULT_CGROUPS 50
#define MAX_SERIES 10000

static const char serve_usage[] =
	"usage: hpmon serve [--listen ADDR] [-e EVENTS] [-M METRICS] [-C CPUS] [-d SECS]\n"
	"                   [--per-process[=N]] [--per-cgroup[=N]]\n"
	"\n"
	"Count events on every CPU, continuously, and serve the counts to Prometheus\n"
	"at http://ADDR/metrics (OpenMetrics, or Prometheus text 0.0.4 for clients\n"
	"that do not ask for it). Stops on SIGINT or SIGTERM.\n"
	"\n"
	"  -l, --listen ADDR      where to listen: HOST:PORT, [V6]:PORT or PORT\n"
	"                         (default 127.0.0.1:9464, loopback; port 0: any free one)\n"
	"  -e, --event EVENTS     events to count, perf syntax (default: stat's)\n"
	"  -C, --cpu CPUS         these CPUs only (0,2-3); default every online CPU\n"
	"  -M, --metrics GROUPS   metrics to serve as gauges (ipc, software, ...)\n"
	"      --metric 'NAME = FORMULA'  a metric of your own\n"
	"      --metrics-file FILE  metrics defined in FILE (docs/metrics.md)\n"
	"      --per-process[=N]  also series per process: the N most active (default 20)\n"
	"                         by the first event, the rest summed in [other]\n"
	"      --per-cgroup[=N]   also series per cgroup: the N most active (default 50)\n"
	"  -d, --duration SECS    stop after SECS seconds\n"
	"  -h, --help             this help\n"
	"\n"
	"Exit status: 0 when stopped by SIGINT, SIGTERM or -d; 129 for bad options;\n"
	"1 if counting or listening failed. See docs/hpmon-serve.md.\n";

struct serve_opts {
	const char *listen;
	char events[4096];
	struct target tg;
	const char *mg[METRIC_ARGS_MAX], *mi[METRIC_ARGS_MAX], *mf[METRIC_ARGS_MAX];
	size_t nr_mg, nr_mi, nr_mf;
	double duration;
	size_t per_process, per_cgroup;
};

int serve_http_parse_listen(const char *arg, char *host, size_t hlen, unsigned *port)
{
	const char *p, *h = arg;
	size_t hl;
	char *end;

	if (arg[0] == '[') {
		const char *close = strchr(arg, ']');
		if (!close || close[1] != ':')
			return -1;
		h = arg + 1;
		hl = (size_t)(close - h);
		p = close + 2;
	} else if ((p = strrchr(arg, ':'))) {
		hl = (size_t)(p - arg);
		p++;
	} else {
		h = "127.0.0.1";
		hl = strlen(h);
		p = arg;
	}
	if (!*p || hl + 1 > hlen)
		return -1;
	errno = 0;
	unsigned long v = strtoul(p, &end, 10);
	if (*end || errno || v > 65535 || *p == '-' || *p == '+')
		return -1;
	snprintf(host, hlen, "%.*s", (int)hl, h);
	if (!strcmp(host, "localhost"))
		snprintf(host, hlen, "127.0.0.1");
	if (!host[0])
		return -1;
	*port = (unsigned)v;
	return 0;
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "hpmon serve: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nSee 'hpmon serve --help'.\n");
	return HPM_EXIT_USAGE;
}

enum { OPT_METRIC = 256, OPT_METRICS_FILE, OPT_PER_PROCESS, OPT_PER_CGROUP };

/* --per-process[=N], --per-cgroup[=N]: the bound on their series. */
static int series_bound(const char *opt, const char *arg, size_t dflt, size_t *out)
{
	char *end;
	if (!arg) {
		*out = dflt;
		return 0;
	}
	errno = 0;
	long v = strtol(arg, &end, 10);
	if (!arg[0] || *end || errno || v < 1 || v > MAX_SERIES) {
		fprintf(stderr, "hpmon serve: %s=N takes a number of series from 1 to %d, not '%s'\n"
				"See 'hpmon serve --help'.\n", opt, MAX_SERIES, arg);
		return HPM_EXIT_USAGE;
	}
	*out = (size_t)v;
	return 0;
}

static int parse_opts(int argc, char **argv, struct serve_opts *o)
{
	static const struct option longopts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "event", required_argument, NULL, 'e' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "metrics", required_argument, NULL, 'M' },
		{ "metric", required_argument, NULL, OPT_METRIC },
		{ "metrics-file", required_argument, NULL, OPT_METRICS_FILE },
		{ "duration", required_argument, NULL, 'd' },
		{ "per-process", optional_argument, NULL, OPT_PER_PROCESS },
		{ "per-cgroup", optional_argument, NULL, OPT_PER_CGROUP },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *why;
	char *end;
	int c;

	o->listen = "127.0.0.1:9464";
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:l:e:C:M:d:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'l': o->listen = optarg; break;
		case 'e':
			if (count_args_event("serve", o->events, sizeof(o->events),
					     argv[optind - 1] == optarg ? argv[optind - 2]
									 : argv[optind - 1],
					     optarg))
				return HPM_EXIT_USAGE;
			break;
		case 'C':
			if (target_option(&o->tg, c, optarg, &why) < 0)
				return usage_error(why, optarg);
			break;
		case 'M':
			if (metric_args_keep("serve", o->mg, &o->nr_mg, optarg, "-M"))
				return HPM_EXIT_USAGE;
			break;
		case OPT_METRIC:
			if (metric_args_keep("serve", o->mi, &o->nr_mi, optarg, "--metric"))
				return HPM_EXIT_USAGE;
			break;
		case OPT_METRICS_FILE:
			if (metric_args_keep("serve", o->mf, &o->nr_mf, optarg, "--metrics-file"))
				return HPM_EXIT_USAGE;
			break;
		case OPT_PER_PROCESS:
			if (series_bound("--per-process", optarg, DEFAULT_PROCESSES, &o->per_process))
				return HPM_EXIT_USAGE;
			break;
		case OPT_PER_CGROUP:
			if (series_bound("--per-cgroup", optarg, DEFAULT_CGROUPS, &o->per_cgroup))
				return HPM_EXIT_USAGE;
			break;
		case 'd':
			o->duration = strtod(optarg, &end);
			if (end == optarg || *end || !(o->duration > 0) || o->duration > 1e9)
				return usage_error("-d takes a number of seconds above 0, not '%s'", optarg);
			break;
		case 'h':
			fputs(serve_usage, stdout);
			return -1;
		case ':':
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("'%s': serve counts the whole machine and runs no command",
				   argv[optind]);
	return 0;
}

/* The counting and the lock the two threads take turns under. */
struct serve_state {
	struct serve_count *sc;
	pthread_mutex_t lock;
	bool said;      /* a drain failure said once */
};

static char *render(void *arg, bool om, uint64_t scrapes, uint64_t rejected, size_t *len)
{
	struct serve_state *st = arg;
	char *text = NULL;
	pthread_mutex_lock(&st->lock);
	const struct serve_snap *cs = serve_count__read(st->sc);
	if (cs) {
		struct serve_snap s = *cs;
		s.scrapes = scrapes;
		s.rejected = rejected;
		text = serve_expo(&s, om, len);
	}
	pthread_mutex_unlock(&st->lock);
	return text;
}

static void drain(struct serve_state *st)
{
	pthread_mutex_lock(&st->lock);
	int rc = serve_count__drain(st->sc);
	pthread_mutex_unlock(&st->lock);
	if (rc < 0 && !st->said) {
		fprintf(stderr, "hpmon serve: reading the accounting's buffers failed: %s; "
			"the counts go on, the tasks' names may be missing\n", hpm_strerror(rc));
		st->said = true;
	}
}

static uint64_t ms_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Until SIGINT or SIGTERM, or the end of -d, draining every DRAIN_MS. The
 * signals are blocked in every thread (the server's inherits the mask)
 * and taken here. */
static int wait_stop(const sigset_t *set, double duration, struct serve_state *st)
{
	uint64_t end = duration ? ms_now() + (uint64_t)(duration * 1000.0 + 0.5) : UINT64_MAX;
	for (;;) {
		uint64_t now = ms_now();
		if (now >= end)
			return 0;
		uint64_t step = end - now < DRAIN_MS ? end - now : DRAIN_MS;
		struct timespec left = { 0, (long)step * 1000000L };
		int sig = sigtimedwait(set, NULL, &left);
		if (sig > 0)
			return sig;
		drain(st);
	}
}

int cmd_serve(int argc, char **argv, struct hpm_ctx *ctx)
{
	struct serve_opts o = { 0 };
	struct serve_count *sc = NULL;
	struct serve_http *http = NULL;
	char host[128], bound[192];
	unsigned port;
	sigset_t set;
	int rc = parse_opts(argc, argv, &o);

	if (rc)
		return rc < 0 ? HPM_EXIT_OK : rc;
	if (serve_http_parse_listen(o.listen, host, sizeof(host), &port))
		return usage_error("--listen takes HOST:PORT, [V6]:PORT or PORT "
				   "(127.0.0.1:9464, [::1]:9464), not '%s'", o.listen);
	if ((rc = count_args_cpus(ctx, "serve", o.tg.cpus, o.tg.nr_cpus)))
		return rc;
	struct metric_args ma = {
		.groups = o.mg, .nr_groups = o.nr_mg,
		.inline_defs = o.mi, .nr_inline = o.nr_mi,
		.files = o.mf, .nr_files = o.nr_mf,
	};
	struct serve_count_opts co = {
		.events = o.events[0] ? o.events : count_args_default_events(),
		.cpus = o.tg.nr_cpus ? o.tg.cpus : NULL,
		.nr_cpus = o.tg.nr_cpus,
		.metrics = &ma,
		.per_process = o.per_process,
		.per_cgroup = o.per_cgroup,
	};
	struct serve_state st = { .lock = PTHREAD_MUTEX_INITIALIZER };
	/* taken by sigwait below, so never ignored: a shell starts background
	 * jobs with SIGINT ignored, and a service must still stop on it */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);

	rc = serve_count__new(ctx, &co, &sc);
	if (rc)
		return rc;
	st.sc = sc;
	http = serve_http__start(host, port, render, &st, bound, sizeof(bound));
	if (!http) {
		serve_count__free(sc);
		return HPM_EXIT_FAIL;
	}
	fprintf(stderr, "hpmon serve: counting on %zu CPUs%s; serving http://%s/metrics\n",
		serve_count__nr_cpus(sc), serve_count__per_task(sc) ? ", every task" : "", bound);
	fflush(stderr);
	wait_stop(&set, o.duration, &st);
	serve_http__stop(http);
	serve_count__free(sc);
	return HPM_EXIT_OK;
}
