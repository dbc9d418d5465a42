#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# diff against report: `hpmon diff A B` of two profiles of ROWS distinct
# functions each, against `hpmon report` of A and of B, which read the same
# files. diff compares rows by (symbol, object) by sorting them, so it
# should cost about the two reports: prints the CPU time (user + sys) of
# each and the ratio diff / (report A + report B); the goal is under 1.5.
# The profiles are crafted (fuzz/gen-profile.py rows: SAMPLES samples
# spread at random over ROWS addresses of one object, each its own row).
# Past report's memory cap (64 MiB and 4 times the records' size, see
# docs/hpmon-report.md) the rows fold into one; the script says when.
#
#   bench/diff.sh [HPMON]        HPMON defaults to build/hpmon
#   ROWS=N                       distinct rows (default 60000)
#   SAMPLES=N                    samples per profile (default 10 x ROWS)
#
# Not a test: its numbers depend on the machine. Needs python3.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
hpmon=${1:-$here/../build/hpmon}
rows=${ROWS:-60000}
samples=${SAMPLES:-$((rows * 10))}

[ -x "$hpmon" ] || { echo "diff.sh: no hpmon at $hpmon (run make first)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "diff.sh: python3 is needed" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

for s in a b; do
	python3 "$here/../fuzz/gen-profile.py" rows "$out/$s.prof" --samples "$samples" \
		--rows "$rows" --seed "$([ $s = a ] && echo 1 || echo 2)" >/dev/null
done

# cpu ARGS...: CPU seconds (user + sys) of hpmon ARGS, its output dropped
cpu() {
	python3 - "$hpmon" "$@" <<'PY'
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.2f" % (u.ru_utime + u.ru_stime))
PY
}

ra=$(cpu report -i "$out/a.prof")
rb=$(cpu report -i "$out/b.prof")
d=$(cpu diff "$out/a.prof" "$out/b.prof")
n=$("$hpmon" diff "$out/a.prof" "$out/b.prof" 2>"$out/err" | grep -c '^  ' || true)
echo "diff.sh: $n rows compared ($samples samples a profile)"
if grep -q 'memory cap' "$out/err"; then
	echo "  (past report's memory cap: rows folded into \"[memory cap]\"; try fewer ROWS)"
fi
echo "  report A      ${ra}s CPU"
echo "  report B      ${rb}s CPU"
echo "  diff A B      ${d}s CPU"
python3 -c "import sys; a, b, d = map(float, sys.argv[1:]); print('  ratio diff / (report A + report B): %.2f (goal < 1.5)' % (d / max(a + b, 0.01)))" "$ra" "$rb" "$d"
