/* SPDX-License-Identifier: MIT */
/*
 * hpmon serve: the machine's counts served to Prometheus. Three parts, each
 * in a file of its own, joined by cmd-serve.c:
 *   serve-count.c  the counting side: a session on the CPUs, read at each
 *                  scrape into a snapshot (struct serve_snap);
 *   serve-expo.c   a snapshot as OpenMetrics text or Prometheus text 0.0.4;
 *   serve-http.c   the HTTP server (libmicrohttpd, one thread): GET /metrics.
 *
 * Series come in row sets (struct serve_rows): a label ("cpu") and, per
 * row, a label value and one value per event. The per-CPU counts are one
 * such set; a per-process or per-cgroup source would hand over its rows the
 * same way, under its own label, and the exposition would not change.
 *
 * Ownership: a snapshot belongs to the counting object that made it and
 * stays valid until its next read or its free; the exposition text is
 * malloc'd for the caller; the HTTP server borrows its render callback's
 * argument, which must outlive serve_http__stop().
 */
#ifndef HPMON_TOOL_SERVE_H
#define HPMON_TOOL_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hpm_ctx;
struct metric_args;

/* One counted event: a counter family. */
struct serve_event {
	char name[160];     /* exposition name without _total: hpmon_task_clock_seconds */
	const char *event;  /* the event as written (owned by the event list) */
	char unit[32];      /* OpenMetrics unit ("seconds") or "" */
	double factor;      /* count (scaled) times this is the value in unit */
	bool shown;         /* false: its name repeats an earlier event's */
	int err;            /* why it could not be opened (-errno), or 0 */
};

/* Rows of series under one label: one row per CPU, for instance. */
struct serve_rows {
	const char *label;  /* "cpu" */
	size_t nr;          /* rows */
	char (*key)[32];    /* each row's label value */
	double *val;        /* [row * nr_ev + ev]: the counter's value, in its unit */
	double *ratio;      /* [row * nr_ev + ev]: time counted / time enabled */
	bool *ok;           /* [row * nr_ev + ev]: counted on this row */
};

/* A -M metric: a gauge. */
struct serve_metric {
	char name[160];     /* hpmon_metric_ipc */
	const char *metric; /* its name in the metric set */
	const char *unit;   /* as the metric files say it ("CPUs utilized") or "" */
	const char *desc;
	double value;
	bool ok;            /* false: n/a this time (reason in why) */
	char why[224];
};

struct serve_snap {
	const struct serve_event *ev;
	size_t nr_ev;
	const struct serve_rows *rows;
	size_t nr_rows;
	const struct serve_metric *metrics;
	size_t nr_metrics;
	uint64_t lost;          /* records the kernel dropped */
	double start_time;      /* Unix time counting began, seconds */
	/* filled by the HTTP side before rendering */
	uint64_t scrapes;       /* /metrics answers, this one included */
	uint64_t rejected;      /* other requests, answered 4xx */
};

/* ---- serve-count.c ---- */

struct serve_count;

struct serve_count_opts {
	const char *events;              /* perf syntax */
	const int *cpus;                 /* NULL: every online CPU */
	size_t nr_cpus;
	const struct metric_args *metrics;
};

/*
 * Parse, plan the metrics' events, open the session on the CPUs and
 * enable it. HPM_EXIT_OK with *out, else HPM_EXIT_USAGE / HPM_EXIT_FAIL
 * after saying why on stderr. Events that cannot be counted here are kept
 * (err) and named on stderr; counting fails only when none can.
 */
int serve_count__new(struct hpm_ctx *ctx, const struct serve_count_opts *o,
		     struct serve_count **out);
void serve_count__free(struct serve_count *sc);
/* Read every count now. NULL and errno (ENOMEM) on failure. */
const struct serve_snap *serve_count__read(struct serve_count *sc);
/* How many CPUs are counted. */
size_t serve_count__nr_cpus(const struct serve_count *sc);

/* ---- serve-expo.c ---- */

/* "hpmon_" + @what lower-cased, every other byte '_', runs of '_' folded,
 * then "_" @unit unless the name already ends so. */
void serve_expo_name(char *out, size_t len, const char *what, const char *unit);
/* Does an HTTP Accept header (NULL: none) take OpenMetrics? An entry of
 * application/openmetrics-text (any version) without q=0. */
bool serve_expo_wants_openmetrics(const char *accept);
/* The exposition of @s: OpenMetrics 1.0.0 or Prometheus text 0.0.4.
 * malloc'd text (*len bytes, NUL-terminated), or NULL and errno. */
char *serve_expo(const struct serve_snap *s, bool openmetrics, size_t *len);

/* ---- serve-http.c ---- */

/* The snapshot to serve, rendered; NULL and errno on failure. Called from
 * the server's one thread, with the scrape counts to put in it. */
typedef char *(*serve_render_fn)(void *arg, bool openmetrics, uint64_t scrapes,
				 uint64_t rejected, size_t *len);

struct serve_http;

/* "HOST:PORT", "[V6]:PORT" or "PORT" (loopback) into @host and @port
 * (cmd-serve.c). 0, or -1 with nothing printed (the caller says how to
 * write it). */
int serve_http_parse_listen(const char *arg, char *host, size_t hlen, unsigned *port);
/*
 * Listen on @host:@port and serve GET /metrics from @fn in one thread.
 * @bound receives the address actually bound ("127.0.0.1:9464"; the port
 * chosen when @port is 0). NULL after printing why (address in use, not
 * this machine's, a privileged port).
 */
struct serve_http *serve_http__start(const char *host, unsigned port, serve_render_fn fn,
				     void *arg, char *bound, size_t blen);
/* Stop serving (waits for the thread) and free. Accepts NULL. */
void serve_http__stop(struct serve_http *h);

#endif
