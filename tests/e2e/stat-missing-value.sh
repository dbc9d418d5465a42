#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# An option without its value is a usage error that says so, naming the
# option: -e as the last argument, -e followed by another option (which
# getopt would take as the event list), and an empty event list. Nothing
# runs, and hpmon exits 129 (a usage error, as perf).
. "$(dirname "$0")/lib.sh"

marker=$E2E_TMP/ran

# expect_missing WHAT OPT ARGS...: `stat ARGS` fails with exit 129 and the
# message "option 'OPT' needs a value" (plus WHAT when not empty), without
# starting the command.
expect_missing() {
	local what=$1 opt=$2
	shift 2
	hpm stat "$@"
	expect_eq "stat $* exit status" 129 "$HPM_STATUS"
	expect_grep "stat $* names the option" \
		"^hpmon stat: option '$opt' needs a value${what:+: $what}\$" "$E2E_TMP/err"
	[ ! -e "$marker" ] || fail "stat $*: the command ran"
}

expect_missing "" -e -e
expect_missing "" --event --event
expect_missing "" -e -a -e
expect_missing "'--' is an option, not an event list" -e -e -- touch "$marker"
expect_missing "'--' is an option, not an event list" --event --event -- touch "$marker"
expect_missing "'-a' is an option, not an event list" -e -e -a -- touch "$marker"
expect_missing "the event list is empty" -e -e '' -- touch "$marker"
expect_missing "the event list is empty" --event --event= -- touch "$marker"
expect_missing "the event list is empty" -e -e task-clock -e '' -- touch "$marker"
expect_missing "" -p -p
expect_missing "" -x -e task-clock -x

# An -e given after the command is the command's: counted as such.
hpm_ok stat -x, -e task-clock -- sh -c 'exit 0' -e
expect_grep "-e after the command is the command's" "task-clock" "$E2E_TMP/err"
