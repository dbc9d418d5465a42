#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Threads and child processes: counts are inherited into the total, and
# the --per-thread and --per-process breakdowns add up exactly to it, with
# each thread's and child's known share of the page faults.
#
# `threads T P N`: worker i touches (i+1)*N pages, child j (T+j+1)*N; it
# prints which pid and tid each one had. Two runs with different N differ
# by exactly the shares, in the total and in every entry of a breakdown.
. "$(dirname "$0")/lib.sh"

T=3 P=2 N1=20 N2=50

# run MODE N: JSON of a run in $E2E_TMP/MODE-N.json, task map in .map
run() {
	local mode=$1 n=$2 opt=()
	[ "$mode" = total ] || opt=(--"$mode")
	hpm_norand_ok stat "${opt[@]}" --json -o "$E2E_TMP/$mode-$n.json" \
		-e page-faults,task-clock -- "$WORKLOADS/threads" $T $P "$n"
	cp "$E2E_TMP/out" "$E2E_TMP/$mode-$n.map"
}

# check: run every mode with N1 and N2, and compare.
check() {
	local mode
	for mode in total per-thread per-process; do
		run "$mode" $N1
		run "$mode" $N2
	done
	python3 - "$E2E_TMP" $T $P $N1 $N2 <<'PY' || fail "see above"
import json, sys

tmp, T, P, N1, N2 = sys.argv[1], *map(int, sys.argv[2:])
D = N2 - N1
errors = []

def check(what, expected, actual):
    if expected != actual:
        errors.append("%s: expected %r, got %r" % (what, expected, actual))

def load(mode, n):
    with open("%s/%s-%d.json" % (tmp, mode, n)) as f:
        doc = json.load(f)
    tasks = {}
    with open("%s/%s-%d.map" % (tmp, mode, n)) as f:
        for line in f:
            kind, idx, pid, tid, pages = line.split()
            tasks[(kind, int(idx))] = (int(pid), int(tid), int(pages))
    return doc, tasks

def faults(obj):
    m = [e for e in obj["events"] if e["name"] == "page-faults"]
    if len(m) != 1:
        raise SystemExit("FAIL: no single page-faults event in %r" % obj)
    return int(m[0]["count"])

def share(kind, i):
    return (i + 1) if kind == "worker" else (T + i + 1)

roles = [("main", 0)] + [("worker", i) for i in range(T)] + \
        [("child", j) for j in range(P)]

# The total: inherited by every thread and child.
totals = {}
for mode in ("total", "per-thread", "per-process"):
    for n in (N1, N2):
        doc, _ = load(mode, n)
        totals[(mode, n)] = faults(doc)
        check("%s N=%d: exit_status" % (mode, n), 0, doc["exit_status"])
    check("%s: total page faults N=%d minus N=%d" % (mode, N2, N1),
          D * sum(share(k, i) for k, i in roles[1:]),
          totals[(mode, N2)] - totals[(mode, N1)])
# A breakdown does not change what is counted.
for n in (N1, N2):
    check("total with --per-thread vs without, N=%d" % n,
          totals[("total", n)], totals[("per-thread", n)])
    check("total with --per-process vs without, N=%d" % n,
          totals[("total", n)], totals[("per-process", n)])

# --per-thread: one entry per thread of every process.
per = {}
for n in (N1, N2):
    doc, tasks = load("per-thread", n)
    threads = doc.get("threads")
    if not isinstance(threads, list):
        raise SystemExit("FAIL: --per-thread JSON has no threads array")
    check("per-thread N=%d: number of threads" % n, 1 + T + P, len(threads))
    check("per-thread N=%d: sum of threads == total" % n,
          faults(doc), sum(faults(t) for t in threads))
    by_tid = {t["tid"]: t for t in threads}
    for role in roles:
        pid, tid, pages = tasks[role]
        t = by_tid.get(tid)
        if t is None:
            errors.append("per-thread N=%d: no entry for %s %d (tid %d)" % (n, role[0], role[1], tid))
            continue
        check("per-thread N=%d: pid of %s %d" % (n, *role), pid, t["pid"])
        if role[0] != "main":
            name = "%s-%d" % role
            check("per-thread N=%d: comm of tid %d" % (n, tid), name, t["comm"])
            # Its own pages plus a few of its own (stack, exit path).
            f = faults(t)
            if not pages <= f <= pages + 64:
                errors.append("per-thread N=%d: %s has %d page faults, expected %d..%d"
                              % (n, name, f, pages, pages + 64))
        per[(role, n)] = faults(t)
for role in roles:
    if (role, N1) in per and (role, N2) in per:
        want = 0 if role[0] == "main" else D * share(*role)
        check("per-thread: page faults of %s %d, N=%d minus N=%d" % (*role, N2, N1),
              want, per[(role, N2)] - per[(role, N1)])

# --per-process: the command (with its threads) and each child.
per = {}
for n in (N1, N2):
    doc, tasks = load("per-process", n)
    procs = doc.get("processes")
    if not isinstance(procs, list):
        raise SystemExit("FAIL: --per-process JSON has no processes array")
    check("per-process N=%d: number of processes" % n, 1 + P, len(procs))
    check("per-process N=%d: sum of processes == total" % n,
          faults(doc), sum(faults(p) for p in procs))
    by_pid = {p["pid"]: p for p in procs}
    for role in [("main", 0)] + [("child", j) for j in range(P)]:
        pid = tasks[role][0]
        p = by_pid.get(pid)
        if p is None:
            errors.append("per-process N=%d: no entry for pid %d" % (n, pid))
            continue
        if role[0] == "child":
            check("per-process N=%d: comm of pid %d" % (n, pid), "child-%d" % role[1], p["comm"])
        per[(role, n)] = faults(p)
for role in [("main", 0)] + [("child", j) for j in range(P)]:
    if (role, N1) in per and (role, N2) in per:
        want = D * (sum(range(1, T + 1)) if role[0] == "main" else share(*role))
        check("per-process: page faults of %s %d, N=%d minus N=%d" % (*role, N2, N1),
              want, per[(role, N2)] - per[(role, N1)])

for e in errors:
    print("FAIL:", e, file=sys.stderr)
sys.exit(1 if errors else 0)
PY
}
retry 3 check

