# SPDX-License-Identifier: MIT
# Metrics and presets on a real PMU: under -icount shift=0 a user-mode
# cycle is a user-mode instruction, so -M ipc:u gives exactly 1; PAPI's
# instruction and cycle presets resolve to the PMU's own events and count
# exactly; a metric with more events than the 6 general counters is
# scheduled across groups the kernel multiplexes, and hpmon says so and
# gives each multiplexed count an uncertainty.
. ./lib/check.sh

N1=1000000
N2=3000000
K=3

# json_num FILE NAME KEY: the number KEY of the object whose "name" is NAME
# (hpmon's JSON is one line; objects of events and metrics are flat).
json_num() {
	tr -d '\n' <"$1" | sed 's/},{/}\n{/g; s/\[{/[\n{/g' |
		grep "\"name\":\"$2\"" | head -n 1 |
		sed -n "s/.*\"$3\":\\(-\\{0,1\\}[0-9.e+-]*\\).*/\\1/p"
}

# ---- -M ipc:u: exactly 1 ----
run ipc hpmon stat -M ipc:u --json -o "$SCRATCH/ipc.json" -- loop $N1
expect_ok ipc-runs ipc
ipc=$(json_num "$SCRATCH/ipc.json" ipc value)
cpi=$(json_num "$SCRATCH/ipc.json" cpi value)
expect_eq ipc-is-exactly-1 1 "$ipc" "$(cat "$SCRATCH/ipc.json")"
expect_eq cpi-is-exactly-1 1 "$cpi" "$(cat "$SCRATCH/ipc.json")"
ins=$(json_num "$SCRATCH/ipc.json" instructions:u raw_count)
cyc=$(json_num "$SCRATCH/ipc.json" cycles:u raw_count)
expect_eq ipc-events-equal "$ins" "$cyc"
expect_eq ipc-exact-uncertainty 0 "$(json_num "$SCRATCH/ipc.json" ipc uncertainty)"
# the table puts it beside instructions, as perf does
run ipct hpmon stat -M ipc:u -- loop $N1
expect ipc-in-table "$(shown ipct)" \
	grep -Eq 'instructions:u +# +1\.000 insn per cycle \(ipc\)' "$SCRATCH/ipct.err"
# one group for all of the group's events: none multiplexed
expect ipc-no-note "$(shown ipct)" sh -c "! grep -q 'hpmon:' '$SCRATCH/ipct.err'"

# ---- PAPI_TOT_INS and PAPI_TOT_CYC: the PMU's events, exact ----
run pa hpmon stat -e PAPI_TOT_INS:u,PAPI_TOT_CYC:u,instructions:u -x, -- loop $N1
run pb hpmon stat -e PAPI_TOT_INS:u,PAPI_TOT_CYC:u,instructions:u -x, -- loop $N2
expect_ok presets-run pa
ia=$(csv_lines pa | awk -F, '$3 == "PAPI_TOT_INS:u" { print $1 }')
ca=$(csv_lines pa | awk -F, '$3 == "PAPI_TOT_CYC:u" { print $1 }')
xa=$(csv_lines pa | awk -F, '$3 == "instructions:u" { print $1 }')
ib=$(csv_lines pb | awk -F, '$3 == "PAPI_TOT_INS:u" { print $1 }')
if is_count "$ia" && is_count "$ib" && is_count "$ca"; then
	pass presets-count
	expect_eq tot-ins-linear $((K * (N2 - N1))) $((ib - ia)) "$(shown pa)" "$(shown pb)"
	expect_eq tot-ins-equals-instructions "$xa" "$ia"
	expect_eq tot-cyc-equals-tot-ins "$ia" "$ca"
else
	fail presets-count "$(shown pa)" "$(shown pb)"
fi
run pl hpmon list --presets PAPI_TOT
expect tot-ins-listed "$(shown pl)" \
	grep -Eq '^  PAPI_TOT_INS +inst_retired .*\[arm\]  \(supported\)' "$SCRATCH/pl.out"
expect tot-cyc-listed "$(shown pl)" \
	grep -Eq '^  PAPI_TOT_CYC +cpu_cycles .*\[arm\]  \(supported\)' "$SCRATCH/pl.out"

# ---- a metric of 8 general events on 6 counters: two groups, a note ----
WIDE='wide = (inst_retired:u + r01:u + r02:u + r03:u + r04:u + r05:u + r06:u + r07:u) / inst_retired:u'
N=100000000 # 300 M instructions: some 75 rotations of the 4 ms timer
run w hpmon stat --metric "$WIDE" --json -o "$SCRATCH/w.json" -- loop $N
expect_ok wide-runs w
expect wide-note "$(shown w)" \
	grep -q 'wide needs 8 general counters but the core PMU has 6 (and 1 fixed): its events are split across 2 groups' \
	"$SCRATCH/w.json"
# inst_retired / inst_retired in one evaluation: exactly 1, whatever the scaling
expect_eq wide-value 1 "$(json_num "$SCRATCH/w.json" wide value)" "$(cat "$SCRATCH/w.json")"
pct=$(json_num "$SCRATCH/w.json" inst_retired:u pct_running)
expect wide-multiplexed "inst_retired:u ran $pct% of the time" \
	awk -v p="$pct" 'BEGIN { exit !(p > 0 && p < 100) }'
# the scaled count has an uncertainty, and the exact count lies within
# a few of it
sig=$(json_num "$SCRATCH/w.json" inst_retired:u uncertainty)
cnt=$(json_num "$SCRATCH/w.json" inst_retired:u count)
run ex hpmon stat -e inst_retired:u -x, -- loop $N
exact=$(csv_lines ex | field 1)
expect wide-uncertainty-given "uncertainty '$sig' of $cnt" \
	awk -v s="$sig" -v c="$cnt" 'BEGIN { exit !(s != "" && s + 0 >= 0 && s < 0.01 * c) }'
expect wide-within-uncertainty "scaled $cnt +- $sig, exact $exact" \
	awk -v s="$sig" -v c="$cnt" -v e="$exact" \
	'BEGIN { d = c - e; if (d < 0) d = -d; exit !(d <= 5 * s + 0.002 * e) }'
# the table says so too: the note, and a +- beside each multiplexed count
run wt hpmon stat --metric "$WIDE" -- loop $N
expect wide-note-in-table "$(shown wt)" grep -q '^# hpmon: wide needs 8' "$SCRATCH/wt.err"
expect wide-plusminus-in-table "$(shown wt)" \
	grep -Eq 'inst_retired:u .* ±[0-9.e+-]+% \([0-9.]+%\)$' "$SCRATCH/wt.err"
finish
