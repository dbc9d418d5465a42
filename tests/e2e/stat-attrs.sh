# SPDX-License-Identifier: MIT
# hpmon stat -vv and --dry-run print each perf_event_attr as perf 6.1's
# -vv does, and stat names events as perf does: checked against the perf
# of this host.
#
#  - Events that open here (software, tracepoints, breakpoints): the attr
#    blocks of 'perf stat -vv -e EV true' and 'hpmon stat -vv -e EV true'
#    are equal line by line, field names, order and values, but for
#    read_format's ID and GROUP (hpmon reads each counter alone, with its
#    id; perf reads a group at once: docs/hpmon-stat.md, -vv). Each open
#    has its "sys_perf_event_open: pid P  cpu C  group_fd G  flags 0x8"
#    line.
#  - Hardware events: perf prints the attr before it tries to open it, so
#    its first block is compared with hpmon --dry-run's, whether the host
#    has a PMU or not. --dry-run opens nothing, runs nothing, exits 0.
#  - Names: L1-dcache-load-miss:kp, mem:0/1 and their like under perf's
#    name in the table, the CSV and the JSON.
source "$(dirname "$0")/lib.sh"

have_perf || skip "perf cannot count software events here (perf stat -e task-clock true fails)"
perf version 2>/dev/null | grep -q '^perf version 6\.1\.' ||
	skip "the perf here is not perf 6.1 ($(perf version 2>&1 | head -1)), whose -vv output this test compares with"

# attrs FILE: the attr blocks of a -vv output, one per line, each field as
# NAME=VALUE joined with ';' (read_format without ID and GROUP).
attrs() {
	python3 - "$1" <<'EOF'
import re, sys
blocks, cur = [], None
for line in open(sys.argv[1], errors="replace"):
    line = line.rstrip("\n")
    if line == "perf_event_attr:":
        cur = []
    elif cur is not None and line.startswith("-" * 60):
        blocks.append(";".join(cur))
        cur = None
    elif cur is not None:
        # "  %-32s %s": a name of more than 32 is followed by one space
        m = re.match(r"  (\{[^}]*\}|\S+)( +)(\S.*)$", line)
        if not m or len(m.group(1)) + len(m.group(2)) != max(33, len(m.group(1)) + 1):
            sys.exit("not perf's layout: %r" % line)
        name, val = m.group(1), m.group(3)
        if name == "read_format":
            val = "|".join(f for f in val.split("|") if f not in ("ID", "GROUP"))
        cur.append(name + "=" + val)
for b in blocks:
    print(b)
EOF
}

perf_vv() {
	perf stat -vv -e "$1" true >"$E2E_TMP/perf.out" 2>"$E2E_TMP/perf.err" || true
	attrs "$E2E_TMP/perf.err"
}

# Events perf opens here: -vv against -vv, and --dry-run's too.
n=0
for ev in task-clock page-faults:u cpu-clock:k context-switches:D 'minor-faults:I' \
	'{task-clock,page-faults}' '{cpu-clock:k,task-clock}:u' 'mem:0/1' 'mem:0x10/4:rw:u' \
	'mem:0:w' 'sched:sched_switch' 'sched:sched_switch:k'; do
	case $ev in sched:*) [ -d /sys/kernel/tracing/events/sched ] ||
		[ -d /sys/kernel/debug/tracing/events/sched ] || continue ;; esac
	want=$(perf_vv "$ev")
	if [ -z "$want" ] || grep -q "failed, error" "$E2E_TMP/perf.err"; then
		note "perf cannot open '$ev' here: not compared"
		continue
	fi
	hpm_ok stat -vv -e "$ev" true
	got=$(attrs "$E2E_TMP/err")
	[ "$got" = "$want" ] || fail "-vv -e '$ev': hpmon's attrs
$got
perf's
$want"
	# one open line per attr here (one thread), as perf's, and its fd
	nopen=$(grep -c '^sys_perf_event_open: pid [0-9]*  cpu -1  group_fd -\?[0-9]*  flags 0x8 = [0-9]*$' \
		"$E2E_TMP/err" || true)
	expect_eq "-vv -e '$ev': open lines" "$(printf '%s\n' "$want" | wc -l)" "$nopen"
	hpm_ok stat --dry-run -e "$ev" true
	[ "$(attrs "$E2E_TMP/out")" = "$want" ] || fail "--dry-run -e '$ev': hpmon's attrs
