# SPDX-License-Identifier: MIT
# Samples keep the pid and tid of threads and child processes: each of
# spinners' tasks gets its own rows, under its own ids and name.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record-lib.sh"

hpm_ok record -q -e cpu-clock -o "$E2E_TMP/t.prof" -- "$WORKLOADS/spinners" 30000000
cp "$E2E_TMP/out" "$E2E_TMP/ids"
child=$(awk '$1 == "child" { print $2 }' "$E2E_TMP/ids")
read -r _ pid1 tid1 < <(grep '^t1 ' "$E2E_TMP/ids")
read -r _ pid2 tid2 < <(grep '^t2 ' "$E2E_TMP/ids")
report_json "$E2E_TMP/t.prof" --sort pid,tid,comm,sym
# The name with most of a function's samples, per pid/tid. A few samples
# taken around a thread's rename may carry its old name: the recorder
# writes per-CPU buffers in drain order, so a sample from one CPU can come
# before the rename record from another (docs/hpmon-record.md).
row() { json "$E2E_TMP/rep.json" "(lambda rs: sorted(set('%d/%d/%s' % (r['pid'], r['tid'], max((x for x in rs if x['tid'] == r['tid']), key=lambda x: x['events'][0]['samples'])['comm']) for r in rs)))([r for r in j['rows'] if r['sym'] == '$1' and r['events'][0]['samples'] > 10])"; }
expect_eq "the child's samples" "['$child/$child/spin-child']" "$(row spin_child)"
expect_eq "thread 1's samples" "['$pid1/$tid1/spin-t1']" "$(row spin_t1)"
expect_eq "thread 2's samples" "['$pid2/$tid2/spin-t2']" "$(row spin_t2)"
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
