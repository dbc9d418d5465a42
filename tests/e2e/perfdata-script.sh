# SPDX-License-Identifier: MIT
# hpmon script against perf script on the same perf.data, line for line;
# -F as perf's; --call-graph dwarf stacks as perf shows them; its -g
# output in the form FlameGraph's stackcollapse-perf.pl reads (a checker
# of that form below), folding to what hpmon report --folded says; and
# hpmon's own profiles.
. "$(dirname "$0")/lib.sh"

command -v perf >/dev/null || skip "perf is not installed (linux-perf)"
P=$E2E_TMP
prec() { timeout -k 5 60 perf record -q "$@" 2>"$P/perf.err" >/dev/null; }
prec -e task-clock -o "$P/t.data" /bin/true ||
	skip "perf record cannot sample here: $(cat "$P/perf.err")"

# 1. A simple profile, line for line. perf record writes each CPU's
# buffer in turn: a task that moves between the CPUs has its samples out
# of time order in the file, and both sort them (by rounds: hpmon's
# reader, docs/formats.md).
prec1() { prec "$@"; }
prec1 -e task-clock -o "$P/r.data" -- "$WORKLOADS/ratio" 20000000 ||
	fail "perf record: $(cat "$P/perf.err")"
perf script -i "$P/r.data" >"$P/perf.txt" 2>/dev/null
hpm_ok script -i "$P/r.data"
[ -s "$P/perf.txt" ] || fail "perf script printed nothing"
diff "$P/perf.txt" "$E2E_TMP/out" >"$P/diff" ||
	fail "hpmon script differs from perf script:
$(head -20 "$P/diff")"

# a group read at each sample: a line for each member whose count moved,
# with what it counted since the previous sample as its period
prec1 -e '{task-clock,page-faults}:S' -o "$P/s.data" -- "$WORKLOADS/ratio" 10000000 ||
	fail "perf record :S: $(cat "$P/perf.err")"
perf script -i "$P/s.data" >"$P/perf.txt" 2>/dev/null
hpm_ok script -i "$P/s.data"
diff "$P/perf.txt" "$E2E_TMP/out" >"$P/diff" ||
	fail "hpmon script differs from perf script on a group:
$(head -20 "$P/diff")"
expect_grep "group: a member's line" '^ +ratio +[0-9]+ +[0-9.]+: +[0-9]+ page-faults: ' "$E2E_TMP/out"
# the same while the task moves between CPUs: perf record counts in a
# counter per CPU, and its samples do not carry the CPU, so each group
# read follows the previous one of the same counter (the sample's id), not
# of the task (a busy machine moves tasks: hpmon once mixed two counters)
if [ "$(nproc)" -ge 2 ]; then
	# shellcheck disable=SC2016 # the inner shell expands it
	prec1 -e '{task-clock,page-faults}:S' -o "$P/m.data" -- \
		sh -c 'echo $$ >"$0"; exec "$1" 200000000' "$P/m.pid" "$WORKLOADS/ratio" &
	mrec=$!
	wait_for "the workload under perf record" 10 test -s "$P/m.pid"
	for i in $(seq 30); do
		taskset -p -c $((i % 2)) "$(cat "$P/m.pid")" >/dev/null 2>&1 || break
		sleep 0.05
	done
	wait "$mrec" || fail "perf record of the moving task: $(cat "$P/perf.err")"
	perf script -i "$P/m.data" -F cpu >/dev/null 2>&1 &&
		fail "perf record's samples carry the CPU here: this case checks nothing"
	perf script -i "$P/m.data" >"$P/perf.txt" 2>/dev/null
	hpm_ok script -i "$P/m.data"
	diff "$P/perf.txt" "$E2E_TMP/out" >"$P/diff" ||
		fail "hpmon script differs from perf script on a group of a task moving between CPUs:
$(head -20 "$P/diff")"
fi

# -F: the same fields as perf's, in perf's order whatever the order asked
F=comm,pid,tid,time,event,ip,sym,symoff,dso,period
perf script -i "$P/r.data" -F "$F" >"$P/perf.txt" 2>/dev/null
hpm_ok script -i "$P/r.data" -F "$F"
diff "$P/perf.txt" "$E2E_TMP/out" >"$P/diff" || fail "-F $F differs:
$(head -20 "$P/diff")"
for F in comm,tid,sym period,event,ip time,sym,dso ip,dso sym,symoff; do
	perf script -i "$P/r.data" -F "$F" >"$P/perf.txt" 2>/dev/null
	hpm_ok script -i "$P/r.data" -F "$F"
	diff "$P/perf.txt" "$E2E_TMP/out" >"$P/diff" || fail "-F $F differs:
$(head -20 "$P/diff")"
done
hpm_ok script -i "$P/r.data" -F -dso,-period
expect_grep "-F -dso,-period" '^ +ratio +[0-9]+ +[0-9]+\.[0-9]{6}: task-clock: +[0-9a-f]+ work[631]\+0x[0-9a-f]+$' "$E2E_TMP/out"
hpm script -i "$P/r.data" -F cpu
expect_eq "-F cpu without CPUs: usage error" 129 "$HPM_STATUS"
expect_grep "-F cpu: the reason" 'do not carry the CPU' "$E2E_TMP/err"
hpm script -i "$P/r.data" -F comm,colour
expect_eq "unknown field: usage error" 129 "$HPM_STATUS"
expect_grep "unknown field named" "unknown field 'colour'" "$E2E_TMP/err"

