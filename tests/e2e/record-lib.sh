# SPDX-License-Identifier: MIT
# Helpers of the record/report tests (tests/e2e/record-*.sh); source it
# after lib.sh.

# report_json PROFILE [REPORT ARGS...]: hpmon report --json into $E2E_TMP/rep.json
report_json() {
	local prof=$1
	shift
	hpm_ok report -i "$prof" --json "$@"
	cp "$E2E_TMP/out" "$E2E_TMP/rep.json"
}

# pct SYM: the percent of the main event of the row whose sym is SYM in
# $E2E_TMP/rep.json (0 when there is none).
pct() {
	json "$E2E_TMP/rep.json" "round(sum(r['events'][0]['percent'] for r in j['rows'] if r.get('sym') == '$1'), 3)"
}

# samples SYM: the samples of the main event in rows whose sym is SYM.
samples() {
	json "$E2E_TMP/rep.json" "sum(r['events'][0]['samples'] for r in j['rows'] if r.get('sym') == '$1')"
}

# perf_pct PERF_DATA SYM: perf report's percent for SYM (0 when absent).
perf_pct() {
	perf report -i "$1" --stdio --sort sym 2>/dev/null |
		awk -v s="$2" '$NF == s { gsub("%", "", $1); print $1; f = 1 } END { if (!f) print 0 }'
}

# tl_total FILE EVENT LABEL: the total of LABEL's line under EVENT in the
# text of report --timeline (empty when there is none)
tl_total() {
	awk -v ev="$2" -v lb="$3" '
		/^[^ #]/ { cur = $1 }
		cur == ev && $1 == lb { for (i = 1; i < NF; i++) if ($i == "total") print $(i + 1) }' "$1"
}

# ---- the host's own answer: perf on the same machine, bounds from counts ----

# perf_record ARGS...: perf record ARGS (quiet, its output to
# $E2E_TMP/perf.out and .err), bounded as hpm runs are; its status in
# $PERF_STATUS. For comparisons with what perf records on this host:
# callers check have_perf first.
PERF_STATUS=0
perf_record() {
	PERF_STATUS=0
	timeout -k 5 "$E2E_TIMEOUT" perf record -q "$@" >"$E2E_TMP/perf.out" 2>"$E2E_TMP/perf.err" </dev/null ||
		PERF_STATUS=$?
	[ "$PERF_STATUS" -ne 124 ] || fail "timed out after ${E2E_TIMEOUT}s: perf record $*"
}

# perf_script DATA OUT: perf script of DATA into OUT, in the fields
# reclib.samples reads (comm,pid,tid,ip,sym,dso; no inlined frames).
perf_script() {
	timeout -k 5 "$E2E_TIMEOUT" perf script -i "$1" --no-inline -F comm,pid,tid,ip,sym,dso \
		>"$2" 2>"$E2E_TMP/perf-script.err" || fail "perf script -i $1 failed: $(tail -n 3 "$E2E_TMP/perf-script.err")"
}

# hpm_script PROFILE OUT: hpmon script of PROFILE (hpmon's or perf.data)
# into OUT, in the same fields.
hpm_script() {
	hpm_ok script -i "$1" -F comm,pid,tid,ip,sym,dso
	cp "$E2E_TMP/out" "$2"
}

# recpy ARGS...: python3 ARGS with the module reclib importable:
#   reclib.samples(PATH)  the samples of a perf script or hpmon script
#       output (fields comm,pid,tid,ip,sym,dso, with or without stacks):
#       objects with comm, pid, tid and frames, leaf first, each with
#       addr, sym, dso and kernel (a kernel address)
#   reclib.shares_close(x1, n1, x2, n2, k=5): (ok, d, bound): shares
#       x1/n1 and x2/n2 differ by at most k binomial sigmas of their
#       pooled share (plus half a sample of each, for counts this small)
#   reclib.counts_close(a, b, k=5, slack=1): (ok, d, bound): two counts
#       of independent samplings of the same thing agree: given a + b,
#       each is Binomial(a + b, 1/2), and the larger (less slack) is no
#       less likely than k sigmas of a normal (exact binomial tail: for
#       large counts |a - b| <= about k sqrt(a + b)); bound is the largest
#       |a - b| that passes
recpy() {
	[ -f "$E2E_TMP/reclib.py" ] || cat >"$E2E_TMP/reclib.py" <<'PY'
import math, re

class Frame:
    __slots__ = ("addr", "sym", "dso", "kernel")
    def __init__(self, addr, sym, dso):
        self.addr, self.sym, self.dso = addr, sym, dso
        # kernel addresses are in the upper half (x86_64, arm64)
        self.kernel = addr >= 1 << 63
    def __repr__(self):
        return "%s (%s)" % (self.sym, self.dso)

class Sample:
    __slots__ = ("comm", "pid", "tid", "frames")
    def __init__(self, comm, pid, tid):
        self.comm, self.pid, self.tid, self.frames = comm, pid, tid, []

_head = re.compile(r"^(\S.*?)\s+(\d+)/(\d+)\s*(.*)$")

def _frame(text):
    # "ADDR SYM (DSO)": the object is the last parenthesised part, and a
    # C++ name may hold blanks and parentheses
    text = text.strip()
    addr, _, rest = text.partition(" ")
    sym, sep, dso = rest.rstrip().rpartition(" (")
    if not sep or not dso.endswith(")"):
        return None
    try:
        a = int(addr, 16)
    except ValueError:
        return None
    return Frame(a, sym.strip(), dso[:-1])

def samples(path):
    out, cur = [], None
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if not line.strip():
            cur = None
            continue
        if line[0] == "\t":
            # a frame of the stack under the sample's line
            f = _frame(line) if cur is not None else None
            if f is not None and f.dso != "inlined":
                cur.frames.append(f)
            continue
        m = _head.match(line.strip())
        if not m:
            continue
        cur = Sample(m.group(1), int(m.group(2)), int(m.group(3)))
        out.append(cur)
        if m.group(4).strip():
            f = _frame(m.group(4))
            if f is not None:
                cur.frames.append(f)
            cur = None
    return out

def shares_close(x1, n1, x2, n2, k=5.0):
    if n1 <= 0 or n2 <= 0:
        return (False, float("nan"), 0.0)
    p = (x1 + x2) / (n1 + n2)
    se = math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2))
    bound = k * se + 0.5 * (1 / n1 + 1 / n2)
    d = x1 / n1 - x2 / n2
    return (abs(d) <= bound, d, bound)

