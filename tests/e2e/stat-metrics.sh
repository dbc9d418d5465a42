#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Metrics (-M, --metric, --metrics-file) on this machine's software
# events: each value checked exactly against the counts printed beside it
# (page faults per millisecond of task-clock, CPUs utilized, rates per
# second), in JSON, CSV and the table, for the totals and for each -I
# interval; a user's metrics file whose metrics build on each other;
# n/a with the reason for division by zero and for hardware events a
# machine without a PMU cannot count.
. "$(dirname "$0")/lib.sh"

pages=("$WORKLOADS/pages" 300)

# json_check WHAT FILE PYTHON: run PYTHON with j (the last JSON document),
# js (all of them), m(obj, name) (a metric of obj), ev(obj, name) (an
# event of obj) and close(a, b) (equal to 1e-9).
json_check() {
	python3 - "$2" "$3" <<'PY' || fail "$1: see above"
import json, sys
path, code = sys.argv[1:3]
text = open(path).read()
try:
    js = [json.loads(text)]
except ValueError:
    js = [json.loads(l) for l in text.splitlines() if l.strip()]
j = js[-1]
def m(obj, name):
    r = [x for x in obj["metrics"] if x["name"] == name]
    assert len(r) == 1, "%d metrics named %s" % (len(r), name)
    return r[0]
def ev(obj, name):
    r = [x for x in obj["events"] if x["name"] == name]
    assert len(r) >= 1, "no event %s" % name
    return r[0]
def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))
try:
    exec(code)
except AssertionError as e:
    print("FAIL:", e, file=sys.stderr)
    print(json.dumps(j, indent=1)[:6000], file=sys.stderr)
    sys.exit(1)
PY
}

# ---- the software group, in JSON: exact against the counts ----
hpm_norand_ok stat --json -M software -- "${pages[@]}"
cp "$E2E_TMP/err" "$E2E_TMP/sw.json"
json_check "software metrics" "$E2E_TMP/sw.json" '
pf = ev(j, "page-faults")["count"]
tc = ev(j, "task-clock")
assert pf >= 300, pf
per_ms = m(j, "page_faults_per_msec")
assert close(per_ms["value"], pf / tc["count"]), (per_ms, pf, tc["count"])
assert per_ms["unit"] == "faults/msec" and per_ms["event"] == "page-faults"
assert per_ms["uncertainty"] == 0, per_ms
cu = m(j, "cpus_utilized")
assert close(cu["value"], tc["raw_count"] / j["elapsed_ns"]), (cu, tc, j["elapsed_ns"])
rate = m(j, "page_fault_rate")
assert close(rate["value"], pf / (j["elapsed_ns"] / 1e9)), rate
assert rate["form"] == "per-second"
for x in j["metrics"]:
    assert set(("name", "value", "unit", "uncertainty")) <= set(x), x
'
# the event lines carry the first metric as perf does
json_check "metric_value beside the event" "$E2E_TMP/sw.json" '
e = ev(j, "page-faults")
assert e["metric_unit"] == "faults/msec" and close(e["metric_value"], m(j, "page_faults_per_msec")["value"])
'

# ---- the same in CSV, against the printed counts ----
hpm_norand_ok stat -x, -M software -- "${pages[@]}"
cp "$E2E_TMP/err" "$E2E_TMP/sw.csv"
python3 - "$E2E_TMP/sw.csv" <<'PY' || fail "CSV metrics: see above"
import sys
lines = [l.rstrip("\n").split(",") for l in open(sys.argv[1]) if l.strip() and not l.startswith("#")]
by = {f[2]: f for f in lines if f[2]}
pf, tc = float(by["page-faults"][0]), float(by["task-clock"][0])
f = by["page-faults"]
assert len(f) == 7 and f[6] == "page_faults_per_msec [faults/msec]", f
# the metric is printed with 3 decimals, task-clock with 2: allow that
assert abs(float(f[5]) - pf / tc) <= 0.0005 + pf / tc * 0.006 / tc, (f, pf, tc)
# a second metric of the same event: a line of its own, count columns empty
more = [l for l in lines if l[6].startswith("page_fault_rate")]
assert len(more) == 1 and more[0][:5] == [""] * 5 and len(more[0]) == 7, more
PY

