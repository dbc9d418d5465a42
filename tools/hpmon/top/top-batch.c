/* SPDX-License-Identifier: MIT */
/*
 * hpmon top -b: frames as text (as top -b prints them: rates per second,
 * clocks as %CPU, the idle tasks on a line of their own), as JSON (one
 * object a line: time, interval, per-CPU line, rows with pid, comm,
 * events [name, count] and metrics, the idle tasks apart, the totals) or
 * as CSV (-x SEP: one line per row, the idle tasks' last). JSON and CSV
 * keep the counts. Names go through escape.h; nothing here measures.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "output/escape.h"
#include "output/json.h"
#include "top/top.h"

static const char *by_name(const struct top *t)
{
	return t->rows.by == SYSROWS_THREAD ? "threads" : t->rows.by == SYSROWS_CGROUP ? "cgroups"
											: "processes";
}

static void clock_text(double now, char *buf, size_t len)
{
	time_t s = (time_t)now;
	struct tm tm;
	if (localtime_r(&s, &tm))
		strftime(buf, len, "%H:%M:%S", &tm);
	else
		snprintf(buf, len, "?");
}

/* What the row's first column shows: pid (tid with -H), or the cgroup. */
static void row_id(const struct top *t, const struct sysrow *r, char *buf, size_t len)
{
	if (r->pid < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%d", (int)(t->rows.by == SYSROWS_THREAD ? r->tid : r->pid));
}

void top_print_batch(const struct top *t, FILE *f)
{
	char hms[16], id[16], user[32], num[64];
	clock_text(t->now, hms, sizeof(hms));
	fprintf(f, "hpmon top - %s  interval %.2f s  %zu %s counted, %zu shown", hms,
		t->interval, t->nr_tasks, by_name(t), t->nr_lines);
	if (t->o->cumulative)
		fprintf(f, "  (cumulative, over %.2f s)", t->elapsed);
	if (t->lost)
		fprintf(f, "  lost switch records: %llu", (unsigned long long)t->lost);
	if (t->unsampled)
		fprintf(f, "  unsampled switches: %llu", (unsigned long long)t->unsampled);
	fputc('\n', f);
	if (t->nr_cpus) {
		fprintf(f, "CPU busy:");
		for (size_t c = 0; c < t->nr_cpus; c++)
			if (isnan(t->cpus[c].busy_pct))
				fprintf(f, "  cpu%d -", t->cpus[c].cpu);
			else
				fprintf(f, "  cpu%d %5.1f%%", t->cpus[c].cpu, t->cpus[c].busy_pct);
		fputc('\n', f);
	}
	char idle[512];
	if (top_idle_line(t, idle, sizeof(idle)))
		fprintf(f, "%s\n", esc_text(idle));
	fputc('\n', f);
	if (t->rows.by == SYSROWS_CGROUP)
		fprintf(f, "%-40s", "CGROUP");
	else
		fprintf(f, "%7s %-8s %-16s", t->rows.by == SYSROWS_THREAD ? "TID" : "PID", "USER", "COMM");
	for (size_t c = 0; c < t->nr_cols; c++)
		if (!t->cols[c].hidden)
			fprintf(f, " %*s", top_col_width(&t->cols[c]), esc_text(t->cols[c].label));
	fputc('\n', f);
	for (size_t k = 0; k < t->nr_lines; k++) {
		const struct top_line *l = &t->lines[k];
		const struct sysrow *r = &t->rows.row[l->row];
		if (t->rows.by == SYSROWS_CGROUP) {
			fprintf(f, "%-40s", esc_text(r->pid > 0 ? r->cgroup : r->comm));
		} else {
			row_id(t, r, id, sizeof(id));
			top_user_name(r->uid, user, sizeof(user));
			fprintf(f, "%7s %-8.8s %-16s", id, esc_text(user), esc_text(r->comm));
		}
		for (size_t c = 0; c < t->nr_cols; c++) {
			if (t->cols[c].hidden)
				continue;
			top_fmt(&t->cols[c], l->val[c], num, sizeof(num));
			fprintf(f, " %*s", top_col_width(&t->cols[c]), num);
		}
		fputc('\n', f);
	}
	fputc('\n', f);
}

static void json_count(struct json *j, const struct top *t, size_t i, uint64_t count)
{
	json_obj_open(j, NULL);
	json_str(j, "name", t->cols[i].name);
	json_u64(j, "count", count);
	if (t->cols[i].unit && t->cols[i].unit[0])
		json_str(j, "unit", t->cols[i].clock ? "ns" : t->cols[i].unit);
	json_obj_close(j);
}

/* A row as JSON; @val its metrics' values, or NULL for none. */
static void json_row(struct json *j, const struct top *t, const struct sysrow *r,
		     const double *val)
{
	const uint64_t *cnt = t->o->cumulative ? r->v : r->d;
	json_obj_open(j, NULL);
	if (t->rows.by == SYSROWS_CGROUP && r->pid > 0) {
		json_str(j, "cgroup", r->cgroup);
	} else {
		json_i64(j, "pid", r->pid);
		if (t->rows.by == SYSROWS_THREAD)
			json_i64(j, "tid", r->tid);
		json_str(j, "comm", r->comm);
		if (r->pid == 0)
			json_i64(j, "cpu", r->cpu);
		if (r->pid > 0) {
			json_str(j, "cgroup", r->cgroup);
			json_i64(j, "uid", r->uid == (uid_t)-1 ? -1 : (int64_t)r->uid);
		}
		json_bool(j, "exited", r->exited);
	}
	json_arr_open(j, "events");
	for (size_t i = 0; i < t->nr_ev; i++)
		if (!t->cols[i].hidden)
			json_count(j, t, i, cnt[i]);
	json_arr_close(j);
	if (t->nr_metrics && val) {
		json_arr_open(j, "metrics");
		for (size_t m = t->nr_ev; m < t->nr_cols; m++) {
			json_obj_open(j, NULL);
			json_str(j, "name", t->cols[m].name);
			json_dbl(j, "value", val[m]);
			json_str(j, "unit", t->cols[m].unit);
			json_obj_close(j);
		}
		json_arr_close(j);
	}
	json_obj_close(j);
}

void top_print_json(const struct top *t, FILE *f)
{
	struct json j;
	json_init(&j, f, false);
	json_obj_open(&j, NULL);
	json_dbl(&j, "time", t->now);
	json_dbl(&j, "interval", t->interval);
	json_bool(&j, "cumulative", t->o->cumulative);
	json_str(&j, "rows_are", by_name(t));
	json_u64(&j, "lost_records", t->lost);
	if (t->acct)
		json_u64(&j, "unsampled_switches", t->unsampled);
	else
		json_null(&j, "unsampled_switches");
	if (t->nr_cpus) {
		json_arr_open(&j, "cpus");
		for (size_t c = 0; c < t->nr_cpus; c++) {
			json_obj_open(&j, NULL);
			json_i64(&j, "cpu", t->cpus[c].cpu);
			json_dbl(&j, "busy_pct", t->cpus[c].busy_pct);
			json_obj_close(&j);
		}
		json_arr_close(&j);
	}
	/* the frame's totals over every row counted, shown or not */
	json_arr_open(&j, "total");
	for (size_t i = 0; i < t->nr_ev; i++) {
		uint64_t sum = 0;
		if (t->cols[i].hidden)
			continue;
		for (size_t r = 0; r < t->rows.nr; r++)
			sum += t->o->cumulative ? t->rows.row[r].v[i] : t->rows.row[r].d[i];
		json_count(&j, t, i, sum);
	}
	json_arr_close(&j);
	json_arr_open(&j, "rows");
	for (size_t k = 0; k < t->nr_lines; k++)
		json_row(&j, t, &t->rows.row[t->lines[k].row], t->lines[k].val);
	json_arr_close(&j);
	/* the idle tasks, by CPU: apart from the rows (rows and idle add up
	 * to total when no filter is given) */
	json_arr_open(&j, "idle");
	for (size_t k = 0; k < t->nr_idle; k++)
		json_row(&j, t, &t->rows.row[t->idle_rows[k]], NULL);
	json_arr_close(&j);
	json_obj_close(&j);
	json_end(&j);
}

void top_print_csv(const struct top *t, FILE *f, bool header)
{
	const char *s = t->o->sep;
	char num[64];
	if (header) {
		fprintf(f, "# time%sinterval%spid%stid%scomm%scgroup", s, s, s, s, s);
		for (size_t c = 0; c < t->nr_cols; c++)
			if (!t->cols[c].hidden)
				fprintf(f, "%s%s", s, esc_csv(t->cols[c].name, s));
		fputc('\n', f);
	}
	/* the rows, then the idle tasks' */
	for (size_t k = 0; k < t->nr_lines + t->nr_idle; k++) {
		const struct top_line *l = k < t->nr_lines ? &t->lines[k] : NULL;
		const struct sysrow *r = &t->rows.row[l ? l->row : t->idle_rows[k - t->nr_lines]];
		fprintf(f, "%.6f%s%.6f%s%d%s%d%s%s%s%s", t->now, s, t->interval, s, (int)r->pid, s,
			(int)r->tid, s, esc_csv(r->comm, s), s, esc_csv(r->cgroup, s));
		for (size_t c = 0; c < t->nr_cols; c++) {
			if (t->cols[c].hidden)
				continue;
			if (c < t->nr_ev)
				snprintf(num, sizeof(num), "%llu",
					 (unsigned long long)(t->o->cumulative ? r->v[c] : r->d[c]));
			else
				top_fmt(&t->cols[c], l ? l->val[c] : NAN, num, sizeof(num));
			fprintf(f, "%s%s", s, num);
		}
		fputc('\n', f);
	}
}
