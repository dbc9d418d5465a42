#!/bin/bash
# SPDX-License-Identifier: MIT
# The hardware lane (machines with a PMU: where `perf stat -e instructions
# true` counts): hpmon's instructions, cycles and branches of a loop of a
# fixed length equal perf's on the same run within 0.5 %, and where the
# model has TopdownL1 its four level-1 metrics sum to 100 % within 1.
#
# Same run: perf counts hpmon, which counts the loop; what perf counted
# of hpmon itself (hpmon counting `true`, in the same way) is taken off
# perf's count before comparing. User mode only (:u), so that what the
# kernel does meanwhile is not compared.
source "$(dirname "$0")/lib.sh"

command -v perf >/dev/null || skip "perf is not installed: nothing to compare hpmon's counts with"
if ! perf stat -x, -e instructions:u true 2>"$E2E_TMP/probe" >/dev/null ||
	! grep -Eq '^[0-9]+,' "$E2E_TMP/probe"; then
	skip "no hardware PMU: perf stat -e instructions counts nothing here ($(head -c 200 "$E2E_TMP/probe" | tr '\n' ' '))"
fi

EV=instructions:u,cycles:u,branches:u
# ratio N: 20 rounds of 10*N steps of one loop (tests/workloads/ratio.c)
N=3000000

# count LABEL CMD...: perf's CSV into $E2E_TMP/LABEL.perf, hpmon's into
# $E2E_TMP/LABEL.hpmon, in one run
count() {
	local label=$1
	shift
	perf stat -x, -e "$EV" -o "$E2E_TMP/$label.perf" -- \
		"$HPMON" stat -x, -e "$EV" -o "$E2E_TMP/$label.hpmon" -- "$@" >/dev/null ||
		fail "perf stat -- hpmon stat -- $* failed"
}
count loop "$WORKLOADS/ratio" "$N"
count base true

python3 - "$E2E_TMP" <<'EOF' || fail "hpmon's counts differ from perf's by more than 0.5 %"
import sys
d = sys.argv[1]

def read(path):
    out = {}
    for line in open(path):
        f = line.strip().split(",")
        if len(f) < 3 or line.startswith("#") or not f[0].replace(".", "").isdigit():
            continue
        out[f[2].split(":")[0]] = float(f[0])
    return out

perf, hpm, base = read(d + "/loop.perf"), read(d + "/loop.hpmon"), read(d + "/base.perf")
bad = 0
for ev in ("instructions", "cycles", "branches"):
    if ev not in perf or ev not in hpm or ev not in base:
        print("%s: not counted (perf %s, hpmon %s)" % (ev, perf.get(ev), hpm.get(ev)))
        bad = 1
        continue
    p = perf[ev] - base[ev]   # perf's count of the loop: less hpmon's own
    if p <= 0 or hpm[ev] <= 0:
        print("%s: hpmon %.0f, perf %.0f less %.0f of hpmon itself: nothing to compare"
              % (ev, hpm[ev], perf[ev], base[ev]))
        bad = 1
        continue
    rel = abs(hpm[ev] - p) / p
    print("%s: hpmon %.0f, perf %.0f (less %.0f of hpmon itself): %.3f %%"
          % (ev, hpm[ev], p, base[ev], 100 * rel))
    if rel > 0.005:
        bad = 1
sys.exit(bad)
EOF

# TopdownL1: the model's vendor metrics (perf's names), where it has them
if ! "$HPMON" stat -M TopdownL1 -j -o "$E2E_TMP/td.json" -- "$WORKLOADS/ratio" "$N" \
	2>"$E2E_TMP/td.err"; then
	if grep -q "no metric or metric group" "$E2E_TMP/td.err"; then
		note "this model has no TopdownL1 metric group: its sum not checked"
		echo "PASS: $E2E_NAME"
		exit 0
	fi
	fail "hpmon stat -M TopdownL1 failed: $(cat "$E2E_TMP/td.err")"
fi
python3 - "$E2E_TMP/td.json" <<'EOF' || fail "TopdownL1's level-1 metrics do not sum to 100 % within 1"
import json, sys
doc = json.loads(open(sys.argv[1]).read().splitlines()[-1])
l1 = ("tma_retiring", "tma_bad_speculation", "tma_frontend_bound", "tma_backend_bound")
vals = {m["name"]: m["value"] for m in doc.get("metrics", []) if m["name"] in l1}
if set(vals) != set(l1) or any(v is None for v in vals.values()):
    print("level-1 metrics: %s (want %s)" % (vals, ", ".join(l1)))
    sys.exit(1)
total = sum(vals.values())
# in percent, as the vendors' tables give them (a ratio: times 100)
if total < 2:
    total *= 100
print("TopdownL1: %s, sum %.2f %%" % (vals, total))
sys.exit(0 if abs(total - 100) <= 1 else 1)
EOF
echo "PASS: $E2E_NAME"