# ---- the table ----
hpm_norand_ok stat -M software -- "${pages[@]}"
expect_grep "table: metric beside its event" \
	'page-faults +# +[0-9.]+ faults/msec \(page_faults_per_msec\)' "$E2E_TMP/err"
expect_grep "table: a second metric under the first" \
	'^ +# +[0-9.]+ [KM]?/sec \(page_fault_rate\)' "$E2E_TMP/err"

# ---- a user's metrics file: units, forms, a metric built on another
# (the second pass), and n/a for a division by zero ----
cat >"$E2E_TMP/mine.metrics" <<'EOF'
# page faults per millisecond, and twice that, built on it
metric my_pf_per_ms
    formula  page-faults / (task-clock / 1e6)
    unit     faults/ms
    desc     page faults per millisecond of CPU time
    group    mine
    form     value

metric my_double
    formula  2 * my_pf_per_ms
    desc     twice the above
    group    mine

metric my_pct
    formula  minor-faults / page-faults
    desc     minor faults, as a share of all faults
    group    mine
    form     percent

metric my_broken
    formula  page-faults / (page-faults - page-faults)
    desc     always a division by zero
    group    mine
EOF
hpm_norand_ok stat --json --metrics-file "$E2E_TMP/mine.metrics" \
	--metric 'inline_kpf = page-faults / 1000' -- "${pages[@]}"
cp "$E2E_TMP/err" "$E2E_TMP/mine.json"
json_check "user metrics" "$E2E_TMP/mine.json" '
pf = ev(j, "page-faults")["count"]
tc = ev(j, "task-clock")["count"]
a = m(j, "my_pf_per_ms")
assert close(a["value"], pf / tc) and a["unit"] == "faults/ms", a
assert close(m(j, "my_double")["value"], 2 * pf / tc)
assert close(m(j, "my_pct")["value"], 100 * ev(j, "minor-faults")["count"] / pf)
assert m(j, "my_pct")["unit"] == "%"
b = m(j, "my_broken")
assert b["value"] is None and b["uncertainty"] is None, b
assert "division by zero" in b["reason"], b
k = m(j, "inline_kpf")
assert close(k["value"], pf / 1000) and "user" in k["groups"], k
# the file selected its own metrics only, the inline one too
assert sorted(x["name"] for x in j["metrics"]) == ["inline_kpf", "my_broken", "my_double", "my_pct", "my_pf_per_ms"], j["metrics"]
'
# -M picks among the file's metrics
hpm_norand_ok stat --json --metrics-file "$E2E_TMP/mine.metrics" -M my_double -- "${pages[@]}"
json_check "-M from a metrics file" "$E2E_TMP/err" '
assert [x["name"] for x in j["metrics"]] == ["my_double"], j["metrics"]
'

# ---- intervals: each interval's metrics from that interval's counts ----
intervals() {
	hpm_norand_ok stat -I 100 --json -M software -- "$WORKLOADS/sleeper" -s -d 150 -p 200 350
	cp "$E2E_TMP/err" "$E2E_TMP/i.json"
	json_check "interval metrics" "$E2E_TMP/i.json" '
ivs = [o for o in js if "interval_ns" in o]
assert len(ivs) >= 3, len(ivs)
for o in ivs:
    pf = ev(o, "page-faults")["count"]
    tc = ev(o, "task-clock")
    x = m(o, "page_faults_per_msec")
    assert close(x["value"], pf / tc["count"]), (x, pf, tc)
    cu = m(o, "cpus_utilized")
    assert close(cu["value"], tc["raw_count"] / o["span_ns"]), (cu, tc, o["span_ns"])
# one interval holds the 200 faults, so the intervals differ
vals = [m(o, "page_faults_per_msec")["value"] for o in ivs]
assert max(vals) > 2 * min(vals), vals
'
}
retry 3 intervals

