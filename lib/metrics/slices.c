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
 * e_k enabled); periods in which the event did not run are left out. A
 * rate measured over r ns has a variance s2 / r. s2 is estimated by batch
 * means: the periods in consecutive batches of b (1, 2, 4 ... while there
 * are at least 3 batches), each batch's rate rho_j = Y_j / R_j against
 * the mean rate rho = Y / R,
 *
 *   s2_b = 1/(m-1) * sum_j R_j (rho_j - rho)^2
 *
 * and the largest of these and of the successive differences
 *
 *   s2_0 = 1/(n-1) * sum_k (rho_k - rho_{k-1})^2 / (1/r_k + 1/r_{k-1})
 *
 * is taken, each first widened by (t / 1.96)^2, t Student's 97.5 %
 * quantile for its degrees of freedom (m - 1, n - 1): a variance from a
 * few batches is itself uncertain. Neighbouring periods see a rate that
 * changes from one slice to the next; longer batches see one that
 * drifts, or that keeps step with the rotation for a few slices, which
 * neighbours (what this file used alone before) miss. Measured against
 * exact counts in the arm64 guest: docs/metrics.md.
 *
 * The U = E - R ns the event did not run are estimated at the observed
 * rate, so the scaled count has the variance
 *
 *   var = s2 * U * E / R
 *
 * Two events of one group ran in the same slices; their scaled counts
 * have the covariance s_ab * U * E / R, with s_ab the batches' products
 * (rho_a,j - rho_a)(rho_b,j - rho_b) in place of the squares, at the batch
 * size where the two vary most: a ratio of two events whose rates move
 * together carries no multiplexing error.
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

/*
 * One estimate of s2 (@how 0: successive differences; @how >= 1: batch
 * means over batches of 2^(@how - 1) units), for the covariance of @a and
 * @b (the variance when both are one). NAN when there are too few units
 * for it: fewer than 3, or fewer than 3 batches.
 *
 * Successive differences:
 *   s2 = 1/(n-1) * sum_k (rho_k - rho_k-1)(rho'_k - rho'_k-1) / (1/r_k + 1/r_k-1)
 * Batch means, m batches of b units (the last takes the rest):
 *   s2 = 1/(m-1) * sum_j R_j (rho_j - rho)(rho'_j - rho')
 */
static double estimate(const struct track *a, const struct track *b, size_t how)
{
	size_t n = a->n, size = how ? (size_t)1 << (how - 1) : 1, m = n / size;
	double ya = 0, yb = 0, r = 0, s2 = 0;

	if (n < 3 || m < 3 || how > 8 * sizeof(size_t))
		return NAN;
	if (!how) {
		for (size_t k = 1; k < n; k++) {
			double da = a->u[k].y / a->u[k].r - a->u[k - 1].y / a->u[k - 1].r;
			double db = b->u[k].y / b->u[k].r - b->u[k - 1].y / b->u[k - 1].r;
			s2 += da * db / (1 / a->u[k].r + 1 / a->u[k - 1].r);
		}
		return s2 / (double)(n - 1);
	}
	for (size_t k = 0; k < n; k++) {
		ya += a->u[k].y;
		yb += b->u[k].y;
		r += a->u[k].r;
	}
	double ra = ya / r, rb = yb / r;
	for (size_t j = 0; j < m; j++) {
		size_t end = j == m - 1 ? n : (j + 1) * size;
		double ja = 0, jb = 0, jr = 0;
		for (size_t k = j * size; k < end; k++) {
			ja += a->u[k].y;
			jb += b->u[k].y;
			jr += a->u[k].r;
		}
		s2 += jr * (ja / jr - ra) * (jb / jr - rb);
	}
	return s2 / (double)(m - 1);
}

/*
 * How much wider than z = 1.96 a 95 % interval must be when the variance
 * is itself estimated from @dof + 1 figures: (t_0.975,dof / z)^2, Student's
 * t. An estimate from a few batches is uncertain, and more so when the
 * rates are either high or low (a program's phases): a set that happened
 * to see few of the high slices also sees little variance. Without this,
 * phases near the rotation's dwell were covered 85 % of the time at 2
 * sigma; with it, 92 % (docs/metrics.md).
 */
static double t_factor(size_t dof)
{
	static const double t[] = {
		0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262,
		2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093,
		2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045,
		2.042,
	};
	const double z = 1.959964;
	double q;

	if (dof < sizeof(t) / sizeof(t[0])) {
		q = t[dof];
	} else {
		/* Cornish-Fisher: within 1e-4 of t beyond 30 */
		double v = (double)dof;
		q = z + (z * z * z + z) / (4 * v) +
		    (5 * pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * v * v);
	}
	return q * q / (z * z);
}

/* estimate() widened by t_factor for the figures it rests on. */
static double widened(const struct track *a, const struct track *b, size_t how)
{
	double v = estimate(a, b, how);
	size_t size = how ? (size_t)1 << (how - 1) : 1;
	return isnan(v) ? v : v * t_factor(a->n / size - 1);
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
	/* the largest: neighbouring slices that differ, and longer batches
	 * whose rates drift or keep step with the rotation for a while */
	for (size_t how = 0;; how++) {
		double v = widened(t, t, how);
		if (isnan(v))
			break;
		if (v > s2)
			s2 = v;
	}
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
	double E, R, U, sab = 0, best = -1, ya = 0, yb = 0;

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
	for (size_t k = 0; k < ta->n; k++) {
		ya += ta->u[k].y;
		yb += tb->u[k].y;
	}
	if (ya <= 0 || yb <= 0)
		return 0; /* one of them counted nothing: no covariance */
	/* by the estimate in which the two vary most, relative to their
	 * counts: where each one's own variance peaks when their rates move
	 * together, so that a ratio of the two has none; never more than
	 * their variances allow, as each is the largest of all estimates */
	for (size_t how = 0;; how++) {
		double va = widened(ta, ta, how);
		if (isnan(va))
			break;
		double w = va / (ya * ya) + widened(tb, tb, how) / (yb * yb);
		if (w > best) {
			best = w;
			sab = widened(ta, tb, how);
		}
	}
	E = (double)ca->enabled;
	R = (double)ca->running;
	U = E - R;
	return sab * U * E / R;
}
