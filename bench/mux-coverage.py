#!/usr/bin/env python3
# The coverage table of bench/guest-mux-coverage.sh, from its log
# (bench/mux-coverage.sh passes it): per rotation and phase
# length, the share of errors within 1 and 2 sigma, and the error RMS.
import math, sys
from collections import defaultdict

rows = defaultdict(list)
for line in open(sys.argv[1] if len(sys.argv) > 1 else "mux-coverage.log"):
    f = line.split()
    if len(f) == 6 and f[0] == "DATA":
        mux, p, err, sig, exact = f[1], float(f[2]), float(f[3]), float(f[4]), float(f[5])
        rows[(mux, p)].append((err, sig, exact))
        rows[(mux, "all")].append((err, sig, exact))
print("| rotation | phase ms | counts | within 1 sigma | within 2 sigma | error RMS |")
print("| --- | --- | --- | --- | --- | --- |")
for (mux, p) in sorted(rows, key=lambda k: (k[0], 1e9 if k[1] == "all" else k[1])):
    v = rows[(mux, p)]
    n = len(v)
    c1 = sum(abs(e) <= s for e, s, x in v) / n
    c2 = sum(abs(e) <= 2 * s for e, s, x in v) / n
    rms = math.sqrt(sum((e / x) ** 2 for e, s, x in v) / n)
    print("| %s | %s | %d | %.1f %% | %.1f %% | %.3f %% |" % (mux, p, n, 100 * c1, 100 * c2, 100 * rms))
