#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What goes wrong with user-defined events, and what hpmon says: a
# function that does not exist, a line without code, more breakpoints
# than a thread has, uprobes without privilege, options that need a
# command, malformed specifications. Each is one clear sentence and exit
# status 129 before the command runs (1 where the host or the caller lacks
# what they need: breakpoints that fire, uprobes, privilege).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/user-lib.sh"
require_hooks

calls=$WORKLOADS/calls

# expect_usage WHAT REGEX HPMON-ARGS...: exit 129, REGEX in the message,
# and the command never ran (no count table)
expect_usage() {
	local what=$1 re=$2
	shift 2
	hpm "$@"
	expect_eq "$what: exit status" 129 "$HPM_STATUS"
	expect_grep "$what: message" "$re" "$E2E_TMP/err"
	expect_no_grep "$what: nothing counted" "Performance counter stats" "$E2E_TMP/err"
}

expect_usage "no such function" \
	"^hpmon stat: exec:no_such_fn: no function 'no_such_fn' in .*/calls or its libraries$" \
	stat -e exec:no_such_fn -- "$calls" 1
first=$(grep -n '^int main' "$SRCDIR/tests/workloads/calls.c" | cut -d: -f1)
comment=$(grep -n 'calls K: call hpm_work' "$SRCDIR/tests/workloads/calls.c" | cut -d: -f1)
expect_usage "a line without code" \
	"exec:calls.c:$comment: line $comment of calls.c has no code \(the next line with code is [0-9]+\)" \
	stat -e "exec:calls.c:$comment" -- "$calls" 1
expect_usage "no such source file" "no source file 'nope.c' with code at line 3" \
	stat -e exec:nope.c:3 -- "$calls" 1
expect_usage "an address outside the code" "address 0x10 is not in the code of .*calls" \
	stat -e exec:0x10 -- "$calls" 1
expect_usage "returns with a breakpoint" "a breakpoint cannot count a function's returns" \
	stat -e 'exec:hpm_work%return:bp' -- "$calls" 1
[ -n "$first" ] || fail "no main in calls.c"

# more breakpoints than a thread has: x86 has 4 debug registers
slots=4
case $(uname -m) in x86_64 | i?86) ;; *) slots= ;; esac
if ! host_bp_fires; then
	# breakpoints that never fire: ':bp' and mem: are refused (status 1:
	# the host lacks them), and nothing runs
	slots=
	hpm stat -e 'exec:hpm_work:bp,exec:hpm_work:bp' -- "$calls" 1
	expect_bp_refused "exec:hpm_work:bp"
	expect_no_grep "exec:hpm_work:bp: nothing counted" "Performance counter stats" "$E2E_TMP/err"
	hpm stat -e "mem:$("$calls" --addr):x" -- "$calls" 1
	expect_bp_refused "mem:ADDR:x"
	expect_no_grep "mem:ADDR:x: nothing counted" "Performance counter stats" "$E2E_TMP/err"
fi
if [ -n "$slots" ]; then
	many=$(printf 'exec:hpm_work:bp,%.0s' $(seq $((slots + 1))))
	expect_usage "out of breakpoints" \
		"no hardware breakpoint left: this CPU gives each thread $slots .*':uprobe'" \
		stat -e "${many%,}" -- "$calls" 1
	# mem: breakpoints take slots too
	addr=$("$calls" --addr)
	many=$(printf 'exec:hpm_work:bp,%.0s' $(seq $slots))
	expect_usage "out of breakpoints, with mem:" "no hardware breakpoint left" \
		stat -e "mem:$addr:x,${many%,}" -- "$calls" 1
	if can_uprobe; then
		# chosen for hpmon: breakpoints while they last, then uprobes
		many=$(printf 'exec:hpm_work,%.0s' $(seq $((slots + 2))))
		hpm_ok stat -x, -e "${many%,}" -- "$calls" 31
		expect_eq "beyond the breakpoints, uprobes" "[31, 31, 31, 31, 31, 31]" \
			"$(csv "$E2E_TMP/err" , "[num(r[0]) for r in ev('exec:hpm_work')]")"
		hpm_ok stat -e "${many%,}" -- "$calls" 31
		expect_eq "how: breakpoints" "$slots" "$(grep -c 'exec:hpm_work: breakpoint at' "$E2E_TMP/err")"
		expect_eq "how: uprobes" 2 "$(grep -c 'exec:hpm_work: uprobe at' "$E2E_TMP/err")"
	fi
fi

# groups, syntax
expect_usage "in a group" "cannot be in a group" stat -e '{task-clock,exec:hpm_work}' -- "$calls" 1
expect_usage "bad address" "is not an address" stat -e 'exec:0xzz' -- "$calls" 1
expect_usage "bad line" "out of range" stat -e 'exec:calls.c:0' -- "$calls" 1
expect_usage "sw: name" "named like a C identifier" stat -e 'sw:a-b' -- "$calls" 1

# options that need a command hpmon starts
expect_usage "sw: with -p" "need a COMMAND that hpmon starts" stat -e sw:x -p $$
expect_usage "--regions with -a and no command" "need a COMMAND that hpmon starts" stat --regions -a
expect_usage "--disable names" "takes software counter names" stat --disable 'a b' -- "$calls" 1

# without privilege: breakpoints count one's own command, uprobes are
# refused with the reason
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	dir=$E2E_TMP/nobody
	mkdir -m 755 "$dir"
	chmod 755 "$E2E_TMP"
	cp "$HPMON" "$calls" "$dir/"
	chmod 755 "$dir"/*
	as_nobody() {
		HPM_STATUS=0
		(cd "$dir" && timeout -k 5 "$E2E_TIMEOUT" setpriv --reuid=nobody --regid=nogroup \
			--clear-groups -- "$@") >"$E2E_TMP/out" 2>"$E2E_TMP/err" </dev/null ||
			HPM_STATUS=$?
	}
	as_nobody "$dir/hpmon" stat -x, -e exec:hpm_work -- "$dir/calls" 64
	if host_bp_fires; then
		expect_eq "breakpoint as nobody: exit status" 0 "$HPM_STATUS"
		expect_eq "breakpoint as nobody: count" 64 "$(field_of "$E2E_TMP/err" , exec:hpm_work)"
	else
		expect_bp_refused "exec:hpm_work as nobody"
		expect_grep "exec:hpm_work as nobody: uprobes" "uprobes need root" "$E2E_TMP/err"
	fi
	# not permitted: status 1, as for any event the caller may not open
	as_nobody "$dir/hpmon" stat -e exec:hpm_work:uprobe -- "$dir/calls" 1
	expect_eq "uprobe as nobody: exit status" 1 "$HPM_STATUS"
	expect_grep "uprobe as nobody: message" "exec:hpm_work:uprobe: uprobes need root" "$E2E_TMP/err"
	as_nobody "$dir/hpmon" stat -e 'exec:hpm_work%return' -- "$dir/calls" 1
	expect_eq "returns as nobody: exit status" 1 "$HPM_STATUS"
	expect_grep "returns as nobody: message" "counting returns needs a uprobe, and uprobes need root" \
		"$E2E_TMP/err"
else
	note "not root: the unprivileged cases are skipped"
fi
echo "PASS: $E2E_NAME"
