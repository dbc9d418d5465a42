# SPDX-License-Identifier: MIT
# Lost samples are counted and said with their share, as perf's "Total
# Lost Samples" and "lost N %": a recorder with a one-page ring buffer,
# sampling at 20 kHz, is stopped (SIGSTOP) for 1.2 s while the workload
# spins on, so that the kernel cannot write most samples of that time.
# The summary, report's header and its JSON must give the same count, and
# share = lost / (lost + written). Then the same for a group (its read
# holds the timeline's timer too, which the count must make room for).
. "$(dirname "$0")/lib.sh"

for spec in task-clock '{task-clock,page-faults}'; do
prof="$E2E_TMP/l.prof"
bg timeout -k 5 "$E2E_TIMEOUT" "$HPMON" record -m 1 -F 20000 -e "$spec" -o "$prof" \
	-- "$WORKLOADS/calltree" 400000000 2>"$E2E_TMP/rec.err"
rec=$BG_PID
wait_for "the recording to start" 10 test -s "$prof"
sleep 0.2
hpmon_pid=$(pgrep -P "$rec" -x hpmon) || fail "no hpmon under timeout $rec"
kill -STOP "$hpmon_pid"
sleep 1.2
kill -CONT "$hpmon_pid"
status=0
wait "$rec" || status=$?
expect_eq "record's exit status" 0 "$status"

written=$(sed -nE 's/^hpmon record: ([0-9]+) samples written.*/\1/p' "$E2E_TMP/rec.err")
line=$(grep -E '^hpmon record: warning: [0-9]+ samples lost' "$E2E_TMP/rec.err") ||
	fail "no lost-sample warning in: $(cat "$E2E_TMP/rec.err")"
note "$line"
read -r lost share taken < <(sed -nE \
	's/^hpmon record: warning: ([0-9]+) samples lost, ([0-9.]+) % of ([0-9]+) taken.*/\1 \2 \3/p' \
	<<<"$line")
[ -n "${taken:-}" ] || fail "cannot read the warning: $line"
expect_in "samples lost" 1 1000000000 "$lost"
expect_eq "taken = written + lost" "$((written + lost))" "$taken"
expect_eq "share = lost / taken" "$(python3 -c "print('%.1f' % (100 * $lost / $taken))")" "$share"

# report's header: the same numbers
hpm_ok report -i "$prof"
expect_grep "report's header" "^# warning: $lost samples lost while recording, $share % of $taken taken" \
	"$E2E_TMP/out"
head -n 5 "$E2E_TMP/out" | grep -q "samples lost" || fail "the lost samples are not in the header"
hpm_ok report -i "$prof" --json
cp "$E2E_TMP/out" "$E2E_TMP/rep.json"
expect_eq "JSON lost_samples" "$lost" "$(json "$E2E_TMP/rep.json" "j['lost_samples']")"
expect_eq "JSON share" "$share" "$(json "$E2E_TMP/rep.json" "'%.1f' % j['lost_samples_percent']")"
expect_eq "JSON samples written" "$written" "$(json "$E2E_TMP/rep.json" "j['events'][0]['samples']")"
done
