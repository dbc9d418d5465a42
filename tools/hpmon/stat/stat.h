/* SPDX-License-Identifier: MIT */
/*
 * hpmon stat: what the command measures (cmd-stat.c and the files of
 * stat-cmd.h) and print-stat.c prints. Measuring fills a struct
 * stat_report; printers only read it.
 * Room: tools/hpmon/stat/ owns hpmon stat; may use counting, launch, output.
 * Ownership: the report owns its rows and their strings; the session and
 * event list it was measured from are borrowed and outlive it.
 */
#ifndef HPMON_TOOL_STAT_H
#define HPMON_TOOL_STAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <hpmon/metric.h>
#include <hpmon/session.h>
#include "counting/metric-args.h"

enum stat_agg { AGG_GLOBAL, AGG_THREAD, AGG_PROCESS, AGG_CPU, AGG_CGROUP };
enum stat_fmt { FMT_HUMAN, FMT_CSV, FMT_JSON };

struct stat_event {
	char name[160];       /* display name (":u" appended on fallback) */
	uint32_t type;        /* perf_event_attr type and config, to pair */
	uint64_t config;      /* events for perf's derived columns (a hybrid
				 CPU's PMU type in the upper half dropped) */
	const char *pmu;      /* hpm_event__pmu */
	/* The instances of an uncore PMU one written event stands for
	 * (hpm_event__merge_leader) print as one line, perf's merge: the
	 * first shows the sum of their counts (mc, with its uncertainty
	 * msigma) under the name as written (merged: how many others), the
	 * others are hidden; c stays each one's own, which metrics use.
	 * --no-merge: each its own line. */
	size_t merge;         /* the first instance's index; its own otherwise */
	size_t leader;        /* its group's leader (hpm_event__leader) */
	int merged;
	struct hpm_count mc;
	double msigma;
	bool clock;           /* task-clock/cpu-clock: shown in msec */
	const char *unit;     /* sysfs unit ("Joules") or "" */
	double scale;         /* sysfs scale */
	int err;              /* open error, 0 if counted */
	char reason[320];     /* advice for err */
	struct hpm_count c;   /* totals (this interval's delta in -I mode) */
	double mean, rsd_pct; /* -r: mean scaled count and its relative error */
	double sigma;         /* uncertainty of the scaled count (times scale):
				 0 exact, NaN unknown */
	/* A derived PAPI preset (PAPI_L1_TCM = a + b) is counted as its terms,
	 * consecutive events of the list: the first shows the preset's value
	 * (dval, under the preset's name), the others are hidden. */
	int derived;          /* terms, on the first; 0 for other events */
	int sign;             /* a term's sign in the sum: +1 or -1 */
	char term[160];       /* a term's own event name */
	bool hidden;
	double dval;          /* derived: sum of the terms' scaled counts */
	struct hpm_count dc;  /* derived: the terms' least running time */
	struct hpm_value per_sec, per_kinst; /* --per-second, --per-kinst */
};

/* A metric of the report (hpmon/metric.h), evaluated for the totals. */
struct stat_metric {
	const char *name, *unit, *desc, *groups;
	enum hpm_metric_form form;
	size_t anchor;        /* the event it is printed beside, or SIZE_MAX */
	bool dflt;            /* perf's figure, shown when nothing else is */
	bool perf;            /* the vendor's (data/vendor): printed as perf does in CSV */
	struct hpm_value v;
};

struct stat_row {
	char label[64];       /* "CPU0", "comm-tid", "comm-pid" */
	pid_t pid, tid;
	int cpu;
	char comm[16];
	char *cgroup;         /* -a per task: its (process's) cgroup path, owned; else NULL */
	struct hpm_count *c;  /* [nr_ev] */
	bool *absent;         /* [nr_ev], -A: the event does not count on this
				 CPU (its PMU's CPUs): no line */
	struct hpm_count *mc; /* [nr_ev]: merged instances, as stat_event.mc */
	/* computed from c for printing: */
	struct hpm_value *mv; /* [nr_metrics] */
	struct hpm_value *per_sec, *per_kinst; /* [nr_ev] */
	double *dval;         /* [nr_ev]: derived presets, as stat_event.dval */
	struct hpm_count *dc; /* [nr_ev] */
};

