/* SPDX-License-Identifier: MIT */
/* The rows of system-wide accounting (sysrows.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <hpmon/sysacct.h>
#include "counting/sysrows.h"

void sysrows_init(struct sysrows *s, enum sysrows_by by, size_t nr_ev)
{
	memset(s, 0, sizeof(*s));
	s->by = by;
	s->nr_ev = nr_ev;
}

void sysrows_release(struct sysrows *s)
{
	for (size_t r = 0; r < s->nr; r++) {
		free(s->row[r].cgroup);
		free(s->row[r].v);
		free(s->row[r].d);
	}
	free(s->row);
	free(s->of_task);
	memset(s, 0, sizeof(*s));
}

static size_t new_row(struct sysrows *s, const struct hpm_systask *t)
{
	if (s->nr == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 64;
		struct sysrow *v = realloc(s->row, ncap * sizeof(*v));
		if (!v)
			return SIZE_MAX;
		s->row = v;
		s->cap = ncap;
	}
	struct sysrow *r = &s->row[s->nr];
	memset(r, 0, sizeof(*r));
	r->v = calloc(s->nr_ev ? s->nr_ev : 1, sizeof(uint64_t));
	r->d = calloc(s->nr_ev ? s->nr_ev : 1, sizeof(uint64_t));
	r->cgroup = strdup(t->cgroup ? t->cgroup : "");
	if (!r->v || !r->d || !r->cgroup) {
		free(r->v);
		free(r->d);
		free(r->cgroup);
		return SIZE_MAX;
	}
	r->pid = t->pid;
	r->tid = t->tid;
	r->cpu = t->cpu;
	r->uid = t->uid;
	r->special = t->pid < 0;
	return s->nr++;
}

/* The row task @t counts in (made when it has none yet). */
static size_t row_of(struct sysrows *s, const struct sysrows_src *a, size_t t)
{
	const struct hpm_systask *tk = a->task(a->src, t);
	if (s->of_task[t] != SIZE_MAX)
		return s->of_task[t];
	size_t r = SIZE_MAX;
	if (s->by == SYSROWS_PROCESS && tk->proc != t) {
		r = row_of(s, a, tk->proc);
	} else if (s->by == SYSROWS_CGROUP && tk->pid > 0) {
		for (size_t k = 0; k < s->nr; k++)
			if (s->row[k].pid > 0 && !strcmp(s->row[k].cgroup, tk->cgroup)) {
				r = k;
				break;
			}
	}
	if (r == SIZE_MAX)
		r = new_row(s, tk);
	s->of_task[t] = r;
	return r;
}

int sysrows_update_from(struct sysrows *s, const struct sysrows_src *a)
{
	size_t nt = a->nr;
	if (nt > s->nr_map) {
		size_t *m = realloc(s->of_task, nt * sizeof(*m));
		if (!m)
			return -ENOMEM;
		for (size_t t = s->nr_map; t < nt; t++)
			m[t] = SIZE_MAX;
		s->of_task = m;
		s->nr_map = nt;
	}
	/* the previous totals into d, then d = new - previous */
	for (size_t r = 0; r < s->nr; r++) {
		memcpy(s->row[r].d, s->row[r].v, s->nr_ev * sizeof(uint64_t));
		memset(s->row[r].v, 0, s->nr_ev * sizeof(uint64_t));
	}
	size_t old = s->nr;
	for (size_t t = 0; t < nt; t++) {
		const struct hpm_systask *tk = a->task(a->src, t);
		if (!tk->seen)
			continue;
		size_t r = row_of(s, a, t);
		if (r == SIZE_MAX)
			return -ENOMEM;
		struct sysrow *row = &s->row[r];
		for (size_t i = 0; i < s->nr_ev; i++)
			row->v[i] += a->count(a->src, t, i);
		/* the names of the row's own task: the thread, or the process's
		 * main thread (whose latest name it is) */
		bool own = s->by == SYSROWS_THREAD || (s->by == SYSROWS_PROCESS && tk->proc == t) ||
			   (s->by == SYSROWS_CGROUP && tk->pid <= 0);
		if (own) {
			memcpy(row->comm, tk->comm, sizeof(row->comm));
			row->exited = tk->exit_ns != 0;
			row->start_ns = tk->start_ns;
		}
	}
	/* a process row whose main thread has not run yet is named now */
	for (size_t t = 0; t < nt; t++) {
		const struct hpm_systask *tk = a->task(a->src, t);
		if (s->by == SYSROWS_PROCESS && tk->proc == t && s->of_task[t] != SIZE_MAX) {
			struct sysrow *row = &s->row[s->of_task[t]];
			memcpy(row->comm, tk->comm, sizeof(row->comm));
			row->exited = tk->exit_ns != 0;
			row->start_ns = tk->start_ns;
		}
	}
	for (size_t r = 0; r < s->nr; r++)
		for (size_t i = 0; i < s->nr_ev; i++)
			s->row[r].d[i] = r < old ? s->row[r].v[i] - s->row[r].d[i] : s->row[r].v[i];
	return 0;
}

static const struct hpm_systask *acct_task(const void *src, size_t i)
{
	return hpm_sysacct__task(src, i);
}

static uint64_t acct_count(const void *src, size_t i, size_t ev)
{
	return hpm_sysacct__count(src, i, ev);
}

int sysrows_update(struct sysrows *s, const struct hpm_sysacct *a)
{
	struct sysrows_src src = { .src = a, .nr = hpm_sysacct__nr_tasks(a),
				   .task = acct_task, .count = acct_count };
	return sysrows_update_from(s, &src);
}

bool sysrows_active(const struct sysrows *s, size_t r, bool delta)
{
	const uint64_t *c = delta ? s->row[r].d : s->row[r].v;
	for (size_t i = 0; i < s->nr_ev; i++)
		if (c[i])
			return true;
	return false;
}
