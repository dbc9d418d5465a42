#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# hpmon stat under OpenMPI's mpirun, and hpmon merge of the ranks' files:
# each rank's page faults exact, the merged total the sum of the ranks,
# the imbalance (max - mean) / max as computed from the files, and the
# rank's exit status through hpmon.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi-lib.sh"

cd "$E2E_TMP"

# run N: 4 ranks of `mpi-pages N` into N/stat.R.json.
run() {
	mkdir -p "$1"
	mpi 4 "${NORAND[@]}" "$HPMON" stat --per-process -e page-faults --json \
		-o "$1/stat.%r.json" -- "$WORKLOADS/mpi-pages" "$1"
	[ "$MPI_STATUS" -eq 0 ] || fail "mpirun exited $MPI_STATUS: $(cat "$E2E_TMP/mpi.err")"
}

# toucher DIR R: the page faults of rank R's toucher process (mpi-pages.c:
# the child that touches the pages, away from MPI_Init's varying count).
toucher() {
	json "$1/stat.$2.json" \
		'[p["events"][0]["count"] for p in j["processes"] if p["comm"] == "toucher"][0]'
}

# Rank r touches 200 * (r + 1) pages: exactly that many more faults than
# with 0 pages, in the process that touches them.
exact() {
	rm -rf 0 200
	run 0
	run 200
	local r
	for r in 0 1 2 3; do
		expect_eq "rank $r in its file" "$r" "$(json "200/stat.$r.json" 'j["rank"]')"
		expect_eq "size in rank $r's file" 4 "$(json "200/stat.$r.json" 'j["size"]')"
		expect_eq "page faults of rank $r: 200 x (rank + 1) more than with 0 pages" \
			$((200 * (r + 1))) $(($(toucher 200 $r) - $(toucher 0 $r)))
	done
}
retry 3 exact

# merge: the total is the sum of the ranks' counts, min and max with
# their ranks, and the imbalance as computed from the files.
hpm_ok merge --json 200/stat.*.json
cp "$E2E_TMP/out" merged.json
want=$(python3 - <<'PY'
import json
c = [json.load(open("200/stat.%d.json" % r))["events"][0]["count"] for r in range(4)]
mean = sum(c) / 4
print("%d %d %d %d %d %.9f" % (sum(c), min(c), c.index(min(c)), max(c), c.index(max(c)),
                               (max(c) - mean) / max(c)))
PY
)
got=$(json merged.json '"%d %d %d %d %d %.9f" % tuple([e for e in j["events"] if e["name"] == "page-faults"][0][k] for k in ("total", "min", "min_rank", "max", "max_rank", "imbalance"))')
expect_eq "merged total, min (rank), max (rank), imbalance" "$want" "$got"
# the touching dominates: rank 3 the largest, rank 0 the smallest
expect_eq "max at rank 3, min at rank 0" "3 0" "$(echo "$want" | awk '{print $5, $3}')"
expect_eq "no missing rank" "[] 4" "$(json merged.json 'str(j["missing"]) + " " + str(j["ranks"])')"
expect_eq "one row per rank" "0 1 2 3" "$(json merged.json '" ".join(str(r["rank"]) for r in j["rows"])')"

# As a tree: ranks 0-1 and 2-3 merged apart (each misses the other two:
# exit 1), then the two merges merged: the same figures as at once.
hpm merge --json 200/stat.0.json 200/stat.1.json
expect_eq "a partial merge misses ranks" 1 "$HPM_STATUS"
cp "$E2E_TMP/out" low.json
hpm merge --json 200/stat.2.json 200/stat.3.json
cp "$E2E_TMP/out" high.json
hpm_ok merge --json high.json low.json
expect_eq "merged as a tree: events, metrics, missing" \
	"$(json merged.json '[j["events"], j["metrics"], j["missing"], j["ranks"], j["size"]]')" \
	"$(json "$E2E_TMP/out" '[j["events"], j["metrics"], j["missing"], j["ranks"], j["size"]]')"
expect_eq "merged as a tree: rows, with their files" \
	"$(json merged.json 'j["rows"]')" "$(json "$E2E_TMP/out" 'j["rows"]')"
# a rank in both halves is refused, naming the two stat files
hpm merge --json low.json low.json
expect_eq "a rank twice" 1 "$HPM_STATUS"
expect_grep "the files of the rank twice" 'rank 0 is in two files, 200/stat.0.json and 200/stat.0.json' "$E2E_TMP/err"

# The table and CSV say the same.
hpm_ok merge 200/stat.*.json
total=$(json merged.json '"%d" % [e for e in j["events"] if e["name"] == "page-faults"][0]["total"]')
expect_grep "the table's total line" "^ *$total .* page-faults\$" "$E2E_TMP/out"
hpm_ok merge -x ';' 200/stat.*.json
expect_eq "CSV rows of rank 2" 1 "$(grep -c '^rank;2;[^;]*;page-faults;;event;' "$E2E_TMP/out")"
expect_grep "CSV summary" "^summary;page-faults;;event;4;$total;" "$E2E_TMP/out"

# Each rank's exit status passes through hpmon under mpirun.
mpi 2 sh -c '"$0" stat -e task-clock --json -o "st.%r.json" -- sh -c "exit \$((OMPI_COMM_WORLD_RANK + 3))"
	echo $? >"rc.$OMPI_COMM_WORLD_RANK"' "$HPMON"
expect_eq "hpmon's exit status, rank 0" 3 "$(cat rc.0)"
expect_eq "hpmon's exit status, rank 1" 4 "$(cat rc.1)"
expect_eq "exit status in rank 1's file" 4 "$(json st.1.json 'j["exit_status"]')"
