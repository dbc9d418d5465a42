#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# xz-compressed objects, and liblzma loaded only for them. libdwfl decodes
# an ELF object given xz-compressed (kernel modules *.ko.xz ...) through
# liblzma; the tool, which links libdw from its archive, loads liblzma at
# the first such object (tools/hpmon/lzma-dl.c) so that its CRC64
# constructor does not run at every start (docs/hpmon-stat.md, START-UP):
#  - a start that decodes nothing loads no liblzma;
#  - an exec: location in an xz-compressed copy of a workload finds the
#    function at the address nm gives for the uncompressed one (hpmon
#    then says the compressed file is not the code that runs, or counts
#    it: either shows that the symbols were read);
#  - an xz file that holds no ELF object is refused as such.
. "$(dirname "$0")/lib.sh"

command -v xz >/dev/null || skip "xz is not installed (apt-get install xz-utils)"
command -v nm >/dev/null || skip "nm is not installed (apt-get install binutils)"

# libs ARGS...: the shared objects hpmon ARGS loads, with how (LD_DEBUG)
libs() {
	LD_DEBUG=files LD_DEBUG_OUTPUT="$E2E_TMP/ld" timeout -k 5 "$E2E_TIMEOUT" "$HPMON" "$@" \
		>/dev/null 2>&1 </dev/null || true
	cat "$E2E_TMP"/ld.* 2>/dev/null | grep -E 'file=[^ ]+ \[0\];  (needed|dynamically loaded) by' || true
	rm -f "$E2E_TMP"/ld.*
}

true_bin=$(type -P true)
start=$(libs stat -e task-clock -- "$true_bin")
[ -n "$start" ] || skip "LD_DEBUG shows no shared object loaded (a static hpmon?)"
if grep -q 'liblzma.*needed by' <<<"$start"; then
	note "hpmon needs liblzma's shared object (built without libdw's archive): nothing loaded later to check"
else
	expect_no_grep "stat -e task-clock loads liblzma" 'liblzma' <(echo "$start")
fi

cp "$WORKLOADS/calls" "$E2E_TMP/calls"
xz -k "$E2E_TMP/calls" || fail "xz could not compress the workload"
addr=$(nm "$WORKLOADS/calls" | awk '$2 == "T" && $3 == "main" { sub(/^0+/, "", $1); print $1 }')
[ -n "$addr" ] || fail "no main in nm $WORKLOADS/calls"

hpm stat -e "exec:$E2E_TMP/calls.xz:main" -- "$WORKLOADS/calls"
if [ "$HPM_STATUS" -ne 0 ]; then
	expect_grep "main found in the xz-compressed object" "0x$addr is not in the code" "$E2E_TMP/err"
fi
expect_no_grep "the xz-compressed object decoded" 'not an ELF object|LZMA' "$E2E_TMP/err"
if ! grep -q 'liblzma.*needed by' <<<"$start"; then
	loaded=$(libs stat -e "exec:$E2E_TMP/calls.xz:main" -- "$WORKLOADS/calls")
	expect_grep "liblzma loaded for the xz-compressed object" \
		'liblzma\.so[^ ]* \[0\];  dynamically loaded by' <(echo "$loaded")
fi

echo 'not an object' >"$E2E_TMP/junk"
xz "$E2E_TMP/junk"
hpm stat -e "exec:$E2E_TMP/junk.xz:main" -- "$WORKLOADS/calls"
[ "$HPM_STATUS" -ne 0 ] || fail "an xz file without an ELF object was accepted"
expect_grep "junk.xz refused" 'not an ELF object' "$E2E_TMP/err"

note "xz-compressed objects decoded; liblzma loaded for them alone"