# The CSV form of --per-thread: a COMM-TID column first, as perf prints it,
# and the same counts as the JSON of a run with the same N. The CSV of
# --per-process: COMM-PID first.
csv_rows() {
	local kind idx pid tid line want
	hpm_norand_ok stat --per-thread -x, -o "$E2E_TMP/pt.csv" -e page-faults -- \
		"$WORKLOADS/threads" $T $P $N1
	while read -r kind idx pid tid _; do
		[ "$kind" = main ] && continue
		line=$(grep -E "^$kind-$idx-$tid," "$E2E_TMP/pt.csv") ||
			fail "no CSV line for $kind-$idx-$tid in: $(cat "$E2E_TMP/pt.csv")"
		want=$(json "$E2E_TMP/per-thread-$N1.json" \
			"[int(event(t, 'page-faults')['count']) for t in j['threads'] if t['comm'] == '$kind-$idx'][0]")
		expect_eq "CSV page-faults of $kind-$idx" "$want" "$(echo "$line" | cut -d, -f2)"
		expect_eq "CSV fields of $kind-$idx" 8 "$(echo "$line" | awk -F, '{ print NF }')"
	done <"$E2E_TMP/out"
	expect_eq "CSV lines of --per-thread" $((1 + T + P)) "$(grep -c ',page-faults,' "$E2E_TMP/pt.csv")"

	hpm_norand_ok stat --per-process -x, -o "$E2E_TMP/pp.csv" -e page-faults -- \
		"$WORKLOADS/threads" $T $P $N1
	while read -r kind idx pid tid _; do
		[ "$kind" = child ] || continue
		line=$(grep -E "^$kind-$idx-$pid," "$E2E_TMP/pp.csv") ||
			fail "no CSV line for $kind-$idx-$pid in: $(cat "$E2E_TMP/pp.csv")"
		want=$(json "$E2E_TMP/per-process-$N1.json" \
			"[int(event(p, 'page-faults')['count']) for p in j['processes'] if p['comm'] == '$kind-$idx'][0]")
		expect_eq "--per-process CSV page-faults of $kind-$idx" "$want" "$(echo "$line" | cut -d, -f2)"
	done <"$E2E_TMP/out"
	expect_eq "CSV lines of --per-process" $((1 + P)) "$(grep -c ',page-faults,' "$E2E_TMP/pp.csv")"
}
retry 3 csv_rows
echo "PASS: $E2E_NAME"
