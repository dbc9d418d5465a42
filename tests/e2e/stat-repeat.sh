#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# -r N runs the command N times and prints each event's mean and its
# relative standard deviation, in the table as perf does ("( +- x.xx% )")
# and as the variance column of -x.
. "$(dirname "$0")/lib.sh"

# Deterministic page faults: the mean is the single count, +- 0.00%.
identical() {
	local one
	hpm_norand_ok stat -x, -e page-faults -- "$WORKLOADS/pages" 200
	one=$(csv "$E2E_TMP/err" , "num(ev('page-faults')[0][0])")
	hpm_norand_ok stat -r 3 -x, -e page-faults -- "$WORKLOADS/pages" 200
	expect_eq "mean page-faults of 3 identical runs" "$one" \
		"$(csv "$E2E_TMP/err" , "num(ev('page-faults')[0][0])")"
	expect_eq "variance of 3 identical runs" "0.00%" \
		"$(csv "$E2E_TMP/err" , "ev('page-faults')[0][3]")"
}
retry 3 identical

# Runs that differ: a script that counts its runs in a file touches
# 1000, 2000, then 3000 pages.
n=$E2E_TMP/n
echo 0 >"$n"
cat >"$E2E_TMP/vary.sh" <<EOF2
#!/bin/sh
read -r i <"$n"; echo \$((i + 1)) >"$n"
exec "$WORKLOADS/pages" \$(( (i + 1) * 1000 ))
EOF2
chmod +x "$E2E_TMP/vary.sh"
hpm_norand_ok stat -r 3 -x, -e page-faults:u -- "$E2E_TMP/vary.sh"
expect_eq "the command ran 3 times" 3 "$(cat "$n")"
# 1000, 2000 and 3000 pages more than a base b: the mean is b + 2000 and
# the standard deviation of the mean is 1000/sqrt(3) (perf's "+-").
python3 - "$E2E_TMP/err" <<'PY' || fail "bad -r 3 mean or variance in: $(cat "$E2E_TMP/err")"
import math, sys
f = [l.rstrip("\n").split(",") for l in open(sys.argv[1]) if ",page-faults:u," in l][0]
mean, pct = float(f[0]), float(f[3].rstrip("%"))
want = 100 * (1000 / math.sqrt(3)) / mean
ok = mean > 2000 and abs(pct - want) < 0.02 + 0.01 * want
if not ok:
    print("mean %s, +- %s%%, expected +- %.2f%%" % (mean, pct, want), file=sys.stderr)
sys.exit(0 if ok else 1)
PY

# The table: "(N runs)" in the title and "( +- x.xx% )" after each count.
hpm_ok stat -r 3 -e task-clock,page-faults -- "$WORKLOADS/pages" 10
expect_grep "title of -r 3" 'Performance counter stats for .*\(3 runs\)' "$E2E_TMP/err"
expect_grep "task-clock with +-" 'task-clock.*\( \+- +[0-9]+\.[0-9]{2}% \)' "$E2E_TMP/err"
expect_grep "page-faults mean" '^ +[0-9,]+ +page-faults' "$E2E_TMP/err"
expect_grep "elapsed with +-" 'seconds time elapsed.*\( \+- +[0-9]+\.[0-9]{2}% \)' "$E2E_TMP/err"

# The exit status of a repeated command that fails: hpmon stops and
# passes it on.
hpm stat -r 3 -e task-clock -- "$WORKLOADS/exitcode" 5
expect_eq "exit status of -r 3 with a failing command" 5 "$HPM_STATUS"
echo "PASS: $E2E_NAME"
