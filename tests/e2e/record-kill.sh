# SPDX-License-Identifier: MIT
# A recorder killed with SIGKILL leaves a file that reads up to its last
# complete chunk; the report says it was cut and lists what it holds.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record-lib.sh"

"$HPMON" record -q -e cpu-clock -o "$E2E_TMP/k.prof" -- "$WORKLOADS/ratio" 4000000000 \
	>/dev/null 2>&1 &
rec=$!
E2E_BG_PIDS="$rec"
# wait for 1.5 s of the workload's CPU time, not of the clock: on a loaded
# machine 3 s of waiting gave it too little to sample (at most 60 s)
victim=
for _ in $(seq 600); do
	sleep 0.1
	[ -n "$victim" ] || victim=$(pgrep -P "$rec" || true)
	[ -n "$victim" ] || continue
	ticks=$(awk '{ print $14 + $15 }' "/proc/$victim/stat" 2>/dev/null || echo 0)
	[ "$ticks" -ge $((3 * $(getconf CLK_TCK) / 2)) ] && break
done
kill -KILL "$rec"
wait "$rec" 2>/dev/null || true
[ -n "$victim" ] && kill "$victim" 2>/dev/null || true
[ -s "$E2E_TMP/k.prof" ] || fail "the killed recorder left no file"
hpm_ok report -i "$E2E_TMP/k.prof"
expect_grep "cut is reported" 'warning: the profile is incomplete: .*without its end record' "$E2E_TMP/out"
report_json "$E2E_TMP/k.prof"
expect_eq "json says incomplete" False "$(json "$E2E_TMP/rep.json" "j['complete']")"
n=$(json "$E2E_TMP/rep.json" "j['events'][0]['samples']")
note "$n samples before the kill"
expect_in "samples of the first seconds" 2000 20000 "$n"
# the first round's work6 runs for seconds: most samples are there
expect_in "work6 share so far" 50 100 "$(pct work6)"
# every user-space sample is in the workload's functions but for a few of
# the start-up (the loader, main); the others are kernel samples: the
# interrupts taken while the workload ran, about 0.5 % on an idle machine,
# 3.1 % seen at load 10, 10 to 17 % while a compiler ran beside, more the
# busier the machine's devices are, so they are bounded apart, loosely: a
# reader that misfiled user samples as kernel ones would show there
user=$(json "$E2E_TMP/rep.json" "sum(r['events'][0]['samples'] for r in j['rows'] if r.get('dso') != '[kernel.kallsyms]')")
work=$(json "$E2E_TMP/rep.json" "sum(r['events'][0]['samples'] for r in j['rows'] if r.get('sym') in ('work6', 'work3', 'work1'))")
note "$work samples in the workload's functions, $user in user space, of $n"
expect_in "user-space samples outside the workload's functions" 0 20 "$((user - work))"
expect_in "kernel samples, percent" 0 30 "$(python3 -c "print(100 * ($n - $user) / $n)")"
