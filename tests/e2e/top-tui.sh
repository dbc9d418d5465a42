#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# hpmon top's full-screen view, driven in a tmux terminal: it starts and
# shows its title, per-CPU line, the idle tasks' line and the header (the
# clock as %CPU, counts per second), and no idle task (swapper/N) among
# the rows; a spinning workload's row is there; it redraws at a new size;
# '>' moves the sort column; '/' filters by name; 'h' shows the keys; 'H'
# switches to rows per thread and back (the workload's row comes back
# under its tid, then its pid), and the view goes on; 'q' quits and
# Ctrl-C ends it, and either way the terminal is given back: the
# alternate screen is left and the shell's next line prints.
. "$(dirname "$0")/lib.sh"

hpm stat -a -e cpu-clock -- true
[ "$HPM_STATUS" -eq 0 ] || skip "system-wide counting is not allowed here: $(head -1 "$E2E_TMP/err")"
hpm top --help
grep -q 'full-screen' "$E2E_TMP/out" || fail "no top --help"

# start: hpmon top in a fresh 120x30 terminal; the shell prints its exit
# status after it, and then waits.
start() {
	term_start 120 30 "TERM=xterm-256color $HPMON top -d 0.3 $*; echo TOP-EXIT=\$?; sleep 60"
	screen_has "title" '^hpmon top - [0-9:]+  every 0\.3s'
}

bg "$WORKLOADS/sleeper" -s 20000
SPIN=$BG_PID
start -e task-clock,context-switches
screen_has "per-CPU line" '^CPU busy: +cpu0 '
screen_has "idle line" '^idle: +[0-9]+\.[0-9] % of [0-9]+ CPUs?  context-switches/s [0-9.]+ *$'
screen_has "header" '^ +PID USER +COMM +\*%CPU +context-switches/s *$'
expect_no_grep "no idle task among the rows" '^ +0 +[^ ]+ +swapper' "$E2E_TMP/screen"
expect_eq "alternate screen while running" 1 "$(tm display -p '#{alternate_on}')"
tm send-keys / sleeper Enter
screen_has "the workload's row, filtered by name" "^ +$SPIN +[a-z0-9]+ +sleeper +[0-9]+\.[0-9] +[0-9.]+ *$"
screen_has "the filter is said" 'filter: name~sleeper'
tm resize-window -x 70 -y 12
screen_has "redrawn at 70 columns" '^hpmon top - .{0,60}$'
tm resize-window -x 120 -y 30
tm send-keys '>'
screen_has "sort moved to context-switches" '^ +PID USER +COMM +%CPU +\*context-switches/s'
tm send-keys h
screen_has "help" '^hpmon top: keys'
tm send-keys x
screen_has "back from help" '^ +PID USER +COMM'
tm send-keys H
screen_has "rows per thread" '^ +TID USER +COMM'
screen_has "the workload's row, by its tid" "^ +$SPIN +[a-z0-9]+ +sleeper +[0-9]+\.[0-9] +[0-9.]+ *$"
tm send-keys H
screen_has "rows per process again" '^ +PID USER +COMM'
screen_has "the workload's row, by its pid" "^ +$SPIN +[a-z0-9]+ +sleeper +[0-9]+\.[0-9] +[0-9.]+ *$"
tm send-keys Escape
screen_has "filters cleared" '^h: help  q: quit *$'
tm send-keys q
screen_has "exit status after q" '^TOP-EXIT=0$'
expect_eq "alternate screen left after q" 0 "$(tm display -p '#{alternate_on}')"

start
tm send-keys C-c
screen_has "exit status after Ctrl-C" '^TOP-EXIT=0$'
expect_eq "alternate screen left after Ctrl-C" 0 "$(tm display -p '#{alternate_on}')"
