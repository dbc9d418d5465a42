#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perf's figure beside a clock: CPUs utilized, the clock's CPU time over
# the elapsed time. hpmon stat computes it itself for a list of software
# events (no metric set read: tests/unit/test-stat-clockfig.c checks that
# the set has no other software figure), and from the metric set's
# cpus_utilized when the list has a hardware event. Both must give
# count / elapsed, for the totals, for each row of a breakdown and for the
# mean of -r runs; the JSON holds the unrounded numbers (checked to 1e-9),
# CSV and text the unit.
. "$(dirname "$0")/lib.sh"

# check FILE WHAT: every clock event of the JSON report FILE, in the totals
# and in each row, shows count / elapsed as "CPUs utilized".
check() {
	python3 - "$1" "$2" <<'PY' || fail "see above"
import json, sys

path, what = sys.argv[1:3]
doc = json.load(open(path))
elapsed = doc["elapsed_ns"]
errors, seen = [], 0

def events(where, evs):
    global seen
    for e in evs:
        if e["name"] not in ("task-clock", "cpu-clock") or not e.get("supported"):
            continue
        if not e["running_ns"]:
            continue
        seen += 1
        want = e["raw_count"] / elapsed
        if e.get("metric_unit") != "CPUs utilized":
            errors.append("%s: %s %s: figure %r %r, expected CPUs utilized"
                          % (what, where, e["name"], e.get("metric_value"), e.get("metric_unit")))
        elif abs(e["metric_value"] - want) > 1e-9 * max(want, 1e-9):
            errors.append("%s: %s %s: %r CPUs utilized, expected %r ns / %r ns = %r"
                          % (what, where, e["name"], e["metric_value"], e["raw_count"],
                             elapsed, want))

events("totals", doc["events"])
for key in ("threads", "processes", "cpus"):
    for i, row in enumerate(doc.get(key, [])):
        events("%s[%d]" % (key, i), row["events"])
if not seen:
    errors.append("%s: no clock event counted: this test checks nothing" % what)
for e in errors:
    print("FAIL:", e, file=sys.stderr)
sys.exit(1 if errors else 0)
PY
}

# json NAME ARGS...: hpmon stat ARGS --json into $E2E_TMP/NAME.json, checked.
json() {
	local name=$1
	shift
	hpm_norand_ok stat --json -o "$E2E_TMP/$name.json" "$@" -- "$WORKLOADS/threads" 3 2 50
	check "$E2E_TMP/$name.json" "stat $*"
}

# software events alone: stat's own figure
json sw -e task-clock,cpu-clock,page-faults
json sw-threads --per-thread -e task-clock,page-faults
json sw-repeat -r 3 -e task-clock,context-switches
# a hardware event in the list: the metric set's cpus_utilized (the event
# need not count here)
json hw -e task-clock,cycles
json hw-threads --per-process -e task-clock,instructions

# the unit in CSV, and in the text table on the clock's line
hpm_norand_ok stat -x, -e task-clock,page-faults -- "$WORKLOADS/threads" 2 1 20
expect_grep "CSV: task-clock's figure" '^[0-9.]+,msec,task-clock,[0-9]+,[0-9.]+,[0-9.]+,CPUs utilized$' \
	"$E2E_TMP/err"
hpm_norand_ok stat -I 50 -e task-clock -- "$WORKLOADS/threads" 2 1 200
expect_grep "-I: task-clock's figure" '^ +[0-9.]+ +[0-9.]+ msec +task-clock +# +[0-9.]+ CPUs utilized' \
	"$E2E_TMP/err"

note "CPUs utilized is count / elapsed, with and without the metric set"
