#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# hpmon serve --per-process / --per-cgroup under a real Prometheus. In a
# cgroup of its own (made under the cgroup v2 hierarchy, removed after),
# two copies of a workload that faults N fresh pages run: the one told to
# fault N shows exactly N page faults more than the one told to fault 0,
# each under its pid, comm and cgroup labels, after both have exited; a
# spinning process there has a task-clock rate in PromQL, per process and
# per cgroup; promtool accepts the exposition; and in every scrape the
# per-process series and [other] add up to the per-CPU total exactly, as
# do the per-cgroup ones. Then with --per-process=3 and 8 busy processes
# of names of their own, at most 3 series are shown, [other] takes the
# rest (counted in hpmon_other_rows), and the sums stay exact.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve-lib.sh"
command -v promtool >/dev/null && command -v prometheus >/dev/null ||
	skip "prometheus is not installed (Debian's prometheus package; scripts/deps host installs it)"
hpm stat -a --per-process -e page-faults -- true
[ "$HPM_STATUS" -eq 0 ] || skip "counting every task is not allowed here: $(head -1 "$E2E_TMP/err")"

# the cgroup v2 hierarchy: /sys/fs/cgroup itself, or (hybrid) a mount below
CG2=$(awk '$3 == "cgroup2" && $2 ~ "^/sys/fs/cgroup" { print $2; exit }' /proc/self/mounts)
[ -n "$CG2" ] || skip "no cgroup v2 hierarchy under /sys/fs/cgroup (hpmon names cgroups by their v2 path)"
CGNAME=hpmon-e2e-$$
CG=$CG2/$CGNAME
mkdir "$CG" || skip "cannot make a cgroup in $CG2"
cleanup() {
	local rc=$?
	e2e_cleanup || true
	# what still runs there (a workload the runner had started) ends first
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		xargs -r kill <"$CG/cgroup.procs" 2>/dev/null || true
		rmdir "$CG" 2>/dev/null && break
		sleep 0.2
	done
	[ ! -d "$CG" ] || echo "$E2E_NAME: could not remove $CG" >&2
	return $rc
}
trap cleanup EXIT

# The workloads under names of this run's own (other tests may run the
# same ones meanwhile, and every process of the machine counts here).
PGA=$E2E_TMP/pga$$
PGB=$E2E_TMP/pgb$$
SPN=$E2E_TMP/spn$$
cp "$WORKLOADS/pages" "$PGA"
cp "$WORKLOADS/pages" "$PGB"
cp "$WORKLOADS/sleeper" "$SPN"
N=20000

# The runner: a shell that moves itself into the cgroup before hpmon
# serve starts (so every process it starts is born there, whenever hpmon
# reads their cgroup), without address-space randomisation (a workload
# then faults the same pages every run), and runs each line of a FIFO
# with a shell of its own that only waits for it, as
# tests/e2e/stat-system-tasks.sh does.
mkfifo "$E2E_TMP/cmds"
cat >"$E2E_TMP/runner" <<'SH'
echo $$ >"$1/cgroup.procs" || exit 1
: >"$2.ready"
while read -r line; do
	sh -c "$line"
	echo done >>"$2.ack"
done <"$2"
SH
bg "${NORAND[@]}" sh "$E2E_TMP/runner" "$CG" "$E2E_TMP/cmds"
RUNNER=$BG_PID
wait_for "the runner to move into $CG" 10 test -e "$E2E_TMP/cmds.ready"
exec 7>"$E2E_TMP/cmds"
grep -qx "$RUNNER" "$CG/cgroup.procs" || fail "the runner is not in $CG"
acks() {
	if [ -e "$E2E_TMP/cmds.ack" ]; then wc -l <"$E2E_TMP/cmds.ack"; else echo 0; fi
}
# run CMD: the runner runs it; returns when it ended
run() {
	local before
	before=$(acks)
	echo "$1" >&7
	wait_for "the runner to run '$1'" 60 eval '[ "$(acks)" -gt '"$before"' ]'
}

scrape() { # scrape FILE: the 0.0.4 text
	curl -sS --max-time 10 -o "$1" "$SERVE_URL/metrics" || fail "cannot scrape $SERVE_URL/metrics"
}

