/* SPDX-License-Identifier: MIT */
/*
 * hpmon stat --trace: one line per fork, exec and exit of a task, with its
 * counts, in the report's format (stat.h). Apart from print-stat.c, the
 * report's printer, whose number and JSON event formats it shares.
 */
#include <stdio.h>

#include "output/escape.h"
#include "output/json.h"
#include "stat/stat.h"

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
				stat_json_event_counts(&j, r, i, &counts[i]);
			json_arr_close(&j);
		}
		json_obj_close(&j);
		json_end(&j);
		return;
	}
	const char *s = o->fmt == FMT_CSV ? o->sep : " ";
	if (o->fmt == FMT_CSV)
		fprintf(o->f, "trace%s%.9f%s%s%s%d%s%d%s%d%s%s", s, ts, s, kind, s, t->pid, s,
			t->tid, s, t->ppid, s, esc_csv(t->comm, s));
	else
		fprintf(o->f, "# %12.6f %-12s pid %-7d tid %-7d ppid %-7d %-16s", ts, kind,
			t->pid, t->tid, t->ppid, esc_text(t->comm));
	if (counts)
		for (size_t i = 0; i < r->nr_ev; i++) {
			char num[64];
			if (counts[i].err || !counts[i].running) {
				snprintf(num, sizeof(num), "-");
			} else if (r->ev[i].clock) {
				snprintf(num, sizeof(num), "%.2f", hpm_count__scaled(&counts[i]) / 1e6);
			} else {
				stat_fmt_big(num, sizeof(num),
					     hpm_count__scaled(&counts[i]) * r->ev[i].scale,
					     o->fmt == FMT_HUMAN && o->big_num);
			}
			if (o->fmt == FMT_CSV)
				fprintf(o->f, "%s%s", s, num);
			else
				fprintf(o->f, " %s=%s", esc_text(r->ev[i].name), num);
		}
	fputc('\n', o->f);
	fflush(o->f);
}
