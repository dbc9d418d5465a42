/* SPDX-License-Identifier: MIT */
/*
 * Printing hpmon stat reports: perf's human table, perf's -x CSV columns, and hpmon's
 * JSON. Nothing here measures. Names (events, metrics, comm, the command line) go
 * through escape.h in text and CSV.
 */
#include <errno.h>
#include <math.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>

#include "output/escape.h"
#include "output/json.h"
#include "output/outname.h"
#include "output/output.h"
#include "stat/stat.h"

/* 1234567 -> "1,234,567" */
void stat_fmt_big(char *buf, size_t len, double v, bool big)
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

/* -A: event @i does not count on row @row's CPU (NULL: the totals). */
static bool absent(const struct stat_row *row, size_t i)
{
	return row && row->absent && row->absent[i];
}

static double scaled(const struct stat_event *e, const struct hpm_count *c)
{
	return hpm_count__scaled(c) * e->scale;
}

/*
 * perf's figure after '#' for an event without a metric of its own: CPUs
 * utilized for a clock (over the elapsed time, an interval's with -I: as
 * perf, and as the metric set's cpus_utilized, test-stat-clockfig.c), GHz
 * for cycles, a rate per second of task-clock for other events. (insn per
 * cycle and miss ratios are metrics of the "default" group in
 * data/metrics-*.txt.) A row (@row: a thread, process or CPU) divides by
 * its own clock, as perf does: the total's would give the thread a rate
 * it never had. No clock event, or the row's did not run: no rate (perf
 * prints none either).
 */
static bool rate(const struct stat_report *r, const struct stat_row *row,
		 const struct stat_event *e, double v, double *val, const char **unit)
{
	double secs = 0;
	if (e->clock) {
		uint64_t span = r->interval ? r->span_ns : r->elapsed_ns;
		*val = span ? v / (double)span : 0;
		*unit = "CPUs utilized";
		return span != 0;
	}
	if ((e->unit && e->unit[0]) || r->per_second)
		return false;
	for (size_t i = 0; i < r->nr_ev; i++) {
		const struct hpm_count *c = row ? &row->c[i] : &r->ev[i].c;
		if (!r->ev[i].clock || r->ev[i].err || absent(row, i))
			continue;
		if (!c->err && c->running)
			secs = hpm_count__scaled(c) / 1e9;
		break;
	}
	if (secs <= 0)
		return false;
	double rt = v / secs;
	if (e->type == PERF_TYPE_HARDWARE && e->config == PERF_COUNT_HW_CPU_CYCLES) {
		*val = rt / 1e9;
		*unit = "GHz";
		return true;
	}
	if (rt >= 1e9) { *val = rt / 1e9; *unit = "G/sec"; }
	else if (rt >= 1e6) { *val = rt / 1e6; *unit = "M/sec"; }
	else if (rt >= 1e3) { *val = rt / 1e3; *unit = "K/sec"; }
	else { *val = rt; *unit = "/sec"; }
	return true;
}

/* What one line of the table shows for event @i of row @row (NULL: the
 * totals): the count, the derived-preset sum, the metric values. */
struct shown {
	const struct stat_event *e;
	const struct stat_row *row; /* the row shown, NULL for the totals */
	const struct hpm_count *c;  /* the count (for a derived preset: the
				       terms' least running time) */
	double value;               /* scaled, in the event's unit (ns for clocks) */
	double sigma;               /* of value; NaN unknown */
	const struct hpm_value *mv; /* the metrics' values for this row */
	const struct hpm_value *per_sec, *per_kinst;
};

static void shown_of(const struct stat_report *r, const struct stat_row *row, size_t i,
		     const struct hpm_count *c, struct shown *sh)
{
	const struct stat_event *e = &r->ev[i];
	memset(sh, 0, sizeof(*sh));
	sh->e = e;
	sh->row = row;
	sh->c = c;
	sh->value = scaled(e, c);
	sh->sigma = row ? (c->running < c->enabled ? NAN : 0) : e->sigma * e->scale;
	if (e->merged && (!row || row->mc)) {
		/* uncore instances: their sum (stat_merge_instances) */
		sh->c = row ? &row->mc[i] : &e->mc;
		sh->value = scaled(e, sh->c);
		sh->sigma = row ? (sh->c->running < sh->c->enabled ? NAN : 0)
				: e->msigma * e->scale;
	}
	if (e->derived) {
		sh->c = row ? (row->dc ? &row->dc[i] : c) : &e->dc;
		sh->value = row ? (row->dval ? row->dval[i] : 0) : e->dval;
		sh->sigma = row ? (sh->c->running < sh->c->enabled ? NAN : 0) : NAN;
	}
	sh->mv = row ? row->mv : NULL;
	if (!row) {
		sh->per_sec = &e->per_sec;
		sh->per_kinst = &e->per_kinst;
	} else {
		sh->per_sec = row->per_sec ? &row->per_sec[i] : NULL;
		sh->per_kinst = row->per_kinst ? &row->per_kinst[i] : NULL;
	}
}