# sums FILE EVENT: the per-process series and [other], and the
# per-cgroup ones, add up to the per-CPU total, exactly
sums() {
	python3 - "$1" "$2" <<'PY' || fail "sums of $2 in $1 (above)"
import re, sys
text, ev = open(sys.argv[1]).read(), sys.argv[2]
def fam(name):
    return [int(v) for v in re.findall(r"^%s_total\{[^}]*\} (\d+)$" % name, text, re.M)]
cpu = sum(fam("hpmon_" + ev))
for by in ("process", "cgroup"):
    got = sum(fam("hpmon_%s_%s" % (by, ev)))
    if got != cpu:
        sys.exit("per-%s %s add up to %d, the CPUs count %d" % (by, ev, got, cpu))
    if not re.search(r'^hpmon_%s_%s_total\{%s="\[other\]"\} \d+$' % (by, ev, "comm" if by == "process" else "cgroup"), text, re.M):
        sys.exit("no [other] series per %s" % by)
PY
}

# the most series: a machine that builds starts thousands of processes a
# minute, and each may keep its series for the hold time
start_serve -e page-faults,task-clock --per-process=10000 --per-cgroup
expect_grep "the start line" "counting on [0-9]+ CPUs, every task" "$E2E_TMP/serve.err"
start_prometheus "${SERVE_URL#http://}"

# -- exact counts, after the processes exited, under their labels
exact() {
	run "$PGA 0; :"
	run "$PGB $N; :"
	scrape "$E2E_TMP/x"
	python3 - "$E2E_TMP/x" "pga$$" "pgb$$" "/$CGNAME" "$N" <<'PY'
import re, sys
text, a, b, cg, n = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
text = open(text).read()
def one(comm):
    s = re.findall(r'^hpmon_process_page_faults_total\{pid="(\d+)",comm="%s",cgroup="([^"]*)"\} (\d+)$' % comm, text, re.M)
    # a workload of an earlier attempt has a series too: the latest pid
    if not s:
        sys.exit("no series of %s" % comm)
    pid, c, v = max(s, key=lambda x: int(x[0]))
    if c != cg:
        sys.exit("%s's cgroup label is %r, not %r" % (comm, c, cg))
    return int(pid), int(v)
pa, va = one(a)
pb, vb = one(b)
print("page faults: %s %d (pid %d), %s %d (pid %d)" % (a, va, pa, b, vb, pb))
if vb - va != n:
    sys.exit("%s faulted %d pages more than %s, not %d" % (b, vb - va, a, n))
open(sys.argv[1] + ".pgb", "w").write("%d %d\n" % (pb, vb))
PY
}
retry 3 exact
sums "$E2E_TMP/x" page_faults
read -r pgb_pid pgb_count <"$E2E_TMP/x.pgb"

# -- the exposition passes promtool; OpenMetrics has the labels escaped
promtool check metrics <"$E2E_TMP/x" >"$E2E_TMP/promtool" 2>&1 ||
	fail "promtool check metrics refuses the exposition: $(cat "$E2E_TMP/promtool")"
[ ! -s "$E2E_TMP/promtool" ] || fail "promtool check metrics: $(cat "$E2E_TMP/promtool")"
expect_grep "TYPE per process" '^# TYPE hpmon_process_page_faults_total counter$' "$E2E_TMP/x"
expect_grep "TYPE per cgroup" '^# TYPE hpmon_cgroup_task_clock_seconds_total counter$' "$E2E_TMP/x"
expect_grep "the cgroup's series" "^hpmon_cgroup_page_faults_total\\{cgroup=\"/$CGNAME\"\\} [0-9]+$" "$E2E_TMP/x"
expect_grep "the bound served" '^hpmon_series_max\{by="process"\} 10000$' "$E2E_TMP/x"
expect_grep "--per-cgroup's default" '^hpmon_series_max\{by="cgroup"\} 50$' "$E2E_TMP/x"

# -- the Grafana dashboard's panels per process and per cgroup query
# series served here
python3 - "$SRCDIR/examples/grafana-hpmon.json" "$E2E_TMP/x" <<'PY' || fail "examples/grafana-hpmon.json"
import json, re, sys
d = json.load(open(sys.argv[1]))
served = set(re.findall(r"^(hpmon_[a-z_]+?)(?:\{| )", open(sys.argv[2]).read(), re.M))
names = [n for p in d["panels"] for t in p["targets"] for n in re.findall(r"hpmon_[a-z_]+", t["expr"])
         if n.startswith(("hpmon_process_", "hpmon_cgroup_", "hpmon_other_rows"))]
