/* SPDX-License-Identifier: MIT */
/*
 * Printing hpmon stat reports: perf's human table, perf's -x CSV columns,
 * and hpmon's JSON. Nothing here measures.
 */
#include <math.h>
#include <stddef.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "stat.h"

/* 1234567 -> "1,234,567" */
static void fmt_big(char *buf, size_t len, double v, bool big)
{
	char tmp[64];
	snprintf(tmp, sizeof(tmp), "%.0f", v);
	if (!big) {
		snprintf(buf, len, "%s", tmp);
		return;
	}
	size_t n = strlen(tmp), o = 0, lead = (tmp[0] == '-');
	for (size_t i = 0; i < n && o + 2 < len; i++) {
		buf[o++] = tmp[i];
		size_t left = n - i - 1;
		if (i >= lead && left && left % 3 == 0)
			buf[o++] = ',';
	}
	buf[o] = '\0';
}

static double scaled(const struct stat_event *e, const struct hpm_count *c)
{
	return hpm_count__scaled(c) * e->scale;
}

/* The generic hardware event @config of @r with its count in the same
 * breakdown row as @c (rows hold the counts in event order). */
static const struct hpm_count *partner(const struct stat_report *r,
				       const struct stat_event *e,
				       const struct hpm_count *c, uint64_t config)
{
	ptrdiff_t at = e - r->ev; /* c is ev[at].c or a row's c[at] */
	const struct hpm_count *base = c - at;
	for (size_t i = 0; i < r->nr_ev; i++) {
		const struct stat_event *o = &r->ev[i];
		const struct hpm_count *oc = (c == &e->c) ? &o->c : &base[i];
		if (o->type == PERF_TYPE_HARDWARE && o->config == config && !oc->err &&
		    oc->running)
			return oc;
	}
	return NULL;
}

/*
 * The metric perf prints after '#': insn per cycle, branch and cache miss
 * ratios and GHz where the partner event was counted too, CPUs utilized
 * for clocks, a rate otherwise.
 */
static bool metric(const struct stat_report *r, const struct stat_event *e,
		   const struct hpm_count *c, double *val, const char **unit)
{
	double secs = 0;
	const struct hpm_count *o = NULL;
	if (c->err || !c->running)
		return false;
	if (e->type == PERF_TYPE_HARDWARE) {
		switch (e->config) {
		case PERF_COUNT_HW_INSTRUCTIONS:
			o = partner(r, e, c, PERF_COUNT_HW_CPU_CYCLES);
			*unit = "insn per cycle";
			break;
		case PERF_COUNT_HW_BRANCH_MISSES:
			o = partner(r, e, c, PERF_COUNT_HW_BRANCH_INSTRUCTIONS);
			*unit = "of all branches";
			break;
		case PERF_COUNT_HW_CACHE_MISSES:
			o = partner(r, e, c, PERF_COUNT_HW_CACHE_REFERENCES);
			*unit = "of all cache refs";
			break;
		}
		if (o && hpm_count__scaled(o) > 0) {
			*val = hpm_count__scaled(c) / hpm_count__scaled(o);
			if (e->config != PERF_COUNT_HW_INSTRUCTIONS)
				*val *= 100.0;
			return true;
		}
	}
	if (e->clock) {
		double wall = r->interval ? (double)r->span_ns : (double)r->elapsed_ns;
		if (wall <= 0)
			return false;
		*val = scaled(e, c) / wall;
		*unit = "CPUs utilized";
		return true;
	}
	if (e->unit && e->unit[0])
		return false;
	for (size_t i = 0; i < r->nr_ev; i++)
		if (r->ev[i].clock && !r->ev[i].err && r->ev[i].c.running) {
			secs = hpm_count__scaled(&r->ev[i].c) / 1e9;
			break;
		}
	if (secs <= 0)
		return false;
	double rate = scaled(e, c) / secs;
	if (e->type == PERF_TYPE_HARDWARE && e->config == PERF_COUNT_HW_CPU_CYCLES) {
		*val = rate / 1e9;
		*unit = "GHz";
		return true;
	}
	if (rate >= 1e9) { *val = rate / 1e9; *unit = "G/sec"; }
	else if (rate >= 1e6) { *val = rate / 1e6; *unit = "M/sec"; }
	else if (rate >= 1e3) { *val = rate / 1e3; *unit = "K/sec"; }
	else { *val = rate; *unit = "/sec"; }
	return true;
}

