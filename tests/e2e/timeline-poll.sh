#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# record --timeline-mode poll: the timeline of kernels before Linux 6.12,
# read by hpmon itself every interval of wall time, forced on this
# kernel. A reading sums every thread and process of the command, so:
#  - the profile says so (header key 15): report --timeline names the
#    readings in its source line, and shows the "all" line alone (the
#    line named after the command's pid would be the same series), as
#    the HTML page's timeline does, and hpmon convert keeps it;
#  - page-faults sampled at every fault (its samples are the exact count)
#    equals the timeline's total, with two threads and a child process;
#  - a group member that never samples is counted by the timeline alone:
#    runs with N and 2N pages differ by exactly the pages the tasks touch;
#  - a run whose page faults come in its second half shows none in its
#    first third;
#  - the summary says which mode and what it misses; a bad mode is a
#    usage error.
# That the readings come one interval apart, on the samples' clock, is
# checked by tests/unit/test-record-timeline-poll.c.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record-lib.sh"

# tl_labels FILE EVENT: the lines' labels under EVENT
tl_labels() {
	awk -v ev="$2" '/^[^ #]/ { cur = $1; next } cur == ev && $0 ~ /total/ { print $1 }' "$1"
}

hpm record -q -e page-faults -o "$E2E_TMP/probe.prof" -- true
[ "$HPM_STATUS" -eq 0 ] || skip "cannot sample page-faults here: $(head -1 "$E2E_TMP/err")"

hpm record --timeline-mode sometimes -e page-faults -o "$E2E_TMP/x.prof" -- true
expect_eq "bad mode: usage error" 129 "$HPM_STATUS"
expect_grep "bad mode: says what it takes" "--timeline-mode takes auto or poll, not 'sometimes'" \
	"$E2E_TMP/err"

# two threads and a child process; the summary names the mode
hpm_norand_ok record --timeline-mode poll -e page-faults -o "$E2E_TMP/t.prof" -- \
	"$WORKLOADS/threads" 2 1 300
expect_grep "summary: the mode and what it misses" \
	"timeline: all threads read together by hpmon every 10 ms of wall time \(--timeline-mode poll\): no lane per thread" \
	"$E2E_TMP/err"
hpm_ok report --timeline -i "$E2E_TMP/t.prof"
cp "$E2E_TMP/out" "$E2E_TMP/tl.txt"
expect_grep "the source line: the whole command, read by hpmon" \
	"^# timeline of '.*t\.prof': counts of all the command's threads together, read by hpmon every 10 ms of wall time$" \
	"$E2E_TMP/tl.txt"
expect_eq "one line for the whole command: all" "all" \
	"$(tl_labels "$E2E_TMP/tl.txt" page-faults | xargs)"
report_json "$E2E_TMP/t.prof"
exact=$(json "$E2E_TMP/rep.json" "j['events'][0]['samples']")
[ "$exact" -ge 1200 ] || fail "threads 2 1 300 faults 1200 pages at least, sampled $exact"
expect_eq "all: the exact page faults" "$exact" "$(tl_total "$E2E_TMP/tl.txt" page-faults all)"
# the page: its timeline is "all" alone too, of the same total
hpm_ok report --html -i "$E2E_TMP/t.prof" -o "$E2E_TMP/t.html"
python3 - "$E2E_TMP/t.html" "$exact" <<'PY' || fail "the page's timeline"
import json, re, sys
page = open(sys.argv[1], encoding='utf-8').read()
data = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', page,
                            re.S).group(1).replace('\\u003c', '<'))
t = data['timeline']
assert t['source'] == 'polled', t['source']
lanes = [(s['event'], s['thread']) for s in t['series']]
assert lanes == [('page-faults', 'all')], lanes
assert t['series'][0]['total'] == int(sys.argv[2]), (t['series'][0]['total'], sys.argv[2])
PY

# a member read by the timeline only: the workers touch N and 2N pages,
# the child 3N
for n in 200 400; do
	hpm_norand_ok record -q --timeline-mode poll -e '{cpu-clock,page-faults}' \
		-o "$E2E_TMP/g$n.prof" -- "$WORKLOADS/threads" 2 1 $n
	hpm_ok report --timeline -i "$E2E_TMP/g$n.prof"
	eval "pf$n=\$(tl_total \"\$E2E_TMP/out\" page-faults all)"
done
expect_eq "the member's count, read by the timeline: 6 x 200 pages more" 1200 $((pf400 - pf200))

# converted, the profile still says how its timeline was read
hpm_ok convert -q -i "$E2E_TMP/t.prof" -o "$E2E_TMP/c.prof"
hpm_ok report --timeline -i "$E2E_TMP/c.prof"
expect_grep "converted: the same source line" "counts of all the command's threads together" \
	"$E2E_TMP/out"
expect_eq "converted: all alone" "all" "$(tl_labels "$E2E_TMP/out" page-faults | xargs)"

# page faults in the second half only: none in the first third (after the
# first column, which has the program's start), some in the second half
hpm_norand_ok record -q --timeline-mode poll -e page-faults -o "$E2E_TMP/h.prof" -- \
	"$WORKLOADS/phases" 300 200
hpm_ok report --timeline -i "$E2E_TMP/h.prof"
python3 - "$E2E_TMP/out" <<'PY' || fail "the shape of the phases:
$(cat "$E2E_TMP/out")"
import sys
lines = open(sys.argv[1], encoding='utf-8').read().split('\n')
start = lines[-2].index('0')                   # the axis: where the columns start
spark = next(l for l in lines if l.startswith('  all '))[start:]
spark = spark[:spark.index('  min ')]
n = len(spark)
assert n >= 6, spark
assert spark[1:n // 3].strip() == '', 'page faults in the first third: %r' % spark
assert spark[n // 2:].strip() != '', 'none in the second half: %r' % spark
PY
exit 0
