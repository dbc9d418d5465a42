#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# hpmon merge of N rank files, against jq doing less on the same files.
# One real `hpmon stat --json` file (page-faults, task-clock and the ipc
# metric, as a rank of 4 would write under mpirun) is copied to N files
# with ranks 0..N-1 and a rank-dependent count. Prints, from /usr/bin/time
# -v, the elapsed time, the CPU time and the peak memory (maximum resident
# set) of:
#   hpmon merge --json FILES      the table, the figures, the missing ranks
#   jq -s '<total per event>'     the reference: jq slurps every file and
#                                 sums each event's count (no min/max/ranks)
# and the ratios hpmon / jq. Then hpmon merge's peak memory for N/10 and N
# files: it reads one file at a time, so memory grows with the table only.
#
#   bench/merge.sh [HPMON]     HPMON defaults to build/hpmon
#   N=1000                     number of rank files
#
# Not a test: its numbers depend on the machine. Needs python3, jq and
# GNU time (/usr/bin/time).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
hpmon=${1:-$here/../build/hpmon}
n=${N:-1000}

[ -x "$hpmon" ] || { echo "merge.sh: no hpmon at $hpmon (run make first)" >&2; exit 1; }
for t in python3 jq /usr/bin/time; do
	command -v "$t" >/dev/null || { echo "merge.sh: $t is needed" >&2; exit 1; }
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=4 "$hpmon" stat -e page-faults,task-clock -M ipc \
	--json -o "$out/one.json" -- true
mkdir "$out/a" "$out/b"
python3 - "$out" "$n" <<'PY'
import json, sys
out, n = sys.argv[1], int(sys.argv[2])
j = json.load(open(out + "/one.json"))
for d, count in (("a", n), ("b", max(1, n // 10))):
    for r in range(count):
        j["rank"], j["size"] = r, count
        j["events"][0]["count"] = 1000 + 7 * r
        with open("%s/%s/stat.%d.json" % (out, d, r), "w") as f:
            json.dump(j, f)
PY
size=$(du -sk "$out/a" | cut -f1)

# measure NAME CMD...: "elapsed_s cpu_s max_rss_kib" of CMD, output dropped
measure() {
	shift
	/usr/bin/time -v -o "$out/time" "$@" >/dev/null 2>&1 || true
	awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); e = t[n] + (n > 1 ? 60 * t[n-1] : 0) }
		/User time/ { u = $2 } /System time/ { s = $2 }
		/Maximum resident/ { m = $2 }
		END { printf "%.3f %.3f %d\n", e, u + s, m }' "$out/time"
}

cd "$out/a"
files=(stat.*.json)
read -r he hc hm < <(measure hpmon "$hpmon" merge --json "${files[@]}")
read -r je jc jm < <(measure jq jq -s \
	'[.[].events[]] | group_by(.name) | map({name: .[0].name, total: (map(.count // 0) | add)})' \
	"${files[@]}")
cd "$out/b"
small=(stat.*.json)
read -r _ _ sm < <(measure hpmon "$hpmon" merge --json "${small[@]}")

printf 'merge of %d rank files (%d KiB in all), /usr/bin/time -v:\n' "$n" "$size"
printf '  %-32s %8s s elapsed %8s s CPU %8s KiB peak\n' "hpmon merge --json" "$he" "$hc" "$hm"
printf '  %-32s %8s s elapsed %8s s CPU %8s KiB peak\n' "jq -s (totals only)" "$je" "$jc" "$jm"
python3 -c "
hc, jc, hm, jm = $hc, $jc, $hm, $jm
print('  ratio hpmon / jq: CPU %s, peak memory %.2f' % ('%.2f' % (hc / jc) if jc > 0 else 'n/a', hm / jm))"
printf '  hpmon merge peak memory: %d KiB for %d files, %d KiB for %d\n' "$sm" "${#small[@]}" "$hm" "$n"
