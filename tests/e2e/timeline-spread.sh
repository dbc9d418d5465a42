#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The timeline shows rates, not bursts: a program that spins at a
# constant rate, sharing CPU 0 with two other spinners, runs about a
# third of the time, so its readings (every 10 ms of its CPU time) come
# 30 ms and more apart. Each reading spread over its span (from the
# previous one) leaves no bin of the thread's life empty, where placed
# at the reading times most bins would be (a bin of 10 or 20 ms holds a
# reading in one of two or three): in the page's timeline (report
# --html's data), without the first and last tenth of the run,
#  - no bin is empty (placed at their times: 83 % were, measured);
#  - no bin holds more than 6 times the median (a long span of a thread
#    the machine's other load kept waiting is spread thin: up to 3.5
#    measured at a load of 10);
#  - in groups of 100 ms the line follows the thread's cpu-clock samples
#    (one every 250 us of its CPU time, so they say when it ran): the
#    median of timeline / samples is within 15 % of 1.
# The line is not asserted flatter than that: the share the thread gets
# moves with the machine's load; on a quiet machine 97 % of its 30-ms
# groups were within 40 % of their median.
. "$(dirname "$0")/lib.sh"

command -v taskset >/dev/null || skip "no taskset (util-linux) to share one CPU"
hpm record -q -e cpu-clock -o "$E2E_TMP/probe.prof" -- true
[ "$HPM_STATUS" -eq 0 ] || skip "cannot sample cpu-clock here: $(head -1 "$E2E_TMP/err")"
hpm report --timeline -i "$E2E_TMP/probe.prof"
grep -q "counts read per thread" "$E2E_TMP/out" ||
	skip "no timeline on this kernel (PERF_SAMPLE_READ with inherit needs Linux 6.12)"

# two competitors on CPU 0 that outlast the measured run, stopped after it
pids=()
stop() { [ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; }
trap 'stop; rm -rf "$E2E_TMP"' EXIT
for i in 1 2; do
	taskset -c 0 "$WORKLOADS/ratio" 400000000 >/dev/null &
	pids+=($!)
done
hpm_norand_ok record -q -e cpu-clock -o "$E2E_TMP/s.prof" -- taskset -c 0 "$WORKLOADS/ratio" 60000000
stop
pids=()

hpm_ok report --html -i "$E2E_TMP/s.prof" -o "$E2E_TMP/s.html"
hpm_ok script -i "$E2E_TMP/s.prof"
python3 - "$E2E_TMP/s.html" "$E2E_TMP/out" <<'PY' ||
import json, re, statistics, sys
page = open(sys.argv[1], encoding='utf-8').read()
data = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', page,
                            re.S).group(1).replace('\\u003c', '<'))
t = data['timeline']
assert t['source'] == 'records', t['source']
s = next(x for x in t['series'] if x['event'] == 'cpu-clock' and x['thread'] == 'all')
counts, width, start = s['count'], t['width'], t['start']
cut = max(1, len(counts) // 10)
inner = counts[cut:-cut]
assert len(inner) >= 20, 'a run of %d bins is too short to tell' % len(counts)
empty = sum(1 for c in inner if c <= 0)
med = statistics.median(inner)
top = max(inner) / med if med > 0 else float('inf')
# the samples (script's lines: "... [CPU] SECONDS.US: PERIOD cpu-clock: ...")
per = max(1, round(100e6 / width))
tl = [sum(counts[i:i + per]) for i in range(0, len(counts) - per + 1, per)]
smp = [0.0] * len(tl)
for line in open(sys.argv[2], encoding='utf-8', errors='replace'):
    m = re.search(r'\] +(\d+)\.(\d{6}): +(\d+) cpu-clock', line)
    if m:
        g = (int(m.group(1)) * 10**9 + int(m.group(2)) * 1000 - start) // (per * width)
        if 0 <= g < len(smp):
            smp[g] += int(m.group(3))
gc = max(1, len(tl) // 10)
ratios = [a / b for a, b in zip(tl[gc:-gc], smp[gc:-gc]) if b > 0]
follow = statistics.median(ratios)
print('%d bins of %d ms: %d empty, max / median %.2f; %d groups of %d ms: timeline / samples, '
      'median %.3f' % (len(inner), width // 1000000, empty, top, len(ratios), per * width // 1000000,
                       follow))
assert empty == 0, 'bursts: %d of %d bins empty' % (empty, len(inner))
assert top <= 6, 'a burst: a bin of %.1f times the median' % top
assert 0.85 <= follow <= 1.15, 'the line does not follow the samples: %s' % [round(r, 2) for r in ratios]
PY
	fail "the timeline of a steady rate under load shows bursts (above)"
exit 0
