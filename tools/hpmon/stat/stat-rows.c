/* SPDX-License-Identifier: MIT */
/*
 * hpmon stat's rows (stat-cmd.h): the breakdown per thread, process or
 * CPU read from the session, and perf's merge of uncore instances.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stat/stat-cmd.h"
#include "stat/stat-mux.h"

/* Thread @tid's name, from the context's procfs (tests point it at
 * recorded trees); "" when it cannot be read. The name is any bytes, a
 * newline among them: only the one the kernel adds is dropped (the
 * printers escape the rest). */
static void read_comm(const struct hpm_ctx *ctx, pid_t tid, char *buf, size_t len)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%d/comm", hpm_ctx__procfs_root(ctx), (int)tid);
	FILE *f = fopen(path, "r");
	size_t n = 0;
	if (f) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	if (n && buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
}

/* Thread @tid's process, from the context's procfs; @tid itself when it
 * cannot be read. */
static pid_t read_tgid(const struct hpm_ctx *ctx, pid_t tid)
{
	char path[PATH_MAX], line[128];
	pid_t tgid = tid;
	snprintf(path, sizeof(path), "%s/%d/status", hpm_ctx__procfs_root(ctx), (int)tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return tid;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

void stat_remember_threads(struct stat_run *run)
{
	size_t n = hpm_session__nr_threads(run->s);
	free(run->comms);
	free(run->tgids);
	run->comms = calloc(n ? n : 1, sizeof(*run->comms));
	run->tgids = calloc(n ? n : 1, sizeof(*run->tgids));
	if (!run->comms || !run->tgids)
		return;
	for (size_t t = 0; t < n; t++) {
		pid_t tid = hpm_session__thread(run->s, t);
		pid_t pid = read_tgid(run->ctx, tid);
		run->tgids[t] = pid;
		/* per-process rows are named after the process, as perf does */
		read_comm(run->ctx, run->r->agg == AGG_PROCESS ? pid : tid, run->comms[t],
			  sizeof(run->comms[t]));
	}
}

void stat_free_rows(struct stat_report *r)
{
	for (size_t k = 0; k < r->nr_rows; k++) {
		free(r->rows[k].c);
		free(r->rows[k].cgroup);
		free(r->rows[k].absent);
		free(r->rows[k].mc);
		free(r->rows[k].mv);
		free(r->rows[k].per_sec);
		free(r->rows[k].per_kinst);
		free(r->rows[k].dval);
		free(r->rows[k].dc);
	}
	free(r->rows);
	r->rows = NULL;
	r->nr_rows = 0;
}

static struct stat_row *add_row(struct stat_report *r)
{
	struct stat_row *v = realloc(r->rows, (r->nr_rows + 1) * sizeof(*v));
	if (!v)
		return NULL;
	r->rows = v;
	struct stat_row *row = &v[r->nr_rows];
	memset(row, 0, sizeof(*row));
	row->c = calloc(r->nr_ev, sizeof(*row->c));
	row->absent = calloc(r->nr_ev, sizeof(*row->absent));
	if (!row->c || !row->absent) {
		free(row->c);
		free(row->absent);
		return NULL;
	}
	r->nr_rows++;
	return row;
}

static void add_count(struct hpm_count *dst, const struct hpm_count *src)
{
	if (src->err) {
		if (!dst->value && !dst->running)
			dst->err = src->err;
		return;
	}
	dst->err = 0;
	dst->value += src->value;
	dst->enabled += src->enabled;
	dst->running += src->running;
}

/* Breakdown rows for the report, from the session. */
int stat_collect_rows(struct stat_run *run)
{
	struct stat_report *r = run->r;
	struct hpm_session *s = run->s;
	struct stat_row *row;

	stat_mux__sync(run->mux);
	stat_free_rows(r);
	if (r->agg == AGG_CPU) {
		for (size_t k = 0; k < hpm_session__nr_cpus(s); k++) {
			if (!(row = add_row(r)))
				return -ENOMEM;
			row->cpu = hpm_session__cpu(s, k);
			snprintf(row->label, sizeof(row->label), "CPU%d", row->cpu);
			for (size_t i = 0; i < r->nr_ev; i++) {
				hpm_session__read_cpu(s, i, k, &row->c[i]);
				stat_mux__fix(run->mux, i, &row->c[i]);
				row->absent[i] = !hpm_event__on_cpu(hpm_evlist__event(run->list, i),
								    row->cpu);
			}
		}
		return 0;
	}
	if (r->agg == AGG_GLOBAL)
		return 0;
	if (run->o->argv && !run->o->tg.nr_ids) {
		/* launched command: tasks from the kernel's records */
		for (size_t t = 0; t < hpm_session__nr_tasks(s); t++) {
			const struct hpm_task *task = hpm_session__task(s, t);
			struct hpm_count c;
			row = NULL;
			if (r->agg == AGG_PROCESS)
				for (size_t k = 0; k < r->nr_rows; k++)
					if (r->rows[k].pid == task->pid)
						row = &r->rows[k];
			if (!row) {
				if (!(row = add_row(r)))
					return -ENOMEM;
				row->pid = task->pid;
				row->tid = task->tid;
				snprintf(row->comm, sizeof(row->comm), "%s", task->comm);
				snprintf(row->label, sizeof(row->label), "%s-%d", task->comm,
					 r->agg == AGG_PROCESS ? task->pid : task->tid);
			}
			for (size_t i = 0; i < r->nr_ev; i++) {
				hpm_session__read_task(s, i, t, &c);
				stat_mux__fix(run->mux, i, &c);
				add_count(&row->c[i], &c);
			}
		}
		return 0;
	}
	/* -p / -t: one slot per thread */
	for (size_t t = 0; t < hpm_session__nr_threads(s); t++) {
		pid_t tid = hpm_session__thread(s, t);
		pid_t pid = run->tgids ? run->tgids[t] : tid;
		struct hpm_count c;
		row = NULL;
		if (r->agg == AGG_PROCESS)
			for (size_t k = 0; k < r->nr_rows; k++)
				if (r->rows[k].pid == pid)
					row = &r->rows[k];
		if (!row) {
			if (!(row = add_row(r)))
				return -ENOMEM;
			row->pid = pid;
			row->tid = tid;
			if (run->comms)
				memcpy(row->comm, run->comms[t], sizeof(row->comm));
			snprintf(row->label, sizeof(row->label), "%s-%d", row->comm,
				 r->agg == AGG_PROCESS ? pid : tid);
		}
		for (size_t i = 0; i < r->nr_ev; i++) {
			hpm_session__read_thread(s, i, t, &c);
			stat_mux__fix(run->mux, i, &c);
			add_count(&row->c[i], &c);
		}
	}
	return 0;
}

size_t stat_rows_missing(const struct stat_report *r)
{
	size_t n = 0;
	for (size_t k = 0; k < r->nr_rows; k++)
		for (size_t i = 0; i < r->nr_ev; i++)
			if (r->rows[k].c[i].err == -EAGAIN) {
				n++;
				break;
			}
	return n;
}

void stat_merge_instances(struct stat_report *r)
{
	for (size_t h = 0; h < r->nr_ev; h++) {
		struct hpm_count sum = { 0 };
		double var = 0;
		if (!r->ev[h].merged)
			continue;
		for (size_t i = h; i < r->nr_ev; i++)
			if (r->ev[i].merge == h) {
				hpm_count__merge(&sum, &r->ev[i].c);
				var += r->ev[i].sigma * r->ev[i].sigma; /* NaN stays NaN */
			}
		r->ev[h].mc = sum;
		r->ev[h].msigma = sqrt(var);
		for (size_t k = 0; k < r->nr_rows; k++) {
			struct stat_row *row = &r->rows[k];
			struct hpm_count rs = { 0 };
			if (!row->mc && !(row->mc = calloc(r->nr_ev, sizeof(*row->mc))))
				continue;
			for (size_t i = h; i < r->nr_ev; i++)
				if (r->ev[i].merge == h)
					hpm_count__merge(&rs, &row->c[i]);
			row->mc[h] = rs;
		}
	}
}