static const struct hpm_value *mval(const struct stat_report *r, const struct shown *sh,
				    size_t k)
{
	return sh->mv ? &sh->mv[k] : &r->metrics[k].v;
}

/* One figure after '#'. */
struct fig {
	double v;
	const char *unit;
	const char *name;     /* a selected metric's name, or NULL */
	bool perf;            /* a vendor metric: CSV as perf prints it */
	bool na;
	const char *reason;
	double rel_sigma;     /* relative uncertainty; NaN unknown; 0 none */
	char ubuf[24];        /* an autoscaled unit (K/sec) */
};

#define MAX_FIGS 64

static void autoscale(double *v, char *unit, size_t len, const char *base)
{
	double a = fabs(*v);
	const char *p = "";
	if (a >= 1e9) { *v /= 1e9; p = "G"; }
	else if (a >= 1e6) { *v /= 1e6; p = "M"; }
	else if (a >= 1e3) { *v /= 1e3; p = "K"; }
	snprintf(unit, len, "%s%s", p, base);
}

/*
 * The figures of an event line: the metrics printed beside it (selected
 * ones, else perf's default figures, else perf's rate), then the
 * --per-second and --per-kinst values. @units holds text for the latter.
 */
static size_t figures(const struct stat_report *r, const struct shown *sh, size_t i,
		      struct fig *f, char units[2][48])
{
	size_t n = 0;
	bool own = false;
	const struct stat_event *e = sh->e;

	for (size_t k = 0; k < r->nr_metrics && n < MAX_FIGS - 2; k++) {
		const struct stat_metric *m = &r->metrics[k];
		if (m->anchor != i || m->dflt)
			continue;
		const struct hpm_value *v = mval(r, sh, k);
		own = true;
		if (m->form == HPM_FORM_PER_SECOND && !strcmp(m->unit, "/sec") && !v->na) {
			f[n] = (struct fig){ .v = v->value, .name = m->name,
					     .rel_sigma = v->value ? v->sigma / fabs(v->value) : 0 };
			autoscale(&f[n].v, f[n].ubuf, sizeof(f[n].ubuf), "/sec");
			f[n].unit = f[n].ubuf;
			n++;
			continue;
		}
		f[n++] = (struct fig){ .v = v->value, .unit = m->unit, .name = m->name,
				       .perf = m->perf, .na = v->na, .reason = v->reason,
				       .rel_sigma = v->na ? 0 : (v->value ? v->sigma / fabs(v->value)
									    : (v->sigma ? NAN : 0)) };
	}
	for (size_t k = 0; !own && k < r->nr_metrics && n < MAX_FIGS - 2; k++) {
		const struct stat_metric *m = &r->metrics[k];
		const struct hpm_value *v = mval(r, sh, k);
		if (m->anchor != i || !m->dflt || v->na)
			continue;
		own = true;
		f[n++] = (struct fig){ .v = v->value, .unit = m->unit };
	}
	if (!own && !sh->c->err && sh->c->running) {
		double rv;
		const char *ru;
		if (rate(r, sh->row, e, sh->value, &rv, &ru))
			f[n++] = (struct fig){ .v = rv, .unit = ru };
	}
	if (r->per_second && sh->per_sec) {
		const struct hpm_value *v = sh->per_sec;
		double x = v->value;
		if (e->clock)
			x /= 1e6; /* msec per second */
		autoscale(&x, units[0], sizeof(units[0]), e->clock ? "msec/sec" : "/sec");
		f[n++] = (struct fig){ .v = x, .unit = units[0], .na = v->na, .reason = v->reason,
				       .rel_sigma = v->na || !v->value ? 0 : v->sigma / fabs(v->value) };
	}
	if (r->per_kinst && sh->per_kinst) {
		const struct hpm_value *v = sh->per_kinst;
		snprintf(units[1], sizeof(units[1]), "%s", e->clock ? "nsec per 1k insn" : "per 1k insn");
		f[n++] = (struct fig){ .v = v->value, .unit = units[1], .na = v->na, .reason = v->reason,
				       .rel_sigma = v->na || !v->value ? 0 : v->sigma / fabs(v->value) };
	}
	return n;
}

