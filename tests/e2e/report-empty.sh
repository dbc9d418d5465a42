#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A profile with no sample: every output of report (table, -g, --timeline,
# --folded, --json, --html, --svg, the exports), script, annotate and
# diff --html ends as it should, and says "0 samples", with nothing
# undefined on the way (the sanitizer lane runs this under ASan and
# UBSan: the page's bins were sorted with qsort(NULL, 0), which UBSan
# stops at). Two files: a crafted hpmon profile of 0 samples
# (fuzz/gen-profile.py) and, where perf samples here, a perf.data file
# whose only run is shorter than its period.
. "$(dirname "$0")/lib.sh"

gen="$SRCDIR/fuzz/gen-profile.py"
[ -f "$gen" ] || fail "no $gen"
python3 "$gen" unmapped "$E2E_TMP/zero.prof" --samples 0 >/dev/null
files=("$E2E_TMP/zero.prof")
# perf record of `true` with a period of 10 s: no sample (a run of it
# takes a millisecond); without perf the crafted file alone is read
if command -v perf >/dev/null &&
	timeout -k 5 60 perf record -q -e cpu-clock -c 10000000000 -o "$E2E_TMP/empty.data" \
		-- true >/dev/null 2>&1; then
	files+=("$E2E_TMP/empty.data")
else
	note "perf cannot record here: the crafted profile alone"
fi

for f in "${files[@]}"; do
	n=$(basename "$f")
	hpm_ok report -i "$f"
	expect_grep "$n: report's header" '^# event cpu-clock: 0 samples' "$E2E_TMP/out"
	for args in "-g" "--timeline" "--folded" "--sort comm,tid"; do
		# shellcheck disable=SC2086 # the options, split
		hpm_ok report -i "$f" $args
	done
	hpm_ok report -i "$f" --json
	expect_eq "$n: JSON's samples" 0 "$(json "$E2E_TMP/out" "j['events'][0]['samples']")"
	hpm_ok report -i "$f" --html -o "$E2E_TMP/$n.html"
	expect_grep "$n: the page's data" '<script type="application/json" id="data">\{' \
		"$E2E_TMP/$n.html"
	hpm_ok report -i "$f" --svg -o "$E2E_TMP/$n.svg"
	for x in pprof speedscope trace-event; do
		hpm_ok report -i "$f" --$x -o "$E2E_TMP/$n.$x"
	done
	hpm_ok script -i "$f"
	expect_eq "$n: script's lines" 0 "$(wc -l <"$E2E_TMP/out")"
	hpm annotate -i "$f" main
	expect_eq "$n: annotate's exit status" 1 "$HPM_STATUS"
	expect_grep "$n: annotate's reason" "no samples in a function named 'main'" "$E2E_TMP/err"
	hpm_ok diff --html -o "$E2E_TMP/$n.diff.html" "$f" "$f"
done

note "ok"
