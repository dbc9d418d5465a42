#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What record's timeline costs (record --timeline-interval, default 10 ms),
# measured against the same recording without it and against perf record
# of the same work, in the same run:
#
#  1. CPU time (user + system of the recorder and the workload together,
#     hyperfine's means) of: the workload bare; hpmon record without the
#     timeline (--timeline-interval 0); hpmon record with it (the default);
#     perf record. The ratio that answers "does reading the counts cost
#     more than the samples": (with - without) / (without - bare).
#  2. file size: the profile with the timeline / without it (the issue's
#     bound: at most 1.10 at the default interval), and perf.data's.
#
# Two workloads: one thread (ratio), and four threads side by side for
# the per-thread reading (phases 4 threads).
#
#   bench/timeline.sh [HPMON]   HPMON defaults to build/hpmon
#   RUNS=N                      hyperfine runs (default 5)
#   EVENT=E                     the sampled event, every 250007 (default
#                               cpu-clock: hpmon's default period, 4 kHz)
#
# Not a test. Needs hyperfine and perf. Run it on an idle machine.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
hpmon=${1:-$here/../build/hpmon}
runs=${RUNS:-5}
event=${EVENT:-cpu-clock}
[ -x "$hpmon" ] || { echo "timeline.sh: no hpmon at $hpmon (run make first)" >&2; exit 1; }
for tool in hyperfine perf python3; do
	command -v "$tool" >/dev/null ||
		{ echo "timeline.sh: $tool is needed (apt-get install hyperfine linux-perf python3)" >&2; exit 1; }
done
wl=${WORKLOADS:-$(dirname "$hpmon")/tests/workloads}
for w in ratio phases; do
	[ -x "$wl/$w" ] || { echo "timeline.sh: no workload $wl/$w (build the tests)" >&2; exit 1; }
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export XDG_CACHE_HOME=$out/cache

run() { # NAME WORKLOAD...
	local name=$1
	shift
	local work="$*"
	echo "== $name: $work, $event sampled every 250007 (4 kHz for clocks)"
	hyperfine -N --warmup 1 --runs "$runs" --export-json "$out/$name.json" \
		-n bare "$work" \
		-n without "$hpmon record -q -c 250007 -e $event --timeline-interval 0 -o $out/$name-0.prof -- $work" \
		-n with "$hpmon record -q -c 250007 -e $event -o $out/$name-10.prof -- $work" \
		-n perf "perf record -q -c 250007 -e $event -o $out/$name.perf.data -- $work" >/dev/null
	python3 - "$out/$name.json" "$out/$name-0.prof" "$out/$name-10.prof" "$out/$name.perf.data" <<'PY'
import json, os, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
cpu = {k: r[k]["user"] + r[k]["system"] for k in r}
b, w0, w1, p = cpu["bare"], cpu["without"], cpu["with"], cpu["perf"]
print("CPU s: bare %.3f, hpmon without timeline %.3f, with %.3f, perf record %.3f" % (b, w0, w1, p))
print("  the samples cost %.3f s, the timeline %.3f s more: timeline / samples = %.2f"
      % (w0 - b, w1 - w0, (w1 - w0) / (w0 - b) if w0 > b else float("nan")))
print("  hpmon with the timeline / perf record, extra CPU: %.2f"
      % ((w1 - b) / (p - b) if p > b else float("nan")))
s0, s1, sp = (os.path.getsize(f) for f in sys.argv[2:5])
print("bytes: without %d, with %d (with / without = %.3f), perf.data %d (hpmon with / perf = %.3f)"
      % (s0, s1, s1 / s0, sp, s1 / sp))
PY
}

run one-thread "$wl/ratio" 400000000
run four-threads "$wl/phases" 400 400 4
