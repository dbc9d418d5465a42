# SPDX-License-Identifier: MIT
# Events of one group share their time on the counters, so their
# multiplexing errors move together: a metric propagates their covariance.
# user instructions and user cycles are equal in every slice here (QEMU
# -icount), so their ratio, counted in one group, carries no multiplexing
# uncertainty, and their sum twice that of one of them (not sqrt(2) times,
# as if they were independent). Eight raw events of their own multiplex
# the group; the workload's phases make the rates vary between slices.
. ./lib/check.sh

fill=r08:u,r08:u,r08:u,r08:u,r08:u,r08:u,r08:u,r08:u
run m hpmon stat --json -e "$fill" --metric 'ratio = instructions:u / cycles:u' \
	--metric 'both = instructions:u + cycles:u' -- phases 60 300000 2000
expect_ok runs m
J=$SCRATCH/m.out
[ -s "$J" ] || J=$SCRATCH/m.err
# field OBJECT-NAME KEY: the number KEY of the JSON object named OBJECT-NAME
field() {
	tr '{' '\n' <"$J" | grep "\"name\":\"$1\"" | head -n 1 |
		sed -n "s/.*\"$2\":\([-0-9.e+]*\).*/\1/p"
}
ratio=$(field ratio value)
ratio_u=$(field ratio uncertainty)
both_u=$(field both uncertainty)
ins_u=$(field instructions:u uncertainty)
pct=$(field instructions:u pct_running)
expect "multiplexed" "instructions:u ran $pct % of the time; $(shown m)" \
	awk -v p="$pct" 'BEGIN { exit !(p > 0 && p < 100) }'
expect "varies-between-slices" "instructions:u uncertainty $ins_u; $(shown m)" \
	awk -v u="$ins_u" 'BEGIN { exit !(u > 0) }'
expect_eq ratio-is-one 1 "$ratio" "$(shown m)"
expect "ratio-in-one-group-has-no-uncertainty" "ratio +- $ratio_u; $(shown m)" \
	awk -v u="$ratio_u" 'BEGIN { exit !(u >= 0 && u < 1e-9) }'
expect "sum-of-one-group-adds-sigmas" "both +- $both_u, instructions +- $ins_u; $(shown m)" \
	awk -v b="$both_u" -v i="$ins_u" 'BEGIN { d = b / (2 * i) - 1; if (d < 0) d = -d; exit !(d < 1e-6) }'
finish
