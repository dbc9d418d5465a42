#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# hpmon merge given a FIFO: whether it is first (the file that decides
# between a stat merge and a profile merge) or later among profiles, it is
# refused as "not a regular file" without waiting for a writer or for
# data, with or without a writer holding it open; nothing is written.
. "$(dirname "$0")/lib.sh"

cd "$E2E_TMP"
# two ranks' profiles (the rank from the launcher's variable, as mpirun sets it)
for r in 0 1; do
	OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_SIZE=2 \
		hpm_ok record -q -e cpu-clock -o "prof.$r" -- "$WORKLOADS/ratio" 1000000
done
mkfifo fifo
# hpm's timeout bounds a hang: a hang fails as "timed out"
E2E_TIMEOUT=10

# first, no writer: the stat merge's message and status
hpm merge fifo
expect_eq "FIFO first, stat merge: exit status" 1 "$HPM_STATUS"
expect_grep "FIFO first, stat merge: the reason" '^hpmon merge: cannot read fifo: not a regular file$' "$E2E_TMP/err"
# first, with -o: the same, and no profile written
hpm merge -o m.prof fifo prof.0
expect_eq "FIFO first, -o: exit status" 1 "$HPM_STATUS"
expect_grep "FIFO first, -o: the reason" '^hpmon merge: cannot read fifo: not a regular file$' "$E2E_TMP/err"
[ ! -e m.prof ] || fail "FIFO first, -o: a profile was written"

# a writer holds it open and writes a profile's first bytes: still not read
bg sh -c 'cat prof.0 >fifo'
hpm merge -o m.prof fifo prof.1
expect_eq "FIFO with a writer, first: exit status" 1 "$HPM_STATUS"
expect_grep "FIFO with a writer, first: the reason" '^hpmon merge: cannot read fifo: not a regular file$' "$E2E_TMP/err"
[ ! -e m.prof ] || fail "FIFO with a writer: a profile was written"

# later among profiles: skipped with the reason, the others merged
hpm merge -o m.prof prof.0 fifo prof.1
expect_eq "FIFO among profiles: exit status (a file skipped)" 1 "$HPM_STATUS"
expect_grep "FIFO among profiles: skipped, why" '^hpmon merge: warning: fifo skipped: not a regular file' "$E2E_TMP/err"
expect_grep "FIFO among profiles: the others merged" '^hpmon merge: 2 ranks from 2 of 3 files into m\.prof' "$E2E_TMP/err"
echo "PASS: $E2E_NAME"
