#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# report --timeline as text, exactly: a stat -I JSON file with known
# counts (page faults in the second half only, two threads, a name with
# an escape sequence, one multiplexed interval, a null metric) gives the
# sparklines of tests/data/timeline/, in block characters in a UTF-8
# locale and in ASCII otherwise. A profile of minor version 1 (TIMELINE
# records of the first encoding) gives its text exactly. A profile of an
# older writer (without timeline records) is binned by its samples. Bad input and bad options
# are refused with the reason.
. "$(dirname "$0")/lib.sh"

D=$TESTDATA/timeline
cd "$D" # the header names the file as given
LC_ALL=C.UTF-8 hpm_ok report --timeline -i stat-phases.json
diff -u "$D/stat-phases.utf8" "$E2E_TMP/out" || fail "the UTF-8 sparklines differ (above)"
LC_ALL=C hpm_ok report --timeline -i stat-phases.json
diff -u "$D/stat-phases.ascii" "$E2E_TMP/out" || fail "the ASCII sparklines differ (above)"
expect_no_grep "no escape byte reaches the terminal" $'\x1b' "$E2E_TMP/out"
# -o: a file of its own, 0600
LC_ALL=C hpm_ok report --timeline -i stat-phases.json -o "$E2E_TMP/tl.txt"
diff -u "$D/stat-phases.ascii" "$E2E_TMP/tl.txt" || fail "-o wrote another text"
expect_eq "mode of -o" 600 "$(stat -c %a "$E2E_TMP/tl.txt")"

# a profile of minor version 1 (tests/data/timeline/minor1.prof, recorded
# by hpmon before its TIMELINE records changed encoding: record -c
# 1000003 -e '{cpu-clock,page-faults}' -- phases 40 40 2): its readings
# read, each at its time (that encoding has no span), bin 0 at its first
# record; its group of software events is never multiplexed, so no line
# says scaled, whatever the readings' enabled and running times
LC_ALL=C.UTF-8 hpm_ok report --timeline -i minor1.prof
diff -u "$D/minor1.utf8" "$E2E_TMP/out" || fail "minor version 1's timeline differs (above)"

# a profile written before the timeline existed: its samples, by time
hpm_ok report --timeline -i "$SRCDIR/fuzz/corpus/profile/seed-pagefaults"
expect_grep "an old profile: binned samples" "^# timeline of .*: sample periods by time" "$E2E_TMP/out"
expect_grep "an old profile: its total" "^  all .* total 53$" "$E2E_TMP/out"

# refusals
printf '{"time_ns":1}\n{oops\n' >"$E2E_TMP/bad.json"
hpm report --timeline -i "$E2E_TMP/bad.json"
expect_eq "a broken stat file: status" 1 "$HPM_STATUS"
expect_grep "a broken stat file: where" "'.*bad.json', line 2:" "$E2E_TMP/err"
hpm report --timeline -i /etc/hostname
expect_eq "not a profile: status" 1 "$HPM_STATUS"
hpm report --timeline --json -i stat-phases.json
expect_eq "--timeline with --json: status" 129 "$HPM_STATUS"
expect_grep "--timeline with --json: why" "a format of its own" "$E2E_TMP/err"
hpm record --timeline-interval 5x -- true
expect_eq "--timeline-interval 5x: status" 129 "$HPM_STATUS"
expect_grep "--timeline-interval 5x: why" "milliseconds from 0" "$E2E_TMP/err"
exit 0
