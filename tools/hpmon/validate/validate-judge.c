/* SPDX-License-Identifier: MIT */
/*
 * hpmon validate's verdict: from the counts of n units of work, measured
 * over repeats, and the answers known in advance, say whether an event is
 * exact, within its tolerance, biased or broken (docs/hpmon-validate.md).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "validate/validate.h"

/* The verdict from n units' counts (@val) and answers (@exp), repeats r. */
void vjudge(const struct vcheck *c, const char *unit, uint64_t units, const uint64_t *val,
	    const double *exp, int r, struct vjudgement *res)
{
	double n = (double)units, sv = 0, se = 0, lo = INFINITY, hi = -INFINITY;
	bool exact = true, alt_exact = c->alt_per_unit > 0;

	memset(res, 0, sizeof(*res));
	res->deterministic = true;
	for (int i = 0; i < r; i++) {
		double d = (double)val[i] - exp[i];
		sv += (double)val[i];
		se += exp[i];
		/* d is finite: comparisons, not libm's fmin/fmax (libm.so is
		 * one object less to load at every start) */
		lo = d < lo ? d : lo;
		hi = d > hi ? d : hi;
		if ((double)val[i] != exp[i])
			exact = false;
		if (alt_exact && (double)val[i] != c->alt_per_unit * n)
			alt_exact = false;
		if (i && d != (double)val[0] - exp[0])
			res->deterministic = false;
	}
	res->measured = sv / r / n;
	res->expected = se / r / n;
	res->error = res->expected != 0 ? (res->measured - res->expected) / res->expected
					 : res->measured - res->expected;
	if (exact) {
		res->v = V_EXACT;
		snprintf(res->detail, sizeof(res->detail), "exact");
		return;
	}
	if (alt_exact) {
		res->v = V_EXACT;
		res->alt = true;
		res->expected = c->alt_per_unit;
		res->error = 0;
		snprintf(res->detail, sizeof(res->detail), "exact, %s", c->alt_model);
		return;
	}
	if (res->measured == 0 && res->expected > 0) {
		res->v = V_BROKEN;
		snprintf(res->detail, sizeof(res->detail), "broken: counts nothing");
		return;
	}
	if (fabs(res->error) <= c->tol) {
		res->v = V_WITHIN;
		if (res->expected != 0)
			snprintf(res->detail, sizeof(res->detail), "within %g %%", c->tol * 100);
		else
			snprintf(res->detail, sizeof(res->detail), "within %g per %s", c->tol,
				 unit);
		return;
	}
	/* Off by more than the tolerance: a bias when every repeat is off the
	 * same way by about as much (spread under half the bias). */
	double bias = (sv - se) / r / n;
	if ((lo > 0 || hi < 0) && (hi - lo) / n <= fabs(bias) / 2) {
		res->v = V_BIASED;
		snprintf(res->detail, sizeof(res->detail), "biased %+.4g per %s", bias,
			 unit);
		return;
	}
	res->v = V_BROKEN;
	snprintf(res->detail, sizeof(res->detail), "broken: %+.1f %% off, varies",
		 res->error * 100);
}
