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
#  2. file size, the issue's bound: at most 1.10 at the default interval.
#     Two figures, from RUNS pairs of recordings made one after the other:
#     - "separate": the profile with the timeline / the one of the next
#       recording without it (median, min and max over the pairs). Two
#       recordings of the same work differ in their samples (how they
#       compress: by 5 % and more on a loaded machine), so this one is
#       noisy;
#     - "same recording": the profile with the timeline / the same profile
#       written again without its TIMELINE records (bench/timeline-strip.c,
#       built here against the build's libhpmon): what the readings add to
#       that very file, and the bytes a reading takes.
#     perf.data's size, for scale, from hyperfine's last perf record.
#
# Two workloads: one thread (ratio), and four threads side by side for
# the per-thread reading (phases 4 threads).
#
#   bench/timeline.sh [HPMON]   HPMON defaults to build/hpmon
#   RUNS=N                      hyperfine runs, and pairs of recordings
#                               for the sizes (default 5)
#   EVENT=E                     the sampled event, every 250007 (default
#                               cpu-clock: hpmon's default period, 4 kHz)
#   WORKLOADS=DIR               the test workloads (default next to HPMON)
#   LIBDIR=DIR                  the libhpmon.so the helper links (default
#                               HPMON's build's lib/; any build reads the
#                               profiles of an older one)
#
# Not a test. Needs hyperfine, perf and a C compiler. The machine's load
# is printed first and last: on a shared machine, run it more than once.
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
libdir=${LIBDIR:-$(dirname "$hpmon")/lib}
[ -e "$libdir/libhpmon.so" ] || { echo "timeline.sh: no libhpmon.so in $libdir (set LIBDIR)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export XDG_CACHE_HOME=$out/cache
"${CC:-cc}" -O2 -Wall -Wextra -Werror -I "$here/../include" -o "$out/strip" "$here/timeline-strip.c" \
	-L "$libdir" -lhpmon -Wl,-rpath,"$libdir"
echo "hpmon: $hpmon; load: $(cut -d' ' -f1-3 /proc/loadavg)"

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
	# the sizes: RUNS pairs, each with the timeline and then without
	: >"$out/$name.sizes"
	for i in $(seq "$runs"); do
		"$hpmon" record -q -c 250007 -e "$event" -o "$out/w.prof" -- $work >/dev/null
		"$hpmon" record -q -c 250007 -e "$event" --timeline-interval 0 -o "$out/n.prof" -- \
			$work >/dev/null
		n=$("$out/strip" "$out/w.prof" "$out/s.prof" | awk '{print $2}')
		echo "$(stat -c %s "$out/w.prof") $(stat -c %s "$out/n.prof") $(stat -c %s "$out/s.prof") $n" \
			>>"$out/$name.sizes"
	done
	python3 - "$out/$name.json" "$out/$name.perf.data" "$out/$name.sizes" <<'PY'
import json, os, statistics, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
cpu = {k: r[k]["user"] + r[k]["system"] for k in r}
b, w0, w1, p = cpu["bare"], cpu["without"], cpu["with"], cpu["perf"]
print("CPU s: bare %.3f, hpmon without timeline %.3f, with %.3f, perf record %.3f" % (b, w0, w1, p))
print("  the samples cost %.3f s, the timeline %.3f s more: timeline / samples = %.2f"
      % (w0 - b, w1 - w0, (w1 - w0) / (w0 - b) if w0 > b else float("nan")))
print("  hpmon with the timeline / perf record, extra CPU: %.2f"
      % ((w1 - b) / (p - b) if p > b else float("nan")))
rows = [[int(x) for x in l.split()] for l in open(sys.argv[3])]
sep = [w / n for w, n, s, k in rows]
same = [w / s for w, n, s, k in rows]
per = [(w - s) / k for w, n, s, k in rows if k]
def mmm(v, f="%.3f"):
    return (f + " (" + f + " to " + f + ")") % (statistics.median(v), min(v), max(v))
print("bytes, %d pairs: with the timeline %s, without %s"
      % (len(rows), mmm([x[0] for x in rows], "%d"), mmm([x[1] for x in rows], "%d")))
print("  with / without, separate recordings: %s" % mmm(sep))
print("  with / without, the same recording: %s; %s readings, %s bytes a reading"
      % (mmm(same), mmm([x[3] for x in rows], "%d"), mmm(per, "%.1f") if per else "-"))
sp = os.path.getsize(sys.argv[2])
print("  perf.data %d (hpmon with the timeline / perf = %.3f)" % (sp, statistics.median(x[0] for x in rows) / sp))
PY
}

run one-thread "$wl/ratio" 400000000
run four-threads "$wl/phases" 400 400 4
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