struct stat_report {
	size_t nr_ev;
	struct stat_event *ev;
	enum stat_agg agg;
	size_t nr_rows;
	struct stat_row *rows;
	char *const *argv;    /* command, or NULL */
	const char *target;   /* what was counted unless the command alone (cmd-stat.c):
				 "process id 12,34", "system wide", "CPU(s) 0,2"; "" */
	bool have_status;
	int exit_status;      /* as hpmon exits: code, or 128+signal */
	int term_signal;      /* signal that ended the command, or 0 */
	uint64_t elapsed_ns;
	double user_s, sys_s;
	int runs;             /* -r N */
	double elapsed_rsd_pct;
	uint64_t lost;        /* records the kernel dropped */
	/* -a --per-*: switches counted without their sample (in [lost]) */
	bool per_task;
	uint64_t unsampled;
	bool interrupted;     /* Ctrl-C */
	/* -I */
	bool interval;
	double ts;            /* seconds since start, for interval lines */
	uint64_t interval_ns; /* the -I length asked for */
	uint64_t span_ns;     /* the time this line really covers */
	/* metrics (-M, --metric, --metrics-file, and perf's default figures) */
	size_t nr_metrics;
	struct stat_metric *metrics;
	bool per_second, per_kinst;
	char *const *notes;   /* how the metrics' events were scheduled */
	size_t nr_notes;
	/* The covariances of the scaled counts of events of one group
	 * (nr_ev x nr_ev, row major; 0 across groups), from the same slices
	 * as their sigmas; NULL when not sampled. */
	double *cov;
};

struct stat_out {
	FILE *f;
	enum stat_fmt fmt;
	const char *sep;      /* CSV separator */
	bool big_num;         /* thousands separators in human output */
};

/* ---- metrics (stat-metrics.c) ---- */

struct stat_metrics_opts {
	struct metric_args metrics;      /* -M, --metric, --metrics-file */
	bool per_second, per_kinst;
	bool topdown;                    /* --topdown: its figures (perf_topdown) */
};

struct stat_metrics;

/* Load and select the metrics, plan their events. HPM_EXIT_* on failure
 * (after saying why), 0 with *out set. */
int stat_metrics_setup(struct hpm_ctx *ctx, const struct stat_metrics_opts *o,
		       struct stat_metrics **out);
/* Print the plan's notes (why metrics cannot be computed) to @f. */
void stat_metrics_explain(const struct stat_metrics *sm, FILE *f);
/* Add the planned events (and --per-kinst's instructions) to @list. */
int stat_metrics_add_events(struct stat_metrics *sm, struct hpm_evlist *list);
/* Bind to the final list; fills r->metrics and marks derived presets. Call
 * after r->ev is set up. */
int stat_metrics_bind(struct stat_metrics *sm, const struct hpm_evlist *list,
		      struct stat_report *r);
/* Values of the metrics, derived presets and per-unit columns of @r, from
 * its counts (r->ev[].c, .sigma; rows). */
void stat_metrics_compute(struct stat_metrics *sm, struct stat_report *r);
void stat_metrics_free(struct stat_metrics *sm);
/* The core PMU's general and fixed counters (probed on the running
 * machine; 0 and -1 when unknown) and its name into @core. */
void stat_core_counters(struct hpm_ctx *ctx, int *nr_general, int *nr_fixed, char *core,
			size_t len);

/*
 * perf's merge of uncore instances: each merged line's count (mc, and its
 * rows') is the sum of its instances' (hpm_count__merge); its
 * uncertainty, theirs added in quadrature. Call after every reading.
 */
void stat_merge_instances(struct stat_report *r);

/* A vendor metric as perf 6.1 prints it (print-stat-perf.c): its
 * "metric-unit" ("UNIT  NAME", or NAME), and its CSV value. */
void stat_perf_metric_unit(const char *name, const char *unit, char *buf, size_t len);
void stat_perf_csv_value(double v, bool has_unit, char *buf, size_t len);

/* JSON breakdown rows (print-stat-row.c): the array's name, and the
 * members that name row @row. */
struct json;
const char *stat_json_rows_key(const struct stat_report *r);
void stat_json_row_id(struct json *j, const struct stat_report *r, const struct stat_row *row);
/* Shared by the report and the trace lines (print-stat-trace.c), both in
 * print-stat.c: event @i's JSON object with counts @c alone (no figure of
 * the report's), and 1234567 as "1,234,567" (@big) or "1234567". */
void stat_json_event_counts(struct json *j, const struct stat_report *r, size_t i,
			    const struct hpm_count *c);
void stat_fmt_big(char *buf, size_t len, double v, bool big);

/* Final (or per-interval) report in the chosen format. */
void stat_print(const struct stat_out *o, const struct stat_report *r);
/* Notes on how the metrics' events were scheduled, once before counting
 * (human and CSV: '#' lines; JSON carries them in the closing object). */
void stat_print_notes(const struct stat_out *o, const struct stat_report *r);
/* One --trace line. */
void stat_print_trace(const struct stat_out *o, const struct stat_report *r,
		      enum hpm_task_event what, const struct hpm_task *t,
		      double ts, const struct hpm_count *counts);

#endif