static void fmt_val(char *buf, size_t len, double v)
{
	if (v != 0 && fabs(v) < 0.001)
		snprintf(buf, len, "%8.3g", v);
	else
		snprintf(buf, len, "%8.3f", v);
}

/* "# 1.234 insn per cycle (ipc) ±0.5%" */
static void fig_text(const struct fig *f, char *buf, size_t len)
{
	char num[32], sig[24] = "";
	if (f->na) {
		if (f->name)
			snprintf(buf, len, "#      n/a %s%s(%s): %s", esc_text(f->unit),
				 f->unit[0] ? " " : "", esc_text(f->name), esc_text(f->reason));
		else
			snprintf(buf, len, "#      n/a %s: %s", esc_text(f->unit), esc_text(f->reason));
		return;
	}
	if (f->name)
		fmt_val(num, sizeof(num), f->v);
	else
		snprintf(num, sizeof(num), "%8.3f", f->v);
	if (isnan(f->rel_sigma))
		snprintf(sig, sizeof(sig), " ±?");
	else if (f->rel_sigma > 0)
		snprintf(sig, sizeof(sig), " ±%.2g%%", 100 * f->rel_sigma);
	if (f->name)
		snprintf(buf, len, "# %s %s%s(%s)%s", num, esc_text(f->unit), f->unit[0] ? " " : "",
			 esc_text(f->name), sig);
	else
		snprintf(buf, len, "# %s %s%s", num, esc_text(f->unit), sig);
}

/* A row's count that is missing (-EAGAIN: counted, but this task's share
 * never arrived): an incomplete breakdown, never "not supported". */
static bool count_missing(const struct hpm_count *c)
{
	return c->err == -EAGAIN;
}

static const char *status_word(const struct hpm_count *c)
{
	if (count_missing(c))
		return "<not counted>";
	if (c->err)
		return "<not supported>";
	if (!c->running)
		return "<not counted>";
	return NULL;
}

/* ---- human ---- */

/* The uncertainty of a count, when it is multiplexed: " ±x%" or " ±?". */
static void count_sigma(const struct shown *sh, char *buf, size_t len)
{
	buf[0] = '\0';
	if (sh->c->running >= sh->c->enabled || !sh->c->running)
		return;
	if (isnan(sh->sigma))
		snprintf(buf, len, " ±?");
	else if (sh->value)
		snprintf(buf, len, " ±%.2g%%", 100 * sh->sigma / fabs(sh->value));
}

static void human_line(const struct stat_out *o, const struct stat_report *r,
		       const char *prefix, size_t i, const struct stat_row *row,
		       const struct hpm_count *c)
{
	const struct stat_event *e = &r->ev[i];
	char num[64], mbuf[320] = "", sig[24];
	struct fig f[MAX_FIGS];
	char units[2][48];
	struct shown sh;
	const char *st;
	const char *unit = "";
	size_t nf;

	if (e->hidden || absent(row, i))
		return;
	shown_of(r, row, i, c, &sh);
	st = status_word(sh.c);
	if (r->interval)
		fprintf(o->f, "%16.9f ", r->ts);
	if (prefix)
		fprintf(o->f, "%-20s ", esc_text(prefix));
	if (e->clock)
		unit = "msec";
	else if (e->unit && e->unit[0])
		unit = e->unit;
	if (st) {
		/* the columns of a count, its unit included (as perf) */
		fprintf(o->f, "%18s %-5s %-32s", st, esc_text(unit), esc_text(e->name));
		if (sh.c->err && e->reason[0] && !prefix)
			fprintf(o->f, " # %s", esc_text(e->reason));
		fputc('\n', o->f);
		nf = figures(r, &sh, i, f, units);
		for (size_t k = 0; k < nf; k++)
			if (f[k].name) {
				fig_text(&f[k], mbuf, sizeof(mbuf));
				fprintf(o->f, "%*s%s\n",
					(r->interval ? 17 : 0) + (prefix ? 21 : 0) + 58, "", mbuf);
			}
		return;
	}
	if (e->clock) {
		snprintf(num, sizeof(num), "%.2f", sh.value / 1e6);
	} else if (e->unit && e->unit[0]) {
		snprintf(num, sizeof(num), "%.2f", sh.value);
	} else {
		stat_fmt_big(num, sizeof(num), sh.value, o->big_num);
	}
	nf = figures(r, &sh, i, f, units);
	if (nf)
		fig_text(&f[0], mbuf, sizeof(mbuf));
	fprintf(o->f, "%18s %-5s %-32s %-28s", num, esc_text(unit), esc_text(e->name), mbuf);
	if (r->runs > 1 && !prefix)
		fprintf(o->f, " ( +- %5.2f%% )", e->rsd_pct);
	count_sigma(&sh, sig, sizeof(sig));
	fputs(sig, o->f);
	if (sh.c->running < sh.c->enabled)
		fprintf(o->f, " (%.2f%%)", hpm_count__pct_running(sh.c));
	fputc('\n', o->f);
	/* more figures: on lines of their own, under the first (as perf) */
	for (size_t k = 1; k < nf; k++) {
		fig_text(&f[k], mbuf, sizeof(mbuf));
		fprintf(o->f, "%*s%s\n", (r->interval ? 17 : 0) + (prefix ? 21 : 0) + 58, "",
			mbuf);
	}
}

