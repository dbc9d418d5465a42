/* SPDX-License-Identifier: MIT */
/*
 * hpmon stat: what cmd-stat.c measures and print-stat.c prints. Measuring
 * fills a struct stat_report; printers only read it.
 */
#ifndef HPMON_TOOL_STAT_H
#define HPMON_TOOL_STAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <hpmon/session.h>

enum stat_agg { AGG_GLOBAL, AGG_THREAD, AGG_PROCESS, AGG_CPU };
enum stat_fmt { FMT_HUMAN, FMT_CSV, FMT_JSON };

struct stat_event {
	char name[160];       /* display name (":u" appended on fallback) */
	uint32_t type;        /* perf_event_attr type and config, to pair */
	uint64_t config;      /* events for perf's derived columns */
	bool clock;           /* task-clock/cpu-clock: shown in msec */
	const char *unit;     /* sysfs unit ("Joules") or "" */
	double scale;         /* sysfs scale */
	int err;              /* open error, 0 if counted */
	char reason[320];     /* advice for err */
	struct hpm_count c;   /* totals (this interval's delta in -I mode) */
	double mean, rsd_pct; /* -r: mean scaled count and its relative error */
};

struct stat_row {
	char label[64];       /* "CPU0", "comm-tid", "comm-pid" */
	pid_t pid, tid;
	int cpu;
	char comm[16];
	struct hpm_count *c;  /* [nr_ev] */
};

struct stat_report {
	size_t nr_ev;
	struct stat_event *ev;
	enum stat_agg agg;
	size_t nr_rows;
	struct stat_row *rows;
	char *const *argv;    /* command, or NULL */
	const char *target;   /* "process id 123", "system wide", ... */
	bool have_status;
	int exit_status;      /* as hpmon exits: code, or 128+signal */
	int term_signal;      /* signal that ended the command, or 0 */
	uint64_t elapsed_ns;
	double user_s, sys_s;
	int runs;             /* -r N */
	double elapsed_rsd_pct;
	uint64_t lost;        /* records the kernel dropped */
	bool interrupted;     /* Ctrl-C */
	/* -I */
	bool interval;
	double ts;            /* seconds since start, for interval lines */
	uint64_t interval_ns; /* the -I length asked for */
	uint64_t span_ns;     /* the time this line really covers */
};

struct stat_out {
	FILE *f;
	enum stat_fmt fmt;
	const char *sep;      /* CSV separator */
	bool big_num;         /* thousands separators in human output */
};

/* Final (or per-interval) report in the chosen format. */
void stat_print(const struct stat_out *o, const struct stat_report *r);
/* One --trace line. */
void stat_print_trace(const struct stat_out *o, const struct stat_report *r,
		      enum hpm_task_event what, const struct hpm_task *t,
		      double ts, const struct hpm_count *counts);

#endif
