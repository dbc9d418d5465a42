#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# hpmon record under OpenMPI's mpirun, and hpmon merge of the ranks'
# profiles: in the merged profile each rank's page-fault samples (-c 1:
# one a fault) are exact by `report --sort rank`, the merged total is the
# sum of the ranks' files, --rank keeps the ranks named, diff of two ranks
# of one file shows the rank-dependent difference, every export reads the
# merged file, call chains and group reads are copied exactly, and a rank
# whose recorder is killed leaves a cut profile that merge skips and
# reports as a missing rank.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi-lib.sh"

cd "$E2E_TMP"

# run N: 4 ranks of `mpi-pages N` recorded into N/prof.R, merged into N.prof.
run() {
	rm -rf "$1" "$1.prof"
	mkdir -p "$1"
	mpi 4 "${NORAND[@]}" "$HPMON" record -q -e page-faults -c 1 -o "$1/prof.%r" -- \
		"$WORKLOADS/mpi-pages" "$1"
	[ "$MPI_STATUS" -eq 0 ] || fail "mpirun exited $MPI_STATUS: $(cat "$E2E_TMP/mpi.err")"
	hpm_ok merge -q -o "$1.prof" "$1"/prof.*
}

# toucher N: "rank samples" lines of the toucher processes (mpi-pages.c:
# the child that touches the pages) in N.prof, by rank.
toucher() {
	hpm_ok report -i "$1.prof" --comm toucher --sort rank --json
	json "$E2E_TMP/out" '"\n".join("%d %d" % (r["rank"], r["events"][0]["samples"]) for r in sorted(j["rows"], key=lambda r: r["rank"]))'
}

# Rank r touches 200 * (r + 1) pages: exactly that many more samples
# than with 0 pages, each rank apart in the one merged file.
exact() {
	run 0
	run 200
	local a b
	a=$(toucher 0)
	b=$(toucher 200)
	expect_eq "ranks of the merged files" "0 1 2 3" "$(echo "$b" | awk '{print $1}' | xargs)"
	expect_eq "toucher's samples by rank: 200 x (rank + 1) more than with 0 pages" \
		"0 200 1 400 2 600 3 800" \
		"$(join <(echo "$a") <(echo "$b") | awk '{print $1, $3 - $2}' | xargs)"
}
retry 3 exact

# the header and JSON say it is a merge of 4 ranks on this host
hpm_ok report -i 200.prof --sort rank,host
expect_grep "the header names the merge" "^# merged: 4 ranks of 4 on 1 host" "$E2E_TMP/out"
hpm_ok report -i 200.prof --sort rank,host --json
cp "$E2E_TMP/out" ranks.json
expect_eq "JSON: the ranks and their host" "[0, 1, 2, 3] True" \
	"$(json ranks.json 'str(sorted(r["rank"] for r in j["ranks"])) + " " + str(all(r["host"] == j["host"] for r in j["ranks"]))')"

# The merged total is the sum of the ranks' own files, and so is each
# rank's row: the merge adds and loses nothing.
sum=0
for r in 0 1 2 3; do
	hpm_ok report -i "200/prof.$r" --json
	n=$(json "$E2E_TMP/out" 'j["events"][0]["samples"]')
	expect_eq "rank $r's row in the merge against its own file" "$n" \
		"$(json ranks.json '[x for x in j["rows"] if x["rank"] == '"$r"'][0]["events"][0]["samples"]')"
	sum=$((sum + n))
done
expect_eq "the merged total is the sum of the ranks' files" "$sum" \
	"$(json ranks.json 'j["events"][0]["samples"]')"

# --rank: one rank, and a list
want=$(toucher 200 | awk '$1 == 3 {print $2}')
hpm_ok report -i 200.prof --comm toucher --rank 3 --json
expect_eq "--rank 3: only rank 3's toucher" "$want" \
	"$(json "$E2E_TMP/out" 'j["events"][0]["samples"]')"
hpm_ok report -i 200.prof --comm toucher --rank 0,2 --sort rank --csv
expect_eq "--rank 0,2: the rows of ranks 0 and 2" "0 2" \
	"$(tail -n +2 "$E2E_TMP/out" | awk -F, '{print $NF}' | sort -n | xargs)"
hpm report -i 200.prof --rank two
expect_eq "--rank two: a usage error" 129 "$HPM_STATUS"
expect_grep "--rank two: says what a rank is" "'two' is not a rank" "$E2E_TMP/err"

# diff of two ranks of one file: touch_pages, 200 pages against 800
hpm_ok diff --json --comm toucher 200.prof:0 200.prof:3
expect_eq "diff 200.prof:0 200.prof:3: touch_pages" "600" \
	"$(json "$E2E_TMP/out" '[r["samples_b"] - r["samples_a"] for r in j["rows"] if r["sym"] == "touch_pages"][0]')"
