#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Location events in a shared library: a function of libuser.so called K
# times, named with the library (by name or path) or found in it, with a
# breakpoint (placed once the library is mapped, at the program's entry)
# and with a uprobe; the library found through RUNPATH and through
# LD_LIBRARY_PATH.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/user-lib.sh"
require_hooks

src=$SRCDIR/tests/workloads/user
mkdir -p "$E2E_TMP/lib" "$E2E_TMP/bin"
gcc -O1 -g -fno-inline -shared -fPIC -o "$E2E_TMP/lib/libuser.so" "$src/libuser.c" ||
	fail "cannot build libuser.so"
# found through RUNPATH ($ORIGIN/../lib) ...
gcc -O1 -g -o "$E2E_TMP/bin/libcaller" "$src/libcaller.c" -L"$E2E_TMP/lib" -luser \
	-Wl,-rpath,'$ORIGIN/../lib' || fail "cannot build libcaller"
# ... and through LD_LIBRARY_PATH
gcc -O1 -g -o "$E2E_TMP/bin/libcaller-env" "$src/libcaller.c" -L"$E2E_TMP/lib" -luser ||
	fail "cannot build libcaller-env"

count() {
	local ev=$1
	shift
	hpm_ok stat -x, -e "$ev" -- "$@"
	field_of "$E2E_TMP/err" , "$ev"
}

mechs=()
host_bp_fires && mechs+=(bp)
can_uprobe && mechs+=(uprobe)
[ ${#mechs[@]} -gt 0 ] || skip "breakpoints do not fire here and uprobes need root: nothing counts exec: events"
for m in "${mechs[@]}"; do
	for spec in "exec:libuser:lib_work:$m" "exec:libuser.so:lib_work:$m" \
		"exec:$E2E_TMP/lib/libuser.so:lib_work:$m" "exec:lib_work:$m"; do
		expect_eq "$spec" 2500 "$(count "$spec" "$E2E_TMP/bin/libcaller" 2500)"
	done
	expect_eq "exec:libuser:lib_work:$m, K=0" 0 \
		"$(count "exec:libuser:lib_work:$m" "$E2E_TMP/bin/libcaller" 0)"
	# the library by LD_LIBRARY_PATH
	export LD_LIBRARY_PATH=$E2E_TMP/lib
	expect_eq "exec:libuser:lib_work:$m (LD_LIBRARY_PATH)" 33 \
		"$(count "exec:libuser:lib_work:$m" "$E2E_TMP/bin/libcaller-env" 33)"
	unset LD_LIBRARY_PATH
done
# both at once, and a line of the library
line=$(grep -n 'lib_sink += i;' "$src/libuser.c" | cut -d: -f1)
events="exec:libuser:lib_work,exec:libuser:libuser.c:$line"
can_uprobe && events="$events,exec:libuser:lib_work:uprobe"
hpm_ok stat -x, -e "$events" -- "$E2E_TMP/bin/libcaller" 4000
for ev in ${events//,/ }; do
	expect_eq "$ev in one run" 4000 "$(field_of "$E2E_TMP/err" , "$ev")"
done

# what the library is not
hpm stat -x, -e exec:libnosuch:f -- "$E2E_TMP/bin/libcaller" 1
expect_eq "unknown library: exit status" 129 "$HPM_STATUS"
expect_grep "unknown library: message" "no library 'libnosuch'.*libuser\.so" "$E2E_TMP/err"
hpm stat -x, -e exec:libuser:nosuch -- "$E2E_TMP/bin/libcaller" 1
expect_eq "unknown function in a library: exit status" 129 "$HPM_STATUS"
expect_grep "unknown function in a library: message" "no function 'nosuch' in .*libuser\.so" "$E2E_TMP/err"
echo "PASS: $E2E_NAME"
