#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --json prints one object: the command, its exit status, the elapsed
# time and every event with its count, raw count, enabled and running
# times and whether it is supported. -o FILE puts it (or the table, or the
# CSV) in FILE instead of on stderr.
. "$(dirname "$0")/lib.sh"

EV=task-clock,page-faults,context-switches,cycles

# To stderr, from a silent command.
hpm_norand_ok stat --json -e $EV -- "$WORKLOADS/pages" 100
cp "$E2E_TMP/err" "$E2E_TMP/a.json"
python3 - "$E2E_TMP/a.json" "$WORKLOADS/pages" <<'PY' || fail "see above"
import json, sys
doc = json.load(open(sys.argv[1]))
errors = []
def check(what, ok):
    if not ok:
        errors.append(what)
check("an object", isinstance(doc, dict))
check("command is the argv", doc.get("command") == [sys.argv[2], "100"])
check("exit_status 0", doc.get("exit_status") == 0 and type(doc.get("exit_status")) is int)
check("elapsed_ns a positive integer < 10 s",
      type(doc.get("elapsed_ns")) is int and 0 < doc["elapsed_ns"] < 10**10)
evs = doc.get("events", [])
check("events in the order given",
      [e.get("name") for e in evs] == ["task-clock", "page-faults", "context-switches", "cycles"])
for e in evs:
    n = e.get("name")
    for k in ("count", "raw_count", "enabled_ns", "running_ns", "supported"):
        check("%s has %s" % (n, k), k in e)
    check("%s: supported is a bool" % n, type(e.get("supported")) is bool)
    if e.get("supported"):
        check("%s: count is a number" % n, type(e.get("count")) in (int, float))
        check("%s: raw_count is an integer" % n, type(e.get("raw_count")) is int)
        check("%s: running_ns <= enabled_ns" % n, e["running_ns"] <= e["enabled_ns"])
        check("%s: enabled_ns <= elapsed_ns" % n, e["enabled_ns"] <= doc["elapsed_ns"])
        # software events are never multiplexed
        if n != "cycles":
            check("%s: running_ns == enabled_ns" % n, e["running_ns"] == e["enabled_ns"])
        # count is raw_count scaled by enabled/running, in the unit given
        want = e["raw_count"] * (e["enabled_ns"] / e["running_ns"] if e["running_ns"] else 0)
        if e.get("unit") == "msec":
            want /= 1e6
        check("%s: count %r is raw_count %r scaled, in unit %r" % (n, e["count"], e["raw_count"], e.get("unit")),
              abs(e["count"] - want) <= 1e-6 * max(1, want))
    else:
        check("%s: unsupported count is null or 0" % n, e.get("count") in (None, 0))
by = {e.get("name"): e for e in evs}
for n in ("task-clock", "page-faults", "context-switches"):
    check("%s supported" % n, by.get(n, {}).get("supported") is True)
if by.get("task-clock", {}).get("supported"):
    tc = by["task-clock"]
    check("task-clock (ns) > 0 and <= enabled_ns + 1 ms",
          0 < tc["raw_count"] <= tc["enabled_ns"] + 10**6)
    # task-clock is the CPU time the command used, which its rusage says
    # too (user_s + sys_s; the kernel's precise runtime, split in two)
    if "user_s" in doc and "sys_s" in doc:
        cpu = doc["user_s"] + doc["sys_s"]
        check("task-clock %.6f s vs user+sys %.6f s" % (tc["raw_count"] / 1e9, cpu),
              abs(tc["raw_count"] / 1e9 - cpu) <= 0.005 + 0.1 * cpu)
    check("page-faults >= 100", by["page-faults"]["raw_count"] >= 100)
for e in errors:
    print("FAIL: JSON:", e, file=sys.stderr)
if errors:
    print(json.dumps(doc, indent=1), file=sys.stderr)
sys.exit(1 if errors else 0)
PY

# The same deterministic run counts the same page faults in CSV and JSON.
json_vs_csv() {
	hpm_norand_ok stat --json -o "$E2E_TMP/pf.json" -e page-faults -- "$WORKLOADS/pages" 100
	hpm_norand_ok stat -x, -e page-faults -- "$WORKLOADS/pages" 100
	expect_eq "page-faults, JSON vs CSV" \
		"$(csv "$E2E_TMP/err" , "num(ev('page-faults')[0][0])")" \
		"$(json "$E2E_TMP/pf.json" "int(event(j, 'page-faults')['count'])")"
}
retry 3 json_vs_csv

# The exit status of a failing command, with -o: the command's own
# stderr stays on stderr and the JSON goes to the file.
hpm stat --json -o "$E2E_TMP/b.json" -e task-clock -- "$WORKLOADS/exitcode" 3
expect_eq "exit status" 3 "$HPM_STATUS"
expect_eq "stderr with -o" "exitcode: stderr" "$(cat "$E2E_TMP/err")"
expect_eq "JSON exit_status" 3 "$(json "$E2E_TMP/b.json" "j['exit_status']")"
expect_eq "JSON command" "['$WORKLOADS/exitcode', '3']" "$(json "$E2E_TMP/b.json" "j['command']")"
hpm stat --json -o "$E2E_TMP/c.json" -e task-clock -- "$WORKLOADS/exitcode" 0 15
expect_eq "exit status after SIGTERM" 143 "$HPM_STATUS"
expect_eq "JSON exit_status after SIGTERM" 143 "$(json "$E2E_TMP/c.json" "j['exit_status']")"

# -o replaces what the file held, for every format.
for fmt in "" "-x," "--json"; do
	echo "old content" >"$E2E_TMP/o.txt"
	# shellcheck disable=SC2086 # fmt is empty or one word
	hpm_ok stat $fmt -o "$E2E_TMP/o.txt" -e page-faults -- "$WORKLOADS/pages" 10
	expect_no_grep "-o '$fmt' truncates" 'old content' "$E2E_TMP/o.txt"
	expect_grep "-o '$fmt' holds the output" 'page-faults' "$E2E_TMP/o.txt"
	expect_no_grep "-o '$fmt': nothing on stderr" 'page-faults' "$E2E_TMP/err"
	expect_eq "-o '$fmt': nothing on stdout" "" "$(cat "$E2E_TMP/out")"
done
json "$E2E_TMP/o.txt" "j['events'][0]['name']" >/dev/null

# -o to a place that cannot be written: an error before the command runs.
hpm stat -o "$E2E_TMP/no/such/dir/f" -e task-clock -- touch "$E2E_TMP/ran"
[ "$HPM_STATUS" -ne 0 ] || fail "-o into a missing directory succeeded"
[ ! -e "$E2E_TMP/ran" ] || fail "-o into a missing directory: the command ran anyway"
expect_grep "message for a bad -o" 'no/such/dir' "$E2E_TMP/err"
echo "PASS: $E2E_NAME"
