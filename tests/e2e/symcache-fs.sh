# SPDX-License-Identifier: MIT
# The objects' symbol caches when the cache directory cannot hold them,
# and when reports run at once. A cache is only a cache: the report shows
# what a --no-cache report shows, says nothing more, exits 0, and loses
# nothing but the cache.
#
# - Reports of one profile at once (each saves; the renames leave one
#   whole file, never a half-written one; no file left beside it), and
#   reports reading while others write.
# - A cache directory (or its symbols/) that is a file.
# - A full file system (a small tmpfs) and a read-only one: needs root
#   to mount.
. "$(dirname "$0")/lib.sh"

export XDG_CACHE_HOME=$E2E_TMP/cache
cp "$WORKLOADS/inlined" "$E2E_TMP/inl"
hpm_ok record -q -g -e cpu-clock:u -c 200003 -o "$E2E_TMP/p.prof" -- "$E2E_TMP/inl" 40000000

variants=("--inline --lines" "" "--no-demangle" "--lines" "-g --inline")
for i in "${!variants[@]}"; do
	# shellcheck disable=SC2086 # a variant is several words
	hpm_ok report -i "$E2E_TMP/p.prof" ${variants[$i]} --no-cache
	cp "$E2E_TMP/out" "$E2E_TMP/ref.$i"
	cp "$E2E_TMP/err" "$E2E_TMP/ref.$i.err"
done
grep -q outer_work "$E2E_TMP/ref.0" || fail "the workload's function is not named"

# check WHEN: every variant, one after the other, as --no-cache
check() {
	for i in "${!variants[@]}"; do
		# shellcheck disable=SC2086
		hpm_ok report -i "$E2E_TMP/p.prof" ${variants[$i]}
		cmp -s "$E2E_TMP/out" "$E2E_TMP/ref.$i" || fail "$1, '${variants[$i]}': not as --no-cache:
$(diff "$E2E_TMP/ref.$i" "$E2E_TMP/out" | head)"
		cmp -s "$E2E_TMP/err" "$E2E_TMP/ref.$i.err" || fail "$1, '${variants[$i]}': said more:
$(diff "$E2E_TMP/ref.$i.err" "$E2E_TMP/err" | head)"
	done
}

# at once: three rounds of every variant in parallel, from an empty cache
# and then from the one they left
symdir=$XDG_CACHE_HOME/hpmon/symbols
for round in 1 2 3; do
	[ "$round" -ne 1 ] || rm -rf "$XDG_CACHE_HOME"
	pids=()
	for i in "${!variants[@]}"; do
		# shellcheck disable=SC2086
		timeout -k 5 "$E2E_TIMEOUT" "$HPMON" report -i "$E2E_TMP/p.prof" ${variants[$i]} \
			>"$E2E_TMP/par.$i" 2>"$E2E_TMP/par.$i.err" </dev/null &
		pids+=($!)
	done
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || fail "round $round: the report '${variants[$i]}' at once failed"
		cmp -s "$E2E_TMP/par.$i" "$E2E_TMP/ref.$i" || fail "round $round, '${variants[$i]}' at once: not as --no-cache"
		cmp -s "$E2E_TMP/par.$i.err" "$E2E_TMP/ref.$i.err" || fail "round $round, '${variants[$i]}' at once: said more"
	done
	left=$(find "$symdir" -type f ! -regex '.*/[0-9a-f]+$')
	[ -z "$left" ] || fail "round $round: files left beside the caches: $left"
done
check "after reports at once"

# a file where the cache directory would be, or its symbols/
rm -rf "$XDG_CACHE_HOME"
mkdir -p "$XDG_CACHE_HOME"
echo keep >"$XDG_CACHE_HOME/hpmon"
check "the cache directory a file"
expect_eq "the file in the cache directory's place" keep "$(cat "$XDG_CACHE_HOME/hpmon")"
rm "$XDG_CACHE_HOME/hpmon"
mkdir -p "$XDG_CACHE_HOME/hpmon"
echo keep >"$symdir"
check "symbols/ a file"
expect_eq "the file in symbols/' place" keep "$(cat "$symdir")"

# a full file system, then a read-only one
[ "$(id -u)" -eq 0 ] || skip "needs root to mount a small tmpfs (the rest passed)"
mnt=$E2E_TMP/mnt
mkdir -p "$mnt"
mount -t tmpfs -o size=64k,mode=0700 hpmon-test "$mnt" || skip "cannot mount a tmpfs (the rest passed)"
cleanup_mount() { umount "$mnt" 2>/dev/null || true; }
trap 'rc=$?; cleanup_mount; (exit $rc); e2e_cleanup' EXIT
export XDG_CACHE_HOME=$mnt
mkdir -p "$mnt/hpmon/symbols"
chmod 700 "$mnt/hpmon" "$mnt/hpmon/symbols"
# full: what is left is too little for any cache
dd if=/dev/zero of="$mnt/fill" bs=1k count=128 2>/dev/null || true
check "a full file system"
left=$(find "$mnt/hpmon" -type f)
[ -z "$left" ] || fail "a full file system: files left: $left"
rm "$mnt/fill"
check "room again"
[ -n "$(find "$mnt/hpmon/symbols" -type f)" ] || fail "no cache saved once there was room"
# read-only: the caches there still read; one gone, not written again
rm -f "$(find "$mnt/hpmon/symbols" -type f | head -1)"
mount -o remount,ro "$mnt" || skip "cannot make the tmpfs read-only (the rest passed)"
check "a read-only file system"
exit 0
