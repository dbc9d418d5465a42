#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Names from the system and from profiles reach the terminal escaped: a
# thread named "x ESC[2J NEWLINE fake-1 \xff BEL" (workloads/badname) shows
# as x\x1b[2J\nfake-1 \xff\x07 in stat's table and CSV and in report's
# table and script's lines, one row each, with no control byte in the
# output; a JIT symbol with an OSC title sequence, a tab and C1 bytes
# likewise; and, in a crafted profile, the same names as the task's, the
# event's and the object's in script and report. JSON gives back the
# exact bytes (Python: strict UTF-8, then surrogateescape).
. "$(dirname "$0")/lib.sh"

esc='x\x1b[2J\nfake-1 \xff\x07'   # what the text output must show
esc_re='x\\x1b\[2J\\nfake-1 \\xff\\x07'

# clean FILE WHAT: valid UTF-8, no control character but newline.
clean() {
	python3 - "$1" "$2" <<'EOF' || fail "see above"
import sys
data = open(sys.argv[1], 'rb').read()
try:
    text = data.decode('utf-8')
except UnicodeDecodeError as e:
    sys.exit(f"{sys.argv[2]}: not UTF-8 ({e})")
bad = [hex(ord(c)) for c in text if (ord(c) < 0x20 and c != '\n') or 0x7f <= ord(c) <= 0x9f]
if bad:
    sys.exit(f"{sys.argv[2]}: control characters {bad[:8]} in the output")
EOF
}
# rows WHAT PATTERN FILE LOW HIGH: LOW..HIGH lines match PATTERN, and every
# line that holds "fake-1" is one of them (no fake row).
rows() {
	local n all
	n=$(grep -Ec -- "$2" "$3" || true)
	all=$(grep -c -- 'fake-1' "$3" || true)
	expect_in "$1: rows" "$4" "$5" "$n"
	expect_eq "$1: every line naming fake-1 is a whole row" "$n" "$all"
	expect_no_grep "$1: no row of its own" '^ *fake-1' "$3"
}
# json_names FILE EXPR: the Python expression over d (the parsed JSON),
# each value encoded back to bytes, as hex.
json_names() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1], encoding='utf-8'))
print(' '.join(sorted({s.encode('utf-8', 'surrogateescape').hex() for s in eval(sys.argv[2])})))
EOF
}

# ---- stat --per-thread: table, CSV (two separators), JSON ----
hpm_ok stat --per-thread -e task-clock -- "$WORKLOADS/badname" 2000000
raw=$(head -n1 "$E2E_TMP/out")
expect_eq "the workload's name (hex)" 781b5b324a0a66616b652d3120ff07 "$raw"
clean "$E2E_TMP/err" "stat table"
rows "stat table" "^${esc_re}-[0-9]+ +[0-9.]+ msec +task-clock" "$E2E_TMP/err" 1 2

hpm_ok stat --per-thread -x, -e task-clock -- "$WORKLOADS/badname" 2000000
clean "$E2E_TMP/err" "stat CSV"
rows "stat CSV" "^${esc_re}-[0-9]+,[0-9.]+,msec,task-clock," "$E2E_TMP/err" 1 2
# a separator inside a name: the field is quoted (RFC 4180)
hpm_ok stat --per-thread -x ' ' -e task-clock -- "$WORKLOADS/badname" 2000000
clean "$E2E_TMP/err" "stat CSV with -x ' '"
got=$(python3 - "$E2E_TMP/err" <<'EOF'
import csv, sys
names = {r[0].rsplit('-', 1)[0] for r in csv.reader(open(sys.argv[1]), delimiter=' ')
         if r and 'fake-1' in r[0]}
print(' '.join(sorted(names)))
EOF
)
expect_eq "stat CSV with -x ' ': the quoted field" "$esc" "$got"

hpm_ok stat --per-thread --json -e task-clock -- "$WORKLOADS/badname" 2000000
expect_eq "stat JSON gives the exact name back" "$raw" \
	"$(json_names "$E2E_TMP/err" '[t["comm"] for t in d["threads"] if "fake-1" in t["comm"]]')"

