/* SPDX-License-Identifier: MIT */
/*
 * The ranks of a report (report/report.h): in a profile hpmon merge made,
 * each task's rank and each rank's host, from its RANK records
 * (docs/profile-format.md, "Merged profiles"); in a rank's own profile,
 * the rank of its header for every task. The sort keys rank and host and
 * the --rank filter read them here.
 */
#include <errno.h>
#include <stdlib.h>

#include "report/report-internal.h"

int ranks__record(struct rep *r, const struct hpm_rank_rec *k)
{
	uint64_t key = k->rank;
	long i = htab__get(r->h_rank, &key);

	if (i < 0) { /* a rank first named by one of its tasks has no host yet */
		if (!rep_charge_ranks(r, rep_cost(sizeof(struct rep_rank), 1, 0, 0))) {
			r->cap_records++;
			return 0;
		}
		if (!PUSH(r, ranks, nr_ranks, cap_ranks) || htab__put(r->h_rank, &key, r->nr_ranks))
			return -ENOMEM;
		i = (long)r->nr_ranks++;
		r->ranks[i] = (struct rep_rank){ .rank = k->rank, .host = 0 };
	}
	if (!k->task) {
		if (k->host[0] && !(r->ranks[i].host = rep_intern(r, k->host)))
			return -ENOMEM;
		return 0;
	}
	if (k->pid <= 0)
		return 0;
	key = (uint32_t)k->pid;
	if (htab__get(r->h_task, &key) < 0 && !rep_charge_ranks(r, rep_cost(0, 1, 0, 0))) {
		r->cap_records++;
		return 0;
	}
	r->last_task = 0;
	return htab__put(r->h_task, &key, (size_t)i);
}

/* The index into r->ranks of @pid's rank, or -1. */
static long rank_index(struct rep *r, pid_t pid)
{
	if (pid <= 0 || !r->h_task)
		return -1;
	if (pid == r->last_task)
		return r->last_task_rank;
	uint64_t key = (uint32_t)pid;
	long i = htab__get(r->h_task, &key);
	r->last_task = pid;
	r->last_task_rank = i;
	return i;
}

uint32_t rep_rank_of(struct rep *r, pid_t pid)
{
	if (!r->meta.merged)
		return r->meta.has_rank ? r->meta.rank : REP_NO_RANK;
	long i = rank_index(r, pid);
	return i < 0 ? REP_NO_RANK : r->ranks[i].rank;
}

uint32_t ranks__host_of(struct rep *r, pid_t pid)
{
	if (!r->meta.merged) /* the one rank of ranks__start, if any */
		return r->nr_ranks ? r->ranks[0].host : 0;
	long i = rank_index(r, pid);
	return i < 0 ? 0 : r->ranks[i].host;
}

uint32_t ranks__host_of_rank(const struct rep *r, uint32_t rank)
{
	uint64_t key = rank;
	long i = r->h_rank ? htab__get(r->h_rank, &key) : -1;
	return i < 0 ? 0 : r->ranks[i].host;
}

int ranks__start(struct rep *r)
{
	if (r->meta.merged || !r->meta.has_rank)
		return 0;
	struct hpm_rank_rec k = { .rank = r->meta.rank, .host = r->meta.host };
	return ranks__record(r, &k);
}

bool rep_has_rank(const struct rep *r, uint32_t rank)
{
	uint64_t key = rank;
	if (!r->meta.merged)
		return r->meta.has_rank && r->meta.rank == rank;
	return r->h_rank && htab__get(r->h_rank, &key) >= 0;
}

int ranks__init(struct rep *r)
{
	r->h_rank = htab__new(1);
	r->h_task = htab__new(1);
	return r->h_rank && r->h_task ? 0 : -ENOMEM;
}

void ranks__free(struct rep *r)
{
	htab__free(r->h_rank);
	htab__free(r->h_task);
	free(r->ranks);
}
