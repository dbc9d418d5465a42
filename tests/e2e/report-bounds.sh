#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A profile is untrusted input: crafted files whose records cost a few
# bytes but ask report for far more (samples no mapping covers, a new
# process or address in every sample, a long call chain repeated by
# reference) must keep report under 64 MiB plus 4 times the file's
# uncompressed size, within a CPU-time bound, with every sample counted
# and a warning that says what the memory cap folded. fuzz/gen-profile.py
# writes the shapes (the same ones are in fuzz/corpus/profile/crafted-*).
# The CPU time is linear in the records: a 1.2 KB file of 1M samples of a
# 4096-entry chain cost report -g 17 s and --html 28 s, more than
# linearly (0.85 s, 4.8 s, 16.7 s for 200k, 500k, 1M); the same chain
# under two addresses in turn cost -g 450 us a sample.
. "$(dirname "$0")/lib.sh"

gen="$SRCDIR/fuzz/gen-profile.py"
[ -f "$gen" ] || fail "no $gen"

# Under ASan the shadow memory and quarantine are the program's RSS too:
# the bound is the plain build's; the sanitizer lane checks the rest.
asan=false
grep -qa __asan_init "$HPMON" && asan=true

# measure ARGS...: run hpmon ARGS (stdout to $E2E_TMP/out, stderr to
# $E2E_TMP/err); sets RSS_KB, CPU_S and HPM_STATUS.
measure() {
	local r
	r=$(python3 - "$E2E_TIMEOUT" "$HPMON" "$@" <<'EOF'
import resource, subprocess, sys, os
tmp = os.environ["E2E_TMP"]
with open(tmp + "/out", "wb") as o, open(tmp + "/err", "wb") as e:
    try:
        rc = subprocess.run(sys.argv[2:], stdout=o, stderr=e, stdin=subprocess.DEVNULL,
                            timeout=float(sys.argv[1])).returncode
    except subprocess.TimeoutExpired:
        rc = 124
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print(rc, u.ru_maxrss, round(u.ru_utime + u.ru_stime, 2))
EOF
)
	read -r HPM_STATUS RSS_KB CPU_S <<<"$r"
}
export E2E_TMP

# check NAME RAW_BYTES SAMPLES CAPPED ARGS...: report of $E2E_TMP/NAME.prof
# within the bound, every sample counted; CAPPED: whether the warning must
# be there ("yes"), or must not ("no").
check() {
	local name=$1 raw=$2 samples=$3 capped=$4
	shift 4
	measure report -i "$E2E_TMP/$name.prof" "$@"
	[ "$HPM_STATUS" -ne 124 ] || fail "$name: report did not end in ${E2E_TIMEOUT}s"
	[ "$HPM_STATUS" -eq 0 ] || { cat "$E2E_TMP/err" >&2; fail "$name: exit $HPM_STATUS"; }
	local limit_kb=$((64 * 1024 + 4 * raw / 1024))
	note "$name: $raw bytes of records, max RSS ${RSS_KB} KiB (bound $limit_kb), ${CPU_S}s CPU"
	if ! $asan; then
		[ "$RSS_KB" -le "$limit_kb" ] ||
			fail "$name: report used ${RSS_KB} KiB, over 64 MiB + 4 x $raw bytes"
	fi
	# CPU time, not wall-clock: a loaded machine slows it, not this
	local cpu_max=15
	! $asan || cpu_max=90
	expect_in "$name: CPU seconds" 0 "$cpu_max" "$CPU_S"
	expect_grep "$name: every sample" "cpu-clock: $samples samples" "$E2E_TMP/out"
	if [ "$capped" = yes ]; then
		expect_grep "$name: the cap's warning" "asks for more memory than its size justifies" \
			"$E2E_TMP/err"
	else
		expect_no_grep "$name: no warning" "asks for more memory" "$E2E_TMP/err"
	fi
}

shape() { # NAME SHAPE SAMPLES [ARGS...]: prints the bytes of records
	local name=$1 sh=$2 n=$3
	shift 3
	python3 "$gen" "$sh" "$E2E_TMP/$name.prof" --samples "$n" "$@"
}

# a small file: nothing capped, every address its own row
raw=$(shape small ips 2000)
check small "$raw" 2000 no
expect_grep "small: an address of its own" "\[unknown\]\+0x4007cf" "$E2E_TMP/out"

# 1M samples at an address no mapping covers, each repeating the one
# before: kept aside until the end of the file as one, with their count
raw=$(shape unmapped unmapped 1000000)
check unmapped "$raw" 1000000 no
# ... at two addresses in turn: 3 bytes each on disk, a hundred and more
# each when kept aside, until the cap places them early
raw=$(shape unmapped2 unmapped 1000000 --alternate)
check unmapped2 "$raw" 1000000 yes
expect_grep "unmapped2: the early placing said" \
	"samples without a known mapping were placed before the end" "$E2E_TMP/err"

# a new address in every sample: one symbol each, until the cap
raw=$(shape ips ips 300000)
check ips "$raw" 300000 yes
expect_grep "ips: the folded row" '\[memory cap\]' "$E2E_TMP/out"