# ---- per-second and per-kinst columns for every event ----
hpm_norand_ok stat --json --per-second --per-kinst -e page-faults,task-clock -- "${pages[@]}"
json_check "--per-second, --per-kinst" "$E2E_TMP/err" '
pf = ev(j, "page-faults")
assert close(pf["per_second"]["value"], pf["count"] / (j["elapsed_ns"] / 1e9)), pf
tc = ev(j, "task-clock")
assert close(tc["per_second"]["value"], tc["count"] / (j["elapsed_ns"] / 1e9)), tc
ins = ev(j, "instructions")
if ins["supported"]:
    assert close(pf["per_kinst"]["value"], pf["count"] / (ins["count"] / 1000)), (pf, ins)
else:
    assert pf["per_kinst"]["value"] is None and "instructions" in pf["per_kinst"]["reason"], pf
'
hpm_norand_ok stat -x, --per-second -e page-faults -- "${pages[@]}"
expect_grep "--per-second in CSV, in the metric columns" \
	'^[0-9]+,,page-faults,[0-9]+,100.00,[0-9.]+,[KM]?/sec$' "$E2E_TMP/err"
hpm_norand_ok stat -x, --per-second -M software -- "${pages[@]}"
expect_grep "--per-second in CSV, on a line of its own after the metric" \
	'^,,,,,[0-9.]+,[KM]?/sec$' "$E2E_TMP/err"

# ---- hardware metrics on a machine that cannot count them: n/a, why ----
hpm_norand_ok stat --json -M ipc -- "${pages[@]}"
json_check "-M ipc" "$E2E_TMP/err" '
x = m(j, "ipc")
if ev(j, "cycles")["supported"] and ev(j, "instructions")["supported"]:
    assert close(x["value"], ev(j, "instructions")["count"] / ev(j, "cycles")["count"]), x
else:
    assert x["value"] is None and "not supported" in x["reason"], x
'

# ---- a derived PAPI preset is one line, the sum of its terms ----
hpm_norand_ok stat --json -e PAPI_L1_TCM,PAPI_TOT_INS,task-clock -- "${pages[@]}"
json_check "derived preset" "$E2E_TMP/err" '
names = [e["name"] for e in j["events"]]
assert names == ["PAPI_L1_TCM", "PAPI_TOT_INS", "task-clock"], names
t = ev(j, "PAPI_L1_TCM")["terms"]
assert [x["name"] for x in t] == ["L1-dcache-load-misses", "L1-icache-load-misses"], t
'
hpm_norand_ok stat -x, -e PAPI_L1_TCM,task-clock -- "${pages[@]}"
expect_eq "derived preset: one CSV line" 1 "$(grep -c PAPI_L1_TCM "$E2E_TMP/err")"

# ---- mistakes: exit 129 and say what and where ----
hpm stat -M sofware -- true
expect_eq "unknown group: exit status" 129 "$HPM_STATUS"
expect_grep "unknown group: names it" "no metric or metric group 'sofware'" "$E2E_TMP/err"
expect_grep "unknown group: suggests" "did you mean: software" "$E2E_TMP/err"
hpm stat --metric 'x = page-faults +' -- true
expect_eq "bad --metric: exit status" 129 "$HPM_STATUS"
expect_grep "bad --metric: says where" '^ +\^$' "$E2E_TMP/err"
printf 'metric a\n formula (1\n' >"$E2E_TMP/bad.metrics"
hpm stat --metrics-file "$E2E_TMP/bad.metrics" -- true
expect_eq "bad metrics file: exit status" 129 "$HPM_STATUS"
expect_grep "bad metrics file: file and line" "bad.metrics:2: formula of a" "$E2E_TMP/err"
hpm stat -M 'ipc:q' -- true
expect_eq "bad modifiers after a group" 129 "$HPM_STATUS"

# ---- the metric list ----
hpm_ok list --metrics
expect_grep "list --metrics shows a metric" '^  page_faults_per_msec +\[software memory\]' "$E2E_TMP/out"
hpm_ok list --metrics --json
json_check "list --metrics --json" "$E2E_TMP/out" '
names = {x["name"]: x for x in j}
assert names["page_faults_per_msec"]["resolves"] is True
assert names["ipc"]["formula"] == "instructions / cycles"
'
echo "PASS: $E2E_NAME"
