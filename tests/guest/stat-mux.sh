# SPDX-License-Identifier: MIT
# hpmon's own rotation (stat --mux hpmon): 14 x instructions:u on 6
# counters are put on the counters in sets, in turn; each scaled count
# lands within 1 % of the exact count of a uniform loop and says it ran
# less than all of the time: about a third, as each of the three sets. (bench/mux-coverage.sh measures how its
# uncertainty covers the error, against the kernel's rotation.)
. ./lib/check.sh

N=100000000
events=instructions:u
i=1
while [ $i -lt 14 ]; do events=$events,instructions:u; i=$((i + 1)); done
run exact hpmon stat -e instructions:u -x, -- loop $N
run mux hpmon stat --mux hpmon --mux-seed 7 -e "$events" -x, -- loop $N
expect_ok runs mux
exact=$(csv_lines exact | field 1)
if ! is_count "$exact"; then
	fail exact-count "$(shown exact)"
	finish
fi
expect_eq all-events-reported 14 "$(csv_lines mux | grep -c ',instructions:u,')" "$(shown mux)"
bad=$(csv_lines mux | awk -F, -v exact="$exact" '
	{ d = ($1 - exact) / exact; if (d < 0) d = -d
	  if ($1 !~ /^[0-9]+$/ || d > 0.01) print "count " $1 " is off by " d * 100 "% from " exact }')
expect_eq scaled-within-1-percent "" "$bad" "$(shown mux)"
bad=$(csv_lines mux | awk -F, '!($5 + 0 > 0 && $5 + 0 < 100) { print "percent running: " $5 }')
expect_eq percent-running-below-100 "" "$bad" "$(shown mux)"
# three sets (6 + 6 + 2 events) in turn with one dwell per cycle: each
# event on a counter about a third of the time (the kernel's rotation
# before the first switch, a millisecond, aside)
bad=$(csv_lines mux | awk -F, '!($5 + 0 > 25 && $5 + 0 < 42) { print "percent running: " $5 }')
expect_eq a-third-each "" "$bad" "$(shown mux)"
run bad hpmon stat --mux sometimes -e instructions:u -- loop 10
expect_eq bad-mux-usage 129 "$(rc bad)" "$(shown bad)"
finish
