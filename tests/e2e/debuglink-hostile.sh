#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A .gnu_debuglink is written by whoever built the object: hpmon follows
# it only where gdb looks (beside the object, its .debug/, the debug
# root), never out of them by a path in the link, and opens only a regular
# file, without waiting. Before: a link of ../../../../dev/zero was opened
# (by root too), and a FIFO of the link's name hung `report --lines`. And
# a well-made debug file is still found (by its link and CRC).
. "$(dirname "$0")/lib.sh"

command -v objcopy >/dev/null || skip "objcopy (binutils) is needed to make the objects"
command -v gcc >/dev/null || skip "gcc is needed to build the object"
dir=$E2E_TMP/bin
mkdir -p "$dir"
cp "$SRCDIR/tests/workloads/ratio.c" "$SRCDIR/tests/workloads/spin.h" "$E2E_TMP/"
gcc -O1 -g -fno-inline -o "$E2E_TMP/orig" "$E2E_TMP/ratio.c" || fail "cannot build the workload"
cp "$E2E_TMP/orig" "$E2E_TMP/full"

# mk NAME LINK: $dir/NAME stripped of its DWARF, with a debuglink naming
# LINK (any bytes), and the CRC of the real debug file
objcopy --only-keep-debug "$E2E_TMP/orig" "$dir/real.debug"
mk() {
	local name=$1 link=$2
	objcopy --strip-debug "$E2E_TMP/orig" "$dir/$name"
	python3 - "$link" "$dir/real.debug" "$E2E_TMP/link.sec" <<'PY'
import sys, zlib
link, debug, out = sys.argv[1:4]
b = link.encode() + b"\0"
b += b"\0" * (-len(b) % 4)
b += (zlib.crc32(open(debug, "rb").read()) & 0xffffffff).to_bytes(4, "little")
open(out, "wb").write(b)
PY
	objcopy --add-section .gnu_debuglink="$E2E_TMP/link.sec" "$dir/$name"
}

# record once with the full object, then report against each variant:
# the report opens the object at its recorded path
hpm_ok record -q -o "$E2E_TMP/p.prof" -- "$E2E_TMP/full" 300000
report_lines() {
	cp "$dir/$1" "$E2E_TMP/full"
	hpm report -i "$E2E_TMP/p.prof" --lines --no-cache
}

# a path out of the debug places: not followed (strace, where there is
# one, sees no open of it), and the report ends
mk escape "../../../../../../../../dev/zero"
if command -v strace >/dev/null; then
	cp "$dir/escape" "$E2E_TMP/full"
	timeout -k 5 "$E2E_TIMEOUT" strace -f -e trace=open,openat -o "$E2E_TMP/strace" \
		"$HPMON" report -i "$E2E_TMP/p.prof" --lines --no-cache >/dev/null 2>&1 || true
	expect_no_grep "no open of /dev/zero" '/dev/zero' "$E2E_TMP/strace"
fi
report_lines escape
expect_eq "a link out of the places: the report ends well" 0 "$HPM_STATUS"

# a FIFO where the link points (beside the object): not waited on
mk fifo "full.debug"
mkfifo "$E2E_TMP/full.debug"
report_lines fifo
expect_eq "a FIFO as the debug file: the report ends well" 0 "$HPM_STATUS"
rm -f "$E2E_TMP/full.debug"

# a symlink to a device beside the object: not read
mk device "full.debug"
ln -s /dev/zero "$E2E_TMP/full.debug"
report_lines device
expect_eq "a device as the debug file: the report ends well" 0 "$HPM_STATUS"
rm -f "$E2E_TMP/full.debug"

# the real debug file beside the object, by its link and CRC: lines found
mk good "full.debug"
cp "$dir/real.debug" "$E2E_TMP/full.debug"
report_lines good
expect_eq "a real debug file: status" 0 "$HPM_STATUS"
expect_grep "a real debug file: source lines" 'ratio\.c:[0-9]+' "$E2E_TMP/out"
# ... and not with a wrong CRC
mk badcrc "full.debug"
printf 'x' >>"$E2E_TMP/full.debug"
report_lines badcrc
expect_eq "a debug file of another CRC: status" 0 "$HPM_STATUS"
expect_no_grep "a debug file of another CRC: not used" 'ratio\.c:[0-9]+' "$E2E_TMP/out"
echo "PASS: $E2E_NAME"
