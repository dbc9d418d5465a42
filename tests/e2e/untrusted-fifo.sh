#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Files that input names are opened only when they are regular files, and
# without blocking: a FIFO named by a profile's MMAP record, by
# --metrics-file, by an exec: location or as the profile itself must not
# hang hpmon (nothing ever writes to it here), and the refusal names the
# file and why.
. "$(dirname "$0")/lib.sh"

E2E_TIMEOUT=10 # a hang is what this test looks for: fail fast
fifo=$E2E_TMP/fifo
mkfifo "$fifo"
why="not a regular file"

# a profile whose one mapping is the FIFO: the samples are counted, by offset
python3 "$SRCDIR/fuzz/gen-profile.py" rows "$E2E_TMP/p.prof" --samples 50 --object "$fifo" >/dev/null
hpm report -i "$E2E_TMP/p.prof"
expect_eq "report of a profile mapping a FIFO: exit" 0 "$HPM_STATUS"
expect_grep "report: every sample" "cpu-clock: 50 samples" "$E2E_TMP/out"
expect_grep "report: the FIFO named" "'$fifo', named by the profile, is $why" "$E2E_TMP/err"

# the profile itself
hpm report -i "$fifo"
[ "$HPM_STATUS" -ne 0 ] || fail "report -i FIFO: exit 0"
expect_grep "report -i FIFO: why" "cannot read '$fifo': $why" "$E2E_TMP/err"

# --metrics-file
hpm stat --metrics-file "$fifo" -e task-clock -- true
[ "$HPM_STATUS" -ne 0 ] || fail "stat --metrics-file FIFO: exit 0"
expect_grep "--metrics-file FIFO: why" "$fifo: $why" "$E2E_TMP/err"

# an exec: location's object
hpm stat -e "exec:$fifo:main" -- true
[ "$HPM_STATUS" -ne 0 ] || fail "stat -e exec:FIFO:main: exit 0"
expect_grep "exec:FIFO: why" "cannot read $fifo: $why" "$E2E_TMP/err"

# a directory is refused as such, not read as an empty file
mkdir "$E2E_TMP/dir"
hpm stat --metrics-file "$E2E_TMP/dir" -e task-clock -- true
[ "$HPM_STATUS" -ne 0 ] || fail "stat --metrics-file DIR: exit 0"
expect_grep "--metrics-file DIR: why" "dir: Is a directory" "$E2E_TMP/err"

note "ok"
