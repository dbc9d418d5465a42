# SPDX-License-Identifier: MIT
# Lost samples are counted and said with their share, as perf's "Total
# Lost Samples" and "lost N %": a recorder with a one-page ring buffer,
# sampling at 20 kHz, is stopped (SIGSTOP) while the workload spins, so
# that the kernel cannot write most samples of that time. The summary,
# report's header and its JSON must give the same count, and share = lost
# / (lost + written). Then the same for a group (its read holds the
# timeline's timer too, which the count must make room for).
#
# The workload (sleeper -w -s) waits for SIGUSR1 and then spins for a
# fixed time of the wall clock, so the run is as long on a loaded or slow
# machine as on an idle one; it is started only once the recorder is
# stopped, so the spinning and the stop overlap however late this script
# runs. Every wait is bounded by E2E_TIMEOUT, which lib.sh scales with the
# load.
. "$(dirname "$0")/lib.sh"

# 20 kHz, or the kernel's limit where it is lower: a one-page buffer
# fills in well under the stop at any rate the kernel allows
freq=20000
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null || echo "$freq")
[ "$max" -ge "$freq" ] || freq=$max
[ "$freq" -ge 1000 ] || skip "the kernel allows $freq samples a second (kernel.perf_event_max_sample_rate): too few to fill a buffer in a second"

for spec in task-clock '{task-clock,page-faults}'; do
prof="$E2E_TMP/l.prof"
rm -f "$prof"
bg timeout -k 5 "$E2E_TIMEOUT" "$HPMON" record -m 1 -F "$freq" -e "$spec" -o "$prof" \
	-- "$WORKLOADS/sleeper" -w -s 1500 >"$E2E_TMP/rec.out" 2>"$E2E_TMP/rec.err"
rec=$BG_PID
# the workload is ready for its signal once it says so
wait_for "the workload to start" "$E2E_TIMEOUT" grep -qx ready "$E2E_TMP/rec.out"
hpmon_pid=$(pgrep -P "$rec" -x hpmon) || fail "no hpmon under timeout $rec"
sleeper=$(descendant "$hpmon_pid" sleeper) || fail "no sleeper under hpmon $hpmon_pid"
kill -STOP "$hpmon_pid"
kill -USR1 "$sleeper"
sleep 1.2
kill -CONT "$hpmon_pid"
status=0
wait "$rec" || status=$?
[ "$status" -ne 124 ] || fail "$spec: the recording took longer than ${E2E_TIMEOUT}s: $(cat "$E2E_TMP/rec.err")"
expect_eq "$spec: record's exit status" 0 "$status"

written=$(sed -nE 's/^hpmon record: ([0-9]+) samples written.*/\1/p' "$E2E_TMP/rec.err")
line=$(grep -E '^hpmon record: warning: [0-9]+ samples lost' "$E2E_TMP/rec.err") ||
	fail "$spec: no lost-sample warning in: $(cat "$E2E_TMP/rec.err")"
note "$spec: $line"
read -r lost share taken < <(sed -nE \
	's/^hpmon record: warning: ([0-9]+) samples lost, ([0-9.]+) % of ([0-9]+) taken.*/\1 \2 \3/p' \
	<<<"$line")
[ -n "${taken:-}" ] || fail "cannot read the warning: $line"
expect_in "$spec: samples lost" 1 1000000000 "$lost"
expect_eq "$spec: taken = written + lost" "$((written + lost))" "$taken"
expect_eq "$spec: share = lost / taken" "$(python3 -c "print('%.1f' % (100 * $lost / $taken))")" "$share"

# report's header: the same numbers
hpm_ok report -i "$prof"
expect_grep "$spec: report's header" "^# warning: $lost samples lost while recording, $share % of $taken taken" \
	"$E2E_TMP/out"
head -n 5 "$E2E_TMP/out" | grep -q "samples lost" || fail "$spec: the lost samples are not in the header"
hpm_ok report -i "$prof" --json
cp "$E2E_TMP/out" "$E2E_TMP/rep.json"
expect_eq "$spec: JSON lost_samples" "$lost" "$(json "$E2E_TMP/rep.json" "j['lost_samples']")"
expect_eq "$spec: JSON share" "$share" "$(json "$E2E_TMP/rep.json" "'%.1f' % j['lost_samples_percent']")"
expect_eq "$spec: JSON samples written" "$written" "$(json "$E2E_TMP/rep.json" "j['events'][0]['samples']")"
done
echo "PASS: $E2E_NAME"
