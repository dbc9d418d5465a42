# SPDX-License-Identifier: MIT
# The raw slices of multiplexed counts, for iterating uncertainty
# estimators off line (bench/mux-slices.sh runs this in the arm64 guest
# and copies the data out; bench/mux-coverage.py reads it). N x
# instructions:u on 6 counters count the `phases` workload, P ms of user
# loop then P ms of system calls, some 300 ms in all; hpmon reads every
# count every 10 ms (-I 10, its own sampling period) and prints each
# read's deltas. The truth is instructions:u alone (exact under -icount).
#
# Lines: X P EXACT                       the exact count for phase length P
#        I MUX P N SEED T_NS  y,e,r ...  one 10 ms read: each event's
#                                        count, enabled and running ns
#        E MUX P N SEED                  the end of a run
# Knobs (environment): PS (phase lengths, ms), NS (event counts), SEEDS.
PS=${PS:-"0.3 0.7 1 2 3 4 6 8 12 16 25"}
NS=${NS:-"12 16 20"}
SEEDS=${SEEDS:-"1 2 3"}
MUXES=${MUXES:-"kernel hpmon"}
TRACE=${TRACE:-}

slices() {
	awk -v tag="$1" '
	/"interval_ns"/ {
		match($0, /"time_ns":[0-9]+/); t = substr($0, RSTART + 10, RLENGTH - 10)
		out = "I " tag " " t; s = $0
		while (match(s, /"raw_count":[0-9]+,"enabled_ns":[0-9]+,"running_ns":[0-9]+/)) {
			f = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
			gsub(/"[a-z_]+":/, "", f); out = out " " f
		}
		print out
	}'
}

# traced: the same from a build that prints each read's cumulative counts
# ("S T_NS v,e,r ..." on stderr, at every read hpmon makes)
traced() {
	awk -v tag="$1" '
	$1 == "S" {
		out = "I " tag " " $2
		for (i = 3; i <= NF; i++) {
			split($i, a, ","); split(p[i], b, ",")
			out = out " " (a[1] - b[1]) "," (a[2] - b[2]) "," (a[3] - b[3]); p[i] = $i
		}
		print out
	}'
}

for P in $PS; do
	set -- $(awk -v p=$P 'BEGIN { printf "%d %d %d", 150 / p, p * 312500, p * 2128 }')
	x=$(hpmon stat -x, -e instructions:u -- phases "$@" 2>&1 >/dev/null | grep -v "^S " | cut -d, -f1)
	echo "X $P $x"
	for N in $NS; do
		EV=instructions:u
		i=1
		while [ $i -lt $N ]; do EV=$EV,instructions:u; i=$((i + 1)); done
		for mux in $MUXES; do
			for seed in $SEEDS; do
				if [ -n "$TRACE" ]; then
					hpmon stat --json --mux $mux --mux-seed $seed -e "$EV" \
						-o /tmp/s.json -- phases "$@" 2>/tmp/s.err || echo "FAILED $mux $P $N $seed"
					traced "$mux $P $N $seed" </tmp/s.err
				else
					hpmon stat -I 10 --json --mux $mux --mux-seed $seed -e "$EV" \
						-o /tmp/s.json -- phases "$@" || echo "FAILED $mux $P $N $seed"
					slices "$mux $P $N $seed" </tmp/s.json
				fi
				echo "E $mux $P $N $seed"
			done
		done
	done
done
