# SPDX-License-Identifier: MIT
# The promise of the uncertainty (docs/metrics.md): the stated interval
# covers the true error at its stated level, at least 93 % of the errors
# within 2 sigma (the stated 95 %), over more than 100 counts. The grid:
# N x instructions:u on 6 counters (N = 12, 16, 20: 2 to 4 sets), counting
# the `phases` workload with P ms of user loop then P ms of system calls
# (P = 0.3 to 25 ms, so that some phases keep step with a rotation of a
# few ms; some 150 ms in all), two runs each, with the default rotation;
# the truth is instructions:u alone, exact under -icount. One count per 6 events (the
# first of each set: a set's events share their slices). The runs are
# not repeatable to the count (QEMU's timers), so the figure moves by a
# point or two from one boot to the next; bench/mux-coverage.sh measures
# the same with more runs, for both rotations.
# guest-timeout: 600
. ./lib/check.sh

# counts FILE: "count uncertainty" of the first of every 6 instructions:u
counts() {
	tr '{' '\n' <"$1" | grep '"name":"instructions:u"' | awk 'NR % 6 == 1' |
		sed -n 's/.*"count":\([0-9.e+]*\).*"uncertainty":\([-0-9.e+a-z]*\).*/\1 \2/p'
}

: >"$SCRATCH/all"
for P in 0.3 1 3 6 12 25; do
	# P ms of user loop (3.2 ns an iteration here), then P ms of getppid
	# calls (470 ns each); some 150 ms in all (bench/mux-coverage.sh
	# runs 300 ms), so that the lane's time stays within a minute or two
	set -- $(awk -v p=$P 'BEGIN { r = int(75 / p); if (r < 3) r = 3; printf "%d %d %d", r, p * 312500, p * 2128 }')
	run x hpmon stat -x, -e instructions:u -- phases "$@"
	exact=$(csv_lines x | field 1)
	is_count "$exact" || { fail "exact-$P" "$(shown x)"; continue; }
	for N in 12 16 20; do
		EV=instructions:u
		i=1
		while [ $i -lt $N ]; do EV=$EV,instructions:u; i=$((i + 1)); done
		for seed in 1 2; do
			run m hpmon stat --json --mux-seed $seed -e "$EV" -- phases "$@"
			cat "$SCRATCH/m.out" "$SCRATCH/m.err" >"$SCRATCH/m.json"
			counts "$SCRATCH/m.json" |
				awk -v p=$P -v n=$N -v x="$exact" '{ print "DATA default", p, n, $1 - x, $2, x }' \
					>>"$SCRATCH/all"
		done
	done
done
cat "$SCRATCH/all"
bad=$(awk '$6 !~ /^[0-9.e+]+$/ || $6 + 0 <= 0 { print }' "$SCRATCH/all")
expect_eq every-count-has-an-uncertainty "" "$bad"
n=$(grep -c . "$SCRATCH/all")
expect "over-100-counts" "only $n counts" [ "$n" -ge 100 ]
cov=$(awk '{ e = $5 < 0 ? -$5 : $5; if (e <= 2 * $6) c++ } END { printf "%.1f", 100 * c / NR }' "$SCRATCH/all")
echo "# within 2 sigma: $cov % of $n counts"
expect "covers-93-percent-at-2-sigma" "within 2 sigma: $cov % of $n counts" \
	awk -v c="$cov" 'BEGIN { exit !(c >= 93) }'
finish
