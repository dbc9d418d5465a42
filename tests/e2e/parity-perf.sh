#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The parity harness itself, perf's side (tests/parity/README.md): under
# tests/parity/run, with the fake PMU (tests/shims/fake-pmu.c) preloaded
# into perf 6.1, on the reconstructed machines of tests/parity/machines:
# - the counts are the same in two runs;
# - perf computes TopdownL1 on each Intel machine, and its four level-1
#   metrics sum to 100 % within 0.01;
# - the attr log holds every event perf opened, field by field;
# - duration_time is exactly the shim's fixed duration.
. "$(dirname "$0")/lib.sh"

: "${SRCDIR:?SRCDIR must name the source tree}"
shim=$(dirname "$WORKLOADS")/shims/libfake-pmu.so
[ -f "$shim" ] || fail "no $shim: build the tests (tests/shims)"
[ "$(id -u)" -eq 0 ] || skip "needs root, for unshare -m and the bind mounts of tests/parity/run"
command -v unshare >/dev/null || skip "no unshare (util-linux) on this host"
unshare -m true 2>/dev/null || skip "unshare -m is refused here (a container without CAP_SYS_ADMIN?)"
command -v perf >/dev/null || skip "no perf on this host: install linux-perf (perf 6.1)"
perf --version | grep -q '^perf version 6\.1\.' ||
	skip "perf is $(perf --version), the harness is written against perf 6.1"

run() {
	local m=$1
	shift
	timeout -k 5 "$E2E_TIMEOUT" "$SRCDIR/tests/parity/run" "$m" --shim "$shim" "$@"
}
# slots far above the other counts, as on a real machine, so that the
# terms over slots in Ice Lake's level 1 are negligible
export FAKE_PMU_COUNTS=4:0x400=1e15
export FAKE_PMU_DURATION_NS=1234567891

# 1. deterministic: the same counts in two runs, and the same attrs
for i in 1 2; do
	run skylakex --log "$E2E_TMP/attr$i" -- perf stat -M TopdownL1 -x, true \
		>"$E2E_TMP/run$i" 2>&1 || fail "perf under the harness failed: $(cat "$E2E_TMP/run$i")"
done
cmp -s "$E2E_TMP/run1" "$E2E_TMP/run2" ||
	fail "two runs differ: $(diff "$E2E_TMP/run1" "$E2E_TMP/run2" | head)"
grep -v '^pid=' "$E2E_TMP/attr1" >"$E2E_TMP/a1"
grep -v '^pid=' "$E2E_TMP/attr2" >"$E2E_TMP/a2"
cmp -s "$E2E_TMP/a1" "$E2E_TMP/a2" || fail "two runs open different attrs"

# 3. the log: one block an open, every field of perf_event_attr
python3 - "$E2E_TMP/attr1" "$E2E_TMP/run1" <<'EOF' || fail "the attr log is not what perf opened"
import sys
blocks = [dict(l.split('=', 1) for l in b.splitlines())
          for b in open(sys.argv[1]).read().split('\n\n') if b.strip()]
fields = ('type size config sample_period sample_type read_format disabled inherit pinned '
          'exclusive exclude_user exclude_kernel exclude_hv exclude_idle mmap comm freq '
          'inherit_stat enable_on_exec task watermark precise_ip mmap_data sample_id_all '
          'exclude_host exclude_guest exclude_callchain_kernel exclude_callchain_user mmap2 '
          'comm_exec use_clockid context_switch write_backward namespaces ksymbol bpf_event '
          'aux_output cgroup text_poke build_id inherit_thread remove_on_exec sigtrap '
          'wakeup_events bp_type config1 config2 branch_sample_type sample_regs_user '
          'sample_stack_user clockid sample_regs_intr aux_watermark sample_max_stack '
          'aux_sample_size sig_data config3 open tool leader faked result').split()
perf = [b for b in blocks if b['tool'] == 'perf']
assert perf, 'no opens by perf'
for b in perf:
    missing = [f for f in fields if f not in b]
    assert not missing, 'open %s lacks %s' % (b['open'], missing)
faked = [b for b in perf if b['faked'] == '1' and b['result'] == 'ok']
# each counted event of the output is a faked open with its count
counts = {}
for l in open(sys.argv[2]):
    p = l.rstrip('\n').split(',')
    if len(p) > 3 and p[0].isdigit():
        counts.setdefault(p[2], int(p[0]))
assert len(faked) >= 6, 'TopdownL1 on skylakex opened %d events' % len(faked)
logged = {int(b['count']) for b in faked}
for name, c in counts.items():
    if name == 'duration_time':
        continue
    assert c in logged, '%s counted %d, which no logged open has' % (name, c)
# the group: members name their leader's open
seqs = {b['open'] for b in perf}
for b in perf:
    assert b['leader'] == 'self' or b['leader'] in seqs, 'open %s: leader %s' % (b['open'], b['leader'])
EOF

# 4. duration_time: exactly the fixed duration
dur=$(awk -F, '$3 == "duration_time" { print $1 }' "$E2E_TMP/run1" | head -1)
if [ -z "$dur" ]; then
	run skylakex -- perf stat -e duration_time -x, true >"$E2E_TMP/dur" 2>&1
	dur=$(awk -F, '$3 == "duration_time" { print $1 }' "$E2E_TMP/dur")
fi
expect_eq "duration_time under the shim" 1234567891 "$dur"

# 2. TopdownL1 on each Intel machine: four level-1 metrics, summing to 100
for m in skylakex icelakex sapphirerapids icelake alderlake; do
	run "$m" -- perf stat -M TopdownL1 -j true >"$E2E_TMP/td" 2>&1 ||
		fail "$m: perf stat -M TopdownL1 failed: $(cat "$E2E_TMP/td")"
	python3 - "$m" "$E2E_TMP/td" <<'EOF' || fail "$m: TopdownL1: $(cat "$E2E_TMP/td")"
import json, sys
m, path = sys.argv[1], sys.argv[2]
want = ('tma_frontend_bound', 'tma_bad_speculation', 'tma_retiring', 'tma_backend_bound')
got = {}
for l in open(path):
    if not l.startswith('{'):
        continue
    j = json.loads(l)
    unit = j.get('metric-unit', '').split()
    if unit and unit[-1] in want:
        got[unit[-1]] = float(j['metric-value'])
missing = [w for w in want if w not in got]
assert not missing, '%s: no value for %s' % (m, missing)
s = sum(got.values())
assert abs(s - 100) <= 0.01, '%s: level 1 sums to %.6f %%: %s' % (m, s, got)
print('%s: TopdownL1 %s, sum %.6f' % (m, got, s))
EOF
done
echo "PASS: $E2E_NAME"
