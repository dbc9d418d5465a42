#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Regions (hpm_region_begin/end under hpmon stat --regions): a region
# entered K times, with page faults inside counted exactly, per thread
# and in total; nesting; an end without a begin and a region left open
# flagged; the table in CSV, JSON and human form.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/user-lib.sh"
require_hooks
build_user regions
prog=$E2E_TMP/regions

# region NAME THREAD FIELD [EVENT]: from the CSV region lines of EVENT
# (default page-faults) of thread THREAD ('' for all rows)
#   region,NAME,THREAD,CALLS,COUNT,EVENT,PCT,FLAGS
region() {
	csv "$E2E_TMP/err" , "[r[$3] for r in rows if r[0] == 'region' and r[1] == '$1' and r[5] == '${4:-page-faults}' and ('$2' == '' or r[2] == '$2')]"
}

# main and 2 threads; K=7 steps of 2*P pages, inner P of them
K=7
P=30
hpm_ok stat --regions -x, -e page-faults -- "$prog" $K $P 2
expect_eq "step: calls per thread" "['$K', '$K', '$K', '$((3 * K))']" "$(region step '' 3)"
expect_eq "step: page faults per thread" "['$((2 * P * K))', '$((2 * P * K))', '$((2 * P * K))', '$((6 * P * K))']" \
	"$(region step '' 4)"
expect_eq "inner: page faults per thread" "['$((P * K))', '$((P * K))', '$((P * K))', '$((3 * P * K))']" \
	"$(region inner '' 4)"
expect_eq "step: the total row" "['$((6 * P * K))']" "$(region step all 4)"
expect_eq "the event" "['page-faults']" "$(csv "$E2E_TMP/err" , "sorted(set(r[5] for r in rows if r[0] == 'region'))")"
expect_eq "orphan: flagged" "['unmatched-end']" "$(region orphan '' 7)"
expect_eq "open: flagged" "['open-at-end']" "$(region open '' 7)"
expect_eq "step: not flagged" "['', '', '', '']" "$(region step '' 7)"

# the same, exactly, in another run with other numbers
hpm_ok stat --regions -x, -e page-faults,sw:nothing -- "$prog" 3 11
expect_eq "step, one thread" "['66']" "$(region step '' 4)"
expect_eq "a software counter as a region event" "['0']" "$(region step '' 4 sw:nothing)"

# several events: each its own column; a clock in msec in the table
hpm_ok stat --regions -e page-faults,task-clock -- "$prog" 2 5
expect_grep "human: header" '^  region +thread +calls +count +event$' "$E2E_TMP/err"
expect_grep "human: step" '^  step +regions-[0-9]+ +2 +20 +page-faults$' "$E2E_TMP/err"
expect_grep "human: clock" '^  step +regions-[0-9]+ +2 +[0-9.]+ msec +task-clock$' "$E2E_TMP/err"
expect_grep "human: flags" '^  orphan .*unmatched-end' "$E2E_TMP/err"

# JSON: the counts, then one object with the regions
hpm_ok stat --regions --json -o "$E2E_TMP/r.json" -e page-faults -- "$prog" 4 10 1
expect_eq "JSON regions" "[80, 80]" \
	"$(json "$E2E_TMP/r.json" "[e['events'][0]['raw_count'] for e in j['regions'] if e['region'] == 'step' and e['thread'] != 'all']")"
expect_eq "JSON flags" "['unmatched-end']" \
	"$(json "$E2E_TMP/r.json" "[e['flags'] for e in j['regions'] if e['region'] == 'orphan'][0]")"
expect_eq "JSON counts first" 2 "$(json "$E2E_TMP/r.json" "len(js)")"

# without --regions the program's regions cost nothing and show nothing
hpm_ok stat -x, -e page-faults -- "$prog" 2 5
expect_no_grep "no --regions, no table" '^region' "$E2E_TMP/err"
echo "PASS: $E2E_NAME"
