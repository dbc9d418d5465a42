/* SPDX-License-Identifier: MIT */
/*
 * hpmon's own multiplexer (stat-mux.h).
 *
 * The sets: the core PMU's groups in list order, each set as many whole
 * groups as fit @nr_counters events (a group larger than that is a set of
 * its own: the kernel multiplexes inside it as before). Software, uncore,
 * breakpoint and tracepoint events, and pinned (:D) or exclusive (:e)
 * groups, are never turned off.
 *
 * The dwell: each cycle through the sets draws one dwell, uniform in 1 to
 * 7 ms, and gives it to every set of the cycle. The cycle's length is
 * random, so no phase of the program can stay in step with it; within a
 * cycle the sets share the time equally (dwells drawn for each set alone
 * made about twice the error at phases of 1 and 2 ms).
 *
 * The order: each cycle takes the sets in a new random order. In a fixed
 * order a set always follows the same one, and where the dwell is near
 * the length of a program's phase the two see opposite phases cycle after
 * cycle: errors that add up coherently and that no set's own slices show
 * (at 6 ms phases, 2 sets: errors of 12 to 22 % with a stated sigma of 7 %).
 * In random order which set saw which phase is a coin toss per cycle, the
 * sampling is random, and the variance of the slices' rates measures it
 * (lib/metrics/slices.c). How its uncertainty covers the error against the
 * kernel's rotation: bench/mux-coverage.sh, docs/metrics.md.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include <hpmon/event.h>
#include <hpmon/session.h>
#include "stat/stat-mux.h"

#define DWELL_MIN_NS 1000000ull  /* 1 ms */
#define DWELL_MAX_NS 7000000ull  /* 7 ms: a mean of 4 ms, the kernel's */

struct stat_mux {
	struct hpm_session *s;
	size_t nr_ev;
	int *set_of;          /* per event: its set, or -1 (never turned off) */
	size_t *leaders;      /* the muxed groups' leaders */
	int *leader_set;
	size_t nr_leaders;
	size_t nr_sets;
	size_t *ref;          /* per set: the leader whose enabled time is the set's */
	double *e;            /* per set: its enabled time at the last sync */
	double w;             /* the enabled time before the first switch */
	double t;             /* T at the last sync */
	int cur;              /* the set on; -1: all (before the first switch) */
	int *order;           /* this cycle's order of the sets */
	size_t pos;           /* cur's place in it */
	uint64_t due;
	uint64_t dwell_ns;    /* this cycle's: every set gets the same */
	uint64_t rng;
};

static bool on_core(const struct hpm_event *ev, const char *core)
{
	uint32_t t = hpm_event__attr(ev)->type;
	if (t == PERF_TYPE_HARDWARE || t == PERF_TYPE_HW_CACHE || t == PERF_TYPE_RAW)
		return true;
	const char *pmu = hpm_event__pmu(ev);
	return core && core[0] && pmu && !strcmp(pmu, core);
}

static uint64_t next_rand(struct stat_mux *m)
{
	uint64_t x = m->rng;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return m->rng = x;
}

static uint64_t dwell(struct stat_mux *m)
{
	return DWELL_MIN_NS + next_rand(m) % (DWELL_MAX_NS - DWELL_MIN_NS + 1);
}

struct stat_mux *stat_mux__new(struct hpm_session *s, const struct hpm_evlist *list,
			       int nr_counters, const char *core_pmu, uint64_t seed)
{
	size_t n = hpm_evlist__count(list), used = 0;
	struct stat_mux *m;

	if (nr_counters <= 0 || !n)
		return NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->s = s;
	m->nr_ev = n;
	m->set_of = malloc(n * sizeof(*m->set_of));
	m->leaders = malloc(n * sizeof(*m->leaders));
	m->leader_set = malloc(n * sizeof(*m->leader_set));
	m->ref = calloc(n, sizeof(*m->ref));
	m->e = calloc(n, sizeof(*m->e));
	m->order = calloc(n, sizeof(*m->order));
	if (!m->set_of || !m->leaders || !m->leader_set || !m->ref || !m->e || !m->order)
		goto none;
	for (size_t i = 0; i < n; i++)
		m->set_of[i] = -1;
	for (size_t i = 0; i < n; i++) {
		const struct hpm_event *ev = hpm_evlist__event(list, i);
		/* pinned and exclusive groups the kernel keeps on as asked */
		const struct perf_event_attr *a = hpm_event__attr(ev);
		if (hpm_event__leader(ev) != i || !on_core(ev, core_pmu) || a->pinned || a->exclusive)
			continue;
		size_t size = 0;
		for (size_t j = i; j < n; j++)
			if (hpm_event__leader(hpm_evlist__event(list, j)) == i)
				size++;
		/* a new set when this group does not fit the current one */
		if (!m->nr_sets || used + size > (size_t)nr_counters) {
			m->ref[m->nr_sets++] = i;
			used = 0;
		}
		used += size;
		m->leaders[m->nr_leaders] = i;
		m->leader_set[m->nr_leaders++] = (int)m->nr_sets - 1;
		for (size_t j = i; j < n; j++)
			if (hpm_event__leader(hpm_evlist__event(list, j)) == i)
				m->set_of[j] = (int)m->nr_sets - 1;
	}
	if (m->nr_sets < 2)
		goto none; /* everything fits: the kernel never rotates */
	if (!seed) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		seed = (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32) ^ (uint64_t)ts.tv_sec;
	}
	m->rng = seed ? seed : 0x9e3779b97f4a7c15ull;
	m->cur = -1;
	return m;
