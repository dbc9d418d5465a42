#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Mistakes get a clear message and a non-zero exit, and the command is not
# run: unknown events (with close names suggested), bad modifiers, a
# missing command, bad options.
. "$(dirname "$0")/lib.sh"

ran=$E2E_TMP/ran
USAGE=129 # as perf

# bad_event SPEC STATUS REGEX...: hpmon stat -e SPEC refuses with STATUS,
# and its stderr matches every REGEX.
bad_event() {
	local spec=$1 want=$2 re
	shift 2
	rm -f "$ran"
	hpm stat -e "$spec" -- touch "$ran"
	expect_eq "exit status of -e '$spec'" "$want" "$HPM_STATUS"
	[ ! -e "$ran" ] || fail "-e '$spec': the command ran anyway"
	for re in "$@"; do
		expect_grep "message for -e '$spec'" "$re" "$E2E_TMP/err"
	done
	expect_no_grep "no counts printed for -e '$spec'" 'seconds time elapsed' "$E2E_TMP/err"
}

# Unknown names are named, and the close ones suggested.
bad_event task-clok $USAGE "task-clok" "task-clock"
bad_event pagefaults $USAGE "pagefaults" "page-faults"
bad_event task-clock,contxt-switches $USAGE "contxt-switches" "context-switches"
bad_event 'cpu-clock,{task-clock,page-fault}' $USAGE "'?page-fault'?" "page-faults"
bad_event no-such-event-anywhere $USAGE "no-such-event-anywhere"
# Bad modifiers name the modifier or the event.
bad_event task-clock:q $USAGE "task-clock:q|modifier"
bad_event 'page-faults:uu:k' $USAGE "modifier|page-faults"
# Syntax errors.
bad_event 'task-clock,' $USAGE "."
bad_event '{task-clock' $USAGE "."
bad_event '' $USAGE "."

# A command that does not exist or cannot run: 127, as the shell.
hpm stat -e task-clock -- "$E2E_TMP/no-such-command" arg
expect_eq "exit status for a missing command" 127 "$HPM_STATUS"
expect_grep "message for a missing command" "no-such-command" "$E2E_TMP/err"
hpm stat -e task-clock -- hpmon-no-such-command-in-path
expect_eq "exit status for a command not in PATH" 127 "$HPM_STATUS"
expect_grep "message for a command not in PATH" "hpmon-no-such-command-in-path" "$E2E_TMP/err"
printf 'not a program\n' >"$E2E_TMP/notexec"
chmod 644 "$E2E_TMP/notexec"
hpm stat -e task-clock -- "$E2E_TMP/notexec"
[ "$HPM_STATUS" -ne 0 ] || fail "a non-executable command did not fail"
expect_grep "message for a non-executable command" "notexec" "$E2E_TMP/err"

# Bad options and arguments.
hpm stat --no-such-option -- true
expect_eq "exit status for an unknown option" $USAGE "$HPM_STATUS"
expect_grep "message for an unknown option" "no-such-option" "$E2E_TMP/err"
hpm stat -e task-clock
expect_eq "exit status with no command and no target" $USAGE "$HPM_STATUS"
hpm stat -e task-clock -I abc -- true
expect_eq "exit status for -I abc" $USAGE "$HPM_STATUS"
hpm stat -e task-clock -r x -- true
expect_eq "exit status for -r x" $USAGE "$HPM_STATUS"
hpm stat -e task-clock -p 0x
expect_eq "exit status for -p 0x" $USAGE "$HPM_STATUS"
expect_grep "message for -p 0x" "0x" "$E2E_TMP/err"
hpm stat -e task-clock -x
expect_eq "exit status for -x without a separator" $USAGE "$HPM_STATUS"

# Options that exclude each other.
for args in "-x, --json -- true" "-a -p 1 -- true" "-A -- true" \
	"-r 2 -I 100 -- true" "-r 2 -p 1" "--trace -p 1" "--per-cgroup -- true"; do
	# shellcheck disable=SC2086 # args is a list
	hpm stat -e task-clock $args
	expect_eq "exit status of hpmon stat $args" $USAGE "$HPM_STATUS"
	[ -s "$E2E_TMP/err" ] || fail "no message for hpmon stat $args"
done
echo "PASS: $E2E_NAME"
