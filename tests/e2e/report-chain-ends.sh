# SPDX-License-Identifier: MIT
# Where a call chain ends, as perf reads the kernel's chains: a zero
# return address ends the frames of its part (today's kernels store the
# zero of a user stack's outermost frame), and a word in the markers'
# range that is no PERF_CONTEXT_* marker (-1 here) means the chain is
# corrupt: perf drops it and keeps the sampled function alone. Neither
# may show as [unknown]+0xffffffffffffffff. The samples are crafted
# (fuzz/gen-profile.py chainends) in calltree, leaf tree_b, callers
# tree_a and main.
. "$(dirname "$0")/lib.sh"

gen="$SRCDIR/fuzz/gen-profile.py"
obj="$WORKLOADS/calltree"
command -v readelf >/dev/null || skip "readelf (binutils) is needed to find the functions"

# off SYM PLUS: the file offset of SYM + PLUS in $obj
off() {
	python3 - "$obj" "$1" "$2" <<'PY'
import subprocess, sys
obj, sym, plus = sys.argv[1], sys.argv[2], int(sys.argv[3])
syms = subprocess.run(["readelf", "-sW", obj], capture_output=True, text=True, check=True).stdout
addr = next(int(l.split()[1], 16) for l in syms.splitlines()
            if len(l.split()) >= 8 and l.split()[7] == sym and l.split()[3] == "FUNC")
segs = subprocess.run(["readelf", "-lW", obj], capture_output=True, text=True, check=True).stdout
for l in segs.splitlines():
    f = l.split()
    if f and f[0] == "LOAD":
        o, v, sz = int(f[1], 16), int(f[2], 16), int(f[5], 16)
        if v <= addr < v + sz:
            print(hex(addr - v + o + plus))
            break
PY
}

# a return address is the instruction after a call: +5 is inside each
# function (report looks up the byte before it)
ips="$(off tree_b 2),$(off tree_a 5),$(off main 5)"
python3 "$gen" chainends "$E2E_TMP/c.prof" --object "$obj" --ips "$ips" >/dev/null

hpm_ok report -i "$E2E_TMP/c.prof" --folded
f="$E2E_TMP/out"
expect_no_grep "no [unknown] frame" '\[unknown\]|0xffffffffffffffff' "$f"
expect_grep "a zero ends the chain: what came before it" '^calltree;main;tree_a;tree_b 3$' "$f"
expect_grep "a zero before main: the caller only" '^calltree;tree_a;tree_b 4$' "$f"
expect_grep "no marker (-1): the sampled function alone" '^calltree;tree_b 2$' "$f"
expect_eq "every sample" 9 "$(awk '{ s += $NF } END { print s }' "$f")"

hpm_ok report -i "$E2E_TMP/c.prof" -g
expect_no_grep "call graph: no [unknown] frame" '\[unknown\]|0xffffffffffffffff' "$E2E_TMP/out"
