#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perf.data's build-ids, as perf wrote them (its HEADER_BUILD_ID feature):
# hpmon reads the same ids that `perf buildid-list` prints and `readelf -n`
# finds in the objects, and gives them to pprof's mappings. An id read a
# few bytes off makes every object look rebuilt since the recording, and
# a report then reads no symbol cache.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/export-lib.sh"

have_perf || skip "perf cannot count software events here (perf stat -e task-clock true fails)"
prog=$WORKLOADS/ratio
timeout -k 5 "$E2E_TIMEOUT" perf record -q -e task-clock -o "$E2E_TMP/pd.data" -- "$prog" 2000000 \
	>/dev/null 2>"$E2E_TMP/perf.err" || fail "perf record failed: $(cat "$E2E_TMP/perf.err")"
perf buildid-list -i "$E2E_TMP/pd.data" >"$E2E_TMP/perf.ids" 2>/dev/null
perf_id=$(awk -v p="$prog" '$2 == p { print $1 }' "$E2E_TMP/perf.ids")
[ -n "$perf_id" ] || skip "perf recorded no build-id for $prog (perf buildid-list: $(cat "$E2E_TMP/perf.ids"))"
elf_id=$(LC_ALL=C readelf -n "$prog" | awk '/Build ID:/ { print $3 }')
expect_eq "readelf's build-id is perf's" "$elf_id" "$perf_id"

# the report names no object rebuilt since
hpm_ok report -i "$E2E_TMP/pd.data"
expect_no_grep "nothing read as rebuilt" "rebuilt since" "$E2E_TMP/out"

# the pprof mappings carry perf's ids, every object perf listed
npm_validators pprof-format@2.3.2
hpm_ok report -i "$E2E_TMP/pd.data" --pprof -o "$E2E_TMP/p.pb.gz"
node "$EXPORT_DIR/pprof-summary.js" "$NPM_MODULES" "$E2E_TMP/p.pb.gz" >"$E2E_TMP/p.json" ||
	fail "pprof-format cannot decode the profile"
expect_eq "the workload's mapping" "$perf_id" \
	"$(json "$E2E_TMP/p.json" "[m['buildId'] for m in j['mappings'] if m['filename'] == '$prog'][0]")"
while read -r id path; do
	case $path in /*) ;; *) continue ;; esac
	got=$(json "$E2E_TMP/p.json" "' '.join(m['buildId'] for m in j['mappings'] if m['filename'] == '$path')")
	[ -z "$got" ] || expect_eq "build-id of $path" "$id" "$got"
done <"$E2E_TMP/perf.ids"
echo "PASS: $E2E_NAME"
