# SPDX-License-Identifier: MIT
# Sourced by every guest test (tests/guest/*.sh) inside the arm64 guest,
# under busybox sh. tests/guest/run copies this file to /root/lib/check.sh
# and the test to /root/NAME.sh, then runs `sh NAME.sh` in /root.
#
# A test makes named checks; each prints exactly one line for the runner,
#   PASS TEST/CHECK    or    FAIL TEST/CHECK
# and a failure adds details on lines starting with "  | ". A test ends
# with `finish`, which exits non-zero if any of its checks failed.

T=${0##*/}
T=${T%.sh}
failed=0
checks=0
SCRATCH=/tmp/$T
mkdir -p "$SCRATCH"

pass() {
	checks=$((checks + 1))
	echo "PASS $T/$1"
}

# fail CHECK [DETAIL...]
fail() {
	checks=$((checks + 1))
	failed=$((failed + 1))
	echo "FAIL $T/$1"
	shift
	local d
	for d in "$@"; do
		printf '%s\n' "$d" | sed 's/^/  | /'
	done
}

# expect_eq CHECK EXPECTED ACTUAL [DETAIL...]
expect_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		local c="$1" e="$2" a="$3"
		shift 3
		fail "$c" "expected: $e" "actual:   $a" "$@"
	fi
}

# expect CHECK DETAIL CONDITION...: pass if the command CONDITION succeeds.
expect() {
	local c="$1" d="$2"
	shift 2
	if "$@"; then pass "$c"; else fail "$c" "$d"; fi
}

# run NAME CMD...: run CMD with stdout to $SCRATCH/NAME.out, stderr to
# $SCRATCH/NAME.err and its exit status in $SCRATCH/NAME.rc. Returns 0.
run() {
	local n="$1"
	shift
	"$@" >"$SCRATCH/$n.out" 2>"$SCRATCH/$n.err"
	echo $? >"$SCRATCH/$n.rc"
	return 0
}

# rc NAME / out NAME / err NAME: what run NAME recorded.
rc() { cat "$SCRATCH/$1.rc"; }
out() { cat "$SCRATCH/$1.out"; }
err() { cat "$SCRATCH/$1.err"; }

# shown NAME: the command's exit status and output, for failure details.
shown() {
	echo "exit status $(rc "$1")"
	sed 's/^/stdout: /' "$SCRATCH/$1.out"
	sed 's/^/stderr: /' "$SCRATCH/$1.err"
}

# expect_ok CHECK NAME: the command recorded by run NAME exited 0.
expect_ok() {
	if [ "$(rc "$2")" = 0 ]; then pass "$1"; else fail "$1" "$(shown "$2")"; fi
}

# csv_lines NAME: the CSV lines of a recorded `stat -x ,` run (stderr),
# without comments and empty lines.
csv_lines() { grep -v -e '^#' -e '^$' "$SCRATCH/$1.err"; }

# field N: the Nth comma-separated field of standard input.
field() { cut -d, -f"$1"; }

# nfields: the number of comma-separated fields of each line of stdin.
nfields() { awk -F, '{ print NF }'; }

# is_count S: S is a whole number.
is_count() { case $1 in '' | *[!0-9]*) return 1 ;; *) return 0 ;; esac; }

finish() {
	if [ "$checks" = 0 ]; then
		echo "FAIL $T/ran-no-check"
		exit 1
	fi
	[ "$failed" = 0 ]
	exit
}
