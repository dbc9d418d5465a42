#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Uncertainty estimators for multiplexed counts, compared off line on the
# raw slices bench/mux-slices.sh captured in the arm64 guest: for each
# estimator, rotation and phase length, how often the true error is within
# 1 and 2 sigma, the error RMS, and how wide the interval is against the
# error (median sigma / error RMS: 1 is right, far above 1 is too wide).
#
#   bench/mux-estimators.py SLICES [ESTIMATOR...]
#
# Each count is what hpmon stat prints: sum(y) * E / R over the reads.
# The estimators see what the library sees: each read's count, enabled
# and running deltas (reads in which the event did not run are dropped,
# as lib/metrics/slices.c drops them).
import math, statistics, sys
from collections import defaultdict


def load(path):
    exact, runs, cur = {}, [], defaultdict(list)
    for line in open(path):
        f = line.split()
        if f[0] == "X":
            exact[float(f[1])] = int(f[2])
        elif f[0] == "I":
            key = (f[1], float(f[2]), int(f[3]), int(f[4]))
            cur[key].append([tuple(int(v) for v in x.split(",")) for x in f[6:]])
        elif f[0] == "E":
            key = (f[1], float(f[2]), int(f[3]), int(f[4]))
            reads = cur.pop(key, [])
            if reads:
                runs.append((key, reads))
    return exact, runs


def units(reads, i):
    return [(r[i][0], r[i][1], r[i][2]) for r in reads if r[i][2] > 0]


def sd(u, Y, E, R):
    """the successive differences of slice rates (hpmon before)"""
    if len(u) < 3:
        return float("nan")
    s2 = 0.0
    for k in range(1, len(u)):
        a, b = u[k - 1][0] / u[k - 1][2], u[k][0] / u[k][2]
        s2 += (b - a) ** 2 / (1 / u[k][2] + 1 / u[k - 1][2])
    s2 /= len(u) - 1
    return math.sqrt(s2 * (E - R) * E / R)


def batch_s2(u, b, rho):
    """the variance of batch rates, batches of b units, per unit of time"""
    m = len(u) // b
    if m < 3:
        return None
    s2 = 0.0
    for j in range(m):
        part = u[j * b:(j + 1) * b] if j < m - 1 else u[j * b:]
        y = sum(x[0] for x in part)
        r = sum(x[2] for x in part)
        s2 += r * (y / r - rho) ** 2
    return s2 / (m - 1)


def bm(u, Y, E, R, first=1):
    """batch means over batches of 1, 2, 4 ... units: the largest"""
    if len(u) < 3:
        return float("nan")
    rho, best, b = Y / R, 0.0, first
    while True:
        s2 = batch_s2(u, b, rho)
        if s2 is None:
            break
        best = max(best, s2)
        b *= 2
    return math.sqrt(best * (E - R) * E / R)


def bm2(u, Y, E, R):
    """batch means from batches of 2 units up"""
    return bm(u, Y, E, R, 2)


def plain(u, Y, E, R):
    """the variance of slice rates (batches of one unit only)"""
    if len(u) < 3:
        return float("nan")
    return math.sqrt(batch_s2(u, 1, Y / R) * (E - R) * E / R)


def sd_bm(u, Y, E, R):
    """the larger of successive differences and batch means"""
    return max(sd(u, Y, E, R), bm(u, Y, E, R))


# Student's t, 97.5 % quantile, for 0 to 30 degrees of freedom
T975 = [0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262,
        2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093,
        2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045,
        2.042]


def t_factor(dof):
    z = 1.959964
    if dof < len(T975):
        q = T975[dof]
    else:
        q = z + (z ** 3 + z) / (4 * dof) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * dof * dof)
    return (q / z) ** 2


def hpmon(u, Y, E, R):
    """successive differences and batch means, each widened by Student's t (lib/metrics/slices.c)"""
    n = len(u)
    if n < 3:
        return float("nan")
    s2 = sum((u[k][0] / u[k][2] - u[k - 1][0] / u[k - 1][2]) ** 2 /
             (1 / u[k][2] + 1 / u[k - 1][2]) for k in range(1, n)) / (n - 1)
    best, b = s2 * t_factor(n - 1), 1
    while n // b >= 3:
        best = max(best, batch_s2(u, b, Y / R) * t_factor(n // b - 1))
        b *= 2
    return math.sqrt(best * (E - R) * E / R)


def strat(u, Y, E, R):
    """the imbalance of running time across reads: sum_k e_k^2 (rho_k - rho)^2 (f_k/f - 1)^2"""
    if len(u) < 3:
        return float("nan")
    rho, f = Y / R, R / E
    v = sum(e * e * (y / r - rho) ** 2 * (r / e / f - 1) ** 2 for y, e, r in u)
    return math.sqrt(v)


def sd_strat(u, Y, E, R):
    """successive differences and the running-time imbalance, added"""
    return math.hypot(sd(u, Y, E, R), strat(u, Y, E, R))


def bm_strat(u, Y, E, R):
    """batch means and the running-time imbalance, added"""
    return math.hypot(bm(u, Y, E, R), strat(u, Y, E, R))


EST = {f.__name__: f for f in (sd, plain, bm, bm2, sd_bm, hpmon, strat, sd_strat, bm_strat)}


def table(exact, runs, name):
    est = EST[name]
    cells = defaultdict(list)
    for (mux, p, n, seed), reads in runs:
        x = exact.get(p)
        if not x:
            continue
        seen = set()
        for i in range(len(reads[0])):
            Y = sum(r[i][0] for r in reads)
            E = sum(r[i][1] for r in reads)
            R = sum(r[i][2] for r in reads)
            if not R or R >= E:
                continue
            if (Y, R) in seen:  # one hpmon set: one count
                continue
            seen.add((Y, R))
            c = Y * E / R
            s = est(units(reads, i), Y, E, R)
            if math.isnan(s):
                continue
            for key in ((mux, p), (mux, "all")):
                cells[key].append((c - x, s, x))
    print("\n%s: %s\n" % (name, est.__doc__))
    print("| rotation | phase ms | counts | within 1 sigma | within 2 sigma | error RMS | sigma / RMS |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for key in sorted(cells, key=lambda k: (k[0], 1e9 if k[1] == "all" else k[1])):
        v = cells[key]
        n = len(v)
        c1 = sum(abs(e) <= s for e, s, x in v) / n
        c2 = sum(abs(e) <= 2 * s for e, s, x in v) / n
        rms = math.sqrt(sum((e / x) ** 2 for e, s, x in v) / n)
        w = statistics.median(s / x for e, s, x in v) / rms if rms else float("inf")
        print("| %s | %s | %d | %.1f %% | %.1f %% | %.3f %% | %.2f |" %
              (key[0], key[1], n, 100 * c1, 100 * c2, 100 * rms, w))


def main():
    exact, runs = load(sys.argv[1])
    for name in sys.argv[2:] or EST:
        table(exact, runs, name)


if __name__ == "__main__":
    main()
