#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# report --timeline in a terminal (tmux): the sparklines are drawn in
# block characters in a UTF-8 locale and in ASCII in the C locale, the
# columns fit the terminal's width, and a name's escape sequence does not
# reach the terminal (the screen is not cleared). The same with a
# profile recorded with its timeline.
. "$(dirname "$0")/lib.sh"

# show LOCALE ARGS...: hpmon report --timeline ARGS in a fresh 100x30
# terminal, then a marker line
show() {
	local loc=$1
	shift
	term_start 100 30 \
		"cd '$TESTDATA/timeline' && LC_ALL=$loc TERM=xterm-256color $HPMON report --timeline $*; echo TL-EXIT=\$?; sleep 60"
	screen_has "exit status" '^TL-EXIT=0$'
}

show C.UTF-8 -i stat-phases.json
screen_has "the title" "^# timeline of 'stat-phases.json': stat -I intervals"
screen_has "UTF-8 blocks" '^  all +▁▂▄█  min 0  max 40  total 75'
screen_has "a thread" '^  main/7 +▁▂▄█  min 0  max 32  total 60$'
screen_has "the escaped name" '^  work\\x1b\[2J/9 +▁▂▄█'
screen_has "the axis" '^ +0 800 ms$'
show C -i stat-phases.json
screen_has "ASCII in the C locale" '^  task-clock|^  all +_\.-~=\+\*#  min 10  max 80  total 360$'

# a recorded timeline: as many columns as the 100-column terminal holds
hpm record -q -e page-faults -o "$E2E_TMP/p.prof" -- "$WORKLOADS/phases" 400 100
[ "$HPM_STATUS" -eq 0 ] || skip "cannot sample page-faults here: $(head -1 "$E2E_TMP/err")"
show C.UTF-8 -i "$E2E_TMP/p.prof"
screen_has "a profile's title" "^# timeline of '.*p\.prof': (counts read per thread|sample periods)"
screen_has "its page faults" '^  all +[ ▁▂▃▄▅▆▇█]+  min [0-9]+  max [0-9]+  total [0-9]+'
# the terminal's width, not a file's 110 columns: fewer than 49 of its
# 80 or more bins of 10 ms
expect_grep "columns for 100 columns" '^# .* in ([0-9]|[1-3][0-9]|4[0-8]) columns of' "$E2E_TMP/screen"
python3 -c 'import sys; sys.exit(any(len(l) > 100 for l in open(sys.argv[1], encoding="utf-8")))' \
	"$E2E_TMP/screen" || fail "a line wider than the terminal"
exit 0
