#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# record --timeline-interval: each thread's counts, read at the interval
# and at its end into TIMELINE records, add up to the thread's count
# exactly. page-faults sampled at every fault gives each thread's exact
# count in the same run (its samples): the timeline's total of every
# thread, the first one too (whose last counts are read at the end),
# equals it, for threads one after the other (threads) and side by side
# on both CPUs (phases). A group member that never samples is counted by
# the timeline alone: two runs with N and 2N pages differ by exactly the
# work of each thread. A run whose page faults come in its second half
# shows none in its first. --timeline-interval 0 writes none.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record-lib.sh"

# tid_samples TID: the samples of thread TID in $E2E_TMP/rep.json
tid_samples() {
	json "$E2E_TMP/rep.json" "sum(r['events'][0]['samples'] for r in j['rows'] if r['tid'] == $1)"
}
# same_as_samples PROFILE WHAT TASKS...: for each "comm/tid", the
# timeline's page faults are the thread's samples
same_as_samples() {
	local prof=$1 what=$2 t
	shift 2
	hpm_ok report --timeline -i "$prof"
	cp "$E2E_TMP/out" "$E2E_TMP/tl.txt"
	expect_grep "$what: from the records" "^# timeline of .*: counts read per thread" "$E2E_TMP/tl.txt"
	report_json "$prof" -s tid
	for t in "$@"; do
		expect_eq "$what: page faults of $t" "$(tid_samples "${t##*/}")" \
			"$(tl_total "$E2E_TMP/tl.txt" page-faults "$t")"
	done
}

hpm record -q -e page-faults -o "$E2E_TMP/probe.prof" -- true
[ "$HPM_STATUS" -eq 0 ] || skip "cannot sample page-faults here: $(head -1 "$E2E_TMP/err")"
hpm report --timeline -i "$E2E_TMP/probe.prof"
grep -q "counts read per thread" "$E2E_TMP/out" ||
	skip "no timeline on this kernel (PERF_SAMPLE_READ with inherit needs Linux 6.12): $(grep timeline "$E2E_TMP/err")"

# threads one after the other; main thread, worker-0, worker-1
hpm_norand_ok record -q -e page-faults -o "$E2E_TMP/t.prof" -- "$WORKLOADS/threads" 2 0 300
read -r _ _ pid _ < <(grep '^main ' "$E2E_TMP/out")
read -r _ _ _ w0 _ < <(grep '^worker 0 ' "$E2E_TMP/out")
read -r _ _ _ w1 _ < <(grep '^worker 1 ' "$E2E_TMP/out")
same_as_samples "$E2E_TMP/t.prof" "threads" "threads/$pid" "worker-0/$w0" "worker-1/$w1"
expect_eq "threads: all" "$(json "$E2E_TMP/rep.json" "j['events'][0]['samples']")" \
	"$(tl_total "$E2E_TMP/tl.txt" page-faults all)"

# two threads side by side, on both CPUs, while the first one waits
hpm_norand_ok record -q -e page-faults -o "$E2E_TMP/p.prof" -- "$WORKLOADS/phases" 100 200 2
hpm_ok report --timeline -i "$E2E_TMP/p.prof"
labels=$(awk '/^[^ #]/ { cur = $1 } cur == "page-faults" && $1 ~ /^phase/ { print $1 }' "$E2E_TMP/out")
expect_eq "phases: three threads" 3 "$(wc -w <<<"$labels")"
same_as_samples "$E2E_TMP/p.prof" "phases" $labels

# a group member, read by the timeline only: N and 2N pages
for n in 200 400; do
	hpm_norand_ok record -q -e '{cpu-clock,page-faults}' -o "$E2E_TMP/g$n.prof" -- \
		"$WORKLOADS/threads" 2 0 $n
	hpm_ok report --timeline -i "$E2E_TMP/g$n.prof"
	for i in 0 1; do
		eval "pf${n}_$i=\$(awk -v w=worker-$i '/^[^ #]/ { cur = \$1 } cur == \"page-faults\" && index(\$1, w \"/\") == 1 { for (i = 1; i < NF; i++) if (\$i == \"total\") print \$(i + 1) }' \"\$E2E_TMP/out\")"
	done
done
expect_eq "worker-0's share, read by the timeline" 200 $((pf400_0 - pf200_0))
expect_eq "worker-1's share, read by the timeline" 400 $((pf400_1 - pf200_1))

# page faults in the second half only: the first third shows none (after
# the first columns, which hold the program's start spread over its first
# reading's span: 10 ms of CPU, longer on a loaded machine), the second
# half some
hpm_norand_ok record -q -e page-faults -o "$E2E_TMP/h.prof" -- "$WORKLOADS/phases" 300 200
hpm_ok report --timeline -i "$E2E_TMP/h.prof"
python3 - "$E2E_TMP/out" <<'PY' || fail "the shape of the phases:
$(cat "$E2E_TMP/out")"
import sys
lines = open(sys.argv[1], encoding='utf-8').read().split('\n')
start = lines[-2].index('0')                   # the axis: where the columns start
spark = next(l for l in lines if l.startswith('  all '))[start:]
spark = spark[:spark.index('  min ')]
n = len(spark)
assert n >= 6, spark
first = spark[max(2, n // 8):n // 3]
assert first.strip() == '', 'page faults in the first third: %r' % spark
assert spark[n // 2:].strip() != '', 'none in the second half: %r' % spark
PY

# --timeline-interval 0: no timeline records, the samples binned instead
hpm_ok record -q --timeline-interval 0 -e page-faults -o "$E2E_TMP/n.prof" -- "$WORKLOADS/pages" 10
hpm_ok report --timeline -i "$E2E_TMP/n.prof"
expect_grep "--timeline-interval 0" "^# timeline of .*: sample periods by time" "$E2E_TMP/out"
exit 0
