# SPDX-License-Identifier: MIT
# report --speedscope: valid against the file-format schema that npm's
# speedscope package ships (validated with ajv, neither written here);
# the samples' stacks equal --folded's exactly (a run of samples of one
# stack is one entry weighing their periods: with a fixed period, weight /
# period samples); one profile per thread and event, in the event's unit.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/export-lib.sh"

npm_validators speedscope@1.25.0 ajv@8.20.0
validate() {
	node "$EXPORT_DIR/speedscope-validate.js" "$NPM_MODULES" "$1" ||
		fail "$1 is not valid against speedscope's file-format schema"
}

hpm_ok record -q -g -e cpu-clock -c 250007 -o "$E2E_TMP/c.prof" -- "$WORKLOADS/calltree" 60000000
hpm_ok report -i "$E2E_TMP/c.prof" --folded
cp "$E2E_TMP/out" "$E2E_TMP/folded"
hpm_ok report -i "$E2E_TMP/c.prof" --speedscope -o "$E2E_TMP/c.speedscope.json"
S=$E2E_TMP/c.speedscope.json
expect_eq "the file's mode" 600 "$(stat -c %a "$S")"
validate "$S"
export_check folded-eq "$E2E_TMP/folded" "$S" speedscope cpu-clock 250007
expect_eq "one profile, in nanoseconds" "[('sampled', 'nanoseconds')]" \
	"$(json "$S" "[(p['type'], p['unit']) for p in j['profiles']]")"
hpm_ok report -i "$E2E_TMP/c.prof" --json
expect_eq "weights sum to the event's period" "$(json "$E2E_TMP/out" "int(j['events'][0]['period'])")" \
	"$(json "$S" "sum(j['profiles'][0]['weights'])")"
expect_eq "main's frame has its source" True \
	"$(json "$S" "[f for f in j['shared']['frames'] if f['name'] == 'main'][0]['file'].endswith('calltree.c')")"

# threads and events: a profile per thread, counts in the unit "none"
hpm_ok record -q -e page-faults -c 1 -o "$E2E_TMP/th.prof" -- "$WORKLOADS/threads" 3 0 50
hpm_ok report -i "$E2E_TMP/th.prof" --speedscope
cp "$E2E_TMP/out" "$E2E_TMP/th.json"
validate "$E2E_TMP/th.json"
hpm_ok report -i "$E2E_TMP/th.prof" --json --sort tid
expect_eq "a profile per sampled thread" "$(json "$E2E_TMP/out" "len(j['rows'])")" \
	"$(json "$E2E_TMP/th.json" "len(j['profiles'])")"
expect_eq "page faults are counts" "['none']" "$(json "$E2E_TMP/th.json" "sorted(set(p['unit'] for p in j['profiles']))")"
expect_eq "every fault once" "$(json "$E2E_TMP/out" "j['events'][0]['samples']")" \
	"$(json "$E2E_TMP/th.json" "sum(sum(p['weights']) for p in j['profiles'])")"
