# How often the stated uncertainty of a multiplexed count covers its true
# error, with the kernel's fixed 4 ms rotation and with hpmon's own
# (random 1-7 ms dwells), over workloads whose phases resonate with the
# rotation or not. 16 x instructions:u on 6 counters (3 sets) count the
# `phases` workload; the exact count is that of instructions:u alone
# (user-mode counts are exact and repeatable under -icount). Each count's
# error is compared with its uncertainty (JSON "uncertainty", 1 sigma).
# The events of one set share their counts, so each distinct count is
# taken once; six runs (seeds) per rotation and phase length. Asserted:
# hpmon's rotation covers at least 93 % of the errors at 2 sigma (the
# stated 95 %) over more than 100 counts. These runs are not repeatable
# to the count (QEMU's timers), so the figures move from run to run by a
# few points. Printed: the table by phase
# length, both rotations, at 1 and 2 sigma, and the error RMS.
. ./lib/check.sh

EV=instructions:u
i=1
while [ $i -lt 16 ]; do EV=$EV,instructions:u; i=$((i + 1)); done

# counts FILE: "count uncertainty" of each instructions:u in a stat JSON
counts() {
	tr '{' '\n' <"$1" | grep '"name":"instructions:u"' |
		sed -n 's/.*"count":\([0-9.e+]*\).*"uncertainty":\([-0-9.e+]*\).*/\1 \2/p'
}

: >"$SCRATCH/all"
for P in 0.3 1 2 4 8 25; do
	# P ms of user loop (3.2 ns an iteration here), then P ms of getppid
	# calls (470 ns each); some 300 ms in all
	set -- $(awk -v p=$P 'BEGIN { printf "%d %d %d", 150 / p, p * 312500, p * 2128 }')
	run x hpmon stat -x, -e instructions:u -- phases "$@"
	exact=$(csv_lines x | field 1)
	is_count "$exact" || { fail "exact-$P" "$(shown x)"; continue; }
	for mux in kernel hpmon; do
		for seed in 1 2 3 4 5 6; do
			run m hpmon stat --json --mux $mux --mux-seed $seed -e "$EV" -- phases "$@"
			cat "$SCRATCH/m.out" "$SCRATCH/m.err" >"$SCRATCH/m.json"
			# the events of one set share their counts: one of each
			counts "$SCRATCH/m.json" | sort -u |
				awk -v p=$P -v mux=$mux -v x="$exact" '{ print mux, p, $1 - x, $2, x }' \
					>>"$SCRATCH/all"
		done
	done
done
# the data, for the table (bench/mux-coverage.py makes it from the
# log): rotation, phase ms, error, uncertainty, exact count
sed 's/^/DATA /' "$SCRATCH/all"
finish
