# SPDX-License-Identifier: MIT
# pmu-guest: --perf
# hpmon against Debian's perf on the same hardware counters: `-x ,` CSV of
# the same layout (same number of columns, the count, unit, event, running
# time and percent in the same places) and exactly the same counts.
. ./lib/check.sh

N=1000000

# perf hands its workload a few variables of its own (PERF_BUILDID_DIR,
# PREFIX, /usr/lib/perf-core on PATH), and a static binary's start-up reads
# the whole environment: to count the same instructions, hpmon runs with
# exactly the environment perf's workload sees.
run penv perf stat -x , -e instructions:u -- env
IFS='
'
# shellcheck disable=SC2046 # one argument per line, by design
set -- $(out penv)
unset IFS
run henv env -i "$@" hpmon stat -x , -e instructions:u -- env
expect_eq same-environment "$(out penv)" "$(out henv)"

run perf perf stat -x , -e instructions:u -- loop $N
run hpmon env -i "$@" hpmon stat -x , -e instructions:u -- loop $N
expect_ok perf-runs perf
expect_ok hpmon-runs hpmon

p=$(csv_lines perf)
h=$(csv_lines hpmon)
both="$(shown perf)
$(shown hpmon)"
expect_eq one-line "1 1" "$(echo "$p" | wc -l) $(echo "$h" | wc -l)" "$both"
expect_eq same-columns "$(echo "$p" | nfields)" "$(echo "$h" | nfields)" "$both"
expect_eq same-count "$(echo "$p" | field 1)" "$(echo "$h" | field 1)" "$both"
expect_eq same-unit "$(echo "$p" | field 2)" "$(echo "$h" | field 2)" "$both"
expect_eq same-event "$(echo "$p" | field 3)" "$(echo "$h" | field 3)" "$both"
expect_eq same-percent "$(echo "$p" | field 5)" "$(echo "$h" | field 5)" "$both"
# Running times differ between any two runs, but both are in ns: the loop
# takes about 3 ms of guest time (one instruction per ns).
bad=$(printf '%s\n%s\n' "$p" "$h" |
	awk -F, '!($4 ~ /^[0-9]+$/ && $4 > 1000000 && $4 < 1000000000) { print "running time: " $4 }')
expect_eq running-time-in-ns "" "$bad" "$both"

# The group of cycles and instructions: the same counts event by event.
run pg perf stat -x , -e '{cycles:u,instructions:u}' -- loop $N
run hg env -i "$@" hpmon stat -x , -e '{cycles:u,instructions:u}' -- loop $N
expect_eq group-same-counts "$(csv_lines pg | cut -d, -f1,3)" \
	"$(csv_lines hg | cut -d, -f1,3)" "$(shown pg)" "$(shown hg)"

# The lane itself: sampling on cycles:u is exact, so perf's samples of the
# twofunc workload split 3 : 1 between heavy() and light(). hpmon's own
# sampling tests build on this.
cd "$SCRATCH" || exit 1
run rec perf record -q -e cycles:u -c 10007 -o "$SCRATCH/perf.data" -- twofunc 1000000
run rep perf report -i "$SCRATCH/perf.data" --stdio --sort sym
heavy=$(out rep | awk '$3 == "heavy" { sub("%", "", $1); print $1 }')
light=$(out rep | awk '$3 == "light" { sub("%", "", $1); print $1 }')
expect "perf-samples-3-to-1" "heavy ${heavy:-?}%, light ${light:-?}%
$(shown rec)
$(shown rep)" awk -v h="${heavy:-0}" -v l="${light:-0}" \
	'BEGIN { exit !(l > 0 && h / l > 2.97 && h / l < 3.03) }'
finish
