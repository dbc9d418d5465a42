/* SPDX-License-Identifier: MIT */
/*
 * hpmon serve: count system-wide, continuously, and serve the counts to
 * Prometheus at /metrics (serve.h: counting, exposition, HTTP). The main
 * thread sets up, then waits for SIGINT, SIGTERM or the end of -d; the
 * HTTP server's one thread reads the counts at each scrape. Nothing else
 * touches the session while the server runs, and the server is stopped
 * before the session is freed.
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
#include "launch.h"
#include "metric-args.h"
#include "serve.h"
#include "stat-cmd.h"

static const char serve_usage[] =
	"usage: hpmon serve [--listen ADDR] [-e EVENTS] [-M METRICS] [-C CPUS] [-d SECS]\n"
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

enum { OPT_METRIC = 256, OPT_METRICS_FILE };

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

static char *render(void *arg, bool om, uint64_t scrapes, uint64_t rejected, size_t *len)
{
	struct serve_count *sc = arg;
	const struct serve_snap *cs = serve_count__read(sc);
	if (!cs)
		return NULL;
	struct serve_snap s = *cs;
	s.scrapes = scrapes;
	s.rejected = rejected;
	return serve_expo(&s, om, len);
}

/* Until SIGINT or SIGTERM, or the end of -d. The signals are blocked in
 * every thread (the server's inherits the mask) and taken here. */
static int wait_stop(const sigset_t *set, double duration)
{
	struct timespec end, now;
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)duration;
	end.tv_nsec += (long)((duration - (double)(time_t)duration) * 1e9);
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	for (;;) {
		if (!duration) {
			int sig;
			if (!sigwait(set, &sig))
				return sig;
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		struct timespec left = { end.tv_sec - now.tv_sec, end.tv_nsec - now.tv_nsec };
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000L;
		}
		if (left.tv_sec < 0)
			return 0;
		int sig = sigtimedwait(set, NULL, &left);
		if (sig > 0)
			return sig;
		if (errno == EAGAIN)
			return 0;
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
		.events = o.events[0] ? o.events : stat_default_events(),
		.cpus = o.tg.nr_cpus ? o.tg.cpus : NULL,
		.nr_cpus = o.tg.nr_cpus,
		.metrics = &ma,
	};
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
	http = serve_http__start(host, port, render, sc, bound, sizeof(bound));
	if (!http) {
		serve_count__free(sc);
		return HPM_EXIT_FAIL;
	}
	fprintf(stderr, "hpmon serve: counting on %zu CPUs; serving http://%s/metrics\n",
		serve_count__nr_cpus(sc), bound);
	fflush(stderr);
	wait_stop(&set, o.duration);
	serve_http__stop(http);
	serve_count__free(sc);
	return HPM_EXIT_OK;
}