$(attrs "$E2E_TMP/out")
perf's
$want"
	n=$((n + 1))
done
[ "$n" -ge 8 ] || fail "only $n events could be compared with perf"

# Hardware events: perf's first block (printed before the open, which
# fails without a PMU) against --dry-run's.
for ev in cycles cycles:k instructions:u 'branch-misses:pp' cache-misses:H \
	'L1-dcache-load-miss:kp' 'LLC-loads:u' 'r1a:kp'; do
	want=$(perf_vv "$ev" | head -1)
	[ -n "$want" ] || fail "perf -vv printed no attr for '$ev': $(head -3 "$E2E_TMP/perf.err")"
	hpm_ok stat --dry-run -e "$ev" true
	expect_eq "--dry-run -e '$ev': attr lines" 1 "$(attrs "$E2E_TMP/out" | wc -l)"
	expect_eq "--dry-run -e '$ev' against perf -vv" "$want" "$(attrs "$E2E_TMP/out")"
done

# --dry-run runs nothing and opens nothing: the command's side effect is
# not there, and no open line is printed
hpm_ok stat --dry-run -vv -e task-clock -- touch "$E2E_TMP/ran"
[ ! -e "$E2E_TMP/ran" ] || fail "--dry-run ran the command"
expect_no_grep "--dry-run -vv" "sys_perf_event_open" "$E2E_TMP/err"
expect_grep "--dry-run" "^perf_event_attr:" "$E2E_TMP/out"

# record -vv prints its opens the same way (its attrs are its own: a
# sampling session's, not perf record's)
hpm_ok record -vv -q -o "$E2E_TMP/p.prof" -e task-clock -- true
expect_eq "record -vv: attr blocks" 1 "$(attrs "$E2E_TMP/err" | grep -c '^type=1;size=128;config=0x1;')"
expect_grep "record -vv" '^sys_perf_event_open: pid [0-9]+  cpu [0-9]+  group_fd -1  flags 0x8 = [0-9]+$' \
	"$E2E_TMP/err"

# Names: perf's, in the table, the CSV and the JSON. perf is asked one
# event at a time: its lexer takes "mem:0/1,mem:0x10/4:rw:u" for one
# event name (PMU/terms/ spanning the comma) and names the first so.
names='L1-dcache-load-miss:kp,mem:0/1,mem:0x10/4:rw:u,mem:0:w,task-clock:u,l1d-loads:u,mem:0:rw:kp'
want=$(for ev in ${names//,/ }; do perf stat -x, -e "$ev" true 2>&1 | cut -d, -f3; done)
expect_eq "perf's names (this test's premise)" \
	"$(printf '%s\n' L1-dcache-load-miss mem:0 mem:0x10 mem:0:w task-clock:u l1d-loads mem:0:rw:kp)" \
	"$want"
hpm stat -x, -e "$names" true
[ "$HPM_STATUS" -eq 0 ] || fail "hpmon stat -x, -e $names exited $HPM_STATUS: $(cat "$E2E_TMP/err")"
expect_eq "CSV names" "$want" "$(cut -d, -f3 "$E2E_TMP/err")"
hpm stat -j -e "$names" true
expect_eq "JSON names" "$want" "$(python3 -c '
import json, sys
for e in json.load(open(sys.argv[1]))["events"]:
    print(e["name"])' "$E2E_TMP/err")"
hpm stat -e "$names" true
# the table's name column: the field after the count (and its unit)
expect_eq "the table's names" "$want" "$(python3 -c '
import re, sys
for line in open(sys.argv[1]):
    m = re.match(r" +(<not supported>|<not counted>|[0-9.,]+( msec)?) +(\S+)", line)
    if m and m.group(3) != "seconds":
        print(m.group(3))' "$E2E_TMP/err")"
note "attrs equal to perf's for $n events that open here and 8 hardware ones; names as perf's"
