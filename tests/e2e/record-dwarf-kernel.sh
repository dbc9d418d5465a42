# SPDX-License-Identifier: MIT
# DWARF call chains keep the kernel's part, as perf shows them (perf record
# --call-graph dwarf, perf script): a sample taken in a system call is the
# kernel's chain (PERF_SAMPLE_CALLCHAIN, kernel part only) above the user
# stack unwound from the copy. zeroread spends most of its time in read(2)
# of /dev/zero, called from zero_reader(): its stacks must read, root
# first, main -> zero_reader -> libc's read -> the system call's entry ->
# the kernel's read path, in --folded and in report -g.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record-lib.sh"

[ "$(id -u)" -eq 0 ] || skip "kernel samples and their symbols need root here"

hpm_ok record -q --call-graph dwarf -e task-clock -o "$E2E_TMP/k.prof" -- "$WORKLOADS/zeroread" 3000
hpm_ok report -i "$E2E_TMP/k.prof" --folded
cp "$E2E_TMP/out" "$E2E_TMP/folded"
total=$(awk '{ s += $NF } END { print s }' "$E2E_TMP/folded")
# user frames, then the kernel's, leaf last
kernel_under_user='^zeroread;(.*;)?main;zero_reader;([^;]*;)*(entry_SYSCALL_64[a-z_]*|do_syscall_64);([^;]*;)*(ksys_read|vfs_read)(;[^;]*)* [0-9]+$'
expect_grep "kernel frames above the user frames" "$kernel_under_user" "$E2E_TMP/folded"
inside=$(grep -E "$kernel_under_user" "$E2E_TMP/folded" | awk '{ s += $NF } END { print s + 0 }')
note "$inside of $total samples in read(2) under main -> zero_reader"
# most of zeroread's time is in the kernel's read of /dev/zero
expect_in "share of samples with both parts (%)" 50 100 "$(python3 -c "print(100 * $inside / $total)")"
# no stack is the kernel's part alone when the user part was copied
expect_no_grep "no kernel-only stack in read(2)" '^zeroread;(entry_SYSCALL_64[a-z_]*|do_syscall_64);' "$E2E_TMP/folded"

# report -g: the system call's entry is called from the user side
hpm_ok report -i "$E2E_TMP/k.prof" -g
awk '/^ +[0-9.]+% +[0-9.]+% / { on = ($3 == "zero_reader") ; next } on' "$E2E_TMP/out" >"$E2E_TMP/zr"
expect_grep "zero_reader's caller" '^ +<- +[0-9.]+% +main$' "$E2E_TMP/zr"
# a kernel function's object is [kernel.kallsyms], as in the flat listing
# (once bracketed: the name has its brackets), a program's in brackets
expect_grep "vfs_read's object" '^ +[0-9.]+% +[0-9.]+% +vfs_read +\[kernel\.kallsyms\]$' "$E2E_TMP/out"
expect_grep "zero_reader's object" '^ +[0-9.]+% +[0-9.]+% +zero_reader +\[zeroread\]$' "$E2E_TMP/out"
awk '/^ +[0-9.]+% +[0-9.]+% / { on = ($3 == "vfs_read") ; next } on' "$E2E_TMP/out" >"$E2E_TMP/vr"
expect_grep "vfs_read's caller" '^ +<- +[0-9.]+% +ksys_read$' "$E2E_TMP/vr"
