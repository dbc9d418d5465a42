#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --trace prints the life of the command, one line per event with the
# task's counts at its exit:
#   # SECONDS KIND pid PID tid TID ppid PPID COMM [EVENT=COUNT ...]
# KIND is exec, fork (a process), thread-start, thread-exit or exit (a
# process). `threads 2 2 10` prints the pid and tid of everything it made,
# and child j touched (2 + j + 1) * 10 pages.
. "$(dirname "$0")/lib.sh"

# check_trace FILE FORMAT: the lifecycle of `threads 2 2 10` (task map in
# $E2E_TMP/out) is in FILE, printed in FORMAT (human, csv or json).
check_trace() {
	python3 - "$1" "$2" "$E2E_TMP/out" <<'PY' || fail "bad --trace ($2) output: $(cat "$1")"
import json, re, sys
path, fmt, mapfile = sys.argv[1:4]
tasks = {}
for line in open(mapfile):
    kind, idx, pid, tid, pages = line.split()
    tasks[(kind, int(idx))] = (int(pid), int(tid), int(pages))
main = tasks[("main", 0)][0]

events = []  # (kind, pid, tid, ppid, comm, {event: count})
for line in open(path):
    line = line.rstrip("\n")
    if fmt == "human":
        m = re.match(r"#\s+([\d.]+)\s+(\S+)\s+pid\s+(\d+)\s+tid\s+(\d+)\s+ppid\s+(\d+)\s+(\S+)(.*)", line)
        if not m:
            continue
        counts = {k: v for k, v in re.findall(r"(\S+)=(\S+)", m.group(7))}
        events.append((m.group(2), int(m.group(3)), int(m.group(4)), int(m.group(5)), m.group(6), counts))
    elif fmt == "csv":
        f = line.split(",")
        if f[0] != "trace":
            continue
        counts = {"page-faults": f[7]} if len(f) > 7 else {}
        events.append((f[2], int(f[3]), int(f[4]), int(f[5]), f[6], counts))
    else:
        try:
            o = json.loads(line)
        except ValueError:
            continue
        if "trace" not in o:
            continue
        counts = {e["name"]: str(int(e["count"])) for e in o.get("events", []) if e.get("count") is not None}
        events.append((o["trace"], o["pid"], o["tid"], o["ppid"], o["comm"], counts))

errors = []
def find(kind, pid, tid):
    m = [e for e in events if e[0] == kind and e[1] == pid and e[2] == tid]
    if len(m) != 1:
        errors.append("%d '%s' lines for pid %d tid %d" % (len(m), kind, pid, tid))
        return None
    return m[0]

find("exec", main, main)
e = find("exit", main, main)
for (kind, idx), (pid, tid, pages) in tasks.items():
    if kind == "worker":
        s = find("thread-start", main, tid)
        if s and s[3] != main:
            errors.append("thread-start of %d: ppid %d, expected %d" % (tid, s[3], main))
        find("thread-exit", main, tid)
    elif kind == "child":
        f = find("fork", pid, pid)
        if f and f[3] != main:
            errors.append("fork of %d: ppid %d, expected %d" % (pid, f[3], main))
        x = find("exit", pid, pid)
        if x:
            if x[4] != "child-%d" % idx:
                errors.append("exit of %d: comm %s" % (pid, x[4]))
            pf = x[5].get("page-faults", "").replace(",", "")
            if not pf.isdigit() or not pages <= int(pf) <= pages + 64:
                errors.append("exit of child %d: page-faults %r, expected %d..%d" % (pid, pf, pages, pages + 64))
if len(events) != 2 + 2 * (len(tasks) - 1):
    errors.append("%d trace lines, expected %d" % (len(events), 2 + 2 * (len(tasks) - 1)))
for e in errors:
    print("FAIL:", e, file=sys.stderr)
sys.exit(1 if errors else 0)
PY
}

hpm_ok stat --trace -o "$E2E_TMP/trace.txt" -e page-faults -- "$WORKLOADS/threads" 2 2 10
check_trace "$E2E_TMP/trace.txt" human
# The final counts are still printed after the trace.
expect_grep "final counts" '^ +[0-9,]+ +page-faults' "$E2E_TMP/trace.txt"
expect_grep "final elapsed time" 'seconds time elapsed' "$E2E_TMP/trace.txt"

hpm_ok stat --trace -x, -o "$E2E_TMP/trace.csv" -e page-faults -- "$WORKLOADS/threads" 2 2 10
check_trace "$E2E_TMP/trace.csv" csv

hpm_ok stat --trace --json -o "$E2E_TMP/trace.json" -e page-faults -- "$WORKLOADS/threads" 2 2 10
check_trace "$E2E_TMP/trace.json" json
expect_eq "last JSON line is the summary" 0 "$(tail -n 1 "$E2E_TMP/trace.json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["exit_status"])')"

# --trace follows a launched command only.
hpm stat --trace -a -e cpu-clock -- true
expect_eq "exit status of --trace -a" 129 "$HPM_STATUS"
echo "PASS: $E2E_NAME"
