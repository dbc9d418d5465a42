# SPDX-License-Identifier: MIT
# Samples keep the pid and tid of threads and child processes: each of
# spinners' tasks gets its own rows, under its own ids and name. A sample
# carries the name its task had at the sample's time: the recorder merges
# the CPUs' buffers by time, so a rename (COMM record) on one CPU and the
# samples after it on another are put in order (docs/hpmon-record.md).
#
# Which samples come "after" a rename is the host's clocks' answer: on a
# guest whose CPUs' clocks disagree, samples taken just after a rename on
# another CPU carry earlier times and stay under the old name, in perf as
# in hpmon. So the attribution is asked of perf on the same host, in the
# same run: hpmon records perf recording the workload (`hpmon record --
# perf record -- spinners`), both sampling the same tasks at the same
# period. hpmon's samples of each function under a name other than the
# one taken before it must be as many as perf's, within Poisson bounds;
# the child's share of the three functions must be perf's within binomial
# bounds; and hpmon's report of perf's own file must attribute every sample
# to the same task and name as perf does, exactly.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record-lib.sh"

perf_ref=no
if have_perf; then
	perf_ref=yes
else
	note "perf cannot record here: names and shares are not compared with perf's"
fi

# rec NAME ARGS...: hpmon record of the workload ARGS at 10 kHz (many
# samples right after each rename) into $E2E_TMP/NAME.prof; with perf, of
# perf recording it the same way into $E2E_TMP/NAME.data. The workload's
# output in $E2E_TMP/NAME.out.
rec() {
	local name=$1
	shift
	if [ "$perf_ref" = yes ]; then
		hpm_ok record -q -e cpu-clock -c 100003 -o "$E2E_TMP/$name.prof" -- \
			perf record -q -e cpu-clock -c 100003 -o "$E2E_TMP/$name.data" -- "$@"
		perf_script "$E2E_TMP/$name.data" "$E2E_TMP/$name.pscript"
	else
		hpm_ok record -q -e cpu-clock -c 100003 -o "$E2E_TMP/$name.prof" -- "$@"
		: >"$E2E_TMP/$name.pscript"
	fi
	cp "$E2E_TMP/out" "$E2E_TMP/$name.out"
	report_json "$E2E_TMP/$name.prof" --sort pid,tid,comm,sym
	cp "$E2E_TMP/rep.json" "$E2E_TMP/$name.json"
	if [ "$perf_ref" = yes ]; then
		# hpmon's report of perf's own file: every sample's task and name
		# as perf script has them
		report_json "$E2E_TMP/$name.data" --sort pid,tid,comm
		cp "$E2E_TMP/rep.json" "$E2E_TMP/$name.pjson"
	fi
}

