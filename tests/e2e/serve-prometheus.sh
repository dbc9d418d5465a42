#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# hpmon serve under a real Prometheus (Debian's prometheus): Prometheus
# scrapes it every second (asking for OpenMetrics, which it parses
# strictly), the target is up without error, and after a few scrapes
# PromQL through the HTTP API gives a rate per CPU for each expected event
# and hpmon's own counters. The test stops both servers.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve-lib.sh"
command -v prometheus >/dev/null ||
	skip "prometheus is not installed (Debian's prometheus package; scripts/deps host installs it)"

ncpu=$(getconf _NPROCESSORS_ONLN)
start_serve -e task-clock,page-faults,context-switches -M cpus_utilized
target=${SERVE_URL#http://}

start_prometheus "$target"

rates_there() {
	[ "$(query 'rate(hpmon_task_clock_seconds_total[5s])')" -eq "$ncpu" ] &&
		[ "$(query 'rate(hpmon_page_faults_total[5s])')" -eq "$ncpu" ] &&
		[ "$(query 'rate(hpmon_context_switches_total[5s])')" -eq "$ncpu" ]
}
wait_for "rates of hpmon's counters in Prometheus" 60 rates_there

curl -sf --max-time 5 "$PROM/api/v1/targets" >"$E2E_TMP/targets.json" || fail "cannot read the targets"
python3 - "$E2E_TMP/targets.json" "$target" <<'PY' || fail "the hpmon target in Prometheus: $(cat "$E2E_TMP/targets.json")"
import json, sys
t = [t for t in json.load(open(sys.argv[1]))["data"]["activeTargets"] if t["scrapeUrl"].startswith("http://" + sys.argv[2])]
assert len(t) == 1, t
assert t[0]["health"] == "up" and t[0]["lastError"] == "", t[0]
PY
# each CPU's task-clock rate is above 0 (its size depends on how much of
# the 5 s window the series covers yet, which Prometheus extrapolates)
curl -sf --max-time 5 -G "$PROM/api/v1/query" \
	--data-urlencode 'query=rate(hpmon_task_clock_seconds_total[5s])' >"$E2E_TMP/tc.json"
python3 - "$E2E_TMP/tc.json" <<'PY' || fail "task-clock rates: $(cat "$E2E_TMP/tc.json")"
import json, sys
for r in json.load(open(sys.argv[1]))["data"]["result"]:
    v = float(r["value"][1])
    assert v > 0, (r["metric"]["cpu"], v)
PY
[ "$(query 'hpmon_scrapes_total')" -eq 1 ] || fail "no hpmon_scrapes_total in Prometheus"
[ "$(query 'hpmon_metric_cpus_utilized')" -eq 1 ] || fail "no hpmon_metric_cpus_utilized in Prometheus"
[ "$(query 'hpmon_counted_ratio')" -eq $((3 * ncpu)) ] || fail "hpmon_counted_ratio: not $((3 * ncpu)) series"

stop_prometheus
stop_serve
echo "PASS: $E2E_NAME"
