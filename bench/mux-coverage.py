#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The coverage table of bench/guest-mux-coverage.sh (or of
# tests/guest/mux-coverage.sh), from its log: per rotation and phase
# length, the share of errors within 1 and 2 sigma, the error RMS, and the
# interval's width against the error (median sigma / error RMS: about 1 is
# right, far above 1 too wide, below 1 too narrow).
import math, statistics, sys
from collections import defaultdict

rows = defaultdict(list)
for line in open(sys.argv[1] if len(sys.argv) > 1 else "mux-coverage.log"):
    f = line.split()
    if len(f) == 7 and f[0] == "DATA":
        mux, p = f[1], float(f[2])
        err, sig, exact = float(f[4]), float(f[5]), float(f[6])
        rows[(mux, p)].append((err, sig, exact))
        rows[(mux, "all")].append((err, sig, exact))
print("| rotation | phase ms | counts | within 1 sigma | within 2 sigma | error RMS | sigma / RMS |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for (mux, p) in sorted(rows, key=lambda k: (k[0], 1e9 if k[1] == "all" else k[1])):
    v = rows[(mux, p)]
    n = len(v)
    c1 = sum(abs(e) <= s for e, s, x in v) / n
    c2 = sum(abs(e) <= 2 * s for e, s, x in v) / n
    rms = math.sqrt(sum((e / x) ** 2 for e, s, x in v) / n)
    w = statistics.median(s / x for e, s, x in v) / rms if rms else float("inf")
    print("| %s | %s | %d | %.1f %% | %.1f %% | %.3f %% | %.2f |" %
          (mux, p, n, 100 * c1, 100 * c2, 100 * rms, w))
