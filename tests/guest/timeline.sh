# SPDX-License-Identifier: MIT
# record's timeline (docs/hpmon-record.md "Timeline") on a real PMU, whose
# user-mode instruction counts are exact under -icount shift=0:
#  - the mode is the kernel's: hpmon's own readings every interval of wall
#    time before Linux 6.12 (the lane's default kernel, 6.1), the kernel's
#    per-thread timers from 6.12 on; the summary says which;
#  - the timeline of `spinsleep N MS` (a loop of N iterations, a sleep of
#    MS ms, the loop again) adds up to the exact count of instructions:u
#    that hpmon stat gives, alone and in a group with cycles:u (equal
#    under icount), and with --timeline-mode poll on any kernel;
#  - the phases show: report --timeline's columns are all non-blank in
#    the first and the last quarter (the loops) and blank for at least a
#    quarter of them in the middle (the sleep is a third of the run).
. ./lib/check.sh

N=100000000
MS=300

run st hpmon stat -x, -e instructions:u -- spinsleep $N $MS
C=$(csv_lines st | field 1)
if is_count "$C" && [ $((C - 6 * N)) -gt 0 ] && [ $((C - 6 * N)) -lt 1000000 ]; then
	pass stat-exact
else
	fail stat-exact "expected 6 * $N plus start-up" "$(shown st)"
fi

# The kernel's release: 6.12 or later reads per thread with timers.
rel=$(uname -r)
maj=${rel%%.*}
min=${rel#*.}
min=${min%%.*}
if [ "$maj" -gt 6 ] || { [ "$maj" -eq 6 ] && [ "$min" -ge 12 ]; }; then
	mode="every thread read by the kernel"
else
	mode="all threads read together by hpmon"
fi
echo "# kernel $rel: expected timeline mode: $mode"

# total NAME EVENT: the total of the "all" line under EVENT in the
# report --timeline output of run NAME
total() {
	awk -v ev="$2" '/^[^ #]/ { cur = $1 }
		cur == ev && $1 == "all" { for (i = 1; i < NF; i++) if ($i == "total") print $(i + 1) }' \
		"$SCRATCH/$1.out"
}

# shape NAME: the phases in the "all" line of the first event of run NAME
# (ASCII bars: a column is a byte, blank when nothing counted). Prints
# "ok" or what is wrong.
shape() {
	awk '
		/^[^ #]/ && !ev { ev = $1 }
		ev && !line && $1 == "all" { line = $0 }
		{ last = $0 }
		END {
			start = index(last, "0")          # the axis: where the columns start
			end = index(line, "  min ")
			s = substr(line, start, end - start)
			n = length(s)
			if (n < 12) { print "only " n " columns: " s; exit }
			q = int(n / 4)
			if (substr(s, 1, q) ~ / /) { print "a blank column in the first loop: [" s "]"; exit }
			if (substr(s, n - q + 1) ~ / /) { print "a blank column in the second loop: [" s "]"; exit }
			best = 0; run = 0; at = 0
			for (i = 1; i <= n; i++) {
				if (substr(s, i, 1) == " ") { run++; if (run > best) { best = run; at = i - run + 1 } }
				else run = 0
			}
			if (best * 4 < n) { print "the sleep: " best " blank columns of " n ": [" s "]"; exit }
			if (at <= q || at + best - 1 > n - q) { print "the blank columns are not in the middle: [" s "]"; exit }
			print "ok"
		}' "$SCRATCH/$1.out"
}

# timeline NAME CHECK RECORD-OPTIONS...: record spinsleep with the
# options, report --timeline into run NAME's files
timeline() {
	local name=$1 check=$2
	shift 2
	run "$name-rec" hpmon record --timeline-interval 10 -o "$SCRATCH/$name.prof" "$@" -- \
		spinsleep $N $MS
	expect_ok "$check-records" "$name-rec"
	run "$name" env LC_ALL=C hpmon report --timeline -i "$SCRATCH/$name.prof"
	expect_ok "$check-reports" "$name"
}

timeline one instructions -e instructions:u
if grep -q "timeline: $mode" "$SCRATCH/one-rec.err"; then
	pass mode-of-the-kernel
else
	fail mode-of-the-kernel "expected 'timeline: $mode' in the summary" "$(shown one-rec)"
fi
expect_eq instructions-exact "$C" "$(total one instructions:u)" "$(shown one)"
sh1=$(shape one)
expect_eq instructions-phases ok "$sh1" "$(out one)"

timeline grp group -e '{cycles:u,instructions:u}'
expect_eq group-cycles-exact "$C" "$(total grp cycles:u)" "$(shown grp)"
expect_eq group-instructions-exact "$C" "$(total grp instructions:u)" "$(shown grp)"
expect_eq group-phases ok "$(shape grp)" "$(out grp)"

# hpmon's own readings, on a kernel that would have timers too
if [ "$mode" = "every thread read by the kernel" ]; then
	timeline poll polled --timeline-mode poll -e instructions:u
	expect_eq polled-exact "$C" "$(total poll instructions:u)" "$(shown poll)"
	expect_eq polled-phases ok "$(shape poll)" "$(out poll)"
fi
echo "# instructions:u $C; $(sed -n 's/^instructions:u$//; /^  all /p' "$SCRATCH/one.out" | head -1)"
finish
