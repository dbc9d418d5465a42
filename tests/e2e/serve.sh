#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# hpmon serve: the exposition passes promtool (text 0.0.4) and is
# well-formed OpenMetrics when asked for; a software event's counter grows
# between scrapes on every CPU, and the page faults of a workload that
# faults N fresh pages are in the increase of the per-CPU sum; other
# paths are 404, other methods 405, a body 413, headers over the cap 431,
# and each is counted; bad options and a port in use fail with the cause;
# SIGTERM and -d stop it with status 0. Also: examples/grafana-hpmon.json
# is valid JSON whose queries name series hpmon serves.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve-lib.sh"
command -v promtool >/dev/null ||
	skip "promtool is not installed (Debian's prometheus package; scripts/deps host installs it)"

ncpu=$(getconf _NPROCESSORS_ONLN)
N=20000

# -- options
hpm serve --listen nonsense
expect_eq "status of --listen nonsense" 129 "$HPM_STATUS"
expect_grep "--listen message" "HOST:PORT.*not 'nonsense'" "$E2E_TMP/err"
hpm serve --listen 127.0.0.1:70000
expect_eq "status of port 70000" 129 "$HPM_STATUS"
hpm serve -C 4096 --listen 127.0.0.1:0 -d 1
expect_eq "status of -C 4096" 129 "$HPM_STATUS"
expect_grep "-C 4096 message" "CPU 4096 does not exist" "$E2E_TMP/err"
hpm serve -- sleep 1
expect_eq "status of a command" 129 "$HPM_STATUS"
hpm serve -e no-such-event --listen 127.0.0.1:0 -d 1
expect_eq "status of an unknown event" 129 "$HPM_STATUS"
hpm serve --listen 192.0.2.1:9464 -d 1 -e task-clock
expect_eq "status of an address not this machine's" 1 "$HPM_STATUS"
expect_grep "address message" "no interface of this machine has that address" "$E2E_TMP/err"
hpm serve --per-process=0 --listen 127.0.0.1:0 -d 1
expect_eq "status of --per-process=0" 129 "$HPM_STATUS"
expect_grep "--per-process=0 message" "per-process=N takes a number of series from 1 to 10000, not '0'" "$E2E_TMP/err"
hpm serve --per-cgroup=many --listen 127.0.0.1:0 -d 1
expect_eq "status of --per-cgroup=many" 129 "$HPM_STATUS"
hpm serve --per-process -e exec:main,task-clock --listen 127.0.0.1:0 -d 1
expect_eq "status of exec: per process" 129 "$HPM_STATUS"
expect_grep "exec: per process message" "'exec:main' counts in one program and cannot be counted system-wide per task" "$E2E_TMP/err"
hpm serve -e '' --listen 127.0.0.1:0 -d 1
expect_eq "status of -e ''" 129 "$HPM_STATUS"
expect_grep "-e '' message" "option '-e' needs a value: the event list is empty" "$E2E_TMP/err"
# -d: stops by itself, status 0
hpm serve --listen 127.0.0.1:0 -e task-clock -d 0.3
expect_eq "status after -d 0.3" 0 "$HPM_STATUS"
expect_grep "listening line" "serving http://127.0.0.1:[0-9]+/metrics" "$E2E_TMP/err"

start_serve -e task-clock,page-faults,context-switches,cpu-migrations

# -- the exposition
scrape() { # scrape FILE [ACCEPT]: the body in FILE, headers in FILE.h
	curl -sS --max-time 10 -D "$1.h" -o "$1" ${2:+-H "Accept: $2"} "$SERVE_URL/metrics" ||
		fail "cannot scrape $SERVE_URL/metrics"
}
scrape "$E2E_TMP/s1"
expect_grep "Content-Type of text 0.0.4" '^Content-Type: text/plain; version=0.0.4; charset=utf-8' "$E2E_TMP/s1.h"
promtool check metrics <"$E2E_TMP/s1" >"$E2E_TMP/promtool" 2>&1 ||
	fail "promtool check metrics refuses the exposition: $(cat "$E2E_TMP/promtool")"
[ ! -s "$E2E_TMP/promtool" ] || fail "promtool check metrics: $(cat "$E2E_TMP/promtool")"
expect_grep "TYPE of task-clock" '^# TYPE hpmon_task_clock_seconds_total counter$' "$E2E_TMP/s1"

scrape "$E2E_TMP/om" "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5"
expect_grep "Content-Type of OpenMetrics" '^Content-Type: application/openmetrics-text; version=1.0.0; charset=utf-8' "$E2E_TMP/om.h"
python3 - "$E2E_TMP/om" "$ncpu" <<'PY' || fail "the OpenMetrics exposition is malformed:
$(cat "$E2E_TMP/om")"
import re, sys
lines = open(sys.argv[1]).read().split("\n")
ncpu = int(sys.argv[2])
assert lines[-1] == "" and lines[-2] == "# EOF", "does not end with # EOF"
types, units, helps, samples = {}, {}, {}, {}
cur = None
for l in lines[:-2]:
    m = re.fullmatch(r"# (TYPE|UNIT|HELP) ([a-z_][a-z0-9_]*) (.*)", l)
    if m:
        kind, name, rest = m.groups()
        if kind == "TYPE":
            assert name not in types, "family %s twice" % name
            types[name] = rest
            cur = name
        else:
            assert name == cur, "%s %s outside its family" % (kind, name)
            (units if kind == "UNIT" else helps)[name] = rest
        continue
    m = re.fullmatch(r'([a-z_][a-z0-9_]*)(\{[a-z_]+="[^"\\\n]*"(,[a-z_]+="[^"\\\n]*")*\})? (-?[0-9.e+]+|NaN)', l)
    assert m, "bad line %r" % l
    name = m.group(1)
    fam = name[:-6] if types.get(cur) == "counter" else name
    assert fam == cur, "sample %s outside its family %s" % (name, cur)
    if types[cur] == "counter":
        assert name.endswith("_total"), "counter sample %s without _total" % name
    samples.setdefault(cur, []).append(l)
