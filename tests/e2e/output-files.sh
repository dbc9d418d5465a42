# SPDX-License-Identifier: MIT
# The files hpmon writes: 0600 whatever the umask (a profile may hold
# copies of the stack), never written through a symlink, an old file never
# destroyed by a run that failed, and every write checked (standard output
# too): output lost is a non-zero exit with a message naming the file.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record-lib.sh"

cd "$E2E_TMP"
# a file of someone else's that a planted link names
echo "precious" >victim
chmod 644 victim
untouched() {
	expect_eq "$1: the link's target is untouched" precious "$(cat victim)"
	expect_eq "$1: the link's target keeps its mode" 644 "$(stat -c %a victim)"
}

# ---- modes ----
for mask in 000 022 077 277; do
	rm -f "m$mask.prof" "m$mask.txt"
	(umask "$mask" && hpm_ok record -q -e cpu-clock -o "m$mask.prof" -- "$WORKLOADS/ratio" 1000000)
	expect_eq "record under umask $mask" 600 "$(stat -c %a "m$mask.prof")"
	(umask "$mask" && hpm_ok stat -o "m$mask.txt" -e task-clock -- true)
	expect_eq "stat -o under umask $mask" 600 "$(stat -c %a "m$mask.txt")"
done
# --append creates 0600 too, and appends to a regular file
rm -f a.txt
(umask 000 && hpm_ok stat --append -o a.txt -e task-clock -- true)
expect_eq "stat --append creating" 600 "$(stat -c %a a.txt)"
n1=$(grep -c task-clock a.txt)
hpm_ok stat --append -o a.txt -e task-clock -- true
expect_eq "stat --append appends" $((n1 * 2)) "$(grep -c task-clock a.txt)"

# ---- symlinks ----
# record: a link at the name is moved to NAME.old (as perf does), itself
ln -s victim r.prof
hpm_ok record -q -e cpu-clock -o r.prof -- "$WORKLOADS/ratio" 1000000
untouched "record -o LINK"
[ -L r.prof.old ] || fail "the link was not moved to r.prof.old"
[ -f r.prof ] && [ ! -L r.prof ] || fail "r.prof is not a new regular file"
hpm_ok report -i r.prof
# stat -o and --append: a link is refused with the reason
ln -s victim s.txt
hpm stat -o s.txt -e task-clock -- true
[ "$HPM_STATUS" -ne 0 ] || fail "stat -o LINK exited 0"
expect_grep "stat -o LINK says why" "cannot write 's.txt': it is a symbolic link" "$E2E_TMP/err"
untouched "stat -o LINK"
hpm stat --append -o s.txt -e task-clock -- true
[ "$HPM_STATUS" -ne 0 ] || fail "stat --append -o LINK exited 0"
expect_grep "stat --append -o LINK says why" "symbolic link" "$E2E_TMP/err"
untouched "stat --append -o LINK"
# a dangling link (where a file would be created) is refused the same way
ln -s "$E2E_TMP/newfile" d.txt
hpm stat -o d.txt -e task-clock -- true
[ "$HPM_STATUS" -ne 0 ] && [ ! -e newfile ] || fail "stat -o followed a dangling link"

# ---- a failed run keeps the old file ----
hpm_ok record -q -e cpu-clock -o keep.prof -- "$WORKLOADS/ratio" 1000000
sum=$(md5sum <keep.prof)
hpm record -q -e cpu-clock -o keep.prof -- ./no-such-command
expect_eq "record of a missing command" 127 "$HPM_STATUS"
expect_eq "the old profile is untouched" "$sum" "$(md5sum <keep.prof)"
[ ! -e keep.prof.old ] || fail "a record that never ran moved the old profile"
hpm record -q -e no-such-event -o keep.prof -- true
[ "$HPM_STATUS" -ne 0 ] || fail "record of an unknown event exited 0"
expect_eq "the old profile is untouched by a bad event" "$sum" "$(md5sum <keep.prof)"
hpm_ok stat -o keep.txt -e task-clock -- true
sum=$(md5sum <keep.txt)
hpm stat -o keep.txt -e task-clock -- ./no-such-command
expect_eq "stat of a missing command" 127 "$HPM_STATUS"
expect_eq "the old counts are untouched" "$sum" "$(md5sum <keep.txt)"
left=$(find . -name '.*.??????')
[ -z "$left" ] || fail "temporary files left: $left"

# ---- what cannot be written to ----
mkdir adir
hpm stat -o adir -e task-clock -- true
[ "$HPM_STATUS" -ne 0 ] || fail "stat -o DIRECTORY exited 0"
expect_grep "a directory is named" "cannot write 'adir': it is a directory" "$E2E_TMP/err"
mkfifo fifo
hpm stat -o fifo -e task-clock -- true
[ "$HPM_STATUS" -ne 0 ] || fail "stat -o FIFO-without-reader exited 0"
expect_grep "a FIFO no one reads is refused, not waited on" "FIFO that no one reads" "$E2E_TMP/err"

# ---- write errors (/dev/full: every write fails with ENOSPC) ----
[ -c /dev/full ] || skip "no /dev/full here"
hpm stat -o /dev/full -e task-clock -- true
expect_eq "stat -o /dev/full" 1 "$HPM_STATUS"
expect_grep "stat -o /dev/full names the file and why" \
	"cannot write '/dev/full': No space left on device" "$E2E_TMP/err"
# the measured command's own failure is kept
hpm stat -o /dev/full -e task-clock -- sh -c 'exit 3'
expect_eq "stat -o /dev/full of a command that exits 3" 3 "$HPM_STATUS"
# stat's counts on standard error
st=0
"$HPMON" stat -e task-clock -- true 2>/dev/full || st=$?
expect_eq "stat 2>/dev/full" 1 "$st"
# report on standard output, text and JSON
hpm_ok record -q -e cpu-clock -o p.prof -- "$WORKLOADS/ratio" 1000000
for fmt in "" --json --csv; do
	st=0
	"$HPMON" report -i p.prof $fmt >/dev/full 2>err || st=$?
	expect_eq "report $fmt >/dev/full" 1 "$st"
	expect_grep "report $fmt >/dev/full says why" \
		"writing the standard output failed" err
done
st=0
"$HPMON" diff p.prof keep.prof >/dev/full 2>err || st=$?
expect_eq "diff >/dev/full" 1 "$st"
st=0
"$HPMON" list >/dev/full 2>err || st=$?
expect_eq "list >/dev/full" 1 "$st"