static const char *status_word(const struct hpm_count *c)
{
	if (c->err)
		return "<not supported>";
	if (!c->running)
		return "<not counted>";
	return NULL;
}

/* ---- human ---- */

static void human_line(const struct stat_out *o, const struct stat_report *r,
		       const char *prefix, const struct stat_event *e,
		       const struct hpm_count *c)
{
	char num[64], mbuf[64] = "";
	const char *st = status_word(c);
	const char *unit = "";
	double mv;
	const char *mu;

	if (r->interval)
		fprintf(o->f, "%16.9f ", r->ts);
	if (prefix)
		fprintf(o->f, "%-20s ", prefix);
	if (st) {
		fprintf(o->f, "%18s      %-32s", st, e->name);
		if (c->err && e->reason[0] && !prefix)
			fprintf(o->f, " # %s", e->reason);
		fputc('\n', o->f);
		return;
	}
	if (e->clock) {
		snprintf(num, sizeof(num), "%.2f", scaled(e, c) / 1e6);
		unit = "msec";
	} else if (e->unit && e->unit[0]) {
		snprintf(num, sizeof(num), "%.2f", scaled(e, c));
		unit = e->unit;
	} else {
		fmt_big(num, sizeof(num), scaled(e, c), o->big_num);
	}
	if (metric(r, e, c, &mv, &mu))
		snprintf(mbuf, sizeof(mbuf), "# %8.3f %s", mv, mu);
	fprintf(o->f, "%18s %-5s %-32s %-28s", num, unit, e->name, mbuf);
	if (r->runs > 1 && !prefix)
		fprintf(o->f, " ( +- %5.2f%% )", e->rsd_pct);
	if (c->running < c->enabled)
		fprintf(o->f, " (%.2f%%)", hpm_count__pct_running(c));
	fputc('\n', o->f);
}

static void print_human(const struct stat_out *o, const struct stat_report *r)
{
	if (!r->interval) {
		fprintf(o->f, "\n Performance counter stats for ");
		if (r->argv) {
			fputc('\'', o->f);
			for (size_t i = 0; r->argv[i]; i++)
				fprintf(o->f, "%s%s", i ? " " : "", r->argv[i]);
			fputc('\'', o->f);
		} else {
			fprintf(o->f, "'%s'", r->target);
		}
		if (r->runs > 1)
			fprintf(o->f, " (%d runs)", r->runs);
		fprintf(o->f, ":\n\n");
	}
	if (r->agg != AGG_GLOBAL) {
		for (size_t k = 0; k < r->nr_rows; k++)
			for (size_t i = 0; i < r->nr_ev; i++)
				human_line(o, r, r->rows[k].label, &r->ev[i], &r->rows[k].c[i]);
		if (r->agg == AGG_CPU || r->interval)
			fputc('\n', o->f);
	}
	if (r->agg == AGG_GLOBAL || r->agg == AGG_CPU || !r->interval)
		for (size_t i = 0; i < r->nr_ev; i++)
			human_line(o, r, r->agg != AGG_GLOBAL ? "total" : NULL, &r->ev[i],
				   &r->ev[i].c);
	if (r->interval)
		return;
	fprintf(o->f, "\n %17.9f seconds time elapsed", (double)r->elapsed_ns / 1e9);
	if (r->runs > 1)
		fprintf(o->f, "  ( +- %5.2f%% )", r->elapsed_rsd_pct);
	fputc('\n', o->f);
	if (r->argv && r->runs <= 1) {
		fprintf(o->f, "\n %17.9f seconds user\n", r->user_s);
		fprintf(o->f, " %17.9f seconds sys\n", r->sys_s);
	}
	if (r->lost)
		fprintf(o->f, "\n hpmon: the kernel dropped %llu records: the per-thread "
			"breakdown is incomplete (totals are exact)\n",
			(unsigned long long)r->lost);
	fputc('\n', o->f);
}

/* ---- CSV: perf stat -x columns ---- */

