# SPDX-License-Identifier: MIT
# Shared helpers of the end-to-end tests: source it first.
#
# CTest runs each tests/e2e/stat-*.sh with
#   HPMON      the hpmon binary
#   WORKLOADS  the directory of the built tests/workloads/*.c
#   SRCDIR     the source tree, TESTDATA its tests/data
# To run one by hand from a build directory B:
#   HPMON=B/hpmon WORKLOADS=B/tests/workloads bash tests/e2e/stat-exit.sh
#
# A test exits 0 when it passes and 1 after printing what it expected and
# what it got. Where the machine cannot run it at all it calls
#   skip "why, and what would make it run"
# which prints "SKIP: NAME: why", appends "e2e/NAME: why" to the file named
# by $HPM_SKIP_LOG (scripts/check sets it and lists every skip with its
# reason) and exits 77: CTest's SKIP_RETURN_CODE, so the test is counted
# as skipped, never as passed. Exit 77 means "skipped" and nothing else:
# a check that fails still fails the test (exit 1), even after a skip
# would have applied.
# Called inside a subshell ( ... ), $( ... ) or retry, skip ends only
# that subshell (as fail does): call it at the test's top level.
#
# Every hpmon run is bounded by E2E_TIMEOUT seconds (see below): by
# default 60 s times max(1, load average / CPUs) (at most 4 times), measured
# when the test starts, so a loaded machine slows a test down instead of
# failing it.

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	echo "lib.sh holds the helpers of the e2e tests; source it from one"
	exit 0
fi

# errexit: a helper that fails inside $(...) fails the test too.
set -eu
set -o pipefail

E2E_NAME=$(basename "$0" .sh)

fail() {
	echo "FAIL: $E2E_NAME: $*" >&2
	exit 1
}

