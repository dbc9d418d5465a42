#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The command's exit status, death by signal, stdin, stdout and stderr
# pass through hpmon unchanged.
. "$(dirname "$0")/lib.sh"

ec=$WORKLOADS/exitcode

# Exit statuses, and 128+N for a command killed by signal N.
for c in "0:0" "3:3" "255:255" "0 15:143" "0 11:139" "0 9:137" "0 6:134"; do
	args=${c%%:*} want=${c##*:}
	# shellcheck disable=SC2086 # args is a list
	hpm stat -e task-clock -- "$ec" $args
	expect_eq "exit status of hpmon stat -- exitcode $args" "$want" "$HPM_STATUS"
	expect_eq "stdout of exitcode $args" "exitcode: ${args%% *}" "$(cat "$E2E_TMP/out")"
	expect_grep "stderr of exitcode $args" '^exitcode: stderr$' "$E2E_TMP/err"
	# The counts are printed whatever became of the command.
	expect_grep "task-clock printed after exitcode $args" 'task-clock' "$E2E_TMP/err"
done

# With -o the stat output goes to the file and the command's stderr stays
# alone on stderr.
hpm stat -o "$E2E_TMP/stat.txt" -e task-clock -- "$ec" 4
expect_eq "exit status with -o" 4 "$HPM_STATUS"
expect_eq "stderr with -o" "exitcode: stderr" "$(cat "$E2E_TMP/err")"
expect_grep "stat output in the -o file" 'task-clock' "$E2E_TMP/stat.txt"

# stdin to stdout, byte for byte: 1 MiB of every byte value, through a
# file and through pipes.
head -c 1048576 /dev/urandom >"$E2E_TMP/in"
timeout 30 "$HPMON" stat -e task-clock -- cat <"$E2E_TMP/in" >"$E2E_TMP/copy" 2>"$E2E_TMP/err" ||
	fail "hpmon stat -- cat exited $?: $(cat "$E2E_TMP/err")"
cmp -s "$E2E_TMP/in" "$E2E_TMP/copy" || fail "stdin did not reach stdout unchanged through a file"
# shellcheck disable=SC2002 # a pipe, not a file, on purpose
sum=$(cat "$E2E_TMP/in" | timeout 30 "$HPMON" stat -e task-clock -- cat 2>/dev/null | sha256sum)
expect_eq "sha256 of stdin through pipes" "$(sha256sum <"$E2E_TMP/in")" "$sum"
# An empty stdin is an empty stdout, and the stat output stays off stdout.
timeout 30 "$HPMON" stat -e task-clock -- cat </dev/null >"$E2E_TMP/copy" 2>/dev/null
expect_eq "stdout of cat </dev/null" 0 "$(stat -c %s "$E2E_TMP/copy")"

# Arguments reach the command unchanged, spaces and all.
hpm_ok stat -e task-clock -- printf '[%s]' 'a b' '' '-e' '--' "it's"
expect_eq "arguments passed through" "[a b][][-e][--][it's]" "$(cat "$E2E_TMP/out")"

# A command killed from outside: hpmon reports it the same way, after
# printing the counts.
bg timeout -k 5 30 "$HPMON" stat -e task-clock -- "$WORKLOADS/sleeper" 20000 \
	>"$E2E_TMP/bg.out" 2>"$E2E_TMP/bg.err"
top=$BG_PID
find_sleeper() { SLEEPER=$(descendant "$top" sleeper); }
wait_for "the sleeper under hpmon" 10 find_sleeper
kill -TERM "$SLEEPER"
status=0
wait "$top" || status=$?
expect_eq "exit status of hpmon when its command gets SIGTERM" 143 "$status"
expect_grep "counts printed after SIGTERM" 'task-clock' "$E2E_TMP/bg.err"

# SIGTERM to hpmon itself reaches the command (as perf forwards it), and
# hpmon still prints the counts and exits as the command did.
bg timeout -k 5 30 "$HPMON" stat -e task-clock -- "$WORKLOADS/sleeper" 20000 \
	>"$E2E_TMP/bg.out" 2>"$E2E_TMP/bg.err"
top=$BG_PID
wait_for "the sleeper under hpmon" 10 find_sleeper
hpmon_pid=$(descendant "$top" hpmon)
kill -TERM "$hpmon_pid"
status=0
wait "$top" || status=$?
expect_eq "exit status of hpmon after SIGTERM to hpmon" 143 "$status"
expect_grep "counts printed after SIGTERM to hpmon" 'task-clock' "$E2E_TMP/bg.err"
[ ! -d /proc/"$SLEEPER" ] || fail "the command outlived hpmon's SIGTERM"
echo "PASS: $E2E_NAME"