# 2. -g: stackcollapse-perf.pl's input. Its two patterns (a sample's first
# line: comm, then pid[/tid]; a frame: spaces, an address, the function,
# (object)), its folding (root first, comm at the root, +0x... taken off
# the function), and the result against hpmon report --folded. One
# difference is by design: script names a return address as perf script
# does, by the address itself, and report by the call before it (the byte
# before); they differ where a call is a function's last instruction (ld.so's
# _start calls _dl_start, and its return address is the label
# _dl_start_user), which script shows as a caller frame at +0x0. Stacks
# with such a frame may fold to another key in report: each other stack
# must be counted under its key in report, and report may have at most
# that many more.
prec -g -e task-clock -o "$P/g.data" -- "$WORKLOADS/calltree" 40000000 ||
	fail "perf record -g: $(cat "$P/perf.err")"
hpm_ok script -i "$P/g.data"
cp "$E2E_TMP/out" "$P/g.txt"
hpm_ok report -i "$P/g.data" --folded
python3 - "$P/g.txt" "$E2E_TMP/out" <<'EOF' || fail "the stacks of hpmon script do not fold as report --folded"
import re, sys
head = re.compile(r"^(\S.+?)\s+(\d+)/*(\d+)*\s+")
frame = re.compile(r"^\s*(\w+)\s*(.+) \((\S*)\)")
folded, comm, stack, n, edge, nr_edge = {}, None, [], 0, False, 0
def end():
    global comm, stack, edge, nr_edge
    if comm is not None and edge:
        nr_edge += 1
    elif comm is not None:
        key = ";".join([comm] + stack[::-1])
        folded[key] = folded.get(key, 0) + 1
    comm, stack, edge = None, [], False
for i, line in enumerate(open(sys.argv[1]), 1):
    line = line.rstrip("\n")
    if not line:
        end()
        continue
    if line.startswith("\t"):
        m = frame.match(line)
        if not m or comm is None:
            sys.exit("line %d: not a frame stackcollapse-perf.pl reads: %r" % (i, line))
        if stack and m.group(2).endswith("+0x0"):
            edge = True
        stack.append(re.sub(r"\+0x[\da-f]+$", "", m.group(2)))
        continue
    m = head.match(line)
    if not m or not line.endswith(": "):
        sys.exit("line %d: not a sample line stackcollapse-perf.pl reads: %r" % (i, line))
    end()
    comm = m.group(1)
    n += 1
end()
hp = {}
for line in open(sys.argv[2]):
    k, c = line.rsplit(" ", 1)
    hp[k] = hp.get(k, 0) + int(c)
if n != sum(hp.values()):
    sys.exit("%d samples in script, %d folded" % (n, sum(hp.values())))
named = lambda k: "[unknown]" not in k and "+0x" not in k
a = {k: v for k, v in folded.items() if named(k)}
b = {k: v for k, v in hp.items() if named(k)}
more = sum(b.get(k, 0) - a.get(k, 0) for k in set(a) | set(b))
if any(b.get(k, 0) < v for k, v in a.items()) or more > nr_edge or \
        sum(a.values()) < 0.9 * n:
    print("%d stacks with a caller at +0x0; report has %d more" % (nr_edge, more))
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            print(a.get(k), b.get(k), k)
    sys.exit(1)
EOF

# 2b. --call-graph dwarf: perf unwinds the copied stack with libdw and
# shows each caller past the first user frame as the call's last byte (its
# return address less one), the kernel's frames as the kernel gave them;
# hpmon script unwinds the same copy and shows them as perf does. The
# workload's own frames, line for line (perf also adds DWARF's inlined
# frames, "(inlined)", in libc and ld.so, which hpmon script does not).
prec --call-graph dwarf -e task-clock -o "$P/d.data" -- "$WORKLOADS/calltree" 20000000 ||
	fail "perf record --call-graph dwarf: $(cat "$P/perf.err")"
own() { grep -E '^$|^[^[:space:]]|/calltree\)$' "$1"; }
perf script -i "$P/d.data" >"$P/perf.txt" 2>/dev/null
hpm_ok script -i "$P/d.data"
own "$P/perf.txt" >"$P/perf-own.txt"
own "$E2E_TMP/out" >"$P/hpm-own.txt"
expect_grep "dwarf: tree_a as tree_b's caller" '^	 +[0-9a-f]+ tree_a\+0x[0-9a-f]+ \(.*/calltree\)$' \
	"$P/perf-own.txt"
diff "$P/perf-own.txt" "$P/hpm-own.txt" >"$P/diff" ||
	fail "hpmon script's dwarf stacks differ from perf script's in the workload's frames:
$(head -20 "$P/diff")"

# 3. hpmon's own profiles: the same layout, the CPU (hpmon records it).
hpm_ok record -q -e task-clock -o "$P/h.prof" -- "$WORKLOADS/ratio" 10000000
hpm_ok script -i "$P/h.prof"
expect_grep "hpmon profile" '^ +ratio +[0-9]+ \[[0-9]{3}\] +[0-9]+\.[0-9]{6}: +[0-9]+ task-clock: +[0-9a-f]+ work6\+0x[0-9a-f]+ \(.*/ratio\)$' "$E2E_TMP/out"
exit 0