/* Selected metrics that no event line shows: n/a without any event. */
static void human_orphans(const struct stat_out *o, const struct stat_report *r)
{
	for (size_t k = 0; k < r->nr_metrics; k++) {
		const struct stat_metric *m = &r->metrics[k];
		char buf[320];
		if (m->dflt || (m->anchor < r->nr_ev && !r->ev[m->anchor].hidden))
			continue;
		struct fig f = { .v = m->v.value, .unit = m->unit, .name = m->name,
				 .na = m->v.na, .reason = m->v.reason };
		fig_text(&f, buf, sizeof(buf));
		if (r->interval)
			fprintf(o->f, "%16.9f ", r->ts);
		fprintf(o->f, "%58s%s\n", "", buf);
	}
}

static void print_human(const struct stat_out *o, const struct stat_report *r)
{
	if (!r->interval) {
		/* what was counted, as perf says it: with -p, -t, -a or -C the
		 * target, a command after them only timing the count */
		const char *ids = strstr(r->target, " id ");
		fprintf(o->f, "\n Performance counter stats for ");
		if (ids) {
			fprintf(o->f, "%.*s '%s'", (int)(ids + 3 - r->target), r->target, ids + 4);
		} else if (r->target[0] || !r->argv) {
			fprintf(o->f, "'%s'", esc_text(r->target));
		} else {
			fputc('\'', o->f);
			for (size_t i = 0; r->argv[i]; i++)
				fprintf(o->f, "%s%s", i ? " " : "", esc_text(r->argv[i]));
			fputc('\'', o->f);
		}
		if (r->runs > 1)
			fprintf(o->f, " (%d runs)", r->runs);
		fprintf(o->f, ":\n\n");
	}
	if (r->agg != AGG_GLOBAL) {
		for (size_t k = 0; k < r->nr_rows; k++)
			for (size_t i = 0; i < r->nr_ev; i++)
				human_line(o, r, r->rows[k].label, i, &r->rows[k], &r->rows[k].c[i]);
		if (r->agg == AGG_CPU || r->interval)
			fputc('\n', o->f);
	}
	if (r->agg == AGG_GLOBAL || r->agg == AGG_CPU || !r->interval) {
		for (size_t i = 0; i < r->nr_ev; i++)
			human_line(o, r, r->agg != AGG_GLOBAL ? "total" : NULL, i, NULL,
				   &r->ev[i].c);
		human_orphans(o, r);
	}
	if (r->interval)
		return;
	fprintf(o->f, "\n %17.9f seconds time elapsed", (double)r->elapsed_ns / 1e9);
	if (r->runs > 1)
		fprintf(o->f, "  ( +- %5.2f%% )", r->elapsed_rsd_pct);
	fputc('\n', o->f);
	if (r->argv && !r->target[0] && r->runs <= 1) { /* the command's times, when it was counted */
		fprintf(o->f, "\n %17.9f seconds user\n", r->user_s);
		fprintf(o->f, " %17.9f seconds sys\n", r->sys_s);
	}
	if (r->lost)
		fprintf(o->f, "\n hpmon: the kernel dropped %llu records: the per-thread "
			"breakdown is incomplete (totals are exact)\n",
			(unsigned long long)r->lost);
	if (r->unsampled)
		fprintf(o->f, "\n hpmon: %llu context switches were counted without their "
			"sample (the kernel wrote nothing for them): they are in the [lost] row; "
			"what else their tasks used is the next task's on that CPU "
			"(docs/hpmon-top.md)\n",
			(unsigned long long)r->unsampled);
	fputc('\n', o->f);
}