def counts_close(a, b, k=5.0, slack=1):
    # Two counts of the same rate: given their sum m, either is
    # Binomial(m, 1/2); they are close unless the larger, less slack, is
    # as unlikely as k sigmas of a normal (two-sided): the binomial tail
    # itself, which stays right for counts too small for sqrt(a + b).
    a, b, slack = int(round(a)), int(round(b)), int(slack)
    m = a + b
    alpha = math.erfc(k / math.sqrt(2))
    pmf = [math.exp(math.lgamma(m + 1) - math.lgamma(i + 1) - math.lgamma(m - i + 1) - m * math.log(2))
           for i in range(m + 1)]
    tail = [0.0] * (m + 2)  # tail[x] = P(X >= x)
    for i in range(m, -1, -1):
        tail[i] = tail[i + 1] + pmf[i]
    passes = lambda x: abs(2 * x - m) <= slack or 2 * tail[max(0, min(m + 1, x - slack))] >= alpha
    # the largest difference that passes, for the message
    bound = max([2 * x - m for x in range((m + 1) // 2, m + 1) if passes(x)] + [slack])
    return (passes(max(a, b)), a - b, bound)
PY
	PYTHONPATH="$E2E_TMP${PYTHONPATH:+:$PYTHONPATH}" python3 "$@"
}

# count_close WHAT A B [SLACK]: fail unless the counts A (hpmon's) and B
# (the reference's) of two samplings of the same thing agree as
# reclib.counts_close has it (5 sigmas; SLACK, default 1, samples more).
count_close() {
	recpy - "$E2E_NAME" "$@" <<'PY' || fail "$1: see above"
import sys, reclib
name, what, a, b = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
slack = float(sys.argv[5]) if len(sys.argv) > 5 else 1.0
ok, d, bound = reclib.counts_close(a, b, slack=slack)
print("%s: %s: %g against %g: %+g, bound %d" % (name, what, a, b, d, bound))
if not ok:
    print("FAIL: %s: the counts differ by more than 5 sigmas" % what, file=sys.stderr)
    sys.exit(1)
PY
}

# host_can_uprobe: uprobes can be defined here: as root, in tracefs,
# mounted with the kernel's uprobe_events, or mountable (hpmon mounts it as
# root) on a kernel with uprobe events (CONFIG_UPROBE_EVENTS: its
# dispatcher in /proc/kallsyms). A test that calls it holds CTest's
# tracefs-uprobes lock (tests/CMakeLists.txt looks for the name).
host_can_uprobe() {
	[ "$(id -u)" = 0 ] || return 1
	local d
	for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ ! -e "$d/uprobe_events" ] || return 0
	done
	grep -qw tracefs /proc/filesystems && [ -d /sys/kernel/tracing ] &&
		grep -qE ' (uprobe_dispatcher|trace_uprobe_create)$' /proc/kallsyms
}
