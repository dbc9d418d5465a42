#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The source file annotate shows is named by the object's DWARF, which
# whoever built the object wrote: it is opened without waiting, read only
# when it is a regular file, and no further than a bound. An object built
# from spin.c, profiled; then spin.c replaced by a FIFO (before: annotate's
# open waited for a writer for ever), by a symlink to /dev/zero (before:
# read until memory ran out) and by a file of 40 MiB of newlines (read up
# to the bound: 16 MiB, a million lines). Each time annotate and report
# --html (its annotate panel reads the same lines) end at once, within a
# memory bound, with the instructions and without the source's text.
. "$(dirname "$0")/lib.sh"

command -v gcc >/dev/null || skip "gcc is needed to build the object"
src=$E2E_TMP/spin.c
cat >"$src" <<'EOF'
#include <stdlib.h>
volatile unsigned long sink;
__attribute__((noinline)) void spin_here(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) /* the loop line */
		sink += i;
}
int main(int argc, char **argv)
{
	spin_here(argc > 1 ? strtoul(argv[1], NULL, 10) : 1000);
	return 0;
}
EOF
gcc -O1 -g -o "$E2E_TMP/spin" "$src" || fail "cannot build the workload"
hpm_ok record -q -e cpu-clock -o "$E2E_TMP/s.prof" -- "$E2E_TMP/spin" 300000000

# Under ASan the shadow memory is the program's RSS too: the bound is the
# plain build's.
asan=false
grep -qa __asan_init "$HPMON" && asan=true

# measure ARGS...: hpmon ARGS (stdout to $E2E_TMP/out, stderr to
# $E2E_TMP/err), at most 30 s (a hang fails at once, not at E2E_TIMEOUT):
# sets HPM_STATUS and RSS_KB.
measure() {
	local r
	r=$(python3 - "$HPMON" "$@" <<'PY'
import os, resource, subprocess, sys
tmp = os.environ["E2E_TMP"]
with open(tmp + "/out", "wb") as o, open(tmp + "/err", "wb") as e:
    try:
        rc = subprocess.run(sys.argv[1:], stdout=o, stderr=e, stdin=subprocess.DEVNULL,
                            timeout=30).returncode
    except subprocess.TimeoutExpired:
        rc = 124
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
)
	read -r HPM_STATUS RSS_KB <<<"$r"
}
export E2E_TMP

# annotate_as WHAT SOURCE_SHOWN: annotate and report --html of the profile
# end, with the loop's instructions, and the source's loop line shown
# (SOURCE_SHOWN yes) or not (no)
annotate_as() {
	local what=$1 shown=$2
	measure annotate -i "$E2E_TMP/s.prof" spin_here
	[ "$HPM_STATUS" -ne 124 ] || fail "$what: annotate did not end in 30 s"
	[ "$HPM_STATUS" -eq 0 ] || fail "$what: annotate exited $HPM_STATUS: $(cat "$E2E_TMP/err")"
	note "$what: annotate's max RSS ${RSS_KB} KiB"
	$asan || [ "$RSS_KB" -le 131072 ] || fail "$what: annotate used ${RSS_KB} KiB, over 128 MiB"
	expect_grep "$what: instructions with samples" '^ +[0-9]+ +[0-9.]+% +[0-9a-f]+: +[a-z]' \
		"$E2E_TMP/out"
	expect_grep "$what: the lines named" 'spin\.c:[0-9]+' "$E2E_TMP/out"
	if [ "$shown" = yes ]; then
		expect_grep "$what: the source's text" 'the loop line' "$E2E_TMP/out"
	else
		expect_no_grep "$what: no source text" 'the loop line' "$E2E_TMP/out"
	fi
	measure report -i "$E2E_TMP/s.prof" --html -o "$E2E_TMP/s.html"
	[ "$HPM_STATUS" -ne 124 ] || fail "$what: report --html did not end in 30 s"
	[ "$HPM_STATUS" -eq 0 ] || fail "$what: report --html exited $HPM_STATUS: $(cat "$E2E_TMP/err")"
	$asan || [ "$RSS_KB" -le 131072 ] || fail "$what: report --html used ${RSS_KB} KiB"
	if [ "$shown" = yes ]; then
		expect_grep "$what: the page's source text" 'the loop line' "$E2E_TMP/s.html"
	else
		expect_no_grep "$what: no source text in the page" 'the loop line' "$E2E_TMP/s.html"
	fi
}

annotate_as "the source file" yes

rm "$src"
mkfifo "$src"
annotate_as "a FIFO" no

rm "$src"
ln -s /dev/zero "$src"
annotate_as "a symlink to /dev/zero" no

# a regular file, larger than the bound: its first 16 MiB (a million
# lines: more than the loop's line number, so the lines are blank)
rm "$src"
head -c $((40 << 20)) /dev/zero | tr '\0' '\n' >"$src"
annotate_as "40 MiB of newlines" no

note "ok"
