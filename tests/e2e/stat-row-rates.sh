#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Per-row rates: in --per-thread, --per-process and -A breakdowns the
# "/sec" figure of an event divides the row's count by the row's own clock
# (task-clock or cpu-clock), as perf does, not by the total's clock.
#
# The text output is checked with the arithmetic of its printed digits:
# the clock is printed to 0.01 msec and the rate to 3 decimals, so the
# printed rate must lie in count / [clock - 0.005, clock + 0.005] widened
# by half a unit of its last digit. The JSON output holds the unrounded
# numbers and is checked to 1e-9. The total's clock is always far from a
# row's here (a thread against the whole process, one CPU against two),
# so a rate divided by it fails both checks.
. "$(dirname "$0")/lib.sh"

# check MODE CLOCK: the text output in $E2E_TMP/err, the JSON in
# $E2E_TMP/MODE.json; every row's page-faults rate against its clock.
check() {
	python3 - "$E2E_TMP/err" "$E2E_TMP/$1.json" "$2" "$1" <<'PY' || fail "see above"
import json, re, sys

text, jpath, clock, mode = sys.argv[1:5]
SCALE = {"/sec": 1.0, "K/sec": 1e3, "M/sec": 1e6, "G/sec": 1e9}
errors = []

# text: "LABEL  COUNT [msec] EVENT  # VALUE UNIT"
line_re = re.compile(r"^(\S+)\s+([\d,.]+)\s+(?:msec\s+)?(\S+)\s+#\s+([\d.]+)\s+(\S+)")
rows = {}
for line in open(text):
    m = line_re.match(line)
    if m:
        label, count, event, value, unit = m.groups()
        rows.setdefault(label, {})[event] = (float(count.replace(",", "")), float(value), unit)
rows.pop("total", None)
if len(rows) < 2:
    errors.append("%s: fewer than 2 rows with a rate in the text output" % mode)
for label, ev in sorted(rows.items()):
    if clock not in ev or "page-faults" not in ev:
        errors.append("%s: row %s lacks %s or page-faults: %r" % (mode, label, clock, ev))
        continue
    ms = ev[clock][0]
    n, r, unit = ev["page-faults"]
    if unit not in SCALE:
        errors.append("%s: row %s: page-faults rate in %r, not a /sec unit" % (mode, label, unit))
        continue
    lo_r, hi_r = (r - 0.0005) * SCALE[unit], (r + 0.0005) * SCALE[unit]
    lo = n / ((ms + 0.005) / 1e3)
    hi = n / ((ms - 0.005) / 1e3) if ms > 0.005 else float("inf")
    if hi < lo_r or lo > hi_r:
        errors.append("%s: row %s: %g page-faults in %.2f msec printed as %.3f %s, "
                      "expected %.6g..%.6g /sec" % (mode, label, n, ms, r, unit, lo, hi))

# JSON: the unrounded figures
doc = json.load(open(jpath))
key = {"per-thread": "threads", "per-process": "processes", "per-cpu": "cpus"}[mode]
jrows = doc.get(key, [])
if len(jrows) < 2:
    errors.append("%s: fewer than 2 rows in the JSON %r list" % (mode, key))
for i, row in enumerate(jrows):
    ev = {e["name"]: e for e in row["events"]}
    c, pf = ev[clock], ev["page-faults"]
    if not c.get("count"):
        continue
    expected = pf["count"] / (c["count"] / 1e3)
    got = pf["metric_value"] * SCALE[pf["metric_unit"]]
    if abs(got - expected) > 1e-9 * max(expected, 1):
        errors.append("%s: JSON row %d: page-faults rate %r /sec, expected %r / %r msec = %r"
                      % (mode, i, got, pf["count"], c["count"], expected))
for e in errors:
    print("FAIL:", e, file=sys.stderr)
sys.exit(1 if errors else 0)
PY
}

# run MODE CLOCK ARGS...: text and JSON of one breakdown, then check them.
run() {
	local mode=$1 clock=$2
	shift 2
	hpm_norand_ok stat "$@" --json -o "$E2E_TMP/$mode.json" -e "$clock,page-faults" \
		-- "$WORKLOADS/threads" 3 2 50
	hpm_norand_ok stat "$@" -e "$clock,page-faults" -- "$WORKLOADS/threads" 3 2 50
	check "$mode" "$clock"
}

run per-thread task-clock --per-thread
run per-process task-clock --per-process
if [ "$(id -u)" -eq 0 ] && [ "$(nproc)" -ge 2 ]; then
	run per-cpu cpu-clock -a -A
else
	note "-A not checked: it needs root (system-wide counting) and 2 CPUs"
fi
