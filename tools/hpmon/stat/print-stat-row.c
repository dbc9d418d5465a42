/* SPDX-License-Identifier: MIT */
/*
 * What names a row of hpmon stat's JSON breakdown (stat.h): its CPU, or
 * its process and thread, name and cgroup, or its cgroup. Apart from
 * print-stat.c so that the rows of `stat -a --per-*` (stat-systasks.c)
 * and of a command share one definition.
 */
#include "output/json.h"
#include "stat/stat.h"

const char *stat_json_rows_key(const struct stat_report *r)
{
	switch (r->agg) {
	case AGG_THREAD: return "threads";
	case AGG_PROCESS: return "processes";
	case AGG_CGROUP: return "cgroups";
	default: return "cpus";
	}
}

void stat_json_row_id(struct json *j, const struct stat_report *r, const struct stat_row *row)
{
	if (r->agg == AGG_CPU) {
		json_i64(j, "cpu", row->cpu);
		return;
	}
	/* a cgroup row of idle or of a row that is no task ([lost]) is
	 * named by its label */
	if (r->agg == AGG_CGROUP) {
		json_str(j, "cgroup", row->pid > 0 && row->cgroup ? row->cgroup : row->label);
		return;
	}
	json_i64(j, "pid", row->pid);
	if (r->agg == AGG_THREAD)
		json_i64(j, "tid", row->tid);
	json_str(j, "comm", row->comm);
	if (row->cgroup)
		json_str(j, "cgroup", row->cgroup);
	if (row->cgroup && row->pid == 0)
		json_i64(j, "cpu", row->cpu); /* idle, one per CPU */
}
