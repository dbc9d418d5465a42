#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# PAPI presets: `hpmon list --presets` shows each preset's mapping on
# this machine, or why it has none, with whether it can be counted here;
# on a recorded tree of another machine, that machine's mappings. Presets
# are events for `hpmon stat -e`, modifiers included.
. "$(dirname "$0")/lib.sh"

hpm_ok list --presets
expect_grep "heading names the family" '^PAPI presets, as this machine counts them \(processor family [a-z]+\):' "$E2E_TMP/out"
expect_grep "PAPI_TOT_INS and its mapping" '^  PAPI_TOT_INS +(instructions|inst_retired) ' "$E2E_TMP/out"
expect_grep "a derived preset" '^  PAPI_L1_TCM +[^ ]+ \+ [^ ]+ .*derived' "$E2E_TMP/out"
expect_grep "a preset without a mapping says why" '^  PAPI_CA_SNP +- .*\(no mapping on [a-z]+ processors' "$E2E_TMP/out"
# each line with a mapping says whether it counts here
bad=$(grep -E '^  PAPI_' "$E2E_TMP/out" | grep -Ev '\((supported|not supported: .+|no mapping .+)\)$' || true)
expect_eq "every preset line ends with its state" "" "$bad"
n=$(grep -cE '^  PAPI_' "$E2E_TMP/out")
expect_in "number of presets listed" 100 200 "$n"

hpm_ok list --presets --json
python3 - "$E2E_TMP/out" <<'PY' || fail "list --presets --json: see above"
import json, sys
ps = json.load(open(sys.argv[1]))
by = {p["name"]: p for p in ps}
for p in ps:
    assert set(("name", "description", "family", "mapping", "derived", "supported", "reason")) <= set(p), p
    if p["mapping"] is None:
        assert p["supported"] is False and p["reason"], p
assert by["PAPI_L1_TCM"]["derived"] is True
assert by["PAPI_TOT_INS"]["mapping"] in ("instructions", "inst_retired"), by["PAPI_TOT_INS"]
PY

# A pattern: the presets whose name or mapping matches.
hpm_ok list --presets TLB
expect_grep "pattern" '^  PAPI_TLB_DM ' "$E2E_TMP/out"
expect_no_grep "pattern leaves others out" '^  PAPI_TOT_INS ' "$E2E_TMP/out"

# Another machine's mapping, from its recorded sysfs tree: not opened.
HPMON_SYSFS_ROOT=$TESTDATA/sysfs-arm-n1 hpm_ok list --presets
expect_grep "Arm: family" 'processor family arm' "$E2E_TMP/out"
expect_grep "Arm: native mapping" '^  PAPI_L1_DCM +l1d_cache_refill .*\[arm\]  \(not probed\)' "$E2E_TMP/out"
expect_grep "Arm: an explicit gap" '^  PAPI_LD_INS +- .*no mapping on arm processors' "$E2E_TMP/out"
expect_grep "Arm: not opened" 'Presets were not opened' "$E2E_TMP/out"

# As events: one line per preset, named as written, modifiers applied.
hpm_ok stat -x, -e PAPI_TOT_INS:u,page-faults -- "$WORKLOADS/pages" 10
expect_grep "PAPI_TOT_INS:u counted or not supported" '^([0-9]+|<not supported>),[^,]*,PAPI_TOT_INS:u,' "$E2E_TMP/err"
# A preset this machine has no event for is an error before counting.
hpm stat -e PAPI_CA_SNP -- true
expect_eq "preset without mapping: exit" 129 "$HPM_STATUS"
expect_grep "preset without mapping: why" 'PAPI_CA_SNP: no mapping on' "$E2E_TMP/err"
hpm stat -e PAPI_TOT_IN -- true
expect_eq "misspelt preset: exit" 129 "$HPM_STATUS"
expect_grep "misspelt preset: suggestion" 'did you mean: PAPI_TOT_INS' "$E2E_TMP/err"
echo "PASS: $E2E_NAME"
