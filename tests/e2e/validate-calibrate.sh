#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# hpmon validate --calibrate measures this machine's costs into the costs
# file of its CPU model under $XDG_DATA_HOME/hpmon (0600, in a 0700
# folder), and `-M cost` and `list --metrics` then use it and say so;
# without it they say the costs are typical. -o names another file (never
# through a symlink).
. "$(dirname "$0")/lib.sh"

export XDG_DATA_HOME=$E2E_TMP/data
hpm stat -M cost true  # its status: the events may be missing here
expect_grep "typical without a file" "^# hpmon: cost: typical costs \(data/costs-\*\.txt\), not this machine's" "$E2E_TMP/err"

E2E_TIMEOUT=120 hpm_ok validate --calibrate -r 1 --json
cp "$E2E_TMP/out" "$E2E_TMP/cal.json"
file=$(json "$E2E_TMP/cal.json" "j['file']")
case $file in "$XDG_DATA_HOME"/hpmon/costs-*.txt) ;; *) fail "costs file at $file" ;; esac
expect_eq "file mode" 600 "$(stat -c %a "$file")"
expect_eq "folder mode" 700 "$(stat -c %a "$XDG_DATA_HOME/hpmon")"
expect_eq "causes" True "$(json "$E2E_TMP/cal.json" "{'l1d_miss','llc_miss','dtlb_miss','branch_miss'} <= {c['cause'] for c in j['costs']}")"
expect_eq "costs are numbers >= 0" True "$(json "$E2E_TMP/cal.json" "all(c['cycles'] >= 0 for c in j['costs'])")"
# the file's lines are what the JSON says, in the costs files' format
expect_eq "file lines" "$(json "$E2E_TMP/cal.json" "len(j['costs'])")" "$(grep -cE '^[a-z0-9_]+ +[A-Za-z0-9_-]+ +[0-9.]+ ' "$file")"

hpm stat -M cost true  # its status: the events may be missing here
expect_grep "-M cost says calibrated" "^# hpmon: cost: the costs measured on this machine \($file\)$" "$E2E_TMP/err"
hpm_ok list --metrics cost.l1d_miss
want=$(awk '$1 == "l1d_miss" { print $3 + 0 }' "$file")
expect_grep "list: measured value" "cost.l1d_miss .*: $want cycles each, measured here \(calibrated:" "$E2E_TMP/out"

# -o: another file; a symlink there is refused and what it names is untouched
echo keep >"$E2E_TMP/victim"
ln -s "$E2E_TMP/victim" "$E2E_TMP/link"
hpm validate --calibrate -r 1 -o "$E2E_TMP/link"
expect_eq "-o symlink: status" 1 "$HPM_STATUS"
expect_eq "-o symlink: victim intact" keep "$(cat "$E2E_TMP/victim")"
hpm validate -o x
expect_eq "-o without --calibrate" 129 "$HPM_STATUS"

# an unreadable calibrated file is an error that names it, not typical costs
chmod 000 "$file"
if [ "$(id -u)" -ne 0 ]; then
	hpm stat -M cost true
	expect_eq "unreadable: status" 1 "$HPM_STATUS"
fi
chmod 600 "$file"
mv "$file" "$file.moved" && mkdir "$file"
hpm stat -M cost true
expect_eq "a folder in its place: status" 1 "$HPM_STATUS"
expect_grep "a folder in its place: message" "cannot read the calibrated costs $file: .*run 'hpmon validate --calibrate' again" "$E2E_TMP/err"