/* ---- CSV: perf stat -x columns ---- */

/* A figure's unit column: perf's unit text, or "NAME [UNIT]" for a
 * selected metric so that scripts can tell metrics apart; a vendor
 * metric's as perf prints it ("UNIT  NAME"). */
static void csv_unit(const struct fig *f, char *buf, size_t len)
{
	if (f->perf)
		stat_perf_metric_unit(f->name, f->unit, buf, len);
	else if (f->name)
		snprintf(buf, len, "%s [%s]", f->name, f->unit);
	else
		snprintf(buf, len, "%s", f->unit);
}

/* A figure's value column: "%.3f", a vendor metric's as perf prints it. */
static void csv_value(const struct fig *f, char *buf, size_t len)
{
	if (f->perf)
		stat_perf_csv_value(f->v, f->unit && f->unit[0], buf, len);
	else
		snprintf(buf, len, "%.3f", f->v);
}

static void csv_line(const struct stat_out *o, const struct stat_report *r,
		     const char *prefix, size_t i, const struct stat_row *row,
		     const struct hpm_count *c)
{
	const struct stat_event *e = &r->ev[i];
	const char *s = o->sep;
	struct fig f[MAX_FIGS];
	char units[2][48], ubuf[160], vbuf[64];
	struct shown sh;
	const char *st;
	size_t nf, first;

	if (e->hidden || absent(row, i))
		return;
	shown_of(r, row, i, c, &sh);
	st = status_word(sh.c);
	if (r->interval)
		fprintf(o->f, "%16.9f%s", r->ts, s);
	if (prefix)
		fprintf(o->f, "%s%s", esc_csv(prefix, s), s);
	if (st)
		fprintf(o->f, "%s", st);
	else if (e->clock)
		fprintf(o->f, "%.2f", sh.value / 1e6);
	else if (e->unit && e->unit[0])
		fprintf(o->f, "%.2f", sh.value);
	else
		fprintf(o->f, "%.0f", sh.value);
	fprintf(o->f, "%s%s%s%s", s, esc_csv(e->clock ? "msec" : e->unit, s), s,
		esc_csv(e->name, s));
	if (r->runs > 1)
		fprintf(o->f, "%s%.2f%%", s, e->rsd_pct);
	fprintf(o->f, "%s%llu%s%.2f", s, (unsigned long long)sh.c->running, s,
		hpm_count__pct_running(sh.c));
	nf = figures(r, &sh, i, f, units);
	/* n/a figures have no value to print: CSV leaves them out */
	for (first = 0; first < nf && f[first].na; first++)
		;
	if (first < nf) {
		csv_unit(&f[first], ubuf, sizeof(ubuf));
		csv_value(&f[first], vbuf, sizeof(vbuf));
		fprintf(o->f, "%s%s%s%s\n", s, vbuf, s, esc_csv(ubuf, s));
	} else {
		fprintf(o->f, "%s%s\n", s, s);
	}
	/* more figures: lines with the count columns empty, as perf */
	for (size_t k = first + 1; k < nf; k++) {
		if (f[k].na)
			continue;
		if (r->interval)
			fprintf(o->f, "%16.9f%s", r->ts, s);
		if (prefix)
			fprintf(o->f, "%s%s", esc_csv(prefix, s), s);
		for (int n = 0; n < 4 + (r->runs > 1); n++)
			fputs(s, o->f);
		csv_unit(&f[k], ubuf, sizeof(ubuf));
		csv_value(&f[k], vbuf, sizeof(vbuf));
		fprintf(o->f, "%s%s%s%s\n", s, vbuf, s, esc_csv(ubuf, s));
	}
}

