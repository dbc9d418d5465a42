#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What hpmon reads to start (docs/hpmon-stat.md "Start-up"), from an
# strace of the files each command opens, stats or lists:
#  - every file at most once per process (the context keeps what it read:
#    the PMU list, each PMU's type, cpus, formats);
#  - `stat -e task-clock` reads nothing the command line does not need: no
#    /proc/cpuinfo, no cpufreq, no sysfs PMU file and no tracefs (a
#    software event needs no PMU; the metric set is read at the first
#    need, and perf's figure beside task-clock, CPUs utilized, is stat's
#    own, with no metric file to read and no family to detect in sysfs);
#  - the default event set, and events of the recorded Skylake tree
#    (HPMON_SYSFS_ROOT), resolve with each file read once.
# The counts are exact: a file read twice is a regression, whatever it costs.
. "$(dirname "$0")/lib.sh"

: "${TESTDATA:?TESTDATA must name tests/data}"
command -v strace >/dev/null || skip "strace is not installed (apt-get install strace)"
true_bin=$(type -P true)
strace -f -qq -o /dev/null "$true_bin" 2>/dev/null ||
	skip "strace cannot trace here (ptrace not allowed: kernel.yama.ptrace_scope?)"

# traced NAME ARGS...: hpmon ARGS under strace into $E2E_TMP/NAME.trace;
# its exit status is not checked (events of a recorded tree may not open
# on this machine), only what it read.
traced() {
	local name=$1
	shift
	timeout -k 5 "$E2E_TIMEOUT" strace -f -qq -o "$E2E_TMP/$name.trace" \
		-e trace=execve,open,openat,openat2,access,faccessat,faccessat2,stat,lstat,newfstatat,statx,readlink,readlinkat \
		"$HPMON" "$@" >"$E2E_TMP/out" 2>"$E2E_TMP/err" </dev/null || true
	[ -s "$E2E_TMP/$name.trace" ] || fail "no trace of hpmon $*"
}

# files NAME: the paths hpmon's own processes named, one per call, as
# "PATH<TAB>CALL": the measured command's calls after its execve are its
# own, not hpmon's, and left out.
files() {
	python3 - "$E2E_TMP/$1.trace" <<'EOF'
import re, sys
execd = set()
for line in open(sys.argv[1]):
    m = re.match(r'(\d+)\s+(\w+)\((.*)', line)
    if not m:
        continue
    pid, call, rest = m.groups()
    if pid in execd:
        continue
    if call == 'execve':
        if 'hpmon' not in rest.split(',')[0]:
            execd.add(pid)
        continue
    p = re.search(r'"([^"]*)"', rest)
    if p and p.group(1):
        print("%s\t%s\t%s" % (pid, p.group(1), call))
EOF
}

# A sanitizer's runtime (the san lane's build) reads its own files:
# /proc/self/maps at every stack it records. Not hpmon's reads.
runtime_files='^$'
if ldd "$HPMON" 2>/dev/null | grep -Eq 'lib(a|ub|t)san'; then
	runtime_files='^/proc/self/(maps|exe|environ|cmdline)$'
fi

# once NAME WHAT: fail when a process of hpmon named a path twice.
once() {
	local dup
	dup=$(files "$1" | cut -f1,2 | sort | uniq -d | cut -f2 | { grep -Ev -- "$runtime_files" || true; })
	[ -z "$dup" ] || fail "$2: read more than once:
$dup
(calls: $(files "$1" | cut -f2,3 | grep -F -f <(echo "$dup") | sort | uniq -c))"
}

# none NAME WHAT REGEX: fail when a path hpmon named matches REGEX.
none() {
	local hit
	hit=$(files "$1" | cut -f2 | grep -E -- "$3" | sort -u || true)
	[ -z "$hit" ] || fail "$2: reads $hit"
}

# 1. stat -e task-clock: nothing it does not need.
traced tc stat -e task-clock -- "$true_bin"
[ -n "$(files tc)" ] || fail "the trace holds no path: this test checks nothing"
grep -q 'execve(' "$E2E_TMP/tc.trace" || fail "the trace holds no execve: this test checks nothing"
once tc "stat -e task-clock"
none tc "stat -e task-clock" '^/proc/cpuinfo$'
none tc "stat -e task-clock" 'cpufreq'
none tc "stat -e task-clock (no PMU needed, no family to detect)" '^/sys/bus/event_source'
none tc "stat -e task-clock (no tracepoint)" '^/sys/kernel/(debug/)?tracing'
none tc "stat -e task-clock (no online CPUs needed)" '^/sys/devices/system/cpu'
grep -Eq 'CPUs utilized' "$E2E_TMP/err" ||
	fail "stat -e task-clock no longer shows CPUs utilized: $(cat "$E2E_TMP/err")"

# 2. the default event set
traced dflt stat -- "$true_bin"
once dflt "stat (default events)"
none dflt "stat (default events)" 'cpufreq'

# 3. hardware, cache, uncore, msr and raw events of a recorded tree: the
# PMU list, types, formats, cpumasks and aliases each read once.
SKL=$TESTDATA/sysfs-intel-skl
HPMON_SYSFS_ROOT=$SKL traced skl stat -x, \
	-e 'cycles,instructions:u,L1-dcache-load-misses,cpu/event=0x3c/,msr/tsc/,uncore_imc/data_reads/,cbox/clockticks/,r01c2,page-faults' \
	-- "$true_bin"
files skl | cut -f2 | grep -c "^$SKL/bus/event_source/devices" >/dev/null ||
	fail "the Skylake tree was not read: this test checks nothing ($(cat "$E2E_TMP/err"))"
once skl "events of the Skylake tree"
none skl "events of the Skylake tree (no metric needs the clock)" 'cpufreq|^/proc/cpuinfo$'

note "each file read once; stat -e task-clock reads no PMU, tracefs, cpufreq or cpuinfo file"
