# SPDX-License-Identifier: MIT
# When an object's symbol cache ($XDG_CACHE_HOME/hpmon/symbols/BUILD-ID)
# may answer: a report shows what a --no-cache report of the same profile
# shows, whatever was cached before.
#
# - The same file under another name (a hard link: same device, inode,
#   size and mtime): the places a debug file is looked for follow from the
#   name, so the link finds a debug file beside it that the other name
#   does not (and the other way round).
. "$(dirname "$0")/lib.sh"

export XDG_CACHE_HOME=$E2E_TMP/cache
dbg=$E2E_TMP/debug   # an empty debug directory: only what is beside the objects
mkdir -p "$dbg" "$E2E_TMP/a/.debug" "$E2E_TMP/b"

# rep NAME PROF ARGS...: report PROF into $E2E_TMP/NAME
rep() {
	local name=$1 prof=$2
	shift 2
	hpm_ok report -i "$E2E_TMP/$prof" --debug-dir "$dbg" --sort sym,dso --csv "$@"
	cp "$E2E_TMP/out" "$E2E_TMP/$name"
}
# same PROF WHEN: a report of PROF (with the cache) is as --no-cache's,
# what it says on stderr too (the advice on samples without symbols)
same() {
	rep ref "$1" --no-cache
	cp "$E2E_TMP/err" "$E2E_TMP/ref.err"
	rep got "$1"
	cmp -s "$E2E_TMP/got" "$E2E_TMP/ref" || fail "$2: not as --no-cache:
$(diff "$E2E_TMP/ref" "$E2E_TMP/got" | head -20)"
	cmp -s "$E2E_TMP/err" "$E2E_TMP/ref.err" || fail "$2: not as --no-cache on stderr:
$(diff "$E2E_TMP/ref.err" "$E2E_TMP/err" | head -20)"
}

# a stripped program whose debug file is in .debug/ beside it in a/ only;
# b/inl is the same file (a hard link)
cp "$WORKLOADS/inlined" "$E2E_TMP/a/inl"
objcopy --only-keep-debug "$E2E_TMP/a/inl" "$E2E_TMP/a/.debug/inl.debug"
strip --strip-all "$E2E_TMP/a/inl"
ln "$E2E_TMP/a/inl" "$E2E_TMP/b/inl"
for x in a b; do
	hpm_ok record -q -e cpu-clock:u -c 200003 -o "$E2E_TMP/$x.prof" -- "$E2E_TMP/$x/inl" 40000000
done
rep named a.prof --no-cache
expect_grep "a/inl: named from the debug file beside it" "^[0-9.,]*,outer_work,inl$" \
	"$E2E_TMP/named"
rep bare b.prof --no-cache
expect_no_grep "b/inl: no debug file beside it" "outer_work" "$E2E_TMP/bare"
# the cache of b's name first, then a's, then b's again
rm -rf "$XDG_CACHE_HOME"
same b.prof "b/inl, cold"
same a.prof "a/inl (the same file) after b/inl's report"
same b.prof "b/inl after a/inl's report"
same b.prof "b/inl, warm"

# another build at the same path, in place
rm -rf "$XDG_CACHE_HOME"
cp "$WORKLOADS/inlined" "$E2E_TMP/prog"
hpm_ok record -q -e cpu-clock:u -c 200003 -o "$E2E_TMP/old.prof" -- "$E2E_TMP/prog" 40000000
same old.prof "the first build, cold"
same old.prof "the first build, warm"
ino=$(stat -c %i "$E2E_TMP/prog")
cat "$WORKLOADS/calls" >"$E2E_TMP/prog"
expect_eq "rewritten in place" "$ino" "$(stat -c %i "$E2E_TMP/prog")"
hpm_ok record -q -e cpu-clock:u -c 200003 -o "$E2E_TMP/new.prof" -- "$E2E_TMP/prog" 100000000
same new.prof "the second build at the same path"
same new.prof "the second build, warm"
same old.prof "the first build's profile after the second build"

