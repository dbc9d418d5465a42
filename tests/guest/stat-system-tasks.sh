# hpmon stat -a --per-process on the guest's real PMU: two loops run side
# by side (on one CPU they take turns, switched at every tick), and each
# one's row counts its own user-mode instructions exactly: the rows differ
# by exactly 3 * (N2 - N1), the loops' own difference, however their
# turns fell. The rows, idle and the kernel's threads included, add up to
# the total exactly.
. ./lib/check.sh

N1=1000000
N2=3000000
K=3

run s hpmon stat -a --per-process -e instructions:u -x, -- sh -c "loop $N1 & loop $N2 & wait"
expect_ok runs s
rows=$(csv_lines s | awk -F, '$1 ~ /^loop-/ { print $2 }' | sort -n | tr '\n' ' ')
set -- $rows
if [ $# -eq 2 ] && is_count "$1" && is_count "$2"; then
	pass two-loop-rows
	expect_eq side-by-side-difference $((K * (N2 - N1))) $(($2 - $1)) "rows: $rows" "$(shown s)"
	# Each row also holds what its process ran between fork and exec (the
	# shell's child), the same for both: a row is the loop's count alone
	# (from exec) plus that.
	run a hpmon stat -e instructions:u -x, -- loop $N1
	alone=$(csv_lines a | field 1)
	expect "row-is-the-loop-and-its-fork" "row $1, alone $alone" \
		test $(($1 - alone)) -ge 0 -a $(($1 - alone)) -lt 1000000
else
	fail two-loop-rows "rows: $rows" "$(shown s)"
fi

# The table's rows add up to its total line.
run t hpmon stat -a --per-process --no-big-num -e instructions:u -- sh -c "loop $N1 & loop $N2 & wait"
expect_ok table-runs t
sum=$(awk '$3 == "instructions:u" && $1 != "total" { s += $2 } END { print s + 0 }' "$SCRATCH/t.err")
total=$(awk '$1 == "total" && $3 == "instructions:u" { print $2 }' "$SCRATCH/t.err")
expect_eq rows-add-up-to-total "$total" "$sum" "$(shown t)"
finish
