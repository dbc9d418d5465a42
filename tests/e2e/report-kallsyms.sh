# SPDX-License-Identifier: MIT
# Kernel symbols of hpmon report: read from kallsyms only when a sample is
# in the kernel, and kept for the boot ($XDG_CACHE_HOME/hpmon/kallsyms),
# so that the next report maps them instead of having the kernel list
# them again. The procfs root is a copy (HPMON_PROCFS_ROOT): its boot id
# and its kallsyms are changed between reports, to see which table a
# report used.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record-lib.sh"

grep -q -v '^0000000000000000 ' /proc/kallsyms ||
	skip "kallsyms hides the addresses here (kptr_restrict)"

proc=$E2E_TMP/proc
mkdir -p "$proc/sys/kernel/random"
cp /proc/kallsyms "$proc/kallsyms"
echo 11111111-2222-3333-4444-555555555555 >"$proc/sys/kernel/random/boot_id"
cat /proc/sys/kernel/osrelease >"$proc/sys/kernel/osrelease"
export HPMON_PROCFS_ROOT=$proc XDG_CACHE_HOME=$E2E_TMP/cache
saved=$XDG_CACHE_HOME/hpmon/kallsyms

# page faults: samples in the kernel
hpm_ok record -e cpu-clock -c 100003 -o "$E2E_TMP/k.prof" -- "$WORKLOADS/pages" 30000
hpm_ok report -i "$E2E_TMP/k.prof" --sort sym,dso --csv
cp "$E2E_TMP/out" "$E2E_TMP/first.csv"
ksym=$(awk -F, '$NF == "[kernel.kallsyms]" && $(NF - 1) !~ /\+0x/ { print $(NF - 1); exit }' \
	"$E2E_TMP/first.csv")
[ -n "$ksym" ] || skip "no kernel sample resolved in this run"
note "a kernel function of the profile: $ksym"
[ -f "$saved" ] || fail "no table saved at $saved"
expect_eq "the saved table is the user's only" 600 "$(stat -c %a "$saved")"

# the same listing from the saved table, and without it
hpm_ok report -i "$E2E_TMP/k.prof" --sort sym,dso --csv
expect_eq "report from the saved table" "$(cat "$E2E_TMP/first.csv")" "$(cat "$E2E_TMP/out")"
hpm_ok report -i "$E2E_TMP/k.prof" --sort sym,dso --csv --no-cache
expect_eq "report with --no-cache" "$(cat "$E2E_TMP/first.csv")" "$(cat "$E2E_TMP/out")"

# rename the function in kallsyms: the same boot keeps the saved name ...
sed -i "s/ $ksym\$/ renamed_$ksym/" "$proc/kallsyms"
hpm_ok report -i "$E2E_TMP/k.prof" --sort sym,dso --csv
expect_grep "same boot: the saved table" ",$ksym,\\[kernel.kallsyms\\]$" "$E2E_TMP/out"
hpm_ok report -i "$E2E_TMP/k.prof" --sort sym,dso --csv --no-cache
expect_grep "--no-cache reads kallsyms" ",renamed_$ksym,\\[kernel.kallsyms\\]$" "$E2E_TMP/out"
# ... and another boot reads kallsyms again and saves it anew
echo 66666666-2222-3333-4444-555555555555 >"$proc/sys/kernel/random/boot_id"
hpm_ok report -i "$E2E_TMP/k.prof" --sort sym,dso --csv
expect_grep "another boot: kallsyms again" ",renamed_$ksym,\\[kernel.kallsyms\\]$" "$E2E_TMP/out"
sed -i "s/ renamed_$ksym\$/ $ksym/" "$proc/kallsyms"
hpm_ok report -i "$E2E_TMP/k.prof" --sort sym,dso --csv
expect_grep "that boot's table was saved" ",renamed_$ksym,\\[kernel.kallsyms\\]$" "$E2E_TMP/out"

# hpmon record keeps the table when its profile has kernel samples (the
# exec tracepoint fires in the kernel: one sample), unless --no-cache
rm -f "$saved"
hpm_ok record --no-cache -e sched:sched_process_exec -o "$E2E_TMP/x.prof" -- "$WORKLOADS/pages" 1
[ ! -e "$saved" ] || fail "record --no-cache kept the kernel's symbols"
hpm_ok record -e sched:sched_process_exec -o "$E2E_TMP/x.prof" -- "$WORKLOADS/pages" 1
[ -f "$saved" ] || fail "record of a kernel sample kept no table at $saved"
expect_eq "the table record saved is the user's only" 600 "$(stat -c %a "$saved")"

# a profile without kernel samples reads no kernel symbols at all
rm -f "$saved"
hpm_ok record -e cpu-clock:u -c 100003 -o "$E2E_TMP/u.prof" -- "$WORKLOADS/ratio" 20000000
hpm_ok report -i "$E2E_TMP/u.prof"
[ ! -e "$saved" ] || fail "kallsyms was read for a profile without kernel samples"

# a damaged saved table is refused: the listing is the same
hpm_ok report -i "$E2E_TMP/k.prof" --sort sym,dso --csv
truncate -s 1000 "$saved"
hpm_ok report -i "$E2E_TMP/k.prof" --sort sym,dso --csv
expect_eq "report past a damaged table" "$(cat "$E2E_TMP/first.csv")" "$(cat "$E2E_TMP/out")"