# skip WHY...: this machine cannot run the test (see the top of this file).
skip() {
	local why="$*"
	why=${why//$'\n'/ }
	echo "SKIP: $E2E_NAME: $why"
	if [ -n "${HPM_SKIP_LOG:-}" ]; then
		printf 'e2e/%s: %s\n' "$E2E_NAME" "$why" >>"$HPM_SKIP_LOG" || true
	fi
	exit 77
}

note() {
	echo "$E2E_NAME: $*"
}

: "${HPMON:?HPMON must name the hpmon binary}"
: "${WORKLOADS:?WORKLOADS must name the directory of the built workloads}"
[ -x "$HPMON" ] || fail "HPMON=$HPMON is not an executable"
[ -d "$WORKLOADS" ] || fail "WORKLOADS=$WORKLOADS is not a directory"
command -v python3 >/dev/null || fail "python3 is needed to parse CSV and JSON"

# One scratch directory per test, removed on exit. Tests that install their
# own EXIT trap must call e2e_cleanup from it.
E2E_TMP=$(mktemp -d "${TMPDIR:-/tmp}/hpmon-e2e.XXXXXX")
e2e_cleanup() {
	local rc=$? pid sock
	for sock in ${E2E_TMUX_SOCKS:-}; do
		tmux -L "$sock" kill-server 2>/dev/null || true
	done
	for pid in ${E2E_BG_PIDS:-}; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$E2E_TMP"
	return $rc
}
trap e2e_cleanup EXIT

# No test may hang CTest: every hpmon run is bounded, by E2E_TIMEOUT
# seconds when the environment (or the test, before its runs) sets it,
# else by 60 s scaled by the load: 60 * min(4, max(1, loadavg1 / nproc)).
# A test that looks for a hang sets a short one itself.
e2e_default_timeout() {
	local n
	n=$(nproc 2>/dev/null || echo 1)
	awk -v n="$n" '{ f = $1 / n; if (f < 1) f = 1; if (f > 4) f = 4; printf "%d\n", 60 * f + 0.5 }' \
		/proc/loadavg 2>/dev/null || echo 60
}
E2E_TIMEOUT=${E2E_TIMEOUT:-$(e2e_default_timeout)}

# Without address-space randomisation a workload faults exactly the same
# pages in every run: stack, heap and libraries land at the same addresses.
# hpmon is started under it, so the command it launches inherits it.
NORAND=(setarch "$(uname -m)" -R)

# hpm ARGS...: run hpmon with ARGS; its stdout goes to $E2E_TMP/out, its
# stderr to $E2E_TMP/err and its exit status to $HPM_STATUS. Never fails by
# itself: the caller checks what it expects.
HPM_STATUS=0
hpm() {
	HPM_STATUS=0
	timeout -k 5 "$E2E_TIMEOUT" "$HPMON" "$@" >"$E2E_TMP/out" 2>"$E2E_TMP/err" </dev/null ||
		HPM_STATUS=$?
	[ "$HPM_STATUS" -ne 124 ] || fail "timed out after ${E2E_TIMEOUT}s: hpmon $*"
}

# hpm_norand ARGS...: hpm without address-space randomisation.
hpm_norand() {
	HPM_STATUS=0
	timeout -k 5 "$E2E_TIMEOUT" "${NORAND[@]}" "$HPMON" "$@" \
		>"$E2E_TMP/out" 2>"$E2E_TMP/err" </dev/null || HPM_STATUS=$?
	[ "$HPM_STATUS" -ne 124 ] || fail "timed out after ${E2E_TIMEOUT}s: hpmon $*"
}

# hpm_ok ARGS...: hpm, and fail unless it exited 0.
hpm_ok() {
	hpm "$@"
	[ "$HPM_STATUS" -eq 0 ] || fail "hpmon $* exited $HPM_STATUS, stderr:
$(cat "$E2E_TMP/err")"
}

hpm_norand_ok() {
	hpm_norand "$@"
	[ "$HPM_STATUS" -eq 0 ] || fail "hpmon $* exited $HPM_STATUS, stderr:
$(cat "$E2E_TMP/err")"
}

# expect_eq WHAT EXPECTED ACTUAL
expect_eq() {
	[ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"
}

# expect_in WHAT LOW HIGH ACTUAL: LOW <= ACTUAL <= HIGH, as numbers.
expect_in() {
	python3 - "$@" <<'EOF' || fail "see above"
import sys
what, lo, hi, v = sys.argv[1:5]
try:
    ok = float(lo) <= float(v) <= float(hi)
except ValueError:
    ok = False
if not ok:
    sys.stderr.write("FAIL: %s: expected %s in [%s, %s]\n" % (what, v, lo, hi))
    sys.exit(1)
EOF
}

# expect_grep WHAT REGEX FILE: FILE has a line matching the extended REGEX.
expect_grep() {
	grep -Eq -- "$2" "$3" || fail "$1: no line matches /$2/ in:
$(cat "$3")"
}

expect_no_grep() {
	! grep -Eq -- "$2" "$3" || fail "$1: a line matches /$2/ in:
$(cat "$3")"
}

# csv FILE SEP EXPR: evaluate the python expression EXPR over the CSV
# lines of a `-x SEP` output FILE and print the result. In EXPR:
#   rows     the lines split on SEP, without blank and '#' lines
#   ev(name...)  the rows with a field equal to one of the names
#   num(s)   a count field as a number ("<not counted>" -> None)
#   delta(r) the count of an -I line r: as num, but 0 for "<not counted>"
#            with no time running (the command did not run in that
#            interval: on a busy machine a task may wait out a whole one)
# Fails (with the file) when EXPR raises.
csv() {
	python3 - "$@" <<'EOF' || { cat "$1" >&2; fail "cannot evaluate '$3' on the CSV output above"; }
import sys
path, sep, expr = sys.argv[1:4]
rows = []
with open(path) as f:
    for line in f:
        line = line.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        rows.append(line.split(sep))
def num(s):
    s = s.strip()
    if s.startswith("<"):
        return None
    return float(s) if "." in s else int(s)
def ev(*names):
    return [r for r in rows if any(n in r for n in names)]
def delta(r):
    v = num(r[1])
    return 0 if v is None and num(r[4]) == 0 else v
v = eval(expr)
print(v)
EOF
}

# json FILE EXPR: evaluate the python expression EXPR with j bound to the
# JSON document in FILE (or, for JSON lines, js bound to the list of
# documents and j to the last one) and print the result.
json() {
	python3 - "$@" <<'EOF' || { cat "$1" >&2; fail "cannot evaluate '$2' on the JSON output above"; }
import json, sys
path, expr = sys.argv[1:3]
text = open(path).read()
try:
    js = [json.loads(text)]
except ValueError:
    js = [json.loads(l) for l in text.splitlines() if l.strip()]
j = js[-1]
def event(obj, name):
    m = [e for e in obj["events"] if e["name"] == name]
    if len(m) != 1:
        raise KeyError("%d events named %s in %r" % (len(m), name, obj))
    return m[0]
v = eval(expr)
print(v)
EOF
}

# bg CMD...: start CMD in the background, its pid in $BG_PID; it is killed
# when the test ends.
bg() {
	"$@" &
	BG_PID=$!
	E2E_BG_PIDS="${E2E_BG_PIDS:-} $BG_PID"
}

# wait_for WHAT SECONDS CMD...: poll CMD every 20 ms until it succeeds.
wait_for() {
	local what=$1 secs=$2 i
	shift 2
	for ((i = 0; i < secs * 50; i++)); do
		"$@" && return 0
		sleep 0.02
	done
	fail "timed out after ${secs}s waiting for $what"
}

# descendant PID COMM: print the pid of a descendant of PID named COMM;
# fails (status 1, nothing printed) when there is none yet.
descendant() {
	local todo=$1 comm=$2 next p
	while [ -n "$todo" ]; do
		next=
		for p in $todo; do
			if [ "$p" != "$1" ] && [ "$(cat /proc/"$p"/comm 2>/dev/null)" = "$comm" ]; then
				echo "$p"
				return 0
			fi
			next="$next $(pgrep -P "$p" || true)"
		done
		# shellcheck disable=SC2086,SC2116 # squeeze the list's blanks
		todo=$(echo $next)
	done
	return 1
}

# csv_layout FILE SEP EVENTS: print, for every line of a `-x SEP` output,
# the event and the kind of each field, e.g.
#   task-clock: num text EVENT num num | num text
# Kinds: ts (interval timestamp), cpu (CPUn), task (comm-tid), num, pct
# (x.xx%), na (<not supported>/<not counted>), text, empty, EVENT (one of
# the comma-separated EVENTS). The last two fields (metric value and unit)
# come after '|'; a metric hpmon does not compute is "empty empty".
csv_layout() {
	python3 - "$@" <<'EOF2' || { cat "$1" >&2; fail "cannot read the CSV output above"; }
import re, sys
path, sep, events = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
def kind(f):
    if f in events: return "EVENT"
    if f == "": return "empty"
    if re.fullmatch(r"\s*\d+\.\d{9}", f): return "ts"
    if re.fullmatch(r"CPU\d+", f): return "cpu"
    if re.fullmatch(r"<not (supported|counted)>", f): return "na"
    if re.fullmatch(r"-?\d+(\.\d+)?%", f): return "pct"
    if re.fullmatch(r"-?\d+(\.\d+)?", f): return "num"
    if re.fullmatch(r".+-\d+", f): return "task"
    return "text"
for line in open(path):
    line = line.rstrip("\n")
    if not line.strip() or line.lstrip().startswith("#"):
        continue
    fields = line.split(sep)
    ev = [f for f in fields if f in events]
    ks = [kind(f) for f in fields]
    print("%s: %s | %s" % (ev[0] if ev else "?", " ".join(ks[:-2]), " ".join(ks[-2:])))
EOF2
}

# same_layout WHAT HPMON_FILE PERF_FILE SEP EVENTS: every distinct line
# layout of hpmon's CSV output is perf's for the same event, but for the
# metric columns when hpmon leaves them empty.
same_layout() {
	local what=$1 h=$2 p=$3 sep=$4 events=$5
	csv_layout "$h" "$sep" "$events" | sort -u >"$h.layout"
	csv_layout "$p" "$sep" "$events" | sort -u >"$p.layout"
	python3 - "$h.layout" "$p.layout" <<'EOF2' || fail "$what: CSV layout differs from perf's (hpmon, then perf):
$(cat "$h")
--
$(cat "$p")"
import sys
def load(path):
    d = {}
    for l in open(path):
        ev, rest = l.rstrip("\n").split(": ", 1)
        main, metric = rest.split(" | ")
        d.setdefault(ev, set()).add((main, metric))
    return d
h, p = load(sys.argv[1]), load(sys.argv[2])
bad = False
if set(h) != set(p):
    print("events: hpmon %s, perf %s" % (sorted(h), sorted(p)), file=sys.stderr)
    bad = True
for ev in set(h) & set(p):
    pm = {m for m, _ in p[ev]}
    for m, metric in h[ev]:
        if m not in pm:
            print("%s: hpmon '%s', perf %s" % (ev, m, sorted(pm)), file=sys.stderr)
            bad = True
        elif metric != "empty empty" and metric not in {x for mm, x in p[ev] if mm == m}:
            print("%s metric: hpmon '%s', perf %s" % (ev, metric, sorted(p[ev])), file=sys.stderr)
            bad = True
sys.exit(1 if bad else 0)
EOF2
}

# have_perf: perf is installed and can count software events here.
have_perf() {
	command -v perf >/dev/null && perf stat -e task-clock true >/dev/null 2>&1
}

# retry N FUNC [ARGS...]: run FUNC in a subshell (so that fail() ends only
# that attempt) until it succeeds, at most N times; fail after the last.
# For checks that compare exact page-fault counts of separate runs: with
# randomisation off a run faults the same pages every time, but a test
# running next to others now and then sees one fault more (a page-cache
# page briefly locked by another process is skipped by fault-around and
# faulted on its own later). Extra faults only ever add, so a pass is a
# pass, and a real miscount fails every attempt.
retry() {
	local n=$1 i rc
	shift
	for ((i = 1; i <= n; i++)); do
		set +e
		(
			set -e
			"$@"
		)
		rc=$?
		set -e
		[ "$rc" -ne 0 ] || return 0
		[ "$i" -eq "$n" ] || note "attempt $i of $n failed, trying again"
	done
	fail "$1 failed $n times"
}

# ---- a terminal for full-screen tests, in tmux ----
# term_start COLS ROWS CMD: CMD (a shell command) in a fresh COLSxROWS
# terminal, on a tmux server of its own: one being killed may still hold
# its socket when the next client connects. Every server is killed when
# the test ends (e2e_cleanup). tm ARGS...: tmux ARGS on the current one.
E2E_TMUX_RUN=0
E2E_TMUX_SOCK=
tm() {
	tmux -L "$E2E_TMUX_SOCK" "$@"
}
term_start() {
	command -v tmux >/dev/null || fail "tmux is needed (scripts/deps installs it)"
	[ -z "$E2E_TMUX_SOCK" ] || tm kill-server 2>/dev/null || true
	E2E_TMUX_RUN=$((E2E_TMUX_RUN + 1))
	E2E_TMUX_SOCK=hpmon-e2e-$$-$E2E_TMUX_RUN
	E2E_TMUX_SOCKS="${E2E_TMUX_SOCKS:-} $E2E_TMUX_SOCK"
	tm -f /dev/null new-session -d -x "$1" -y "$2" "$3"
}

# screen_has WHAT REGEX: the terminal shows a line matching the extended
# REGEX, polled for up to 15 s; the screen is left in $E2E_TMP/screen.
screen_has() {
	local what=$1 re=$2 i
	for ((i = 0; i < 150; i++)); do
		tm capture-pane -p >"$E2E_TMP/screen"
		grep -Eq -- "$re" "$E2E_TMP/screen" && return 0
		sleep 0.1
	done
	fail "$what: no line matches /$re/ on the screen:
$(cat "$E2E_TMP/screen")"
}

# ---- what the host delivers ----
# host_bp_fires: hardware breakpoints on code fire on this host, asked as
# perf would be: perf stat -e mem:ADDR:x on hpm_work, which `calls K` runs
# K times (with randomisation off, `calls --addr` prints where it is). Some
# hosts (paravirtualised guests) open breakpoints and never fire them.
# Where perf cannot count here, hpmon diag's own probe answers. Asked once
# per test.
host_bp_fires() {
	if [ -z "${E2E_BP_FIRES:-}" ]; then
		E2E_BP_FIRES=no
		local addr n
		addr=$("${NORAND[@]}" "$WORKLOADS/calls" --addr)
		if have_perf; then
			n=$("${NORAND[@]}" perf stat -x, -e "mem:$addr:x" -- "$WORKLOADS/calls" 7 2>&1 \
				>/dev/null | awk -F, '/mem:/ { print $1 }')
			[ "$n" != 7 ] || E2E_BP_FIRES=yes
		elif "$HPMON" diag --json | python3 -c \
			'import json, sys; sys.exit(0 if json.load(sys.stdin)["breakpoints"]["code"]["fires"] else 1)'; then
			E2E_BP_FIRES=yes
		fi
	fi
	[ "$E2E_BP_FIRES" = yes ]
}

# expect_bp_refused WHAT: the last hpm run was refused because breakpoints
# do not fire here: exit 1, and a message that says so.
expect_bp_refused() {
	expect_eq "$1: exit status where breakpoints do not fire" 1 "$HPM_STATUS"
	expect_grep "$1: the reason" "hardware breakpoints do not fire on this host" "$E2E_TMP/err"
}
