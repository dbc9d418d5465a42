#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Software counters (HPM_COUNT/HPM_ADD, -e sw:NAME): exact totals across
# threads, per thread, beside other events, over time with -I, and their
# mask, set by hpmon (--enable/--disable) and switched by the program.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/user-lib.sh"
require_hooks
build_user counters
prog=$E2E_TMP/counters

# 4 threads: (1+2+3+4) * K ticks, 3 bytes each; "masked" counts K/2
K=10000
hpm_ok stat -x, -e sw:ticks,sw:bytes,sw:masked,task-clock -- "$prog" 4 $K
expect_eq "sw:ticks" $((10 * K)) "$(field_of "$E2E_TMP/err" , sw:ticks)"
expect_eq "sw:bytes" $((30 * K)) "$(field_of "$E2E_TMP/err" , sw:bytes)"
expect_eq "sw:masked (the program masks half)" $((K / 2)) "$(field_of "$E2E_TMP/err" , sw:masked)"
expect_in "task-clock beside them" 0.001 100000 "$(field_of "$E2E_TMP/err" , task-clock)"
expect_eq "sw: never multiplexed" "100.00" "$(field_of "$E2E_TMP/err" , sw:ticks 4)"

# the same in a run that does not use a counter
hpm_ok stat -x, -e sw:nothing,sw:ticks -- "$prog" 1 5
expect_eq "a counter the program never used" 0 "$(field_of "$E2E_TMP/err" , sw:nothing)"
expect_eq "sw:ticks, one thread" 5 "$(field_of "$E2E_TMP/err" , sw:ticks)"

# per thread: the main thread has none, thread i has (i+1)*K
hpm_ok stat --per-thread -x, -e sw:ticks,task-clock -- "$prog" 4 $K
expect_eq "per thread" "[0, $K, $((2 * K)), $((3 * K)), $((4 * K))]" \
	"$(csv "$E2E_TMP/err" , "sorted(num(r[1]) for r in ev('sw:ticks'))")"
expect_eq "per thread, names" "['counters']" \
	"$(csv "$E2E_TMP/err" , "sorted(set(r[0].rsplit('-', 1)[0] for r in ev('sw:ticks')))")"
hpm_ok stat --per-process -x, -e sw:ticks -- "$prog" 4 $K
expect_eq "per process" $((10 * K)) "$(csv "$E2E_TMP/err" , "num(ev('sw:ticks')[0][1])")"

# the mask: hpmon sets where the program starts
hpm_ok stat -x, -e sw:ticks,sw:bytes,sw:masked --disable ticks -- "$prog" 2 $K
expect_eq "--disable ticks: ticks" 0 "$(field_of "$E2E_TMP/err" , sw:ticks)"
expect_eq "--disable ticks: bytes" $((9 * K)) "$(field_of "$E2E_TMP/err" , sw:bytes)"
hpm_ok stat -x, -e sw:ticks,sw:bytes,sw:masked --enable bytes -- "$prog" 2 $K
expect_eq "--enable bytes: ticks" 0 "$(field_of "$E2E_TMP/err" , sw:ticks)"
expect_eq "--enable bytes: bytes" $((9 * K)) "$(field_of "$E2E_TMP/err" , sw:bytes)"
# masked starts off; the program switches it on for the last quarter
expect_eq "--enable bytes: masked" $((K / 4)) "$(field_of "$E2E_TMP/err" , sw:masked)"

# over time: -I lines add up to the total, and the counts grow in steps
hpm_ok stat -I 100 -x, -e sw:ticks -- "$prog" 2 20000 300
expect_eq "-I: the lines add up" 60000 "$(csv "$E2E_TMP/err" , "sum(num(r[1]) for r in ev('sw:ticks'))")"
expect_in "-I: lines with counts" 4 100 "$(csv "$E2E_TMP/err" , "len([r for r in ev('sw:ticks') if num(r[1])])")"

# JSON
hpm_ok stat --json -o "$E2E_TMP/c.json" -e sw:ticks -- "$prog" 3 100
expect_eq "JSON" 600 "$(json "$E2E_TMP/c.json" "int(event(j, 'sw:ticks')['count'])")"

# the human table names the counter like any event
hpm_ok stat -e sw:ticks -- "$prog" 1 1234
expect_grep "human output" '^ +1,234 +sw:ticks' "$E2E_TMP/err"
echo "PASS: $E2E_NAME"
