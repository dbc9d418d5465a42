#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Usage errors read alike in every command: "hpmon CMD: what is wrong"
# first, "See 'hpmon CMD --help'." last, exit status 129 (as report's
# always did). Before, list and diag printed their whole usage after a
# blank line, and diff, merge, list and stat had messages with no way on
# (`diff --percent-limit x`, `merge -x ''`, `list a b`, the event and
# metric errors of stat and report, which began "hpmon: ").
# A mistyped command and a metric's mistyped event get the closest names,
# as a mistyped -e does: `hpmon sta` ("did you mean: stat?"), and
# `--metric 'x = page-fault / 2'` ("did you mean: page-faults?").
# Options go after the operands too, as in report: `diff A B --json`,
# `diff --html A B -o FILE`, `merge FILES --json` (before, diff said
# "give two profiles").
. "$(dirname "$0")/lib.sh"

# usage CMD ARGS...: `hpmon CMD ARGS` is a usage error in the one style.
usage() {
	local cmd=$1
	hpm "$@"
	expect_eq "$*: exit status" 129 "$HPM_STATUS"
	expect_grep "$*: the first line names the command" "^hpmon $cmd: [^ ]" <(head -1 "$E2E_TMP/err")
	expect_eq "$*: the last line" "See 'hpmon $cmd --help'." "$(tail -1 "$E2E_TMP/err")"
	expect_no_grep "$*: no usage text" '^usage:' "$E2E_TMP/err"
}

gen="$SRCDIR/fuzz/gen-profile.py"
python3 "$gen" rows "$E2E_TMP/a.prof" --samples 300 --rows 20 --seed 1 --stored >/dev/null
python3 "$gen" rows "$E2E_TMP/b.prof" --samples 300 --rows 20 --seed 2 --stored >/dev/null
a=$E2E_TMP/a.prof
b=$E2E_TMP/b.prof

usage stat --no-such-option
usage stat -e no_such_event -- true
expect_grep "an event error: the caret" '^  +\^$' "$E2E_TMP/err"
usage stat -M no_such_group -- true
usage stat --metric 'x = 1 +' -- true
usage stat -C 4095 -a -- true
usage stat --enable 'a b' -- true
usage diff "$a"
usage diff --percent-limit x "$a" "$b"
usage diff --json --html "$a" "$b"
usage diff "$a" "$b" -o "$E2E_TMP/x.html"
usage diff "$a" "$b" "$a"
usage merge
usage merge -x ''
usage merge --json -x, "$a"
usage merge "$a" "$b"
usage list --no-such-option
usage list one two
usage list --presets --metrics
usage diag --no-such-option
usage diag extra
usage report --no-such-option
usage report -i "$a" -M no_such_group
usage annotate --no-such-option
usage script --no-such-option
usage convert --no-such-option
usage record --no-such-option
usage serve --no-such-option

# the closest names
hpm sta
expect_eq "hpmon sta: exit status" 129 "$HPM_STATUS"
expect_grep "hpmon sta: no such command" "^hpmon: 'sta' is not an hpmon command" "$E2E_TMP/err"
expect_grep "hpmon sta: the closest" "did you mean: stat\\?" "$E2E_TMP/err"
hpm reprot
expect_grep "hpmon reprot: the closest" "did you mean: report\\?" "$E2E_TMP/err"
hpm help stt
expect_eq "hpmon help stt: exit status" 129 "$HPM_STATUS"
expect_grep "hpmon help stt: the closest" "did you mean: stat\\?" "$E2E_TMP/err"
hpm xyzzy
expect_no_grep "no command is close to xyzzy" "did you mean" "$E2E_TMP/err"

hpm stat -e page-fault -- true
expect_grep "-e page-fault: the closest" "did you mean: page-faults\\?" "$E2E_TMP/err"
hpm stat --metric 'x = page-fault / 2' -- true
expect_grep "--metric with page-fault: the closest" "'page-fault'.*did you mean: page-faults\\?" "$E2E_TMP/err"
hpm stat -e task-clock --metric 'x = page-fault / 2' -- true
expect_eq "--metric with page-fault beside an event: exit status" 0 "$HPM_STATUS"
expect_grep "--metric with page-fault beside an event: the closest" \
	"n/a \\(x\\).*did you mean: page-faults\\?" "$E2E_TMP/err"

# options after the operands
hpm_ok diff --json "$a" "$b"
cp "$E2E_TMP/out" "$E2E_TMP/before.json"
hpm_ok diff "$a" "$b" --json
cmp -s "$E2E_TMP/out" "$E2E_TMP/before.json" || fail "diff A B --json differs from diff --json A B"
hpm_ok diff "$a" --percent-limit 1 "$b"
hpm_ok diff --html "$a" "$b" -o "$E2E_TMP/d.html"
grep -q '<html' "$E2E_TMP/d.html" || fail "diff --html A B -o FILE wrote no page"
for r in 0 1; do
	OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_SIZE=2 hpm_ok stat --json -o "$E2E_TMP/s$r.json" -e task-clock -- true
done
hpm_ok merge --json "$E2E_TMP/s0.json" "$E2E_TMP/s1.json"
expect_eq "merge --json FILES: ranks" 2 "$(json "$E2E_TMP/out" 'j["ranks"]')"
hpm_ok merge "$E2E_TMP/s0.json" "$E2E_TMP/s1.json" --json
expect_eq "merge FILES --json: ranks" 2 "$(json "$E2E_TMP/out" 'j["ranks"]')"
echo "PASS: $E2E_NAME"
