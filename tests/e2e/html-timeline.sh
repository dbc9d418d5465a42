# SPDX-License-Identifier: MIT
# The timeline in report --html's page, in headless Chromium
# (tests/e2e/cdp.py), from the timeline model (tools/hpmon/timeline/timeline.h):
#  - a profile of page faults, one sample each, of three threads that
#    fault 1, 2 and 3 units of pages: a lane per thread under the event's
#    total, the total lane's sum the event's samples, the threads' sums in
#    the ratio 1:2:3 (within 3 %), each at least its pages;
#  - a `stat -I 50 --json` file: report --html -i FILE draws its charts
#    alone (no flame graph, no table), a lane per event, each lane's sum
#    the sum of the file's intervals; a hardware event whose counts were
#    scaled (running_ns under enabled_ns, written into a copy of the file,
#    where context-switches become cycles) says in how many bins and how
#    little it ran, and is drawn hatched; a software event (task-clock,
#    scaled the same way in the copy) is never said to be scaled;
#  - dragging over a lane says the range; no console error, no request,
#    a screenshot that is not blank.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record-lib.sh"

command -v "${CHROMIUM:-chromium}" >/dev/null ||
	skip "chromium is not installed (scripts/deps installs it for the test lanes)"
CDP=("python3" "$SRCDIR/tests/e2e/cdp.py")
LANES='Array.from(document.querySelectorAll("#lanes .lane canvas.lc")).filter(c => c.dataset.event).map(c => [c.dataset.event, c.dataset.thread, Number(c.dataset.total), c.parentNode.querySelector(".val").textContent])'
q() { python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$1"; }

# -- a profile: swimlanes per thread
N=3000
hpm_ok record -q -e page-faults -c 1 -o "$E2E_TMP/t.prof" -- "$WORKLOADS/threads" 3 0 "$N"
hpm_ok report -i "$E2E_TMP/t.prof" --html -o "$E2E_TMP/t.html"
report_json "$E2E_TMP/t.prof"
cat >"$E2E_TMP/t.json" <<JSON
[
 {"eval": $(q "$LANES")},
 {"drag": ["#lanes canvas.lc[data-thread=all]", 0.1, 0.6]},
 {"eval": "document.getElementById('range').textContent"}
]
JSON
"${CDP[@]}" "$E2E_TMP/t.html" "$E2E_TMP/t.json" "$E2E_TMP/cdp-t.json" --shot "$E2E_TMP/t.png" ||
	fail "the browser driver failed"
res() { json "$E2E_TMP/cdp-t.json" "$1"; }
expect_eq "profile: no console errors, no requests" "[] []" "$(res "' '.join(str(x) for x in [j['console'] + j['exceptions'], j['requests']])")"
expect_eq "the total lane: the event's samples" "$(json "$E2E_TMP/rep.json" "sum(r['events'][0]['samples'] for r in j['rows'])")" \
	"$(res "[int(t) for e, th, t, v in j['results'][0] if th == 'all'][0]")"
tot() { res "sum(t for e, th, t, v in j['results'][0] if th.startswith('worker-$1/'))"; }
w0=$(tot 0) w1=$(tot 1) w2=$(tot 2)
note "worker lanes: $w0 $w1 $w2 page faults"
expect_in "worker-0 at least its pages" "$N" "$((N + N / 10))" "$w0"
expect_in "worker-1 / worker-0: 2" 1.94 2.06 "$(python3 -c "print($w1 / $w0)")"
expect_in "worker-2 / worker-0: 3" 2.91 3.09 "$(python3 -c "print($w2 / $w0)")"
expect_grep "the range said" '^range: [0-9.]+ s to [0-9.]+ s of [0-9.]+ s \([0-9.]+% of the samples\)$' <(res "j['results'][2]")
expect_in "the screenshot is not blank" 2000 100000 "$(res "j['shot']['nonbg']")"

# -- a stat -I file: the charts alone
hpm_ok stat -I 50 --json -o "$E2E_TMP/run.json" -e task-clock,page-faults,context-switches -- \
	"$WORKLOADS/ratio" 100000000
# a copy whose context switches, named cycles (a hardware event, which
# this machine may not count), and task-clock ran half the time in the
# first three intervals (with a switch in each: an idle machine may not
# preempt the loop, and a bin without counts has nothing scaled)
python3 - "$E2E_TMP/run.json" "$E2E_TMP/mux.json" <<'PY'
import json, sys
out, k = [], 0
for l in open(sys.argv[1]).read().splitlines():
    o = json.loads(l)
    if 'time_ns' in o and k < 3:
        for e in o['events']:
            if e['name'] == 'context-switches':
                e['name'] = 'cycles'
                e['running_ns'] = e['enabled_ns'] // 2
                if not e['count']:
                    e['count'] = e['raw_count'] = 1
            if e['name'] == 'task-clock':
                e['running_ns'] = e['enabled_ns'] // 2
        k += 1
    else:
        for e in o.get('events', []):
            if e['name'] == 'context-switches':
                e['name'] = 'cycles'
    out.append(json.dumps(o))
open(sys.argv[2], 'w').write('\n'.join(out) + '\n')
PY
for f in run mux; do
	hpm_ok report -i "$E2E_TMP/$f.json" --html -o "$E2E_TMP/$f.html"
	cat >"$E2E_TMP/s.json" <<JSON
[
 {"eval": "[document.getElementById('flame-sec').hidden, document.getElementById('table-sec').hidden, document.getElementById('tasks-bar').hidden, document.getElementById('time-sec').hidden]"},
 {"eval": $(q "$LANES")},
 {"drag": ["#lanes canvas.lc[data-event=task-clock]", 0.2, 0.4]},
 {"eval": "document.getElementById('range').textContent"}
]
JSON
	"${CDP[@]}" "$E2E_TMP/$f.html" "$E2E_TMP/s.json" "$E2E_TMP/cdp-$f.json" --shot "$E2E_TMP/$f.png" ||
		fail "the browser driver failed"
	res() { json "$E2E_TMP/cdp-$f.json" "$1"; }
	expect_eq "$f: no console errors, no requests" "[] []" "$(res "' '.join(str(x) for x in [j['console'] + j['exceptions'], j['requests']])")"
	expect_eq "$f: the charts alone (no graph, no table, no tasks' selector)" "[True, True, True, False]" "$(res "j['results'][0]")"
	cs=context-switches
	[ $f = mux ] && cs=cycles
	expect_eq "$f: a lane per event" "['task-clock', 'page-faults', '$cs']" \
		"$(res "[e for e, th, t, v in j['results'][1]]")"
	for ev in page-faults $cs task-clock; do
		want=$(json "$E2E_TMP/$f.json" "round(sum(e['count'] for o in js if 'time_ns' in o for e in o['events'] if e['name'] == '$ev'), 3)")
		expect_eq "$f: $ev's lane sums the intervals" "$want" \
			"$(res "round([t for e, th, t, v in j['results'][1] if e == '$ev'][0], 3)")"
	done
	expect_grep "$f: the range said" '^range: [0-9.]+ s to [0-9.]+ s of [0-9.]+ s$' <(res "j['results'][3]")
	expect_in "$f: the screenshot is not blank" 1000 100000 "$(res "j['shot']['nonbg']")"
done
expect_eq "unscaled: no coverage note" "[]" "$(json "$E2E_TMP/cdp-run.json" "[v for e, th, t, v in j['results'][1] if 'scaled' in v]")"
expect_grep "scaled: where and how much" 'mean [0-9.]+ k? ?events/s; scaled in 3 bins \(counted 50% of the time at least\)' \
	<(json "$E2E_TMP/cdp-mux.json" "[v for e, th, t, v in j['results'][1] if e == 'cycles'][0]")
expect_eq "a software event is never scaled: task-clock, in CPUs" "['mean', 'CPUs']" \
	"$(json "$E2E_TMP/cdp-mux.json" "[v for e, th, t, v in j['results'][1] if e == 'task-clock'][0].split()[::2]")"

# a file that is neither: the profile's message, exit 1, no page
printf '{"not": "a stat file"\n' >"$E2E_TMP/bad.json"
hpm report -i "$E2E_TMP/bad.json" --html -o "$E2E_TMP/bad.html"
expect_eq "a bad stat file: exit 1" 1 "$HPM_STATUS"
expect_eq "no page written" no "$([ -e "$E2E_TMP/bad.html" ] && echo yes || echo no)"
note "$(cat "$E2E_TMP/err")"
