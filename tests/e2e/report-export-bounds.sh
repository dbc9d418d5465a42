# SPDX-License-Identifier: MIT
# The exports read untrusted profiles as report does: on crafted files
# whose records cost a few bytes but ask for far more (fuzz/gen-profile.py:
# samples no mapping covers, a new address or process in every sample, a
# 4096-entry call chain repeated by reference), --pprof, --trace-event and
# --speedscope stay under report's memory bound (64 MiB plus 4 times the
# file's uncompressed size) and a CPU-time bound, and count every sample.
. "$(dirname "$0")/lib.sh"

gen="$SRCDIR/fuzz/gen-profile.py"
[ -f "$gen" ] || fail "no $gen"
asan=false
grep -qa __asan_init "$HPMON" && asan=true
export E2E_TMP

# measure ARGS...: hpmon ARGS; sets HPM_STATUS, RSS_KB, CPU_S
measure() {
	local r
	r=$(python3 - "$E2E_TIMEOUT" "$HPMON" "$@" <<'PY'
import resource, subprocess, sys, os
tmp = os.environ["E2E_TMP"]
with open(tmp + "/out", "wb") as o, open(tmp + "/err", "wb") as e:
    try:
        rc = subprocess.run(sys.argv[2:], stdout=o, stderr=e, stdin=subprocess.DEVNULL,
                            timeout=float(sys.argv[1])).returncode
    except subprocess.TimeoutExpired:
        rc = 124
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print(rc, u.ru_maxrss, round(u.ru_utime + u.ru_stime, 2))
PY
)
	read -r HPM_STATUS RSS_KB CPU_S <<<"$r"
}

# check NAME SHAPE SAMPLES: each export of a crafted file of SAMPLES
check() {
	local name=$1 shape=$2 samples=$3 raw fmt
	raw=$(python3 "$gen" "$shape" "$E2E_TMP/$name.prof" --samples "$samples")
	local limit_kb=$((64 * 1024 + 4 * raw / 1024)) cpu_max=15
	! $asan || cpu_max=90
	for fmt in pprof trace-event speedscope; do
		measure report -i "$E2E_TMP/$name.prof" "--$fmt" -o "$E2E_TMP/$name.$fmt"
		[ "$HPM_STATUS" -ne 124 ] || fail "$name --$fmt: did not end in ${E2E_TIMEOUT}s"
		[ "$HPM_STATUS" -eq 0 ] || { cat "$E2E_TMP/err" >&2; fail "$name --$fmt: exit $HPM_STATUS"; }
		note "$name --$fmt: $raw bytes of records, max RSS ${RSS_KB} KiB (bound $limit_kb), ${CPU_S}s CPU"
		$asan || [ "$RSS_KB" -le "$limit_kb" ] ||
			fail "$name --$fmt: ${RSS_KB} KiB, over 64 MiB + 4 x $raw bytes"
		expect_in "$name --$fmt: CPU seconds" 0 "$cpu_max" "$CPU_S"
	done
	gzip -t "$E2E_TMP/$name.pprof" || fail "$name: --pprof is not gzip"
	# the crafted samples have period 1000
	expect_eq "$name: every sample in the trace" "$samples" \
		"$(json "$E2E_TMP/$name.trace-event" "sum(e['ph'] == 'i' and e.get('cat') == 'sample' for e in j['traceEvents'])")"
	expect_eq "$name: every sample in speedscope" "$((samples * 1000))" \
		"$(json "$E2E_TMP/$name.speedscope" "sum(sum(p['weights']) for p in j['profiles'])")"
}

check unmapped unmapped 300000
check ips ips 200000
check pids pids 100000
check chains chains 100000
note "ok"
