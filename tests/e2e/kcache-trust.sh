# SPDX-License-Identifier: MIT
# The kernel-symbol cache ($XDG_CACHE_HOME/hpmon/kallsyms) is the user's
# alone: a table another user owns, or one that group or others could
# write, or in such a directory, is never read (nor written); root never
# uses a calling user's cache; links planted at the cache's names are never
# followed; a table is untrusted input (names with control bytes refused).
#
# How "used" is seen: the procfs root is a copy (HPMON_PROCFS_ROOT), and
# once a table is saved one kernel function is renamed in the copy's
# kallsyms; a report that shows the old name read the saved table, one
# that shows the new name read kallsyms.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record-lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root to give files to another user (chown nobody)"
grep -q -v '^0000000000000000 ' /proc/kallsyms ||
	skip "kallsyms hides the addresses here (kptr_restrict)"

proc=$E2E_TMP/proc
mkdir -p "$proc/sys/kernel/random"
cp /proc/kallsyms "$proc/kallsyms"
cp /proc/kallsyms "$E2E_TMP/kallsyms.orig"
# a boot id of this test's own: no table saved by another run matches it
cat /proc/sys/kernel/random/uuid >"$proc/sys/kernel/random/boot_id"
cat /proc/sys/kernel/osrelease >"$proc/sys/kernel/osrelease"
export HPMON_PROCFS_ROOT=$proc XDG_CACHE_HOME=$E2E_TMP/cache
dir=$XDG_CACHE_HOME/hpmon
saved=$dir/kallsyms

hpm_ok record -e cpu-clock -c 100003 -o "$E2E_TMP/k.prof" -- "$WORKLOADS/pages" 30000
hpm_ok report -i "$E2E_TMP/k.prof" --sort sym,dso --csv
ksym=$(awk -F, '$NF == "[kernel.kallsyms]" && $(NF - 1) ~ /^[A-Za-z_][A-Za-z0-9_.]*$/ { print $(NF - 1); exit }' \
	"$E2E_TMP/out")
[ -n "$ksym" ] || skip "no kernel sample resolved in this run"
note "a kernel function of the profile: $ksym"
[ -f "$saved" ] || fail "no table saved at $saved"
expect_eq "the table is the user's only" 600 "$(stat -c %a "$saved")"
expect_eq "in a directory of the user's only" 700 "$(stat -c %a "$dir")"

# fresh: a table saved from the real names, then kallsyms renames $ksym
fresh() {
	chmod 700 "$dir"
	rm -f "$saved"
	cp "$E2E_TMP/kallsyms.orig" "$proc/kallsyms"
	hpm_ok report -i "$E2E_TMP/k.prof" --sort sym,dso --csv
	[ -f "$saved" ] || fail "no table saved at $saved"
	sed -i "s/ $ksym\$/ renamed_$ksym/" "$proc/kallsyms"
}
# source_of: did the report take $ksym from the table (saved) or from
# kallsyms (read)?
source_of() {
	hpm_ok report -i "$E2E_TMP/k.prof" --sort sym,dso --csv
	if grep -q ",renamed_$ksym,\\[kernel.kallsyms\\]$" "$E2E_TMP/out"; then
		echo read
	elif grep -q ",$ksym,\\[kernel.kallsyms\\]$" "$E2E_TMP/out"; then
		echo saved
	else
		echo none
	fi
}

fresh
expect_eq "the user's own table is used" saved "$(source_of)"

fresh
chown nobody "$saved"
expect_eq "a table owned by another user is not used" read "$(source_of)"

fresh
chmod 620 "$saved"
expect_eq "a group-writable table is not used" read "$(source_of)"

fresh
chmod 770 "$dir"
ino=$(stat -c %i "$saved")
expect_eq "a table in a group-writable directory is not used" read "$(source_of)"
expect_eq "nor is one written there" "$ino" "$(stat -c %i "$saved")"

# links at the table's name and at the name it was once written under
# (kallsyms.PID.tmp, predictable) are not followed: their targets stay
fresh
echo "victim" >"$E2E_TMP/victim"
echo "victim2" >"$E2E_TMP/victim2"
chmod 644 "$E2E_TMP/victim" "$E2E_TMP/victim2"
rm -f "$saved"
ln -s "$E2E_TMP/victim" "$saved"
E2E_VICTIM=$E2E_TMP/victim2 E2E_DIR=$dir HPMON_BIN=$HPMON \
	timeout -k 5 "$E2E_TIMEOUT" sh -c 'ln -s "$E2E_VICTIM" "$E2E_DIR/kallsyms.$$.tmp"
		exec "$HPMON_BIN" report -i "$0" --sort sym,dso --csv' "$E2E_TMP/k.prof" \
	>"$E2E_TMP/out" 2>"$E2E_TMP/err" || fail "report with planted links: $(cat "$E2E_TMP/err")"
expect_grep "the report read kallsyms" ",renamed_$ksym,\\[kernel.kallsyms\\]$" "$E2E_TMP/out"
expect_eq "the link's target is untouched" victim "$(cat "$E2E_TMP/victim")"
expect_eq "the temporary link's target is untouched" victim2 "$(cat "$E2E_TMP/victim2")"
expect_eq "the target's mode is untouched" 644 "$(stat -c %a "$E2E_TMP/victim")"
[ -f "$saved" ] && [ ! -L "$saved" ] || fail "the link at $saved was not replaced by a table"
expect_eq "the new table is the user's only" 600 "$(stat -c %a "$saved")"
left=$(find "$dir" -name 'kallsyms.*' ! -name 'kallsyms.*.tmp')
[ -z "$left" ] || fail "files left beside the table: $left"

# a table is untrusted input: patch $ksym's name in a saved table. Plain
# letters: it is read (the patch is right); a control byte: refused
patch_name() { # patch_name FIRST_BYTE_HEX
	python3 - "$saved" "$ksym" "$1" <<'EOF'
import sys
path, name, first = sys.argv[1], sys.argv[2].encode(), bytes([int(sys.argv[3], 16)])
data = bytearray(open(path, 'rb').read())
at = data.find(b'\0' + name + b'\0')
assert at > 0, 'name not found in the table'
data[at + 1:at + 2] = first
open(path, 'wb').write(data)
EOF
}
fresh
patch_name 5a # 'Z'
hpm_ok report -i "$E2E_TMP/k.prof" --sort sym,dso --csv
expect_grep "a patched table is read" ",Z${ksym:1},\\[kernel.kallsyms\\]$" "$E2E_TMP/out"
fresh
patch_name 1b # ESC
expect_eq "a table with a control byte in a name is not used" read "$(source_of)"
if grep -q $'\x1b' "$E2E_TMP/out"; then fail "a control byte reached the report"; fi

# root and a user's cache (sudo -E): $XDG_CACHE_HOME names a directory of
# nobody's with a table that would be read if it were root's own. Root
# neither reads it nor writes there.
fresh
user=$E2E_TMP/user
mkdir -p "$user/hpmon"
cp "$saved" "$user/hpmon/kallsyms"
chown -R nobody "$user"
touch "$E2E_TMP/mark"
sleep 0.01
export XDG_CACHE_HOME=$user
expect_eq "root does not use a user's cache" read "$(source_of)"
new=$(find "$user" -newer "$E2E_TMP/mark")
[ -z "$new" ] || fail "root wrote into the user's cache: $new"
expect_eq "the user's table is still the user's" nobody "$(stat -c %U "$user/hpmon/kallsyms")"
