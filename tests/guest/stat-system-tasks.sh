# SPDX-License-Identifier: MIT
# hpmon stat -a --per-process on the guest's real PMU: two loops run side
# by side (on one CPU they take turns, switched at every tick), and each
# one's row counts its own user-mode instructions exactly, however their
# turns fell. A row also holds what its process ran between the shell's
# fork and its exec, which differs a little between the first and the
# second job the shell starts; a control run of two equal loops measures
# that, and then each loop's row is exact: the first (loop N1) equals the
# control's first, the second (loop N2) the control's second plus
# 3 * (N2 - N1). The rows, idle and the kernel's threads included, add up
# to the total exactly.
. ./lib/check.sh

N1=1000000
N2=3000000
K=3

# loop_rows NAME: the loop rows' counts, in the order the shell started them
loop_rows() {
	csv_lines "$1" | awk -F, '$1 ~ /^loop-/ { sub(/^loop-/, "", $1); print $1, $2 }' |
		sort -n | awk '{ print $2 }' | tr '\n' ' '
}

run c hpmon stat -a --per-process -e instructions:u -x, -- sh -c "loop $N1 & loop $N1 & wait"
run s hpmon stat -a --per-process -e instructions:u -x, -- sh -c "loop $N1 & loop $N2 & wait"
expect_ok control-runs c
expect_ok runs s
ctl=$(loop_rows c)
got=$(loop_rows s)
set -- $ctl $got
if [ $# -eq 4 ] && is_count "$1" && is_count "$2" && is_count "$3" && is_count "$4"; then
	pass two-loop-rows
	expect_eq first-loop-exact "$1" "$3" "control: $ctl" "$(shown s)"
	expect_eq second-loop-exact $(($2 + K * (N2 - N1))) "$4" "control: $ctl" "$(shown s)"
	# and a row is the loop alone (from its exec) plus its fork's part
	run a hpmon stat -e instructions:u -x, -- loop $N1
	alone=$(csv_lines a | field 1)
	expect "row-is-the-loop-and-its-fork" "row $3, alone $alone" \
		test $(($3 - alone)) -ge 0 -a $(($3 - alone)) -lt 1000000
else
	fail two-loop-rows "control: $ctl" "rows: $got" "$(shown c)" "$(shown s)"
fi

# The table's rows add up to its total line.
run t hpmon stat -a --per-process --no-big-num -e instructions:u -- sh -c "loop $N1 & loop $N2 & wait"
expect_ok table-runs t
sum=$(awk '$3 == "instructions:u" && $1 != "total" { s += $2 } END { print s + 0 }' "$SCRATCH/t.err")
total=$(awk '$1 == "total" && $3 == "instructions:u" { print $2 }' "$SCRATCH/t.err")
expect_eq rows-add-up-to-total "$total" "$sum" "$(shown t)"
finish
