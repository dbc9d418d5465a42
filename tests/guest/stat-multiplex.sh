# SPDX-License-Identifier: MIT
# Twice as many events as the PMU has counters (6 general + the cycle
# counter, which counts cycles only): 14 x instructions:u multiplex. Each
# scaled count lands within 1 % of the exact count and reports that it ran
# less than all of the time.
. ./lib/check.sh

N=100000000 # 300M instructions: some 75 rotations of the 4 ms mux timer
NEV=14

run exact hpmon stat -e instructions:u -x, -- loop $N
events=instructions:u
i=1
while [ $i -lt $NEV ]; do
	events=$events,instructions:u
	i=$((i + 1))
done
run mux hpmon stat -e "$events" -x, -- loop $N
expect_ok runs mux

exact=$(csv_lines exact | field 1)
expect_eq all-events-reported $NEV "$(csv_lines mux | grep -c ',instructions:u,')" "$(shown mux)"
if ! is_count "$exact"; then
	fail exact-count "$(shown exact)"
	finish
fi
bad=$(csv_lines mux | awk -F, -v exact="$exact" '
	{ d = ($1 - exact) / exact; if (d < 0) d = -d
	  if ($1 !~ /^[0-9]+$/ || d > 0.01) print "count " $1 " is off by " d * 100 "% from " exact }')
expect_eq scaled-within-1-percent "" "$bad" "$(shown mux)"
bad=$(csv_lines mux | awk -F, '!($5 + 0 > 0 && $5 + 0 < 100) { print "percent running: " $5 }')
expect_eq percent-running-below-100 "" "$bad" "$(shown mux)"
bad=$(csv_lines mux | awk -F, '!($4 ~ /^[0-9]+$/ && $4 > 0) { print "running time: " $4 }')
expect_eq running-time-reported "" "$bad" "$(shown mux)"
finish
