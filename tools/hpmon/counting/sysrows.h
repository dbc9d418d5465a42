/* SPDX-License-Identifier: MIT */
/*
 * The rows of system-wide accounting (hpmon/sysacct.h) for `stat -a
 * --per-*` and `top`: tasks summed per thread, process or cgroup, each
 * row's totals since counting began and its change since the last
 * update. Rows keep their index from one update to the next (they only
 * grow), so a printer can follow a row across frames.
 *
 * Room: tools/hpmon/counting/ owns the counting options, default events, calibrated costs and rows of system-wide accounting; may use output.
 * Ownership: the rows own their counts and copies of their names; the
 * accounting they are updated from is borrowed for each call.
 */
#ifndef HPMON_TOOL_SYSROWS_H
#define HPMON_TOOL_SYSROWS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct hpm_sysacct;

enum sysrows_by { SYSROWS_THREAD, SYSROWS_PROCESS, SYSROWS_CGROUP };

struct sysrow {
	pid_t pid, tid;     /* thread and process rows; idle: 0, its CPU in cpu */
	int cpu;            /* idle rows: the CPU; else -1 */
	char comm[16];
	char *cgroup;       /* path, "" unknown (owned) */
	uid_t uid;
	uint64_t start_ns;  /* the task's (the process leader's) fork, 0 before */
	bool exited;
	bool special;       /* [lost] or [unattributed] */
	uint64_t *v;        /* [nr_ev] since counting began */
	uint64_t *d;        /* [nr_ev] since the previous update */
};

struct sysrows {
	enum sysrows_by by;
	size_t nr_ev;
	struct sysrow *row;
	size_t nr, cap;
	size_t *of_task;    /* [nr_map]: a task's row, SIZE_MAX none yet */
	size_t nr_map;
};

void sysrows_init(struct sysrows *s, enum sysrows_by by, size_t nr_ev);
void sysrows_release(struct sysrows *s);
/* Where the tasks come from: system-wide accounting, or top's --user
 * mode. Task @i's process is task(i)->proc, an index of the same source;
 * indexes are stable from one update to the next. */
struct sysrows_src {
	const void *src;
	size_t nr;
	const struct hpm_systask *(*task)(const void *src, size_t i);
	uint64_t (*count)(const void *src, size_t i, size_t ev);
};

/* Sum the tasks of @src into the rows: 0 or -ENOMEM. */
int sysrows_update_from(struct sysrows *s, const struct sysrows_src *src);
/* The same, from system-wide accounting. */
int sysrows_update(struct sysrows *s, const struct hpm_sysacct *a);
/* Does row @r have a count (total, or since the last update with @delta)? */
bool sysrows_active(const struct sysrows *s, size_t r, bool delta);

#endif