assert len(names) >= 3, names
for n in names:
    if n not in served:
        sys.exit("the dashboard queries %s, which hpmon serve --per-process --per-cgroup does not serve" % n)
PY

# -- Prometheus: the exited workload's count as served, and rates of a
# spinning one, per process and per cgroup
echo "$SPN -s 8000; :" >&7
in_prom() {
	[ "$(query "hpmon_process_page_faults_total{comm=\"pgb$$\",pid=\"$pgb_pid\"} == $pgb_count")" -eq 1 ]
}
wait_for "the workload's count in Prometheus" 30 in_prom
spin_rates() {
	[ "$(query "rate(hpmon_process_task_clock_seconds_total{comm=\"spn$$\",cgroup=\"/$CGNAME\"}[5s]) > 0")" -eq 1 ] &&
		[ "$(query "rate(hpmon_cgroup_task_clock_seconds_total{cgroup=\"/$CGNAME\"}[5s]) > 0")" -eq 1 ]
}
wait_for "task-clock rates of the spinning process and its cgroup in Prometheus" 30 spin_rates
python3 - "$E2E_TMP/q.json" <<'PY' || fail "the cgroup's rate: $(cat "$E2E_TMP/q.json")"
import json, sys
r = json.load(open(sys.argv[1]))["data"]["result"]
v = float(r[0]["value"][1])
# it spins on one CPU at a time: at most one CPU's worth
assert 0 < v <= 1.2, v
PY
for f in 1 2 3; do
	scrape "$E2E_TMP/s$f"
	sums "$E2E_TMP/s$f" page_faults
done
stop_prometheus
stop_serve

# -- the bound: 8 busy processes of their own names, 3 series at most
start_serve -e page-faults,task-clock --per-process=3 --per-cgroup=1
busy=
for i in 1 2 3 4 5 6 7 8; do
	cp "$WORKLOADS/sleeper" "$E2E_TMP/cd${i}x$$"
	bg "$E2E_TMP/cd${i}x$$" -s 1500 -p 2000
	busy="$busy $BG_PID"
done
scrape "$E2E_TMP/b0"
sleep 0.8
scrape "$E2E_TMP/b1"
for p in $busy; do
	wait "$p" || fail "a busy process failed"
done
scrape "$E2E_TMP/b2"
for f in b0 b1 b2; do
	sums "$E2E_TMP/$f" page_faults
	python3 - "$E2E_TMP/$f" <<'PY' || fail "the bound in $f (above)"
import re, sys
text = open(sys.argv[1]).read()
for by, lab, n in (("process", "pid", 3), ("cgroup", "cgroup", 1)):
    for ev in ("page_faults", "task_clock_seconds"):
        shown = re.findall(r'^hpmon_%s_%s_total\{%s="(?!\[(idle|lost|unattributed|other)\]")' % (by, ev, lab), text, re.M)
        if len(shown) > n:
            sys.exit("%d %s series per %s, more than %d" % (len(shown), ev, by, n))
PY
done
promtool check metrics <"$E2E_TMP/b1" >"$E2E_TMP/promtool" 2>&1 ||
	fail "promtool check metrics: $(cat "$E2E_TMP/promtool")"
# every series, [other] included, only grows from one scrape to the next
# while it is there (a series that left may be gone)
python3 - "$E2E_TMP/b0" "$E2E_TMP/b1" "$E2E_TMP/b2" <<'PY' || fail "a counter went down (above)"
import re, sys
def load(path):
    return {(m.group(1), m.group(2)): float(m.group(3)) for m in
            re.finditer(r"^(hpmon_(?:process|cgroup)_[a-z_]+_total)\{(.*)\} (\S+)$", open(path).read(), re.M)}
scrapes = [load(p) for p in sys.argv[1:]]
for a, b in zip(scrapes, scrapes[1:]):
    for k, v in b.items():
        if k in a and v < a[k]:
            sys.exit("%s{%s} went down: %s -> %s" % (k[0], k[1], a[k], v))
PY
# the 8 ran in the step before b1: at least 5 of them are in [other]
other=$(sed -n 's/^hpmon_other_rows{by="process"} \([0-9]*\)$/\1/p' "$E2E_TMP/b1")
expect_in "processes counted in [other] while the 8 ran" 5 100000 "$other"
stop_serve
echo "PASS: $E2E_NAME"
