#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The command starts as it would without hpmon, although it runs in
# hpmon's memory until its exec (tools/hpmon/launch/launch.c): no signal
# blocked, what the caller ignored still ignored, except the four signals
# hpmon passes on, which are at their default; PATH searched past missing
# and unusable directories; a script without "#!" run by /bin/sh, as
# execvp does; a long argument list intact; a command that is not there
# named. For stat and record, which share the launch.
. "$(dirname "$0")/lib.sh"

# sig_field NAME FILE: the mask of /proc/self/status line NAME in FILE
sig_field() { sed -n "s/^$1:[[:space:]]*//p" "$2"; }

# Ignore SIGUSR1 (kept through exec) and SIGINT (which hpmon passes on,
# so the command must be able to die of it) in the caller: set inside
# timeout, which catches SIGINT itself.
ignoring() { timeout 30 bash -c 'trap "" USR1 INT; exec "$@"' ignoring "$@" </dev/null; }
ignoring grep '^Sig' /proc/self/status >"$E2E_TMP/direct" ||
	fail "grep of /proc/self/status failed"
ignoring "$HPMON" stat -e task-clock -- grep '^Sig' /proc/self/status \
	>"$E2E_TMP/stat" 2>"$E2E_TMP/err" || fail "stat -- grep failed: $(cat "$E2E_TMP/err")"
ignoring "$HPMON" record -q -e cpu-clock -o "$E2E_TMP/r.prof" -- grep '^Sig' /proc/self/status \
	>"$E2E_TMP/record" 2>"$E2E_TMP/err" || fail "record -- grep failed: $(cat "$E2E_TMP/err")"

usr1=$((1 << (10 - 1))) int=$((1 << (2 - 1)))
direct_ign=$((16#$(sig_field SigIgn "$E2E_TMP/direct")))
[ $((direct_ign & usr1)) -ne 0 ] && [ $((direct_ign & int)) -ne 0 ] ||
	fail "the shell did not ignore SIGUSR1 and SIGINT: the test is wrong"
for how in stat record; do
	f=$E2E_TMP/$how
	expect_eq "$how: signals blocked in the command" "$(sig_field SigBlk "$E2E_TMP/direct")" \
		"$(sig_field SigBlk "$f")"
	expect_eq "$how: signals caught in the command" "$(sig_field SigCgt "$E2E_TMP/direct")" \
		"$(sig_field SigCgt "$f")"
	ign=$((16#$(sig_field SigIgn "$f")))
	expect_eq "$how: SIGUSR1 still ignored in the command" "$usr1" $((ign & usr1))
	expect_eq "$how: SIGINT at its default in the command" 0 $((ign & int))
	expect_eq "$how: nothing else ignored" $((direct_ign & ~int)) "$ign"
done

# PATH: missing directories, a file in place of a directory and a
# directory without the command come first; the command is found after.
mkdir -p "$E2E_TMP/bin" "$E2E_TMP/empty"
: >"$E2E_TMP/notadir"
cp "$WORKLOADS/exitcode" "$E2E_TMP/bin/launch-exitcode"
path="$E2E_TMP/missing1:$E2E_TMP/notadir:$E2E_TMP/empty:$E2E_TMP/missing2:$E2E_TMP/bin:$PATH"
PATH=$path hpm stat -e task-clock -- launch-exitcode 5
expect_eq "command found along PATH: its status" 5 "$HPM_STATUS"
expect_eq "command found along PATH: its output" "exitcode: 5" "$(cat "$E2E_TMP/out")"
PATH=$path hpm stat -e task-clock -- launch-not-there
expect_eq "a command on no PATH directory: status" 127 "$HPM_STATUS"
expect_grep "a command on no PATH directory: named" "cannot run 'launch-not-there'" "$E2E_TMP/err"
hpm record -q -e cpu-clock -o "$E2E_TMP/r.prof" -- "$E2E_TMP/launch-not-there"
expect_eq "record: a command that is not there: status" 127 "$HPM_STATUS"
expect_grep "record: a command that is not there: named" "cannot run" "$E2E_TMP/err"

# A script without "#!" (ENOEXEC): execvp runs it with /bin/sh.
printf 'echo "script: $# $1"\nexit 6\n' >"$E2E_TMP/bin/launch-script"
chmod +x "$E2E_TMP/bin/launch-script"
hpm stat -e task-clock -- "$E2E_TMP/bin/launch-script" a b c
expect_eq "script without #!: status" 6 "$HPM_STATUS"
expect_eq "script without #!: output" "script: 3 a" "$(cat "$E2E_TMP/out")"

# 100,000 arguments (about 590 KiB): each one reaches the command.
seq 100000 >"$E2E_TMP/args"
mapfile -t args <"$E2E_TMP/args"
hpm stat -e task-clock -- sh -c 'echo "$# ${1} ${100000}"' sh "${args[@]}"
expect_eq "100,000 arguments: status" 0 "$HPM_STATUS"
expect_eq "100,000 arguments: first and last" "100000 1 100000" "$(cat "$E2E_TMP/out")"
# and with a script without "#!", whose argument vector execvp builds
hpm stat -e task-clock -- "$E2E_TMP/bin/launch-script" "${args[@]}"
expect_eq "100,000 arguments to a script without #!: status" 6 "$HPM_STATUS"
expect_eq "100,000 arguments to a script without #!" "script: 100000 1" "$(cat "$E2E_TMP/out")"

echo "PASS: $E2E_NAME"
