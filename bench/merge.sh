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
# Then profiles: one real `hpmon record` profile (page faults, -c 1, of
# tests/workloads/pages, as a rank of N would write it) copied to N rank
# files (the header's rank rewritten), and
#   hpmon merge -o job.prof FILES   every file checked, then copied, its
#                                   tasks renumbered apart
#   hpmon convert -i job.prof       the reference: the same records read
#                                   and written in one stream, as one file
# with the ratio merge / convert (the cost of N files over one), and merge's
# peak memory for 10, 100 and N files (PROFILE_COUNTS) to show it does not
# grow with the ranks.
#
#   bench/merge.sh [HPMON]     HPMON defaults to build/hpmon
#   N=1000                     number of rank files
#   PROFILE_COUNTS="10 100"    the smaller merges of profiles measured too
#   PAGES=2000                 pages the recorded workload touches: samples a rank
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

# ---- profiles ----
pages=$here/../build/tests/workloads/pages
[ -x "$pages" ] || { echo "merge.sh: no $pages (run make first)" >&2; exit 1; }
OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=$n "$hpmon" record -q -e page-faults -c 1 \
	-o "$out/one.prof" -- "$pages" "${PAGES:-2000}"
mkdir "$out/p"
# rank_copies FILE DIR N: N copies of profile FILE with ranks 0..N-1 of N
# (docs/profile-format.md: the header block's keys 9 and 10, and its sum)
rank_copies() {
	python3 - "$@" <<'PY'
import struct, sys
src, d, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(src, "rb").read()
mlen = struct.unpack_from("<I", data, 12)[0]
meta, rest = data[24:24 + mlen], data[24 + mlen:]
def var(b, i):
    v = s = 0
    while True:
        c = b[i]; i += 1; v |= (c & 0x7f) << s; s += 7
        if not c & 0x80:
            return v, i
def put(v):
    o = bytearray()
    while True:
        c = v & 0x7f; v >>= 7
        o.append(c | (0x80 if v else 0))
        if not v:
            return bytes(o)
pairs, i = [], 0
while i < len(meta):
    k, i = var(meta, i)
    if k & 1:
        ln, i = var(meta, i); pairs.append((k, meta[i:i + ln])); i += ln
    else:
        v, i = var(meta, i); pairs.append((k, v))
for r in range(n):
    m = b""
    for k, v in pairs:
        if k >> 1 == 9: v = r
        if k >> 1 == 10: v = n
        m += put(k) + (put(len(v)) + v if k & 1 else put(v))
    h = 2166136261
    for c in m:
        h = ((h ^ c) * 16777619) & 0xffffffff
    hdr = data[:12] + struct.pack("<III", len(m), h, 0)
    open("%s/prof.%d" % (d, r), "wb").write(hdr + m + rest)
PY
}
rank_copies "$out/one.prof" "$out/p" "$n"
psize=$(du -sk "$out/p" | cut -f1)
cd "$out/p"
pfiles=(prof.*)
read -r me mc mm < <(measure merge "$hpmon" merge -q -o "$out/job.prof" "${pfiles[@]}")
read -r ce cc cm < <(measure convert "$hpmon" convert -q -i "$out/job.prof" -o "$out/copy.prof")
printf '\nmerge of %d rank profiles (%d KiB in all; each %d bytes, %s samples), /usr/bin/time -v:\n' \
	"$n" "$psize" "$(stat -c %s "$out/one.prof")" \
	"$("$hpmon" report -i "$out/one.prof" --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"][0]["samples"])')"
printf '  %-32s %8s s elapsed %8s s CPU %8s KiB peak\n' "hpmon merge -o job.prof" "$me" "$mc" "$mm"
printf '  %-32s %8s s elapsed %8s s CPU %8s KiB peak\n' "hpmon convert (one stream)" "$ce" "$cc" "$cm"
python3 -c "
mc, cc, mm, cm = $mc, $cc, $mm, $cm
print('  ratio merge / convert: CPU %s, peak memory %.2f' % ('%.2f' % (mc / cc) if cc > 0 else 'n/a', mm / cm))"
for k in ${PROFILE_COUNTS:-10 100}; do
	[ "$k" -lt "$n" ] || continue
	read -r _ kc km < <(measure merge "$hpmon" merge -q -o "$out/k.prof" "${pfiles[@]:0:$k}")
	printf '  hpmon merge of %5d profiles: %8s s CPU %8s KiB peak\n' "$k" "$kc" "$km"
done
printf '  hpmon merge of %5d profiles: %8s s CPU %8s KiB peak\n' "$n" "$mc" "$mm"