# names RUN EXPECT: check the runs' names (EXPECT: "FUNC NAME PID TID"
# lines; PID TID '-' for any), printing what each tool attributed
names() {
	recpy - "$E2E_TMP/$1.json" "$E2E_TMP/$1.pscript" "$E2E_TMP/$1.pjson" "$perf_ref" "$2" <<'PY' ||
import collections, json, os, sys, reclib
hjson, pscript, pjson, perf_ref, expect = sys.argv[1:6]
say = lambda m: print("record-tasks: " + m)
bad = []
rows = json.load(open(hjson))["rows"]
h = collections.Counter()  # (sym, comm, pid, tid) -> samples
for r in rows:
    h[(r["sym"], r["comm"], r["pid"], r["tid"])] += r["events"][0]["samples"]
p = collections.Counter()
if perf_ref == "yes":
    ps = reclib.samples(pscript)
    for s in ps:
        if s.frames:
            p[(s.frames[0].sym, s.comm, s.pid, s.tid)] += 1
    # hpmon reading perf's file: the same tasks and names, sample for sample
    mine = collections.Counter()
    for r in json.load(open(pjson))["rows"]:
        mine[(r["pid"], r["tid"], r["comm"])] += r["events"][0]["samples"]
    theirs = collections.Counter((s.pid, s.tid, s.comm) for s in ps)
    if mine != theirs:
        bad.append("hpmon's report of perf's file attributes samples to other tasks or names than perf: hpmon %s, perf %s"
                   % (sorted((mine - theirs).items()), sorted((theirs - mine).items())))
funcs = [l.split() for l in expect.strip().splitlines()]
n3h = sum(v for k, v in h.items() if k[0] in [f[0] for f in funcs])
n3p = sum(v for k, v in p.items() if k[0] in [f[0] for f in funcs])
for fn, name, pid, tid in funcs:
    mine = {k: v for k, v in h.items() if k[0] == fn}
    theirs = {k: v for k, v in p.items() if k[0] == fn}
    say("%s: hpmon %s" % (fn, sorted((k[1], k[2], k[3], v) for k, v in mine.items())))
    if perf_ref == "yes":
        say("%s: perf  %s" % (fn, sorted((k[1], k[2], k[3], v) for k, v in theirs.items())))
    if not mine:
        bad.append("%s: no sample" % fn)
        continue
    # the task's ids, exactly
    ids = sorted(set((k[2], k[3]) for k in mine))
    if pid != "-" and ids != [(int(pid), int(tid))]:
        bad.append("%s: samples under the tasks %s, not %s/%s" % (fn, ids, pid, tid))
    new = sum(v for k, v in mine.items() if k[1] == name)
    other = sum(mine.values()) - new
    if perf_ref != "yes":
        # without perf, at least: the name taken before the function holds
        # most of its samples
        if new <= other:
            bad.append("%s: %d samples under %s, %d under other names" % (fn, new, name, other))
        continue
    pnew = sum(v for k, v in theirs.items() if k[1] == name)
    pother = sum(theirs.values()) - pnew
    ok, d, b = reclib.counts_close(other, pother)
    say("%s: %d samples under other names than %s, perf %d (bound %.1f)" % (fn, other, name, pother, b))
    if not ok:
        bad.append("%s: hpmon has %d samples under other names than %s, perf %d" % (fn, other, name, pother))
    ok, d, b = reclib.counts_close(sum(mine.values()), sum(theirs.values()))
    if not ok:
        bad.append("%s: hpmon has %d samples, perf %d (bound %.1f)" % (fn, sum(mine.values()), sum(theirs.values()), b))
    if len(funcs) == 3:
        ok, d, b = reclib.shares_close(sum(mine.values()), n3h, sum(theirs.values()), n3p)
        say("%s's share of the three: hpmon %.2f %%, perf %.2f %% (bound %.2f points)"
            % (fn, 100 * sum(mine.values()) / n3h, 100 * sum(theirs.values()) / n3p, 100 * b))
        if not ok:
            bad.append("%s's share of the three is not perf's" % fn)
for m in bad:
    print("FAIL: record-tasks: " + m, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
		fail "$1: the tasks' names and ids (above)"
}

rec t "$WORKLOADS/spinners" 30000000
child=$(awk '$1 == "child" { print $2 }' "$E2E_TMP/t.out")
read -r _ pid1 tid1 < <(grep '^t1 ' "$E2E_TMP/t.out")
read -r _ pid2 tid2 < <(grep '^t2 ' "$E2E_TMP/t.out")
if [ -z "$child" ] || [ -z "${tid2:-}" ]; then
	fail "spinners printed no ids: $(cat "$E2E_TMP/t.out")"
fi
# Each task runs its spin_* function after it renamed itself: under its
# own ids, and under its new name but where perf too has it otherwise.
# The child spins twice as long as each thread: its share is perf's.
names t "spin_child spin-child $child $child
spin_t1 spin-t1 $pid1 $tid1
spin_t2 spin-t2 $pid2 $tid2"

# renames: 40 renames, each on the CPU whose buffer is drained last and
# followed by spinning on the one drained first. spin_a runs only after a
# rename to ren-a, spin_b only after one to ren-b.
rec r "$WORKLOADS/renames" 40 2000000
names r "spin_a ren-a - -
spin_b ren-b - -"

# filters
report_json "$E2E_TMP/t.prof" --tid "$tid1" --sort tid
expect_eq "--tid keeps one thread" "[$tid1]" "$(json "$E2E_TMP/rep.json" "[r['tid'] for r in j['rows']]")"
report_json "$E2E_TMP/t.prof" --comm spin-child --sort comm
expect_eq "--comm" "['spin-child']" "$(json "$E2E_TMP/rep.json" "[r['comm'] for r in j['rows']]")"
hpm_ok report -i "$E2E_TMP/t.prof" --pid "$child" --csv
expect_grep "--pid and --csv" '^[0-9]+,[0-9]+,[0-9.]+,spin_child,spinners$' "$E2E_TMP/out"
echo "PASS: $E2E_NAME"