static void print_csv(const struct stat_out *o, const struct stat_report *r)
{
	if (r->agg != AGG_GLOBAL) {
		for (size_t k = 0; k < r->nr_rows; k++)
			for (size_t i = 0; i < r->nr_ev; i++)
				csv_line(o, r, r->rows[k].label, i, &r->rows[k], &r->rows[k].c[i]);
		return;
	}
	for (size_t i = 0; i < r->nr_ev; i++)
		csv_line(o, r, NULL, i, NULL, &r->ev[i].c);
}

/* ---- JSON ---- */

enum json_mode { J_TOP, J_ROW, J_PLAIN };

/* A value, or null when unknown. */
static void json_num(struct json *j, const char *key, double v)
{
	if (isfinite(v))
		json_dbl(j, key, v);
	else
		json_null(j, key);
}

/* The count fields of an event (or of a derived preset's term). */
static void json_counts(struct json *j, const struct stat_event *e,
			const struct hpm_count *c)
{
	json_u64(j, "raw_count", c->value);
	json_u64(j, "enabled_ns", c->enabled);
	json_u64(j, "running_ns", c->running);
	json_dbl(j, "pct_running", hpm_count__pct_running(c));
	json_str(j, "unit", e->clock ? "msec" : e->unit);
}

static void json_value(struct json *j, const char *key, const struct hpm_value *v,
		       double div)
{
	json_obj_open(j, key);
	if (v->na) {
		json_null(j, "value");
		json_null(j, "uncertainty");
		json_str(j, "reason", v->reason);
	} else {
		json_dbl(j, "value", v->value / div);
		json_num(j, "uncertainty", v->sigma / div);
	}
	json_obj_close(j);
}

static void json_event(struct json *j, const struct stat_report *r, size_t i,
		       const struct stat_row *row, const struct hpm_count *c, enum json_mode mode)
{
	const struct stat_event *e = &r->ev[i];
	struct fig f[MAX_FIGS];
	char units[2][48];
	struct shown sh;
	bool top = mode == J_TOP;
	size_t nf = 0;

	if (mode != J_PLAIN && (e->hidden || absent(row, i)))
		return;
	shown_of(r, row, i, c, &sh);
	if (mode == J_PLAIN) {
		sh.c = c;
		sh.value = scaled(e, c);
		sh.sigma = c->running < c->enabled ? NAN : 0;
	}
	json_obj_open(j, NULL);
	json_str(j, "name", e->name);
	json_bool(j, "supported", !sh.c->err || count_missing(sh.c));
	if (sh.c->err) {
		json_null(j, "count");
		if (count_missing(sh.c))
			json_str(j, "reason", "incomplete");
		else if (top)
			json_str(j, "reason", e->reason);
	} else {
		/* in the event's unit, as printed: msec for clocks */
		json_dbl(j, "count", e->clock ? sh.value / 1e6 : sh.value);
	}
	json_counts(j, e, sh.c);
	if (!sh.c->err)
		json_num(j, "uncertainty", e->clock ? sh.sigma / 1e6 : sh.sigma);
	if (top && r->runs > 1) {
		json_dbl(j, "mean", e->mean);
		json_dbl(j, "rsd_pct", e->rsd_pct);
	}
	if (mode != J_PLAIN && !sh.c->err)
		nf = figures(r, &sh, i, f, units);
	for (size_t k = 0; k < nf; k++)
		if (!f[k].na && !(r->per_second && f[k].unit == units[0]) &&
		    !(r->per_kinst && f[k].unit == units[1])) {
			json_dbl(j, "metric_value", f[k].v);
			json_str(j, "metric_unit", f[k].unit);
			break;
		}
	if (mode != J_PLAIN && r->per_second && sh.per_sec)
		json_value(j, "per_second", sh.per_sec, e->clock ? 1e6 : 1);
	if (mode != J_PLAIN && r->per_kinst && sh.per_kinst)
		json_value(j, "per_kinst", sh.per_kinst, 1);
	if (mode != J_PLAIN && e->derived) {
		json_arr_open(j, "terms");
		for (int k = 0; k < e->derived; k++) {
			const struct stat_event *t = &r->ev[i + (size_t)k];
			const struct hpm_count *tc = row ? &row->c[i + (size_t)k] : &t->c;
			json_obj_open(j, NULL);
			json_str(j, "name", t->term);
			json_i64(j, "sign", t->sign);
			json_bool(j, "supported", !tc->err || count_missing(tc));
			if (tc->err)
				json_null(j, "count");
			else
				json_dbl(j, "count", scaled(t, tc));
			json_counts(j, t, tc);
			json_obj_close(j);
		}
		json_arr_close(j);
	}
	json_obj_close(j);
}