none:
	stat_mux__free(m);
	return NULL;
}

void stat_mux__free(struct stat_mux *m)
{
	if (!m)
		return;
	free(m->set_of);
	free(m->leaders);
	free(m->leader_set);
	free(m->ref);
	free(m->e);
	free(m->order);
	free(m);
}

size_t stat_mux__nr_sets(const struct stat_mux *m)
{
	return m ? m->nr_sets : 0;
}

void stat_mux__start(struct stat_mux *m, uint64_t now)
{
	/* a moment after the start: the command's exec (enable_on_exec)
	 * must have turned everything on before hpmon turns sets off */
	m->due = now + DWELL_MIN_NS;
	m->cur = -1;
	m->w = m->t = 0;
	memset(m->e, 0, m->nr_sets * sizeof(*m->e));
}

uint64_t stat_mux__due(const struct stat_mux *m)
{
	return m->due;
}

void stat_mux__sync(struct stat_mux *m)
{
	double sum = 0, lo = -1;
	if (!m)
		return;
	for (size_t k = 0; k < m->nr_sets; k++) {
		struct hpm_count c;
		if (hpm_session__read(m->s, m->ref[k], &c) == 0 && !c.err)
			m->e[k] = (double)c.enabled;
		sum += m->e[k];
		if (lo < 0 || m->e[k] < lo)
			lo = m->e[k];
	}
	if (m->cur < 0) {
		/* all on so far: the same time for each (the least, should
		 * a read have come a moment earlier) */
		m->w = lo;
		m->t = lo;
	} else {
		m->t = sum - (double)(m->nr_sets - 1) * m->w;
	}
}

/* A new cycle's order: the sets shuffled (Fisher-Yates). */
static void shuffle(struct stat_mux *m)
{
	for (size_t k = 0; k < m->nr_sets; k++)
		m->order[k] = (int)k;
	for (size_t k = m->nr_sets - 1; k > 0; k--) {
		size_t j = (size_t)(next_rand(m) % (k + 1));
		int t = m->order[k];
		m->order[k] = m->order[j];
		m->order[j] = t;
	}
}

static int set_enabled(struct stat_mux *m, int set, bool on)
{
	int err = 0;
	for (size_t k = 0; k < m->nr_leaders; k++)
		if (m->leader_set[k] == set) {
			int rc = hpm_session__set_group_enabled(m->s, m->leaders[k], on);
			if (rc && !err)
				err = rc;
		}
	return err;
}

int stat_mux__switch(struct stat_mux *m, uint64_t now)
{
	int err = 0, next;
	bool first = m->cur < 0;

	/* a new cycle, a new dwell and a new order: the cycle's length is
	 * random (no phase of the program can lock to it), within it every
	 * set gets the same share (no set is unlucky for a whole cycle), and
	 * which set follows which is random too */
	if (first || ++m->pos == m->nr_sets) {
		shuffle(m);
		m->pos = 0;
		m->dwell_ns = dwell(m);
	}
	next = m->order[m->pos];
	if (first) {
		/* the first switch: from everything on to one set; the time
		 * all were on is W */
		stat_mux__sync(m);
		for (size_t k = 0; k < m->nr_sets; k++) {
			int rc = (int)k == next ? 0 : set_enabled(m, (int)k, false);
			if (rc && !err)
				err = rc;
		}
	} else if (next != m->cur) {
		/* off first: the next set must find the counters free */
		err = set_enabled(m, m->cur, false);
		int rc = set_enabled(m, next, true);
		if (rc && !err)
			err = rc;
	}
	m->cur = next;
	m->due = now + m->dwell_ns;
	return err;
}

void stat_mux__fix(const struct stat_mux *m, size_t idx, struct hpm_count *c)
{
	if (!m || idx >= m->nr_ev || m->set_of[idx] < 0 || c->err)
		return;
	double e = m->e[m->set_of[idx]];
	if (e <= 0 || m->t <= e)
		return;
	c->enabled = (uint64_t)((double)c->enabled * m->t / e);
	if (c->enabled < c->running)
		c->enabled = c->running;
}
