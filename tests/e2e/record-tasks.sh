# SPDX-License-Identifier: MIT
# Samples keep the pid and tid of threads and child processes: each of
# spinners' tasks gets its own rows, under its own ids and name. Every
# sample taken after a rename carries the new name, even when the rename
# and the sample were on different CPUs (the recorder merges the CPUs'
# buffers by time).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record-lib.sh"

# 10 kHz: many samples right after each rename
hpm_ok record -q -e cpu-clock -c 100003 -o "$E2E_TMP/t.prof" -- "$WORKLOADS/spinners" 30000000
cp "$E2E_TMP/out" "$E2E_TMP/ids"
child=$(awk '$1 == "child" { print $2 }' "$E2E_TMP/ids")
read -r _ pid1 tid1 < <(grep '^t1 ' "$E2E_TMP/ids")
read -r _ pid2 tid2 < <(grep '^t2 ' "$E2E_TMP/ids")
report_json "$E2E_TMP/t.prof" --sort pid,tid,comm,sym
# Each task runs its spin_* function only after it renamed itself, and
# the recorder writes the records of all CPUs in time order, so every
# sample there carries the new name: one row per function, whatever CPU
# the rename and the samples were on (docs/hpmon-record.md).
row() { json "$E2E_TMP/rep.json" "sorted(set('%d/%d/%s' % (r['pid'], r['tid'], r['comm']) for r in j['rows'] if r['sym'] == '$1'))"; }
expect_eq "the child's samples" "['$child/$child/spin-child']" "$(row spin_child)"
expect_eq "thread 1's samples" "['$pid1/$tid1/spin-t1']" "$(row spin_t1)"
expect_eq "thread 2's samples" "['$pid2/$tid2/spin-t2']" "$(row spin_t2)"
# Under their old name the tasks ran only what comes before the rename
# (the fork or thread start): a few samples at most.
old() { json "$E2E_TMP/rep.json" "sum(r['events'][0]['samples'] for r in j['rows'] if r['tid'] == $1 and r['comm'] == 'spinners')"; }
for t in "$child" "$tid1" "$tid2"; do
	expect_in "samples of task $t under its old name" 0 3 "$(old "$t")"
done
# renames: 40 renames, each on the CPU whose buffer is drained last and
# followed by spinning on the one drained first. spin_a runs only under the
# name ren-a, spin_b only under ren-b: every sample of theirs must say so.
hpm_ok record -q -e cpu-clock -c 100003 -o "$E2E_TMP/r.prof" -- "$WORKLOADS/renames" 40 2000000
report_json "$E2E_TMP/r.prof" --sort comm,sym
names() { json "$E2E_TMP/rep.json" "sorted(set(r['comm'] for r in j['rows'] if r['sym'] == '$1'))"; }
expect_eq "spin_a's names" "['ren-a']" "$(names spin_a)"
expect_eq "spin_b's names" "['ren-b']" "$(names spin_b)"
expect_in "spin_a's samples" 100 100000 "$(samples spin_a)"
expect_in "spin_b's samples" 100 100000 "$(samples spin_b)"
# the child spins twice as long as each thread
report_json "$E2E_TMP/t.prof"
expect_in "child share" 45 55 "$(pct spin_child)"
# filters
report_json "$E2E_TMP/t.prof" --tid "$tid1" --sort tid
expect_eq "--tid keeps one thread" "[$tid1]" "$(json "$E2E_TMP/rep.json" "[r['tid'] for r in j['rows']]")"
report_json "$E2E_TMP/t.prof" --comm spin-child --sort comm
expect_eq "--comm" "['spin-child']" "$(json "$E2E_TMP/rep.json" "[r['comm'] for r in j['rows']]")"
hpm_ok report -i "$E2E_TMP/t.prof" --pid "$child" --csv
expect_grep "--pid and --csv" '^[0-9]+,[0-9]+,[0-9.]+,spin_child,spinners$' "$E2E_TMP/out"