static void csv_line(const struct stat_out *o, const struct stat_report *r,
		     const char *prefix, const struct stat_event *e,
		     const struct hpm_count *c)
{
	const char *s = o->sep;
	const char *st = status_word(c);
	double mv;
	const char *mu;

	if (r->interval)
		fprintf(o->f, "%16.9f%s", r->ts, s);
	if (prefix)
		fprintf(o->f, "%s%s", prefix, s);
	if (st)
		fprintf(o->f, "%s", st);
	else if (e->clock)
		fprintf(o->f, "%.2f", scaled(e, c) / 1e6);
	else if (e->unit && e->unit[0])
		fprintf(o->f, "%.2f", scaled(e, c));
	else
		fprintf(o->f, "%.0f", scaled(e, c));
	fprintf(o->f, "%s%s%s%s", s, e->clock ? "msec" : (e->unit ? e->unit : ""), s, e->name);
	if (r->runs > 1)
		fprintf(o->f, "%s%.2f%%", s, e->rsd_pct);
	fprintf(o->f, "%s%llu%s%.2f", s, (unsigned long long)c->running, s,
		hpm_count__pct_running(c));
	if (!st && metric(r, e, c, &mv, &mu))
		fprintf(o->f, "%s%.3f%s%s\n", s, mv, s, mu);
	else
		fprintf(o->f, "%s%s\n", s, s);
}

static void print_csv(const struct stat_out *o, const struct stat_report *r)
{
	if (r->agg != AGG_GLOBAL) {
		for (size_t k = 0; k < r->nr_rows; k++)
			for (size_t i = 0; i < r->nr_ev; i++)
				csv_line(o, r, r->rows[k].label, &r->ev[i], &r->rows[k].c[i]);
		return;
	}
	for (size_t i = 0; i < r->nr_ev; i++)
		csv_line(o, r, NULL, &r->ev[i], &r->ev[i].c);
}

/* ---- JSON ---- */

static void json_event(struct json *j, const struct stat_report *r,
		       const struct stat_event *e, const struct hpm_count *c,
		       bool top)
{
	double mv;
	const char *mu;
	json_obj_open(j, NULL);
	json_str(j, "name", e->name);
	json_bool(j, "supported", !c->err);
	if (c->err) {
		json_null(j, "count");
		if (top)
			json_str(j, "reason", e->reason);
	} else {
		/* in the event's unit, as printed: msec for clocks */
		json_dbl(j, "count", e->clock ? scaled(e, c) / 1e6 : scaled(e, c));
	}
	json_u64(j, "raw_count", c->value);
	json_u64(j, "enabled_ns", c->enabled);
	json_u64(j, "running_ns", c->running);
	json_dbl(j, "pct_running", hpm_count__pct_running(c));
	json_str(j, "unit", e->clock ? "msec" : e->unit);
	if (top && r->runs > 1) {
		json_dbl(j, "mean", e->mean);
		json_dbl(j, "rsd_pct", e->rsd_pct);
	}
	if (!c->err && metric(r, e, c, &mv, &mu)) {
		json_dbl(j, "metric_value", mv);
		json_str(j, "metric_unit", mu);
	}
	json_obj_close(j);
}

static void print_json(const struct stat_out *o, const struct stat_report *r)
{
	struct json j;
	json_init(&j, o->f, false);
	json_obj_open(&j, NULL);
	if (r->interval) {
		json_dbl(&j, "time", r->ts);
		json_u64(&j, "time_ns", (uint64_t)(r->ts * 1e9));
		json_u64(&j, "interval_ns", r->interval_ns);
		json_u64(&j, "span_ns", r->span_ns);
	}
	json_arr_open(&j, "command");
	for (size_t i = 0; r->argv && r->argv[i]; i++)
		json_str(&j, NULL, r->argv[i]);
	json_arr_close(&j);
	if (!r->argv)
		json_str(&j, "target", r->target);
	if (!r->interval) {
		if (r->have_status)
			json_i64(&j, "exit_status", r->exit_status);
		else
			json_null(&j, "exit_status");
		if (r->term_signal)
			json_i64(&j, "signal", r->term_signal);
		json_u64(&j, "elapsed_ns", r->elapsed_ns);
		json_dbl(&j, "user_s", r->user_s);
		json_dbl(&j, "sys_s", r->sys_s);
		json_i64(&j, "runs", r->runs);
		json_u64(&j, "lost_records", r->lost);
		json_bool(&j, "interrupted", r->interrupted);
	}
	json_arr_open(&j, "events");
	for (size_t i = 0; i < r->nr_ev; i++)
		json_event(&j, r, &r->ev[i], &r->ev[i].c, true);
	json_arr_close(&j);
	if (r->agg != AGG_GLOBAL) {
		const char *key = r->agg == AGG_THREAD ? "threads"
				: r->agg == AGG_PROCESS ? "processes" : "cpus";
		json_arr_open(&j, key);
		for (size_t k = 0; k < r->nr_rows; k++) {
			const struct stat_row *row = &r->rows[k];
			json_obj_open(&j, NULL);
			if (r->agg == AGG_CPU) {
				json_i64(&j, "cpu", row->cpu);
			} else {
				json_i64(&j, "pid", row->pid);
				if (r->agg == AGG_THREAD)
					json_i64(&j, "tid", row->tid);
				json_str(&j, "comm", row->comm);
			}
			json_arr_open(&j, "events");
			for (size_t i = 0; i < r->nr_ev; i++)
				json_event(&j, r, &r->ev[i], &row->c[i], false);
			json_arr_close(&j);
			json_obj_close(&j);
		}
		json_arr_close(&j);
	}
	json_obj_close(&j);
	json_end(&j);
}