hpm_ok diff 200.prof:3 200.prof:0
expect_grep "diff's header names the ranks" "^# A: 200.prof:3 " "$E2E_TMP/out"
hpm diff 200.prof:0 200.prof:7
expect_eq "diff of a rank the file lacks" 1 "$HPM_STATUS"
expect_grep "diff names the missing rank" "200.prof has no rank 7" "$E2E_TMP/err"

# Every export reads the merged file; the trace's processes stay apart
# (as many as in the ranks' own files: task ids of ranks never merge).
for x in --pprof --trace-event --speedscope --svg --html; do
	hpm_ok report -i 200.prof $x -o "export$x"
	[ -s "export$x" ] || fail "report $x wrote nothing"
done
hpm_ok report -i 200.prof --folded
expect_grep "folded stacks" "touch_pages" "$E2E_TMP/out"
procs() {
	json "$1" 'len({e["pid"] for e in j["traceEvents"] if e.get("ph") == "M" and e.get("name") == "process_name"})'
}
n=0
for r in 0 1 2 3; do
	hpm_ok report -i "200/prof.$r" --trace-event -o "trace.$r"
	n=$((n + $(procs "trace.$r")))
done
expect_eq "trace-event: the processes of every rank, apart" "$n" "$(procs export--trace-event)"

# Call chains and group reads are copied exactly: each rank's folded
# stacks and group counts in the merge are its own file's.
mkdir g
mpi 2 "$HPMON" record -q -g -e '{page-faults,task-clock}' -c 1 -o "g/prof.%r" -- \
	"$WORKLOADS/mpi-pages" 50
[ "$MPI_STATUS" -eq 0 ] || fail "mpirun exited $MPI_STATUS: $(cat "$E2E_TMP/mpi.err")"
hpm_ok merge -q -o g.prof g/prof.*
for r in 0 1; do
	hpm_ok report -i "g/prof.$r" --folded
	sort "$E2E_TMP/out" >"own.$r"
	hpm_ok report -i g.prof --rank "$r" --folded
	sort "$E2E_TMP/out" >"merged.$r"
	cmp -s "own.$r" "merged.$r" || fail "rank $r's folded stacks differ in the merge: $(diff "own.$r" "merged.$r" | head -5)"
	[ -s "own.$r" ] || fail "rank $r: no stacks"
	hpm_ok report -i "g/prof.$r" --sort sym --json
	json "$E2E_TMP/out" '[(r["sym"], [(e.get("samples"), e.get("count")) for e in r["events"]]) for r in j["rows"]]' >"own.$r"
	hpm_ok report -i g.prof --rank "$r" --sort sym --json
	json "$E2E_TMP/out" '[(r["sym"], [(e.get("samples"), e.get("count")) for e in r["events"]]) for r in j["rows"]]' >"merged.$r"
	cmp -s "own.$r" "merged.$r" || fail "rank $r's group counts differ in the merge"
done

# merge refuses a profile of other events, and a profile without a rank
hpm_ok record -q -e page-faults -c 1 -o norank.prof -- "$WORKLOADS/pages" 10
hpm merge -o x.prof 200/prof.0 norank.prof
expect_eq "a profile without a rank: refused" 1 "$HPM_STATUS"
expect_grep "says it has no rank" "norank.prof has no rank" "$E2E_TMP/err"
[ ! -e x.prof ] || fail "a refused merge wrote x.prof"
hpm merge 200/prof.*
expect_eq "profiles without -o: a usage error" 129 "$HPM_STATUS"

# A rank whose recorder is killed (SIGKILL, mpi-pages.c: once the others'
# profiles exist): its profile is cut, merge skips it, names it and the
# missing rank, exits 1, and merges the three others.
mkdir killed
mpi 4 "$HPMON" record -q -e page-faults -c 1 -o "killed/prof.%r" -- \
	"$WORKLOADS/mpi-pages" 50 2 "$E2E_TMP/killed"
[ "$MPI_STATUS" -ne 0 ] || fail "mpirun exited 0 though rank 2's hpmon was killed"
hpm merge -o killed.prof killed/prof.*
expect_eq "merge's exit status with a rank cut" 1 "$HPM_STATUS"
expect_grep "the cut profile is named and skipped" "killed/prof.2 skipped: " "$E2E_TMP/err"
expect_grep "the rank is reported missing" "1 rank without a file: 2;" "$E2E_TMP/err"
hpm_ok report -i killed.prof --sort rank --json
expect_eq "the merge holds the three other ranks" "[0, 1, 3]" \
	"$(json "$E2E_TMP/out" 'sorted(r["rank"] for r in j["rows"])')"
