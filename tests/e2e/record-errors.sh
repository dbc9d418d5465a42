# SPDX-License-Identifier: MIT
# Damaged, truncated and foreign files give errors, never crashes; rates
# that would swamp the machine are refused with the limit and the way out.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record-lib.sh"

hpm_ok record -q -e cpu-clock -o "$E2E_TMP/ok.prof" -- "$WORKLOADS/ratio" 20000000
size=$(stat -c %s "$E2E_TMP/ok.prof")

# not a profile
echo "hello" >"$E2E_TMP/text"
hpm report -i "$E2E_TMP/text"
expect_eq "foreign file status" 1 "$HPM_STATUS"
expect_grep "foreign file message" 'not an hpmon profile' "$E2E_TMP/err"
hpm report -i "$E2E_TMP/missing"
expect_eq "missing file status" 1 "$HPM_STATUS"

# every truncation: exit 0 (what was read) or 1, never a signal
for cut in 1 8 23 24 40 100 $((size / 2)) $((size - 30)) $((size - 1)); do
	head -c $cut "$E2E_TMP/ok.prof" >"$E2E_TMP/cut.prof"
	hpm report -i "$E2E_TMP/cut.prof"
	[ "$HPM_STATUS" -le 1 ] || fail "truncated at $cut: exit $HPM_STATUS: $(cat "$E2E_TMP/err")"
done
head -c $((size - 30)) "$E2E_TMP/ok.prof" >"$E2E_TMP/cut.prof"
hpm_ok report -i "$E2E_TMP/cut.prof"
expect_grep "truncation said" 'incomplete: the file is cut at byte' "$E2E_TMP/out"

# flipped bytes
python3 - "$E2E_TMP/ok.prof" "$E2E_TMP" <<'PY'
import random, sys
data = open(sys.argv[1], "rb").read()
rnd = random.Random(7)
for i in range(40):
    b = bytearray(data)
    for _ in range(1 + i % 4):
        p = rnd.randrange(len(b))
        b[p] ^= 1 << rnd.randrange(8)
    open("%s/bad%02d.prof" % (sys.argv[2], i), "wb").write(b)
PY
for f in "$E2E_TMP"/bad*.prof; do
	hpm report -i "$f"
	[ "$HPM_STATUS" -le 1 ] || fail "$(basename "$f"): exit $HPM_STATUS: $(cat "$E2E_TMP/err")"
done

# rates
hpm record -e cpu-clock -c 1000 -o "$E2E_TMP/x.prof" -- true
expect_eq "too small a period" 129 "$HPM_STATUS"
expect_grep "limit and override" 'perf_event_max_sample_rate.*--force|--force.*perf_event_max_sample_rate' "$E2E_TMP/err"
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
hpm record -F $((max * 2)) -o "$E2E_TMP/x.prof" -- true
expect_eq "too high a frequency" 129 "$HPM_STATUS"
expect_grep "frequency limit" "limit of $max samples" "$E2E_TMP/err"

# options
hpm report -i "$E2E_TMP/ok.prof" --sort nonsense
expect_eq "bad sort key" 129 "$HPM_STATUS"
hpm record -o "$E2E_TMP/x.prof"
expect_eq "nothing to record" 129 "$HPM_STATUS"
hpm record -q -o "$E2E_TMP/x.prof" -- /nonexistent/program
expect_eq "command not found" 127 "$HPM_STATUS"
hpm record -q -o "$E2E_TMP/x.prof" -- sh -c 'exit 7'
expect_eq "exit status passes through" 7 "$HPM_STATUS"
