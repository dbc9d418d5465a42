#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A rank whose hpmon is killed (SIGKILL) under mpirun: the other ranks'
# files are whole, no partial file takes the killed rank's name, and
# hpmon merge reports the missing rank (and exits 1) while merging the
# others.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi-lib.sh"

cd "$E2E_TMP"
mkdir ranks
# rank 2 kills its hpmon once the other three files exist (mpi-pages.c)
mpi 4 "$HPMON" stat -e page-faults --json -o "ranks/stat.%r.json" -- \
	"$WORKLOADS/mpi-pages" 50 2 "$E2E_TMP/ranks"
[ "$MPI_STATUS" -ne 0 ] || fail "mpirun exited 0 though rank 2's hpmon was killed"
[ ! -e ranks/stat.2.json ] || fail "the killed rank left ranks/stat.2.json"
for r in 0 1 3; do
	[ -f "ranks/stat.$r.json" ] || fail "rank $r's file is missing: $(ls -A ranks)"
	expect_eq "rank $r's file is whole" "$r 0 True" \
		"$(json "ranks/stat.$r.json" '"%d %d %s" % (j["rank"], j["exit_status"], event(j, "page-faults")["count"] > 50 * (j["rank"] + 1))')"
done

hpm merge --json ranks/stat.*.json
expect_eq "merge's exit status with a rank missing" 1 "$HPM_STATUS"
expect_eq "the missing rank, and the ranks merged" "[2] 3 4" \
	"$(json "$E2E_TMP/out" 'str(j["missing"]) + " " + str(j["ranks"]) + " " + str(j["size"])')"
want=$(python3 -c '
import json
print(sum(json.load(open("ranks/stat.%d.json" % r))["events"][0]["count"] for r in (0, 1, 3)))')
expect_eq "the total is over the ranks merged" "$want" \
	"$(json "$E2E_TMP/out" '"%d" % [e for e in j["events"] if e["name"] == "page-faults"][0]["total"]')"
expect_grep "merge says which rank is missing" '1 rank without a file: 2;' "$E2E_TMP/err"
hpm merge ranks/stat.*.json
expect_grep "the table says it too" '^# missing rank 2 \(of 0-3\): no file' "$E2E_TMP/out"
