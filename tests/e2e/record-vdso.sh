# SPDX-License-Identifier: MIT
# Samples in the vdso (the kernel's code mapped into every process, where
# glibc's clock_gettime runs without a system call) are named by the
# vdso's own symbols when the report runs on the kernel that recorded the
# profile: the clocks workload spends nearly all its time there.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record-lib.sh"

hpm_ok record -q -e cpu-clock:u -c 100003 -o "$E2E_TMP/v.prof" -- "$WORKLOADS/clocks" 5000000
report_json "$E2E_TMP/v.prof" --sort dso,sym
rows() { json "$E2E_TMP/rep.json" "sorted(r['sym'] for r in j['rows'] if r['dso'] == '[vdso]')"; }
share() { json "$E2E_TMP/rep.json" "round(sum(r['events'][0]['percent'] for r in j['rows'] if r['dso'] == '[vdso]'))"; }
note "vdso rows: $(rows), $(share) % of the samples"
expect_in "share of the samples in the vdso" 50 100 "$(share)"
# every vdso row is a named function of the vdso, none an offset
expect_eq "vdso rows without a symbol" "[]" \
	"$(json "$E2E_TMP/rep.json" "[r['sym'] for r in j['rows'] if r['dso'] == '[vdso]' and '+0x' in r['sym']]")"
expect_grep "clock_gettime is named" 'clock_gettime' <(rows)
echo "PASS: $E2E_NAME"