for fam, unit in units.items():
    assert fam.endswith("_" + unit), "family %s does not end in its unit %s" % (fam, unit)
assert types.get("hpmon_task_clock_seconds") == "counter", types
assert units.get("hpmon_task_clock_seconds") == "seconds", units
assert len(samples["hpmon_task_clock_seconds"]) == ncpu, samples["hpmon_task_clock_seconds"]
for fam in ("hpmon_page_faults", "hpmon_context_switches", "hpmon_scrapes",
            "hpmon_lost_records", "hpmon_rejected_requests"):
    assert types.get(fam) == "counter", "no counter %s" % fam
assert types.get("hpmon_counted_ratio") == "gauge"
assert len(samples["hpmon_counted_ratio"]) == 4 * ncpu
PY

# -- counts: every CPU's task-clock grows; page faults of N fresh pages
series() { # series FILE NAME: CPU=VALUE per line
	sed -n "s/^$2{cpu=\"\([0-9]*\)\"} \(.*\)/\1=\2/p" "$1" | sort
}
scrape "$E2E_TMP/a"
"$WORKLOADS/pages" $N
scrape "$E2E_TMP/b"
python3 - "$E2E_TMP/a" "$E2E_TMP/b" "$ncpu" "$N" <<'PY' || fail "counts between two scrapes (above)"
import re, sys
def load(path):
    d = {}
    for l in open(path):
        m = re.match(r'(hpmon_[a-z_]+_total)\{cpu="(\d+)"\} (\S+)$', l)
        if m:
            d[(m.group(1), int(m.group(2)))] = float(m.group(3))
    return d
a, b = load(sys.argv[1]), load(sys.argv[2])
ncpu, n = int(sys.argv[3]), int(sys.argv[4])
for c in range(ncpu):
    k = ("hpmon_task_clock_seconds_total", c)
    if not b[k] > a[k]:
        sys.exit("task-clock of CPU %d did not grow: %s -> %s" % (c, a[k], b[k]))
for k in a:
    if b[k] < a[k]:
        sys.exit("%s went down: %s -> %s" % (k, a[k], b[k]))
pf = sum(b[("hpmon_page_faults_total", c)] - a[("hpmon_page_faults_total", c)] for c in range(ncpu))
print("page faults between the scrapes: %d (the workload faults %d pages)" % (pf, n))
if pf < n:
    sys.exit("page faults grew by %d, less than the %d pages the workload faulted" % (pf, n))
PY

# -- what is refused, and counted
code() { curl -s --max-time 10 -o /dev/null -w '%{http_code}' "$@"; }
expect_eq "GET /" 404 "$(code "$SERVE_URL/")"
expect_eq "GET /metrics/x" 404 "$(code "$SERVE_URL/metrics/x")"
expect_eq "POST /metrics" 405 "$(code -X POST "$SERVE_URL/metrics")"
curl -s --max-time 10 -D "$E2E_TMP/405.h" -o /dev/null -X DELETE "$SERVE_URL/metrics"
expect_grep "Allow header of 405" '^Allow: GET, HEAD' "$E2E_TMP/405.h"
expect_eq "GET /metrics with a body" 413 "$(code -X GET --data-binary abc "$SERVE_URL/metrics")"
big=$(head -c 20000 /dev/zero | tr '\0' a)
expect_eq "headers over 16 KiB" 431 "$(code -H "X-Big: $big" "$SERVE_URL/metrics")"
scrape "$E2E_TMP/c"
# 5 refused by hpmon; the 431 is the library's, before hpmon sees the request
expect_eq "rejected requests counted" "hpmon_rejected_requests_total 5" \
	"$(grep '^hpmon_rejected_requests_total' "$E2E_TMP/c")"
expect_eq "scrapes counted" "hpmon_scrapes_total 5" "$(grep '^hpmon_scrapes_total' "$E2E_TMP/c")"

# -- a second server on the same port: refused, with the cause
hpm serve --listen "${SERVE_URL#http://}" -e task-clock -d 5
expect_eq "status with the port in use" 1 "$HPM_STATUS"
expect_grep "port in use message" "in use.*another program listens there" "$E2E_TMP/err"

stop_serve

# -- the Grafana dashboard: JSON, each query on series hpmon serves (those
# per process and per cgroup: tests/e2e/serve-tasks.sh)
python3 - "$SRCDIR/examples/grafana-hpmon.json" "$E2E_TMP/c" <<'PY' || fail "examples/grafana-hpmon.json"
import json, re, sys
d = json.load(open(sys.argv[1]))
served = set(re.findall(r"^(hpmon_[a-z_]+?)(?:\{| )", open(sys.argv[2]).read(), re.M))
exprs = [t["expr"] for p in d["panels"] for t in p["targets"]]
assert len(exprs) >= 6, exprs
for e in exprs:
    for name in re.findall(r"hpmon_[a-z_]+", e):
        if name.startswith(("hpmon_process_", "hpmon_cgroup_", "hpmon_other_rows")):
            continue
        # cycles and instructions are served where the machine counts them
        if name not in served and name not in ("hpmon_cycles_total", "hpmon_instructions_total"):
            sys.exit("the dashboard queries %s, which hpmon serve does not serve" % name)
PY
echo "PASS: $E2E_NAME"
