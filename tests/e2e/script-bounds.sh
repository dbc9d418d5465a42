#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What script prints is what the profile holds, frame by frame: a profile
# that repeats a 4096-entry call chain by reference (2 bytes a sample)
# prints 4098 lines a sample, so the 187-byte file of 2000 such samples
# (fuzz/gen-profile.py chains) prints 8,196,000 lines, 327.8 MB
# (docs/hpmon-script.md, "Output size"). The amplification is bounded
# that way and no further: the time is linear in the output, within a
# CPU-time bound, the memory does not grow with it, -G prints a line a
# sample, and script stops at once when its reader goes.
. "$(dirname "$0")/lib.sh"

gen="$SRCDIR/fuzz/gen-profile.py"
[ -f "$gen" ] || fail "no $gen"
asan=false
grep -qa __asan_init "$HPMON" && asan=true
python3 "$gen" chains "$E2E_TMP/c.prof" --samples 2000 >/dev/null
expect_eq "the file's size" 187 "$(stat -c %s "$E2E_TMP/c.prof")"

# run MAX ARGS...: hpmon ARGS, its output counted as it comes (at most MAX
# bytes read, then the pipe is closed); prints the exit status (negative:
# the signal), the lines and bytes read, the max RSS in KiB and the CPU
# seconds
run() {
	python3 - "$E2E_TIMEOUT" "$@" <<'PY'
import resource, subprocess, sys
timeout, limit, cmd = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                     stdin=subprocess.DEVNULL)
lines = size = 0
while size < limit:
    b = p.stdout.read1(1 << 20)
    if not b:
        break
    lines += b.count(b"\n")
    size += len(b)
p.stdout.close()
try:
    rc = p.wait(timeout=timeout)
except subprocess.TimeoutExpired:
    p.kill()
    rc = 124
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print(rc, lines, size, u.ru_maxrss, round(u.ru_utime + u.ru_stime, 2))
PY
}

cpu_max=15
! $asan || cpu_max=90
read -r rc lines size rss cpu <<<"$(run $((1 << 40)) "$HPMON" script -i "$E2E_TMP/c.prof")"
note "all: $lines lines, $size bytes, max RSS $rss KiB, ${cpu}s CPU"
expect_eq "exit status" 0 "$rc"
expect_eq "lines: 4098 a sample" 8196000 "$lines"
expect_eq "bytes" 327800000 "$size"
expect_in "CPU seconds" 0 "$cpu_max" "$cpu"
$asan || expect_in "max RSS (KiB): it does not grow with the output" 0 65536 "$rss"

read -r rc lines size rss cpu <<<"$(run $((1 << 40)) "$HPMON" script -G -i "$E2E_TMP/c.prof")"
expect_eq "-G: exit status" 0 "$rc"
expect_eq "-G: a line a sample" 2000 "$lines"

# the reader goes after 1 MB: script ends (SIGPIPE), having done little
read -r rc lines size rss cpu <<<"$(run $((1 << 20)) "$HPMON" script -i "$E2E_TMP/c.prof")"
note "1 MB read: exit $rc, ${cpu}s CPU"
[ "$rc" -eq -13 ] || [ "$rc" -eq 1 ] || fail "a closed pipe: exit $rc, not SIGPIPE or 1"
expect_in "a closed pipe: CPU seconds" 0 "$($asan && echo 10 || echo 1)" "$cpu"

note "ok"
