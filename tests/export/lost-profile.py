#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write a small crafted profile with a LOST record between its samples,
with fuzz/gen-profile.py's writer (docs/profile-format.md):

  lost-profile.py GEN_PROFILE_PY OUT

20 samples of pid 100 at 1-ns steps, and between the 10th and the 11th
(at time 11) a LOST record of 7 records of event 0 (cpu-clock)."""
import importlib.util
import sys

spec = importlib.util.spec_from_file_location("gen_profile", sys.argv[1])
g = importlib.util.module_from_spec(spec)
spec.loader.exec_module(g)

TAG_LOST = 6
with open(sys.argv[2], "wb") as f:
    w = g.Writer(f, 1 << 20, True)
    w.header(g.meta(g.SAMPLE_IP | g.SAMPLE_TID | g.SAMPLE_TIME | g.SAMPLE_CPU | g.SAMPLE_PERIOD, 0))
    for _ in range(10):
        w.sample(100, 0x400000)
    # time +1, event 0 + 1, 7 records
    w.add(bytes([TAG_LOST]) + g.zz(1) + g.var(1) + g.var(7), sample=False)
    for _ in range(10):
        w.sample(100, 0x400000)
    w.close()