# ---- record, report by comm ----
hpm_ok record -q -e cpu-clock -o "$E2E_TMP/b.prof" -- "$WORKLOADS/badname" 20000000
hpm_ok report -i "$E2E_TMP/b.prof" --sort comm
clean "$E2E_TMP/out" "report table"
rows "report table" "^ +[0-9]+ +[0-9.]+% +[0-9.]+% +${esc_re}\$" "$E2E_TMP/out" 1 1
hpm_ok report -i "$E2E_TMP/b.prof" --sort comm --json
expect_eq "report JSON gives the exact comm back" "$raw" \
	"$(json_names "$E2E_TMP/out" '[r["comm"] for r in d["rows"] if "fake-1" in r["comm"]]')"
# script: a line a sample, the name escaped
hpm_ok script -i "$E2E_TMP/b.prof"
clean "$E2E_TMP/out" "script"
rows "script" "^ *${esc_re} +[0-9]+ .*cpu-clock: " "$E2E_TMP/out" 1 100000

# ---- a crafted profile: the task, the event and the object so named ----
name=$'x\e[2J\nfake-1 \xff\a'
python3 "$SRCDIR/fuzz/gen-profile.py" names "$E2E_TMP/n.prof" --samples 8 --comm "$name" \
	--event "ev-$name" --object "/nonexistent/$name" >/dev/null
hpm_ok script -i "$E2E_TMP/n.prof"
clean "$E2E_TMP/out" "script of the crafted profile"
rows "script of the crafted profile" \
	"^ *${esc_re} +100 .* ev-${esc_re}: +[0-9a-f]+ \\[unknown\\] \\(/nonexistent/${esc_re}\\)\$" \
	"$E2E_TMP/out" 8 8
hpm_ok report -i "$E2E_TMP/n.prof" --sort comm,dso
clean "$E2E_TMP/out" "report of the crafted profile"
expect_grep "report: the event" "^# event ev-${esc_re}: 8 samples" "$E2E_TMP/out"
expect_grep "report: the task and the object" \
	"^ +8 +100\\.00% +100\\.00% +${esc_re} +${esc_re}\$" "$E2E_TMP/out"

# ---- a JIT symbol that sets the terminal's title and adds a row ----
hpm_ok record -q -e cpu-clock -o "$E2E_TMP/j.prof" -- "$WORKLOADS/jit" 100000000
map=$(cat "$E2E_TMP/out")
E2E_JIT_MAP=$map
trap 'rm -f "$E2E_JIT_MAP"; e2e_cleanup' EXIT
[ -f "$map" ] || fail "the JIT workload left no map at $map"
# a map line ends at a newline, so the name holds tab, C1 and BEL instead
sym=$'jit\e]0;pwned\a\t99%\xc2\x9bfake-1\x9b'
sym_hex=$(printf '%s' "$sym" | od -An -tx1 | tr -d ' \n')
python3 -c 'import sys; p=sys.argv[1]; d=open(p,"rb").read(); open(p,"wb").write(d.replace(b"jitted_loop", bytes.fromhex(sys.argv[2])))' "$map" "$sym_hex"
grep -q 'pwned' "$map" || fail "could not plant the symbol in $map"
hpm_ok report -i "$E2E_TMP/j.prof" --sort sym
clean "$E2E_TMP/out" "report table of the JIT symbol"
rows "report table of the JIT symbol" \
	'^ +[0-9]+ +[0-9.]+% +[0-9.]+% +jit\\x1b\]0;pwned\\x07\\t99%\\xc2\\x9bfake-1\\x9b$' \
	"$E2E_TMP/out" 1 1
hpm_ok report -i "$E2E_TMP/j.prof" --sort sym --csv
clean "$E2E_TMP/out" "report CSV of the JIT symbol"
rows "report CSV of the JIT symbol" \
	'(^|,)jit\\x1b\]0;pwned\\x07\\t99%\\xc2\\x9bfake-1\\x9b$' "$E2E_TMP/out" 1 1
hpm_ok report -i "$E2E_TMP/j.prof" --sort sym --json
got=$(json_names "$E2E_TMP/out" '[r["sym"] for r in d["rows"] if "pwned" in r["sym"]]')
expect_eq "report JSON gives the exact symbol back" "$sym_hex" "$got"
hpm_ok script -i "$E2E_TMP/j.prof" -F comm,tid,ip,sym
clean "$E2E_TMP/out" "script of the JIT symbol"
expect_grep "script: the JIT symbol" \
	' jit\\x1b\]0;pwned\\x07\\t99%\\xc2\\x9bfake-1\\x9b$' "$E2E_TMP/out"
rm -f "$map"
echo "PASS: $E2E_NAME"