/* The selected metrics (not perf's default figures) of the totals or a row. */
static void json_metrics(struct json *j, const struct stat_report *r,
			 const struct stat_row *row)
{
	json_arr_open(j, "metrics");
	for (size_t k = 0; k < r->nr_metrics; k++) {
		const struct stat_metric *m = &r->metrics[k];
		const struct hpm_value *v = row ? (row->mv ? &row->mv[k] : NULL) : &m->v;
		if (m->dflt || !v)
			continue;
		json_obj_open(j, NULL);
		json_str(j, "name", m->name);
		if (v->na) {
			json_null(j, "value");
		} else {
			json_dbl(j, "value", v->value);
		}
		json_str(j, "unit", m->unit);
		if (v->na) {
			json_null(j, "uncertainty");
			json_str(j, "reason", v->reason);
		} else {
			json_num(j, "uncertainty", v->sigma);
		}
		/* as perf -j prints a metric; n/a is null, where perf prints 0 */
		char pu[64];
		stat_perf_metric_unit(m->name, m->unit, pu, sizeof(pu));
		if (v->na)
			json_null(j, "metric-value");
		else
			json_dbl(j, "metric-value", v->value);
		json_str(j, "metric-unit", pu);
		if (!row) {
			if (m->anchor < r->nr_ev)
				json_str(j, "event", r->ev[m->anchor].name);
			else
				json_null(j, "event");
			json_str(j, "groups", m->groups);
			json_str(j, "form", hpm_metric_form__str(m->form));
			json_str(j, "description", m->desc);
		}
		json_obj_close(j);
	}
	json_arr_close(j);
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
	if (r->target[0] || !r->argv)
		json_str(&j, "target", r->target);
	outname_json(&j);
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
		if (r->per_task)
			json_u64(&j, "unsampled_switches", r->unsampled);
		json_bool(&j, "interrupted", r->interrupted);
		if (r->nr_notes) {
			json_arr_open(&j, "notes");
			for (size_t k = 0; k < r->nr_notes; k++)
				json_str(&j, NULL, r->notes[k]);
			json_arr_close(&j);
		}
	}
	json_arr_open(&j, "events");
	for (size_t i = 0; i < r->nr_ev; i++)
		json_event(&j, r, i, NULL, &r->ev[i].c, J_TOP);
	json_arr_close(&j);
	json_metrics(&j, r, NULL);
	if (r->agg != AGG_GLOBAL) {
		json_arr_open(&j, stat_json_rows_key(r));
		for (size_t k = 0; k < r->nr_rows; k++) {
			const struct stat_row *row = &r->rows[k];
			json_obj_open(&j, NULL);
			stat_json_row_id(&j, r, row);
			json_arr_open(&j, "events");
			for (size_t i = 0; i < r->nr_ev; i++)
				json_event(&j, r, i, row, &row->c[i], J_ROW);
			json_arr_close(&j);
			json_metrics(&j, r, row);
			json_obj_close(&j);
		}
		json_arr_close(&j);
	}
	json_obj_close(&j);
	json_end(&j);
}

/* How the metrics' events were scheduled: once, before the counts. */
void stat_print_notes(const struct stat_out *o, const struct stat_report *r)
{
	if (o->fmt == FMT_JSON)
		return; /* in the closing object */
	for (size_t k = 0; k < r->nr_notes; k++)
		fprintf(o->f, "# hpmon: %s\n", esc_text(r->notes[k]));
	fflush(o->f);
}

struct print_job {
	const struct stat_out *o;
	const struct stat_report *r;
};

static void print_report(FILE *f, void *arg)
{
	const struct print_job *p = arg;
	struct stat_out o = *p->o;

	o.f = f;
	switch (o.fmt) {
	case FMT_HUMAN: print_human(&o, p->r); break;
	case FMT_CSV: print_csv(&o, p->r); break;
	case FMT_JSON: print_json(&o, p->r); break;
	}
}

/* The report (or an -I interval) in one write (output.h) */
void stat_print(const struct stat_out *o, const struct stat_report *r)
{
	struct print_job p = { o, r };
	out_at_once(o->f, print_report, &p);
}

void stat_json_event_counts(struct json *j, const struct stat_report *r, size_t i,
			    const struct hpm_count *c)
{
	json_event(j, r, i, NULL, c, J_PLAIN);
}
