#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# diff matches the functions of two profiles by sorting them, not by a
# search per row: on 60,000 rows a side it must cost about what reading
# the two profiles costs (CPU time; the quadratic match took ten times
# more), and every row must be exact: the samples of each function in A
# and in B, as the generator placed them (fuzz/gen-profile.py rows: each
# address of the one object is its own function, "big+0xOFFSET").
. "$(dirname "$0")/lib.sh"

gen="$SRCDIR/fuzz/gen-profile.py"
rows=60000
samples=240000
python3 "$gen" rows "$E2E_TMP/a.prof" --samples $samples --rows $rows --seed 1 >/dev/null
python3 "$gen" rows "$E2E_TMP/b.prof" --samples $samples --rows $rows --seed 2 >/dev/null

# cpu ARGS...: CPU seconds (user + sys) of hpmon ARGS; output in $E2E_TMP/out
cpu() {
	python3 - "$HPMON" "$@" <<'PY'
import os, resource, subprocess, sys
with open(os.environ["E2E_TMP"] + "/out", "wb") as o:
    subprocess.run(sys.argv[1:], stdout=o, stderr=subprocess.DEVNULL, check=True, timeout=100)
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.2f" % (u.ru_utime + u.ru_stime))
PY
}
export E2E_TMP

ra=$(cpu report -i "$E2E_TMP/a.prof")
rb=$(cpu report -i "$E2E_TMP/b.prof")
d=$(cpu diff --json "$E2E_TMP/a.prof" "$E2E_TMP/b.prof")
note "CPU: report A ${ra}s, report B ${rb}s, diff ${d}s"
limit=$(python3 -c "print(3 * ($ra + $rb) + 1)")
expect_in "diff's CPU seconds against 3 x the reports' + 1" 0 "$limit" "$d"

python3 - "$E2E_TMP/out" $samples $rows <<'PY' || fail "diff's rows are not the profiles' (above)"
import json, random, sys
path, samples, rows = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
want = {}
for side, seed in ((0, 1), (1, 2)):
    rng = random.Random(seed)  # as fuzz/gen-profile.py rows places them
    for _ in range(samples):
        k = "big+0x%x" % (rng.randrange(rows) * 64)
        want.setdefault(k, [0, 0])[side] += 1
got = {}
d = json.load(open(path))
for r in d["rows"]:
    assert r["dso"] == "big", r
    assert r["sym"] not in got, "function twice: %s" % r["sym"]
    got[r["sym"]] = [r["samples_a"], r["samples_b"]]
    assert r["delta"] == r["samples_b"] - r["samples_a"], r
bad = [k for k in set(want) | set(got) if want.get(k) != got.get(k)]
if bad:
    for k in sorted(bad)[:5]:
        print("%s: expected %s, got %s" % (k, want.get(k), got.get(k)), file=sys.stderr)
    sys.exit(1)
# largest change first
ch = [abs(r["delta_points"]) for r in d["rows"]]
assert ch == sorted(ch, reverse=True), "rows not by change"
PY
note "ok"
