#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# libhpmon-rt on its own: a program that uses only marker.h and region.h
# (tests/workloads/user/rtlink.c) links with -lhpmon-rt and nothing else,
# statically and shared, and counts exactly on its own and under hpmon
# stat --regions and --marked. Its static binary is less than 100 KB
# bigger than the same program without the runtime.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/user-lib.sh"
require_hooks

lib=$(cd "$(dirname "$HPMON")" && pwd)/lib
[ -e "$lib/libhpmon-rt.a" ] || fail "no $lib/libhpmon-rt.a beside $HPMON"
# A sanitizer build compiles the runtime with the sanitizers: a program
# would have to link their runtime too, and nothing but -lhpmon-rt is what
# this test is about. The plain build (build/) runs it. (grep reads all of
# nm's output: grep -q would stop early, and pipefail fail the pipe.)
if nm "$lib/libhpmon-rt.a" 2>/dev/null | grep -e '__asan_' -e '__ubsan_' >/dev/null; then
	skip "this build's libhpmon-rt is compiled with sanitizers; the plain build checks the link"
fi
[ -e "$(gcc -print-file-name=libc.a)" ] || fail "no static C library (libc6-dev) to link with -static"

src=$SRCDIR/tests/workloads/user/rtlink.c
cflags=(-std=gnu11 -O2 -Wall -I"$SRCDIR/include")
link() { # OUT [GCC ARGS...]: rtlink.c, built as the arguments say
	local out=$1
	shift
	gcc "${cflags[@]}" -o "$E2E_TMP/$out" "$src" "$@" 2>"$E2E_TMP/build-$out.log" ||
		fail "cannot build $out ($*): $(cat "$E2E_TMP/build-$out.log")"
}
# -static and -lhpmon-rt: nothing else on the link line
link static -static -L"$lib" -lhpmon-rt
link bare -static -DNO_HPMON
progs=(static)
if [ -e "$lib/libhpmon-rt.so" ]; then
	link shared -L"$lib" -lhpmon-rt -Wl,-rpath,"$lib"
	progs+=(shared)
	expect_eq "shared: its libraries" "libc.so.6 libhpmon-rt.so.0" \
		"$(readelf -d "$E2E_TMP/shared" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | LC_ALL=C sort | xargs)"
else
	note "no libhpmon-rt.so in this build (static build): the shared link is not checked"
fi
expect_eq "static: no dynamic section" "" "$(readelf -d "$E2E_TMP/static" | grep NEEDED || true)"

# the size of the runtime in a static program, stripped (debug sections
# are not the program) and as built
size_of() { strip -o "$E2E_TMP/$1.stripped" "$E2E_TMP/$1" && stat -c %s "$E2E_TMP/$1.stripped"; }
grown=$(($(size_of static) - $(size_of bare)))
note "static binary: $(stat -c %s "$E2E_TMP/static") bytes as built, $grown bytes bigger stripped than without the runtime"
expect_in "static binary growth (bytes, stripped)" 1 $((100 * 1024 - 1)) "$grown"

# region NAME FIELD EVENT: the total row's FIELD of the CSV region lines
#   region,NAME,THREAD,CALLS,COUNT,EVENT,PCT,FLAGS
region() {
	csv "$E2E_TMP/err" , "[r[$2] for r in rows if r[0] == 'region' and r[1] == '$1' and r[5] == '$3']"
}

K=1001
for p in "${progs[@]}"; do
	prog=$E2E_TMP/$p
	expect_eq "$p: on its own" "steps $K evens $(((K + 1) / 2)) after 1" "$("$prog" $K)"
	hpm_ok stat --regions -x, -e task-clock,sw:steps,sw:evens -- "$prog" $K
	expect_eq "$p: sw:steps" $K "$(field_of "$E2E_TMP/err" , sw:steps)"
	expect_eq "$p: sw:evens" $(((K + 1) / 2)) "$(field_of "$E2E_TMP/err" , sw:evens)"
	expect_eq "$p: region calls" "['$K']" "$(region step 3 sw:steps)"
	expect_eq "$p: sw:steps in the region" "['$K']" "$(region step 4 sw:steps)"
	expect_eq "$p: sw:evens in the region" "['$(((K + 1) / 2))']" "$(region step 4 sw:evens)"
	expect_eq "$p: region not flagged" "['']" "$(region step 7 sw:steps)"
	hpm_ok stat --marked -x, -e sw:steps,sw:after -- "$prog" $K
	expect_eq "$p: marked sw:steps" $K "$(field_of "$E2E_TMP/err" , sw:steps)"
	expect_eq "$p: sw:after, counted unmarked" 0 "$(field_of "$E2E_TMP/err" , sw:after)"
done
echo "PASS: $E2E_NAME"