# one build-id at two paths (copies: two inodes), in turn
rm -rf "$XDG_CACHE_HOME"
cp "$WORKLOADS/inlined" "$E2E_TMP/c1"
cp "$WORKLOADS/inlined" "$E2E_TMP/c2"
for x in c1 c2; do
	hpm_ok record -q -e cpu-clock:u -c 200003 -o "$E2E_TMP/$x.prof" -- "$E2E_TMP/$x" 40000000
done
for x in c1 c2 c1 c2; do
	same "$x.prof" "a copy of the same build-id ($x)"
done

# annotate and diff, byte for byte: --no-cache, cold, warm
for run in --no-cache cold warm; do
	[ "$run" != cold ] || rm -rf "$XDG_CACHE_HOME"
	flag=$([ "$run" = --no-cache ] && echo --no-cache || true)
	# shellcheck disable=SC2086 # no flag: no word
	hpm_ok annotate -i "$E2E_TMP/c1.prof" --debug-dir "$dbg" $flag outer_work
	cp "$E2E_TMP/out" "$E2E_TMP/ann.$run"
	# shellcheck disable=SC2086
	hpm_ok diff $flag "$E2E_TMP/c1.prof" "$E2E_TMP/c2.prof"
	cp "$E2E_TMP/out" "$E2E_TMP/diff.$run"
done
grep -q "outer_work" "$E2E_TMP/diff.--no-cache" || fail "diff does not name outer_work"
[ -s "$E2E_TMP/ann.--no-cache" ] || fail "annotate showed nothing"
for run in cold warm; do
	cmp -s "$E2E_TMP/ann.$run" "$E2E_TMP/ann.--no-cache" || fail "annotate, $run: not as --no-cache:
$(diff "$E2E_TMP/ann.--no-cache" "$E2E_TMP/ann.$run" | head)"
	cmp -s "$E2E_TMP/diff.$run" "$E2E_TMP/diff.--no-cache" || fail "diff, $run: not as --no-cache:
$(diff "$E2E_TMP/diff.--no-cache" "$E2E_TMP/diff.$run" | head)"
done

# build-ids of other lengths, none, and a long path
cat >"$E2E_TMP/spin.c" <<'C'
#include <stdlib.h>
__attribute__((noinline)) static long spin(long n)
{
	volatile long s = 0;
	for (long i = 0; i < n; i++)
		s += i;
	return s;
}
int main(int argc, char **argv) { return (int)(spin(argc > 1 ? atol(argv[1]) : 1) & 1); }
C
long=$E2E_TMP
while [ ${#long} -lt 3700 ]; do long=$long/$(printf 'd%.0s' {1..200}); done
mkdir -p "$long"
declare -A ids=([b8]=0x0102030405060708 [b16]=md5 [none]=none [long]=sha1)
rm -rf "$XDG_CACHE_HOME"
for x in b8 b16 none long; do
	dir=$E2E_TMP
	[ "$x" != long ] || dir=$long
	cc -O1 -o "$dir/$x" -Wl,--build-id="${ids[$x]}" "$E2E_TMP/spin.c" ||
		fail "cc could not build the $x workload"
	hpm_ok record -q -e cpu-clock:u -c 200003 -o "$E2E_TMP/$x.prof" -- "$dir/$x" 100000000
	same "$x.prof" "$x, cold"
	grep -q ",spin,$x$" "$E2E_TMP/got" || fail "$x: spin not named:
$(cat "$E2E_TMP/got")"
	same "$x.prof" "$x, warm"
done
for want in 0102030405060708 "$(readelf -n "$E2E_TMP/b16" | awk '/Build ID/ { print $3 }')"; do
	[ "${#want}" -ne 40 ] || fail "not a 16-byte build-id: $want"
	[ -f "$XDG_CACHE_HOME/hpmon/symbols/$want" ] || fail "no cache named $want:
$(ls "$XDG_CACHE_HOME/hpmon/symbols")"
done
exit 0
