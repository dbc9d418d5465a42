#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What the timeline costs when hpmon reads it itself (--timeline-mode poll,
# the mode of kernels before Linux 6.12) against the kernel's per-thread
# timers (the default from 6.12), against the recording without a
# timeline, and against perf record of the same work, in the same run:
#
#  1. CPU time (user + system of the recorder and the workload together,
#     hyperfine's means) of: the workload bare; hpmon record without the
#     timeline (--timeline-interval 0); with the timers; polled; perf
#     record. Printed: each timeline's extra CPU over the recording
#     without one, and polled / timers of those.
#  2. file size: each profile / the one without a timeline.
#
# Two workloads: one thread busy for its whole run (ratio), and one that
# sleeps most of it (sleeper 2000: polled readings go on while it sleeps,
# the timers do not).
#
#   bench/timeline-poll.sh [HPMON]   HPMON defaults to build/hpmon
#   RUNS=N                           hyperfine runs (default 5)
#
# Not a test. Needs hyperfine and perf, and a kernel with the timers
# (6.12) for the "timers" column. Give the load (uptime) with the figures.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
hpmon=${1:-$here/../build/hpmon}
runs=${RUNS:-5}
[ -x "$hpmon" ] || { echo "timeline-poll.sh: no hpmon at $hpmon (run make first)" >&2; exit 1; }
for tool in hyperfine perf python3; do
	command -v "$tool" >/dev/null ||
		{ echo "timeline-poll.sh: $tool is needed (apt-get install hyperfine linux-perf python3)" >&2; exit 1; }
done
wl=${WORKLOADS:-$(dirname "$hpmon")/tests/workloads}
for w in ratio sleeper; do
	[ -x "$wl/$w" ] || { echo "timeline-poll.sh: no workload $wl/$w (build the tests)" >&2; exit 1; }
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export XDG_CACHE_HOME=$out/cache
echo "# $(uname -r), load: $(uptime | sed 's/.*load average: //'), RUNS=$runs"

run() { # NAME WORKLOAD...
	local name=$1
	shift
	local work="$*"
	local rec="$hpmon record -q -c 250007 -e cpu-clock"
	echo "== $name: $work, cpu-clock sampled every 250007 ns"
	hyperfine -N --warmup 1 --runs "$runs" --export-json "$out/$name.json" \
		-n bare "$work" \
		-n without "$rec --timeline-interval 0 -o $out/$name-0.prof -- $work" \
		-n timers "$rec -o $out/$name-t.prof -- $work" \
		-n polled "$rec --timeline-mode poll -o $out/$name-p.prof -- $work" \
		-n perf "perf record -q -c 250007 -e cpu-clock -o $out/$name.perf.data -- $work" >/dev/null
	python3 - "$out/$name.json" "$out/$name-0.prof" "$out/$name-t.prof" "$out/$name-p.prof" <<'PY'
import json, os, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
cpu = {k: r[k]["user"] + r[k]["system"] for k in r}
b, w0, t, p, perf = cpu["bare"], cpu["without"], cpu["timers"], cpu["polled"], cpu["perf"]
print("CPU s: bare %.3f, hpmon without timeline %.3f, timers %.3f, polled %.3f, perf record %.3f"
      % (b, w0, t, p, perf))
print("  timeline's extra CPU: timers %.3f s, polled %.3f s; polled / timers = %s"
      % (t - w0, p - w0, "%.2f" % ((p - w0) / (t - w0)) if t > w0 else "n/a (timers cost nothing measurable)"))
print("  hpmon polled / perf record, CPU: %.3f" % (p / perf))
s0, st, sp = (os.path.getsize(f) for f in sys.argv[2:5])
print("bytes: without %d, timers %d (%.3f), polled %d (%.3f)" % (s0, st, st / s0, sp, sp / s0))
PY
}

run busy "$wl/ratio" 400000000
run sleeping "$wl/sleeper" 2000
