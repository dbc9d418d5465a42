/* SPDX-License-Identifier: MIT */
/*
 * The uncertainty of a multiplexed count. The kernel counts an event only
 * in the slices of time it gives the event's group a counter, and the
 * scaled count value * enabled / running assumes the event ran in the
 * other slices at the rate it showed in these. How far that can be off
 * depends on how much the rate varies from slice to slice, which the caller
 * samples by reading the cumulative counts every few milliseconds.
 *
 * Each sampling period k gives y_k events in r_k ns of running time (of
 * e_k enabled). With rho_k = y_k / r_k, a rate measured over r ns has a
 * variance s2 / r; s2 is estimated from the differences of successive
 * periods' rates (so that a slow trend across the run, which round-robin
 * multiplexing samples evenly, does not count as noise):
 *
 *   s2 = 1/(n-1) * sum_k (rho_k - rho_{k-1})^2 / (1/r_k + 1/r_{k-1})
 *
 * The U = E - R ns the event did not run are estimated at the observed
 * rate, so the scaled count has the variance
 *
 *   var = s2 * U * E / R
 *
 * Two events of one group ran in the same slices; their scaled counts
 * have the covariance s_ab * U * E / R, with s_ab made of the products of
 * both rates' differences in place of the squares: a ratio of two events
 * whose rates move together carries no multiplexing error.
 *
 * 0 when the event ran all the time (U = 0); unknown (NaN) with fewer
 * than three periods in which it ran. Memory is bounded: when a record is
 * full, neighbouring periods are merged pairwise.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <hpmon/metric.h>

#define MAX_UNITS 512

struct unit {
	double y, r;
};

struct track {
	struct hpm_count last;
	struct unit u[MAX_UNITS];
	size_t n;
};

struct hpm_slices {
	size_t nr;
	struct track t[];
};

struct hpm_slices *hpm_slices__new(size_t nr_events)
{
	struct hpm_slices *s;
	if (nr_events > (SIZE_MAX - sizeof(*s)) / sizeof(struct track)) {
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s) + nr_events * sizeof(struct track));
	if (s)
		s->nr = nr_events;
	return s;
}

void hpm_slices__free(struct hpm_slices *s)
{
	free(s);
}

void hpm_slices__add(struct hpm_slices *s, size_t idx, const struct hpm_count *c)
{
	struct track *t;
	if (!s || !c || idx >= s->nr || c->err)
		return;
	t = &s->t[idx];
	if (c->value < t->last.value || c->running < t->last.running ||
	    c->enabled < t->last.enabled) {
		t->last = *c; /* a new run: start over */
		t->n = 0;
		return;
	}
	double y = (double)(c->value - t->last.value);
	double r = (double)(c->running - t->last.running);
	t->last = *c;
	if (r <= 0)
		return; /* not on a counter in this period */
	if (t->n == MAX_UNITS) {
		for (size_t k = 0; k < MAX_UNITS / 2; k++) {
			t->u[k].y = t->u[2 * k].y + t->u[2 * k + 1].y;
			t->u[k].r = t->u[2 * k].r + t->u[2 * k + 1].r;
		}
		t->n = MAX_UNITS / 2;
	}
	t->u[t->n++] = (struct unit){ y, r };
}

void hpm_slices__restart(struct hpm_slices *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nr; i++)
		s->t[i].n = 0;
}

double hpm_slices__sigma(const struct hpm_slices *s, size_t idx, const struct hpm_count *c)
{
	const struct track *t;
	double E, R, U, s2 = 0;

	if (!c || c->err || !c->running)
		return NAN;
	E = (double)c->enabled;
	R = (double)c->running;
	if (R >= E)
		return 0;
	if (!s || idx >= s->nr)
		return NAN;
	t = &s->t[idx];
	if (t->n < 3)
		return NAN;
	for (size_t k = 1; k < t->n; k++) {
		double a = t->u[k - 1].y / t->u[k - 1].r, b = t->u[k].y / t->u[k].r;
		s2 += (b - a) * (b - a) / (1 / t->u[k].r + 1 / t->u[k - 1].r);
	}
	s2 /= (double)(t->n - 1);
	U = E - R;
	return sqrt(s2 * U * E / R);
}

/* Slices of @a and @b cover the same time when both were read in each
 * period and their running times agree (within 1 %, or 20 us: the two
 * are read one after the other). */
static bool aligned(const struct track *a, const struct track *b)
{
	if (a->n != b->n)
		return false;
	for (size_t k = 0; k < a->n; k++) {
		double d = fabs(a->u[k].r - b->u[k].r);
		if (d > 20000 && d > 0.01 * a->u[k].r)
			return false;
	}
	return true;
}

double hpm_slices__cov(const struct hpm_slices *s, size_t a, size_t b,
		       const struct hpm_count *ca, const struct hpm_count *cb)
{
	const struct track *ta, *tb;
	double E, R, U, sab = 0;

	if (a == b)
		return pow(hpm_slices__sigma(s, a, ca), 2);
	if (!ca || !cb || ca->err || cb->err || !ca->running || !cb->running)
		return NAN;
	if (ca->running >= ca->enabled || cb->running >= cb->enabled)
		return 0;
	if (!s || a >= s->nr || b >= s->nr)
		return NAN;
	ta = &s->t[a];
	tb = &s->t[b];
	if (ta->n < 3 || !aligned(ta, tb))
		return NAN;
	for (size_t k = 1; k < ta->n; k++) {
		double da = ta->u[k].y / ta->u[k].r - ta->u[k - 1].y / ta->u[k - 1].r;
		double db = tb->u[k].y / tb->u[k].r - tb->u[k - 1].y / tb->u[k - 1].r;
		sab += da * db / (1 / ta->u[k].r + 1 / ta->u[k - 1].r);
	}
	sab /= (double)(ta->n - 1);
	E = (double)ca->enabled;
	R = (double)ca->running;
	U = E - R;
	return sab * U * E / R;
}
