#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Threads in a profile's timeline, and callers in report -g:
#  - a thread that never named itself is named as report names it
#    (--sort comm,tid): by the name it inherited at its FORK, else by its
#    process's; its lane in report --timeline and in the page's timeline
#    is comm/tid (before: the tid alone);
#  - a software event (cpu-clock) is never multiplexed: its lanes are not
#    marked scaled, whatever enabled and running times its readings carry
#    (before: "counted 50 % of the time, scaled"); a hardware event's are;
#  - report -g lists each function's callers and callees by share, the
#    largest first, equal shares by name (before: in the order first
#    seen), and the functions themselves by inclusive share, then name.
# The shapes are crafted (fuzz/gen-profile.py timeline, callers); the
# names are checked on a recorded workload too (tcalls: threads that
# never name themselves).
. "$(dirname "$0")/lib.sh"

gen="$SRCDIR/fuzz/gen-profile.py"
[ -f "$gen" ] || fail "no $gen"

# page_series HTML EXPR: EXPR over s, the list of the page's timeline
# series (thread, event, coverage ...)
page_series() {
	python3 - "$1" "$2" <<'EOF' || fail "cannot read the page's timeline"
import json, re, sys
t = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<script type="application/json" id="data">(.*?)</script>', t, re.S)
s = json.loads(m.group(1))["timeline"]["series"]
print(eval(sys.argv[2]))
EOF
}

# ---- a crafted timeline: process "crafted" (100), threads 101 (forked
# by it) and 102 (no record names it); cpu-clock and cycles, each reading
# counted half of its enabled time ----
python3 "$gen" timeline "$E2E_TMP/t.prof" --samples 10 --comm crafted >/dev/null
hpm_ok report -i "$E2E_TMP/t.prof" --timeline
tl=$E2E_TMP/tl.txt
cp "$E2E_TMP/out" "$tl"
for tid in 100 101 102; do
	expect_grep "the lane of $tid" "^  crafted/$tid +" "$tl"
done
expect_no_grep "no lane named by its tid alone" '^  [0-9]+ ' "$tl"
expect_eq "cpu-clock's lines: none scaled" 0 \
	"$(awk '/^[^ #]/ { ev = $1 } ev == "cpu-clock" && /scaled/' "$tl" | wc -l)"
expect_eq "cycles' lines: all four scaled" 4 \
	"$(awk '/^[^ #]/ { ev = $1 } ev == "cycles" && /counted 50 % of the time, scaled/' "$tl" |
		wc -l)"
hpm_ok report -i "$E2E_TMP/t.prof" --html -o "$E2E_TMP/t.html"
expect_eq "the page's lanes" "['all', 'crafted/100', 'crafted/101', 'crafted/102']" \
	"$(page_series "$E2E_TMP/t.html" "sorted({x['thread'] for x in s})")"
expect_eq "the page: cpu-clock not scaled" "[None, None, None, None]" \
	"$(page_series "$E2E_TMP/t.html" "[x['coverage'] for x in s if x['event'] == 'cpu-clock']")"
expect_eq "the page: cycles scaled, half the time" "[0.5, 0.5, 0.5, 0.5]" \
	"$(page_series "$E2E_TMP/t.html" \
		"[round(min(x['coverage'] or [1]), 3) for x in s if x['event'] == 'cycles']")"

# ---- recorded: threads that never name themselves ----
hpm_ok record -q -e cpu-clock -o "$E2E_TMP/w.prof" -- "$WORKLOADS/tcalls" 2 0 5000000
hpm_ok report -i "$E2E_TMP/w.prof" --sort comm,tid --json
want=$(json "$E2E_TMP/out" "' '.join(sorted('%s/%d' % (r['comm'], r['tid']) for r in j['rows']))")
expect_eq "report names every thread tcalls" 3 \
	"$(json "$E2E_TMP/out" "len([r for r in j['rows'] if r['comm'] == 'tcalls'])")"
hpm_ok report -i "$E2E_TMP/w.prof" --timeline
got=$(awk '/^cpu-clock/ { on = 1; next } /^[^ ]/ { on = 0 } on && $1 != "all" && $1 ~ /\// { print $1 }' \
	"$E2E_TMP/out" | sort | tr '\n' ' ')
expect_eq "the timeline's lanes are report's threads" "$want" "${got% }"
expect_no_grep "no lane named by its tid alone" '^  [0-9]+ ' "$E2E_TMP/out"
hpm_ok report -i "$E2E_TMP/w.prof" --html -o "$E2E_TMP/w.html"
expect_eq "the page's lanes are report's threads" "$want" \
	"$(page_series "$E2E_TMP/w.html" "' '.join(sorted({x['thread'] for x in s} - {'all'}))")"

# ---- report -g: callers and callees by share ----
python3 "$gen" callers "$E2E_TMP/c.prof" >/dev/null
hpm_ok report -i "$E2E_TMP/c.prof" -g
sed -n '/^# call graph/,/^#$/p' "$E2E_TMP/out" | sed '1,2d;$d' >"$E2E_TMP/cg.txt"
cat >"$E2E_TMP/cg.want" <<'EOF'
     66.67%   66.67%  [unknown]+0x400000  [unknown]
                      <-  25.00%  [unknown]+0x60000f
                      <-  16.67%  [unknown]+0x68000f
                      <-  16.67%  [unknown]+0x70000f
                      <-   8.33%  [unknown]+0x50000f
     33.33%    0.00%  [unknown]+0x80000f  [unknown]
                      ->  25.00%  [unknown]+0x420000
                      ->   8.33%  [unknown]+0x410000
     25.00%   25.00%  [unknown]+0x420000  [unknown]
                      <-  25.00%  [unknown]+0x80000f
     25.00%    0.00%  [unknown]+0x60000f  [unknown]
                      ->  25.00%  [unknown]+0x400000
     16.67%    0.00%  [unknown]+0x68000f  [unknown]
                      ->  16.67%  [unknown]+0x400000
     16.67%    0.00%  [unknown]+0x70000f  [unknown]
                      ->  16.67%  [unknown]+0x400000
      8.33%    8.33%  [unknown]+0x410000  [unknown]
                      <-   8.33%  [unknown]+0x80000f
      8.33%    0.00%  [unknown]+0x50000f  [unknown]
                      ->   8.33%  [unknown]+0x400000
EOF
diff -u "$E2E_TMP/cg.want" "$E2E_TMP/cg.txt" >&2 ||
	fail "report -g: callers and callees not by share, then name (diff above)"
hpm_ok report -i "$E2E_TMP/c.prof" -g --json
expect_eq "JSON: the callees by share" "['[unknown]+0x420000', '[unknown]+0x410000']" \
	"$(json "$E2E_TMP/out" \
		"[c['sym'] for g in j['callgraph'] if g['sym'] == '[unknown]+0x80000f' for c in g['callees']]")"

note "ok"
