# SPDX-License-Identifier: MIT
# The objects' symbol caches ($XDG_CACHE_HOME/hpmon/symbols/BUILD-ID) are
# the user's alone, as the kernel-symbol cache (kcache-trust.sh): a cache
# another user owns, one group or others could write, or one in such a
# directory, is never read (nor written); a link at a cache's name is
# never followed; a cache is untrusted input (a name with a control byte
# refused).
#
# How "used" is seen: once a cache is saved, the program's function name
# in it is patched (outer_work -> Outer_work, same length); a report that
# shows the patched name read the cache, one that shows outer_work read
# the program.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root to give files to another user (chown nobody)"

export XDG_CACHE_HOME=$E2E_TMP/cache
dir=$XDG_CACHE_HOME/hpmon/symbols
cp "$WORKLOADS/inlined" "$E2E_TMP/inl"
bid=$(readelf -n "$E2E_TMP/inl" | awk '/Build ID/ { print $3 }')
[ -n "$bid" ] || skip "the workload has no build-id"
saved=$dir/$bid
hpm_ok record -q -e cpu-clock:u -c 200003 -o "$E2E_TMP/p.prof" -- "$E2E_TMP/inl" 40000000

report() { hpm_ok report -i "$E2E_TMP/p.prof" --sort sym,dso --csv; }
# patch_name FIRST_BYTE_HEX: the first byte of outer_work (or Outer_work) in the cache
patch_name() {
	python3 - "$saved" "$1" <<'EOF'
import sys
path, first = sys.argv[1], bytes([int(sys.argv[2], 16)])
data = bytearray(open(path, 'rb').read())
at = max(data.find(b'\0outer_work\0'), data.find(b'\0Outer_work\0'))
assert at > 0, 'name not found in the cache'
data[at + 1:at + 2] = first
open(path, 'wb').write(data)
EOF
}
# fresh: a cache saved from the program, then patched to Outer_work
fresh() {
	chmod 700 "$XDG_CACHE_HOME/hpmon" "$dir" 2>/dev/null || true
	rm -f "$saved"
	report
	[ -f "$saved" ] || fail "no cache saved at $saved"
	patch_name 4f # 'O'
}
# source_of: did the report name the function from the cache or the program?
source_of() {
	report
	if grep -q ",Outer_work,inl$" "$E2E_TMP/out"; then
		echo cache
	elif grep -q ",outer_work,inl$" "$E2E_TMP/out"; then
		echo program
	else
		echo none
	fi
}

fresh
expect_eq "the user's own cache is used" cache "$(source_of)"
expect_eq "the cache is the user's only" 600 "$(stat -c %a "$saved")"
expect_eq "in a directory of the user's only" 700 "$(stat -c %a "$dir")"

fresh
chown nobody "$saved"
expect_eq "a cache owned by another user is not used" program "$(source_of)"

fresh
chmod 620 "$saved"
expect_eq "a group-writable cache is not used" program "$(source_of)"

fresh
chmod 770 "$dir"
ino=$(stat -c %i "$saved")
expect_eq "a cache in a group-writable directory is not used" program "$(source_of)"
expect_eq "nor is one written there" "$ino" "$(stat -c %i "$saved")"

fresh
chmod 777 "$XDG_CACHE_HOME/hpmon"
expect_eq "a cache under a directory others can write is not used" program "$(source_of)"

# a link at the cache's name is not followed, and is replaced by a cache;
# its target stays as it was
fresh
echo victim >"$E2E_TMP/victim"
chmod 644 "$E2E_TMP/victim"
mv "$saved" "$E2E_TMP/real"
ln -s "$E2E_TMP/real" "$saved"
expect_eq "a cache behind a symlink is not used" program "$(source_of)"
[ -f "$saved" ] && [ ! -L "$saved" ] || fail "the link at $saved was not replaced by a cache"
rm -f "$saved"
ln -s "$E2E_TMP/victim" "$saved"
report
expect_eq "the link's target is untouched" victim "$(cat "$E2E_TMP/victim")"
expect_eq "the target's mode is untouched" 644 "$(stat -c %a "$E2E_TMP/victim")"
[ -f "$saved" ] && [ ! -L "$saved" ] || fail "the link at $saved was not replaced by a cache"
expect_eq "the new cache is the user's only" 600 "$(stat -c %a "$saved")"
left=$(find "$dir" -name "$bid.*")
[ -z "$left" ] || fail "files left beside the cache: $left"

# untrusted input: a control byte in a name refuses the whole file,
# which is then replaced
fresh
patch_name 1b # ESC
expect_eq "a cache with a control byte in a name is not used" program "$(source_of)"
if grep -q $'\x1b' "$E2E_TMP/out"; then fail "a control byte reached the report"; fi
expect_eq "and it is replaced" cache "$(patch_name 4f && source_of)"

# a damaged cache (cut short) is ignored and replaced
fresh
truncate -s -3 "$saved"
expect_eq "a cut cache is not used" program "$(source_of)"
expect_eq "and it is replaced" cache "$(patch_name 4f && source_of)"

# Directories above the cache (docs/security.md): one others can write is
# accepted when it has the sticky bit and belongs to the user or root, as
# /tmp (others can add names there, not rename or remove the user's; the
# cache's own directory is still the user's alone); not without the
# sticky bit, nor a sticky one of another user, who may rename what is in
# it. The caches above all lie under /tmp already.
sticky=$E2E_TMP/sticky
mkdir -m 1777 "$sticky"
export XDG_CACHE_HOME=$sticky/cache
dir=$XDG_CACHE_HOME/hpmon/symbols
saved=$dir/$bid
fresh
expect_eq "under a sticky world-writable directory of root's: used" cache "$(source_of)"
expect_eq "the directories hpmon made are the user's only" "700 700" \
	"$(stat -c %a "$XDG_CACHE_HOME" "$dir" | xargs)"
chmod 0777 "$sticky"
expect_eq "under a world-writable directory without the sticky bit: not used" program "$(source_of)"
chmod 1777 "$sticky"
chown nobody "$sticky"
expect_eq "under a sticky directory of another user's: not used" program "$(source_of)"
chown root "$sticky"
chmod 1777 "$dir"
expect_eq "the cache's own directory sticky and world-writable: not used" program "$(source_of)"
chmod 700 "$dir"
expect_eq "and back to the user's alone: used" cache "$(source_of)"

# root and a user's cache (sudo -E): $XDG_CACHE_HOME names nobody's
# directory with a cache that would be read if it were root's own
fresh
user=$E2E_TMP/user
mkdir -p "$user/hpmon/symbols"
cp "$saved" "$user/hpmon/symbols/$bid"
chown -R nobody "$user"
touch "$E2E_TMP/mark"
sleep 0.01
export XDG_CACHE_HOME=$user
expect_eq "root does not use a user's cache" program "$(source_of)"
new=$(find "$user" -newer "$E2E_TMP/mark")
[ -z "$new" ] || fail "root wrote into the user's cache: $new"
exit 0
