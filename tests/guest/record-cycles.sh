# SPDX-License-Identifier: MIT
# Sampling on the overflow of cycles:u under -icount shift=0, where one
# user-mode instruction is one cycle and counts are exact:
#  - a run of C cycles sampled every P cycles gives exactly floor(C / P)
#    samples, C counted by hpmon stat in a run of its own;
#  - twofunc's heavy() and light() retire 3 * 3N and 3N instructions, so
#    each gets floor or ceil of its instructions / P samples;
#  - a group {cycles:u,instructions:u} read at each sample gives
#    cycles/instructions = 1.000 per function (CPI 1 under icount), and
#    so does the metric cpi of the metric files (report -M cpi).
. ./lib/check.sh

N=4000000
P=100003

run st hpmon stat -e cycles:u -x, -- twofunc $N
C=$(csv_lines st | field 1)
if ! is_count "$C"; then
	fail stat-counts "$(shown st)"
	
# call chains from DWARF stack copies, unwound by hpmon report in the guest
run dw hpmon record -e cycles:u -c $P --call-graph dwarf -o "$SCRATCH/w.prof" -- twofunc $N
expect_ok dwarf-record dw
run dwr hpmon report -i "$SCRATCH/w.prof" -g --json
edge() { tr -d ' \n' <"$SCRATCH/dwr.out" | grep -o "\"sym\":\"main\"[^]]*]" |
	grep -o "\"sym\":\"$1\",\"percent\":[0-9.]*" | sed 's/.*://'; }
eh=$(edge heavy)
el=$(edge light)
echo "# dwarf: main -> heavy $eh %, main -> light $el %"
expect "dwarf-main-calls-heavy" "main -> heavy: '$eh' %, expected 75 +- 1" \
	awk -v v="$eh" 'BEGIN { exit !(v != "" && v > 74 && v < 76) }'
expect "dwarf-main-calls-light" "main -> light: '$el' %, expected 25 +- 1" \
	awk -v v="$el" 'BEGIN { exit !(v != "" && v > 24 && v < 26) }'
finish
fi

run rec hpmon record -e cycles:u -c $P -o "$SCRATCH/c.prof" -- twofunc $N
expect_ok record-runs rec
run rep hpmon report -i "$SCRATCH/c.prof" --csv
expect_ok report-runs rep
total=$(awk -F, 'NR > 1 { s += $1 } END { print s + 0 }' "$SCRATCH/rep.out")
expect_eq samples-are-floor-C-over-P $((C / P)) "$total" "cycles:u counted: $C, period $P" \
	"$(out rep)"

fn() { awk -F, -v f="$1" 'NR > 1 && $4 == f { print $1 }' "$SCRATCH/rep.out"; }
heavy=$(fn heavy)
light=$(fn light)
echo "# cycles:u $C, period $P: $total samples; heavy $heavy, light $light"
H=$((9 * N))
L=$((3 * N))
# each function's instructions are its loop's plus a handful of its own
expect "heavy-samples" "heavy: $heavy samples, expected $((H / P)) or $((H / P + 1))" \
	test "$heavy" -ge $((H / P)) -a "$heavy" -le $((H / P + 1))
expect "light-samples" "light: $light samples, expected $((L / P)) or $((L / P + 1))" \
	test "$light" -ge $((L / P)) -a "$light" -le $((L / P + 1))
run same hpmon record -e cycles:u -c $P -o "$SCRATCH/d.prof" -- twofunc $N
run rep2 hpmon report -i "$SCRATCH/d.prof" --csv
expect_eq repeatable "$(out rep)" "$(out rep2)"

# the group: leader triggers, the member is read at each sample
run g hpmon record -e '{cycles:u,instructions:u}' -c $P -o "$SCRATCH/g.prof" -- twofunc $N
expect_ok group-record g
run gr hpmon report -i "$SCRATCH/g.prof" --csv
expect_eq group-samples $((C / P)) \
	"$(awk -F, 'NR > 1 { s += $1 } END { print s + 0 }' "$SCRATCH/gr.out")" "$(out gr)"
cpi() { awk -F, -v f="$1" 'NR > 1 && $5 == f { printf "%.3f", $4 }' "$SCRATCH/gr.out"; }
expect_eq cpi-heavy 1.000 "$(cpi heavy)" "$(out gr)"
expect_eq cpi-light 1.000 "$(cpi light)" "$(out gr)"
# the same from the metric file's formula (cpi = cycles / instructions),
# evaluated per function from the group's counts: the column before sym,dso
run grm hpmon report -i "$SCRATCH/g.prof" -M cpi --csv
expect_ok report-metric-cpi grm
mcpi() { awk -F, -v f="$1" 'NR > 1 && $(NF - 1) == f { printf "%.3f", $(NF - 2) }' "$SCRATCH/grm.out"; }
expect_eq metric-cpi-header cpi "$(head -1 "$SCRATCH/grm.out" | awk -F, '{ print $(NF - 2) }')" "$(out grm)"
expect_eq metric-cpi-heavy 1.000 "$(mcpi heavy)" "$(out grm)"
expect_eq metric-cpi-light 1.000 "$(mcpi light)" "$(out grm)"

# call chains from DWARF stack copies, unwound by hpmon report in the guest
run dw hpmon record -e cycles:u -c $P --call-graph dwarf -o "$SCRATCH/w.prof" -- twofunc $N
expect_ok dwarf-record dw
run dwr hpmon report -i "$SCRATCH/w.prof" -g --json
edge() { tr -d ' \n' <"$SCRATCH/dwr.out" | grep -o "\"sym\":\"main\"[^]]*]" |
	grep -o "\"sym\":\"$1\",\"percent\":[0-9.]*" | sed 's/.*://'; }
eh=$(edge heavy)
el=$(edge light)
echo "# dwarf: main -> heavy $eh %, main -> light $el %"
expect "dwarf-main-calls-heavy" "main -> heavy: '$eh' %, expected 75 +- 1" \
	awk -v v="$eh" 'BEGIN { exit !(v != "" && v > 74 && v < 76) }'
expect "dwarf-main-calls-light" "main -> light: '$el' %, expected 25 +- 1" \
	awk -v v="$el" 'BEGIN { exit !(v != "" && v > 24 && v < 26) }'
finish
