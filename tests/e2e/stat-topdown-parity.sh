#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# stat --topdown and -d/-dd/-ddd against perf 6.1 under the parity harness
# (tests/parity/README.md): on the reconstructed machines, with the same
# fake counts, hpmon counts the same events in the same order, with the
# same counts, and prints perf's figure beside each with perf's value
# (perf rounds --topdown's to 0.1 and -d's to 0.01 in CSV). perf prints
# --topdown in its --metric-only layout; hpmon's is that of perf's
# --topdown --no-metric-only, which is compared (docs/metrics.md).
. "$(dirname "$0")/lib.sh"

: "${SRCDIR:?SRCDIR must name the source tree}"
[ -x "$SRCDIR/tests/parity/run" ] || skip "no tests/parity/run in this tree: the harness is not here"
shim=$(dirname "$WORKLOADS")/shims/libfake-pmu.so
[ -f "$shim" ] || skip "no $shim: the fake PMU (tests/shims/fake-pmu.c) is not built"
[ "$(id -u)" -eq 0 ] || skip "needs root, for unshare -m and the bind mounts of tests/parity/run"
command -v unshare >/dev/null || skip "no unshare (util-linux) on this host"
unshare -m true 2>/dev/null || skip "unshare -m is refused here (a container without CAP_SYS_ADMIN?)"
command -v perf >/dev/null || skip "no perf on this host: install linux-perf (perf 6.1)"
perf --version | grep -q '^perf version 6\.1\.' ||
	skip "perf is $(perf --version), this test is written against perf 6.1"

run() {
	local m=$1
	shift
	timeout -k 5 "$E2E_TIMEOUT" "$SRCDIR/tests/parity/run" "$m" --shim "$shim" -- "$@"
}
export FAKE_PMU_SOFTWARE=1

# same WHAT TOLERANCE PERF_CSV HPMON_CSV: the same events, counts and
# figures; a figure's value within TOLERANCE of perf's (its rounding)
same() {
	python3 - "$@" <<'EOF2' || fail "$1: hpmon differs from perf (perf, then hpmon):
$(cat "$3")
--
$(cat "$4")"
import sys
what, tol, pf, hf = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
def rows(path):
    out = []
    for line in open(path):
        f = line.rstrip("\n").split(",")
        if len(f) < 7 or line.startswith("#"):
            continue
        out.append(f)
    return out
p, h = rows(pf), rows(hf)
bad = []
if [r[2] for r in p] != [r[2] for r in h]:
    bad.append("events: perf %s, hpmon %s" % ([r[2] for r in p], [r[2] for r in h]))
for a, b in zip(p, h):
    if a[2] != b[2]:
        continue
    if a[0] != b[0] and not a[1] == "msec":
        bad.append("%s: count perf %s, hpmon %s" % (a[2], a[0], b[0]))
    if a[6] != b[6]:
        bad.append("%s: figure perf '%s', hpmon '%s'" % (a[2], a[6], b[6]))
    elif a[5] and (not b[5] or abs(float(a[5]) - float(b[5])) > tol):
        bad.append("%s: %s perf %s, hpmon %s" % (a[2], a[6], a[5], b[5]))
for line in bad:
    print(line, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF2
}

for m in icelakex sapphirerapids alderlake; do
	run "$m" perf stat --topdown --no-metric-only -x, true 2>"$E2E_TMP/p-$m" >/dev/null ||
		fail "perf stat --topdown on $m failed: $(cat "$E2E_TMP/p-$m")"
	run "$m" "$HPMON" stat --topdown -x, true 2>"$E2E_TMP/h-$m" >/dev/null ||
		fail "hpmon stat --topdown on $m failed: $(cat "$E2E_TMP/h-$m")"
	# perf's second figure of a level-2 line (Light Operations ...) is
	# not hpmon's: the first is compared
	same "--topdown on $m" 0.05 "$E2E_TMP/p-$m" "$E2E_TMP/h-$m"
done

# before Ice Lake: both refuse without -a; with -a perf sums per core,
# hpmon the machine: the same shares
rc=0
run skylakex "$HPMON" stat --topdown true 2>"$E2E_TMP/err" || rc=$?
[ "$rc" = 129 ] && grep -q "system-wide mode (-a)" "$E2E_TMP/err" ||
	fail "--topdown on skylakex without -a: exit $rc: $(cat "$E2E_TMP/err")"
run skylakex "$HPMON" stat --topdown -a -x, true 2>"$E2E_TMP/h-skx" >/dev/null ||
	fail "hpmon stat --topdown -a on skylakex failed: $(cat "$E2E_TMP/h-skx")"
run skylakex perf stat --topdown -a --no-metric-only -x, true 2>"$E2E_TMP/p-skx" >/dev/null ||
	fail "perf stat --topdown -a on skylakex failed: $(cat "$E2E_TMP/p-skx")"
for fig in retiring "bad speculation" "frontend bound" "backend bound"; do
	# perf's line of the first core: S0-D0-C0,2,COUNT,,EVENT,...,VALUE,FIGURE
	p=$(grep "^S0-D0-C0,.*,$fig\$" "$E2E_TMP/p-skx" | cut -d, -f8)
	if [ -z "$p" ]; then
		# perf's CSV keeps only the digits and '.' of a figure, so a
		# negative one is empty there (backend bound past 100 % of the
		# others): its table has it
		[ -s "$E2E_TMP/p-skx.txt" ] ||
			run skylakex perf stat --topdown -a --no-metric-only true \
				2>"$E2E_TMP/p-skx.txt" >/dev/null || fail "perf stat --topdown -a failed"
		p=$(grep "^S0-D0-C0 .*% $fig *\$" "$E2E_TMP/p-skx.txt" |
			sed 's/.*# *\(-\?[0-9.]*\)%.*/\1/')
	fi
	h=$(grep ",$fig\$" "$E2E_TMP/h-skx" | cut -d, -f6)
	[ -n "$p" ] && [ -n "$h" ] &&
		python3 -c "import sys; sys.exit(abs(float('$h') - float('$p')) > 0.05)" ||
		fail "--topdown -a on skylakex: $fig: hpmon '$h', perf '$p'"
done

# no top-down events: perf asks for -a, hpmon says what is missing
rc=0
run amdzen3 "$HPMON" stat --topdown true 2>"$E2E_TMP/err" || rc=$?
[ "$rc" = 1 ] && grep -q "no top-down events" "$E2E_TMP/err" ||
	fail "--topdown on amdzen3: exit $rc: $(cat "$E2E_TMP/err")"

for d in -d -dd -ddd; do
	run skylakex perf stat $d -x, true 2>"$E2E_TMP/p$d" >/dev/null || fail "perf stat $d failed"
	run skylakex "$HPMON" stat $d -x, true 2>"$E2E_TMP/h$d" >/dev/null || fail "hpmon stat $d failed"
	same "$d on skylakex" 0.005 "$E2E_TMP/p$d" "$E2E_TMP/h$d"
done
echo "PASS: $E2E_NAME"
