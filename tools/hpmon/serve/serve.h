/* SPDX-License-Identifier: MIT */
/*
 * hpmon serve: the machine's counts served to Prometheus. The parts, each
 * in a file of its own, joined by cmd-serve.c:
 *   serve-count.c  the counting side: a session on the CPUs, or with
 *                  --per-process/--per-cgroup the accounting per task
 *                  (serve-tasks.c), read at each scrape into a snapshot
 *                  (struct serve_snap);
 *   serve-tasks.c  per process and per cgroup, over hpmon/sysacct.h;
 *   serve-book.c   the bounded series of one of those: the N most active,
 *                  the rest in [other], every exposed value monotonic;
 *   serve-expo.c   a snapshot as OpenMetrics text or Prometheus text 0.0.4;
 *   serve-http.c   the HTTP server (libmicrohttpd, one thread): GET /metrics.
 *
 * Per-CPU series come in row sets (struct serve_rows): a label ("cpu") and,
 * per row, a label value and one value per event. Per-process and
 * per-cgroup series are families of their own (struct serve_set), so that
 * a sum over one family counts everything once.
 *
 * Room: tools/hpmon/serve/ owns hpmon serve; may use counting, launch, output.
 * Ownership: a snapshot belongs to the counting object that made it and
 * stays valid until its next read or its free; the exposition text is
 * malloc'd for the caller; the HTTP server borrows its render callback's
 * argument, which must outlive serve_http__stop(). A book owns its series
 * and their label text; a struct serve_set is a view of it, valid until
 * the book's next step or its free.
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

/* One series of a per-process or per-cgroup family. */
struct serve_series {
	char *labels;       /* label text, escaped: pid="12",comm="x",cgroup="/a" */
	bool pinned;        /* shown whatever its rank: [idle], [lost], [unattributed] */
	uint64_t *v;        /* [nr_ev] its counter: counts since it was shown (raw) */
	uint64_t *d;        /* [nr_ev] the increase at the last step */
	double *mv;         /* [nr_metrics] metrics over the last step, NaN: n/a */
	double hold_rate;   /* the rank it keeps until hold_until (per second) */
	uint64_t hold_until;
};

/* The series of one book, as the exposition reads them. */
struct serve_set {
	const char *by;             /* "process", "cgroup": the families' infix */
	const struct serve_series *s;
	size_t nr;                  /* sorted by labels */
	const uint64_t *other;      /* [nr_ev] [other]'s counter */
	const char *other_labels;   /* comm="[other]" */
	size_t max;                 /* the bound on series that are not pinned */
	size_t folded;              /* rows that counted in [other] at the last step */
};

struct serve_snap {
	const struct serve_event *ev;
	size_t nr_ev;
	const struct serve_rows *rows;
	size_t nr_rows;
	const struct serve_set *sets;   /* per process, per cgroup (may be none) */
	size_t nr_sets;
	bool one_ratio;                 /* one counted ratio per event, not per CPU:
					 * the accounting's one group, over all CPUs */
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
	size_t per_process;              /* --per-process=N: the bound, 0 none */
	size_t per_cgroup;               /* --per-cgroup=N */
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
/* Between scrapes: read the accounting's buffers (none for per-CPU
 * counting). 0 or -error. Not concurrently with serve_count__read. */
int serve_count__drain(struct serve_count *sc);
/* How many CPUs are counted. */
size_t serve_count__nr_cpus(const struct serve_count *sc);
/* Is it the accounting per task (--per-process, --per-cgroup)? */
bool serve_count__per_task(const struct serve_count *sc);

/* ---- serve-book.c ---- */

struct serve_book;

/*
 * A bounded family: at most @max series that are not pinned, ranked by
 * the rate of event @rank_ev; a series keeps the best rate it had for
 * @hold_ns after it had it (so an exited process stays a while, and a
 * series does not flap at the boundary). @nr_metrics values per series
 * are left for the caller to fill. NULL and errno.
 */
struct serve_book *serve_book__new(const char *by, size_t nr_ev, size_t nr_metrics, size_t max,
				   size_t rank_ev, uint64_t hold_ns);
void serve_book__free(struct serve_book *b);
/* A row's increase since the previous step, under @labels (copied). Rows
 * with the same labels are summed. 0 or -ENOMEM. */
int serve_book__add(struct serve_book *b, const char *labels, bool pinned,
		    const uint64_t *delta);
/*
 * The step: the rows added since the previous step are ranked with the
 * series shown (their held rates), the best @max shown; a series shown
 * before adds its increase, a series new to the set starts at its
 * increase, a series that leaves moves its whole value into [other], and
 * every other row's increase goes there too. So [other] and every
 * series only grow while shown, and the sum of the series and [other]
 * is the sum of every increase ever added. @now_ns: monotonic time;
 * @secs: since the previous step. 0 or -ENOMEM (nothing changed).
 */
int serve_book__step(struct serve_book *b, uint64_t now_ns, double secs);
/* The series as they are after the last step; mutable for the metrics. */
void serve_book__view(struct serve_book *b, struct serve_set *out);
struct serve_series *serve_book__series(struct serve_book *b, size_t i);

/* ---- serve-tasks.c ---- */

struct serve_tasks;
struct hpm_evlist;
struct hpm_msel;

struct serve_tasks_opts {
	const int *cpus;            /* NULL: every online CPU */
	size_t nr_cpus;
	size_t per_process;         /* bounds; 0: no such family */
	size_t per_cgroup;
	struct hpm_msel *sel;       /* the metrics, bound to the list, or NULL */
};

/* Open the accounting on @list (borrowed: it outlives the object) and
 * enable it. 0, or -error with *bad the event that failed (SIZE_MAX: the
 * leader, or none). */
int serve_tasks__new(struct hpm_evlist *list, const struct serve_tasks_opts *o,
		     struct serve_tasks **out, size_t *bad);
void serve_tasks__free(struct serve_tasks *t);
size_t serve_tasks__nr_cpus(const struct serve_tasks *t);
int serve_tasks__cpu(const struct serve_tasks *t, size_t c);
int serve_tasks__drain(struct serve_tasks *t);
/* Does the accounting keep so many tasks that the next step renews it? */
bool serve_tasks__full(const struct serve_tasks *t);
/*
 * A step: every count brought up to now, the books stepped. Fills @cpus'
 * values (with @ev's factors), *lost, @totals[nr_ev] (every CPU's
 * increase since the previous step, for the -M gauges) and @sets (as
 * many as there are families). 0 or -error.
 */
int serve_tasks__read(struct serve_tasks *t, const struct serve_event *ev,
		      struct serve_rows *cpus, uint64_t *lost, double *totals,
		      struct serve_set *sets, size_t *nr_sets);

/* ---- serve-expo.c ---- */

/* "hpmon_" + @what lower-cased, every other byte '_', runs of '_' folded,
 * then "_" @unit unless the name already ends so. */
void serve_expo_name(char *out, size_t len, const char *what, const char *unit);
/* @val as a label value into @out (@len > 0 bytes, NUL-terminated):
 * printable ASCII with '\\', '"' and newline escaped, other bytes '?',
 * cut (never inside an escape) to fit. Returns the length written. */
size_t serve_expo_label(char *out, size_t len, const char *val);
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
