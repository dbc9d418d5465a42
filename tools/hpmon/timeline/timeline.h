/* SPDX-License-Identifier: MIT */
/*
 * The timeline model: counts over time, per thread and event, in bins of
 * one width, for report --timeline (sparklines) and report --html (the
 * page's timeline). Built from a profile (its TIMELINE records when it
 * has them, else its samples' periods binned by time) or from a
 * `hpmon stat -I MS --json -o FILE` file, whose metrics become series
 * too. docs/hpmon-report.md, "Timelines", says what a reader sees.
 *
 * Memory is bounded whatever the input: at most max_bins bins (when the
 * data runs past them, neighbouring bins merge two by two and the width
 * doubles), at most max_threads threads by name (later ones count in one
 * "[other threads]" series), and a stat file's lines at most
 * MJ_MAX_TEXT bytes each.
 *
 * Room: tools/hpmon/timeline/ owns the timeline model; may use report, output.
 * Ownership: a timeline owns its series, their strings and arrays;
 * timeline__free frees them all. The constructors borrow their inputs
 * (the rep, the path) during the call only.
 */
#ifndef HPMON_TOOL_TIMELINE_H
#define HPMON_TOOL_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct rep;
struct hpm_profile;

#define TIMELINE_MAX_BINS 4096
#define TIMELINE_MAX_THREADS 64

/* Where the counts came from. */
enum timeline_source {
	TL_SRC_RECORDS,   /* the profile's TIMELINE records: counts read per thread */
	TL_SRC_POLLED,    /* its TIMELINE records of all a process's threads together,
			     read by the recorder (HPM_PROFILE_TL_PROCESS): a
			     process's lane is left out when it is the only one,
			     as it is "all" again */
	TL_SRC_SAMPLES,   /* the profile's samples: each sample's period at its time */
	TL_SRC_STAT,      /* a stat -I JSON file: each interval's counts */
};

/* Thread ids of the series that are not one thread's. */
#define TL_TID_ALL ((pid_t)-1)    /* "all": every thread */
#define TL_TID_OTHER ((pid_t)-2)  /* "[other threads]": past max_threads */

struct timeline_series {
	char *thread;         /* "comm/tid", "all" or "[other threads]" */
	pid_t tid;            /* or TL_TID_ALL, TL_TID_OTHER */
	char *event;          /* the event's or the metric's name */
	char *unit;           /* "" when none ("msec" for task-clock in stat) */
	bool metric;          /* a metric's value (bins merged by their mean),
				 not a count (bins merged by their sum) */
	double *count;        /* [nr_bins]: events in the bin; a metric's value */
	double *coverage;     /* [nr_bins]: running / enabled time, 0..1; 1 when
				 not multiplexed or nothing ran; 0 when the bin
				 has no value (a metric that was null) */
	double total;         /* sum of count (metric: mean of the bins with a value) */
	double min, max;      /* of count over the bins */
};

struct timeline {
	enum timeline_source source;
	uint64_t start_ns;    /* bin 0 starts here: the perf clock for profiles,
				 ns since the start of the run for stat files */
	uint64_t bin_ns;      /* width of a bin */
	uint64_t interval_ns; /* the recorder's reading interval (TL_SRC_RECORDS,
				 TL_SRC_POLLED); 0 for other sources */
	size_t nr_bins;
	size_t nr_series;     /* per event (and metric): "all" first, then threads */
	struct timeline_series *series;
	size_t nr_events;     /* distinct event and metric names, in order */
};

struct timeline_opts {
	size_t max_bins;      /* 0: TIMELINE_MAX_BINS (at least 2) */
	size_t max_threads;   /* 0: TIMELINE_MAX_THREADS */
	bool no_threads;      /* the "all" series only */
};

/*
 * From a loaded report: reads @r's profile (r->o.input) again, for the
 * times rep_load does not keep; @r's meta names the events. NULL and
 * errno (ENOMEM; EBADMSG, EPROTO ... when the file cannot be read) with
 * a sentence in @why.
 */
struct timeline *timeline__from_rep(const struct rep *r, const struct timeline_opts *o,
				    char *why, size_t len);
/* The same from an open profile (borrowed; read from where it stands). */
struct timeline *timeline__from_profile(struct hpm_profile *p, const struct timeline_opts *o,
					char *why, size_t len);
/*
 * From a file of `hpmon stat -I MS --json -o FILE`: JSON lines, one object
 * per interval (with "time_ns", "span_ns", "events", "metrics" and, with
 * --per-thread, "threads"), then the summary (no "time_ns"), which is not
 * binned. NULL and errno (EBADMSG: not such a file, the line and reason
 * in @why; E2BIG: a line over MJ_MAX_TEXT; ENOMEM; the open's errno).
 */
struct timeline *timeline__from_stat_json(const char *path, const struct timeline_opts *o,
					  char *why, size_t len);
/* Whether the @n bytes at the start of a file are a stat JSON file's
 * (a '{' after white space), not a profile's. */
bool timeline__is_stat_json(const void *head, size_t n);
/* Whether @path is a regular file that starts as a stat JSON file (else
 * it is left to the profile reader, which says what it is not). Opened
 * without blocking: a FIFO is not waited for, and is not one. */
bool timeline__path_is_stat_json(const char *path);
void timeline__free(struct timeline *t);

#endif