void stat_print(const struct stat_out *o, const struct stat_report *r)
{
	switch (o->fmt) {
	case FMT_HUMAN: print_human(o, r); break;
	case FMT_CSV: print_csv(o, r); break;
	case FMT_JSON: print_json(o, r); break;
	}
	fflush(o->f);
}

void stat_print_trace(const struct stat_out *o, const struct stat_report *r,
		      enum hpm_task_event what, const struct hpm_task *t,
		      double ts, const struct hpm_count *counts)
{
	static const char *const words[] = { "fork", "exec", "exit" };
	const char *w = words[what];
	char kind[24];

	if (what == HPM_TASK_FORK)
		snprintf(kind, sizeof(kind), "%s", t->thread ? "thread-start" : "fork");
	else if (what == HPM_TASK_EXIT)
		snprintf(kind, sizeof(kind), "%s",
			 t->thread || t->tid != t->pid ? "thread-exit" : "exit");
	else
		snprintf(kind, sizeof(kind), "%s", w);

	if (o->fmt == FMT_JSON) {
		struct json j;
		json_init(&j, o->f, false);
		json_obj_open(&j, NULL);
		json_str(&j, "trace", kind);
		json_dbl(&j, "time", ts);
		json_i64(&j, "pid", t->pid);
		json_i64(&j, "tid", t->tid);
		json_i64(&j, "ppid", t->ppid);
		json_str(&j, "comm", t->comm);
		if (counts) {
			json_arr_open(&j, "events");
			for (size_t i = 0; i < r->nr_ev; i++)
				json_event(&j, r, &r->ev[i], &counts[i], false);
			json_arr_close(&j);
		}
		json_obj_close(&j);
		json_end(&j);
		return;
	}
	const char *s = o->fmt == FMT_CSV ? o->sep : " ";
	if (o->fmt == FMT_CSV)
		fprintf(o->f, "trace%s%.9f%s%s%s%d%s%d%s%d%s%s", s, ts, s, kind, s, t->pid, s,
			t->tid, s, t->ppid, s, t->comm);
	else
		fprintf(o->f, "# %12.6f %-12s pid %-7d tid %-7d ppid %-7d %-16s", ts, kind,
			t->pid, t->tid, t->ppid, t->comm);
	if (counts)
		for (size_t i = 0; i < r->nr_ev; i++) {
			char num[64];
			if (counts[i].err || !counts[i].running) {
				snprintf(num, sizeof(num), "-");
			} else if (r->ev[i].clock) {
				snprintf(num, sizeof(num), "%.2f", hpm_count__scaled(&counts[i]) / 1e6);
			} else {
				fmt_big(num, sizeof(num), scaled(&r->ev[i], &counts[i]),
					o->fmt == FMT_HUMAN && o->big_num);
			}
			if (o->fmt == FMT_CSV)
				fprintf(o->f, "%s%s", s, num);
			else
				fprintf(o->f, " %s=%s", r->ev[i].name, num);
		}
	fputc('\n', o->f);
	fflush(o->f);
}