# a new process in every sample, by pid: one row each, until the cap
raw=$(shape pids pids 300000)
check pids "$raw" 300000 yes --sort pid,comm
expect_grep "pids: the folded row" '\[memory cap\]' "$E2E_TMP/out"

# a 4096-entry call chain repeated in 2 bytes, with -g: 32 KiB each to
# keep aside and 4096 frames to resolve, but a run of repeats waits as
# one sample, and is resolved once
raw=$(shape chains chains 3000)
check chains "$raw" 3000 no -g
# ... at two addresses in turn: each waits on its own, the chain kept
# once for all (a copy each was 32 KiB), and each resolves its 4096
# frames (the CPU time is linear, with that factor)
raw=$(shape chains2 chains 2000 --alternate)
check chains2 "$raw" 2000 no -g
# 100,000 and 400,000 of them at two addresses in turn, with -g: no run
# of one stack is ever longer than a sample, and each sample resolved its
# 4096 frames and looked up their 4096 edges again: 45 s of CPU for the
# 100,000 (450 us a sample). A stack is resolved once now, and its
# samples wait with it (chains.c, chains__wait): 4 us a sample here. The
# CPU time is bounded per sample, at both sizes: linear in the records.
per_sample_us=25
! $asan || per_sample_us=150
for n in 100000 400000; do
	raw=$(shape chainalt chains "$n" --alternate)
	check chainalt "$raw" "$n" yes -g
	expect_in "chainalt $n: CPU seconds (${per_sample_us} us a sample)" 0 \
		"$(python3 -c "print($n * $per_sample_us / 1e6)")" "$CPU_S"
	expect_grep "chainalt $n: both addresses, half each" \
		"^ +$((n / 2)) +50\.00% +100\.00% +\[unknown\]\+0x400040" "$E2E_TMP/out"
	expect_grep "chainalt $n: in the call graph" \
		'^ +50\.00% +50\.00% +\[unknown\]\+0x400040 ' "$E2E_TMP/out"
done
# 100,000 of them: a run of one stack is resolved once, not 100,000 times
# (that took 20 s of CPU), so the CPU bound holds
raw=$(shape chainrun chains 100000)
check chainrun "$raw" 100000 no -g
expect_grep "chainrun: the call graph" '100\.00% +0\.00% +\[unknown\]\+0x3fffff' "$E2E_TMP/out"
# 1M of them (1.2 KB of file), with -g and --html: each sample decoded,
# copied aside and compared whole, and the page's tree walked from the
# sample to its root, cost 17 s and 28 s of CPU, more than linearly (the
# copies aside were 32 KiB each, allocated and freed by the thousand)
raw=$(shape chainmany chains 1000000)
check chainmany "$raw" 1000000 no -g
measure report -i "$E2E_TMP/chainmany.prof" --html -o "$E2E_TMP/chainmany.html"
[ "$HPM_STATUS" -eq 0 ] || { cat "$E2E_TMP/err" >&2; fail "chainmany --html: exit $HPM_STATUS"; }
note "chainmany --html: max RSS ${RSS_KB} KiB, ${CPU_S}s CPU"
$asan || [ "$RSS_KB" -le $((64 * 1024 + 4 * raw / 1024)) ] ||
	fail "chainmany --html: ${RSS_KB} KiB, over 64 MiB + 4 x $raw bytes"
expect_in "chainmany --html: CPU seconds" 0 "$($asan && echo 90 || echo 15)" "$CPU_S"
expect_eq "chainmany --html: every sample in the page" "[1000000, 1000000]" \
	"$(python3 - "$E2E_TMP/chainmany.html" <<'EOF'
import json, re, sys
t = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<script type="application/json" id="data">(.*?)</script>', t, re.S)
d = json.loads(m.group(1))
u, x, k = [], 0, 1  # the tree: base64 of LEB128 numbers, the root's samples third
for b in __import__("base64").b64decode(d["trees"][0]):
    x, k = x + (b & 0x7f) * k, k * 128 if b & 0x80 else 1
    if not b & 0x80:
        u.append(x)
        x = 0
print([d["events"][0]["samples"], u[2]])
EOF
)"

# two new symbols and an edge in every sample, with -g: the call graph
# prints each symbol's callers and callees from an index of the edges. A
# scan of every edge per symbol cost 7 times the flat report here (its
# rows are bounded by the memory cap, its edges with them); now -g costs
# at most 2.5 times the flat report of the same file, plus 0.3 s (1.6
# times measured)
python3 "$gen" graph "$E2E_TMP/graph.prof" --samples 600000 --stored >/dev/null
measure report -i "$E2E_TMP/graph.prof"
[ "$HPM_STATUS" -eq 0 ] || fail "graph: flat report exit $HPM_STATUS"
flat=$CPU_S
measure report -i "$E2E_TMP/graph.prof" -g
[ "$HPM_STATUS" -eq 0 ] || fail "graph: report -g exit $HPM_STATUS"
note "graph: flat ${flat}s, -g ${CPU_S}s of CPU"
expect_in "graph: -g's CPU seconds against the flat report's" 0 \
	"$(python3 -c "print(2.5 * $flat + 0.3)")" "$CPU_S"
expect_grep "graph: a caller, at the byte before its return address" \
	'<- +0\.00%  \[unknown\]\+0x3fffffff$' "$E2E_TMP/out"

note "ok"
