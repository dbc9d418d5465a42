# SPDX-License-Identifier: MIT
# How often the stated uncertainty of a multiplexed count covers its true
# error, with the kernel's fixed 4 ms rotation and with hpmon's own
# (random 1-7 ms dwells, random order), over workloads whose phases
# resonate with the rotation or not. N x instructions:u on 6 counters
# (N = 12, 16, 20: 2 to 4 hpmon sets) count the `phases` workload, P ms of
# user loop then P ms of system calls, some 300 ms in all; the exact count
# is that of instructions:u alone (user-mode counts are exact and
# repeatable under -icount). Each count's error is compared with its
# uncertainty (JSON "uncertainty", 1 sigma). One count per 6 events (the
# first of each hpmon set: a set's events share their slices), for both
# rotations. These runs are not repeatable to the count (QEMU's timers),
# so a cell moves from one measurement to the next by a few points.
# bench/mux-coverage.sh runs this in the guest and makes the table.
# Knobs (environment): PS (phase lengths, ms), NS, SEEDS, MUXES.
. ./lib/check.sh

PS=${PS:-"0.3 0.7 1 2 3 4 6 8 12 16 25"}
NS=${NS:-"12 16 20"}
SEEDS=${SEEDS:-"1 2 3 4"}
MUXES=${MUXES:-"kernel hpmon"}

# counts FILE: "count uncertainty" of the first of every 6 instructions:u
# in a stat JSON
counts() {
	tr '{' '\n' <"$1" | grep '"name":"instructions:u"' | awk 'NR % 6 == 1' |
		sed -n 's/.*"count":\([0-9.e+]*\).*"uncertainty":\([-0-9.e+]*\).*/\1 \2/p'
}

: >"$SCRATCH/all"
for P in $PS; do
	# P ms of user loop (3.2 ns an iteration here), then P ms of getppid
	# calls (470 ns each); some 300 ms in all
	set -- $(awk -v p=$P 'BEGIN { printf "%d %d %d", 150 / p, p * 312500, p * 2128 }')
	run x hpmon stat -x, -e instructions:u -- phases "$@"
	exact=$(csv_lines x | field 1)
	is_count "$exact" || { fail "exact-$P" "$(shown x)"; continue; }
	for N in $NS; do
		EV=instructions:u
		i=1
		while [ $i -lt $N ]; do EV=$EV,instructions:u; i=$((i + 1)); done
		for mux in $MUXES; do
			for seed in $SEEDS; do
				run m hpmon stat --json --mux $mux --mux-seed $seed -e "$EV" -- phases "$@"
				cat "$SCRATCH/m.out" "$SCRATCH/m.err" >"$SCRATCH/m.json"
				counts "$SCRATCH/m.json" |
					awk -v p=$P -v n=$N -v mux=$mux -v x="$exact" \
						'{ print mux, p, n, $1 - x, $2, x }' >>"$SCRATCH/all"
			done
		done
	done
done
# the data, for the table (bench/mux-coverage.py makes it from the
# log): rotation, phase ms, events, error, uncertainty, exact count
sed 's/^/DATA /' "$SCRATCH/all"
pass measured
finish
