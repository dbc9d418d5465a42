#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One style of usage error in every command, however the command line is
# wrong: an unknown option, an option without its value, an operand that
# is missing or one too many, a value out of range, an event that does
# not parse. Each says "hpmon CMD: what is wrong" first and "See 'hpmon
# CMD --help'." last, prints no usage text, and exits 129. Before, top
# ended with "(see hpmon top --help)", validate printed its whole usage
# after an unknown option and no way on after the others, record, top and
# serve said an event error as "hpmon: ..." with no closing line, and
# record's sample rates, script's -F and serve's program-only events ended
# without one.
# The commands are those 'hpmon --help' lists: a command added without a
# row below fails the test.
. "$(dirname "$0")/lib.sh"

# style CMD ARGS...: `hpmon CMD ARGS` is a usage error in the one style.
style() {
	local cmd=$1
	hpm "$@"
	expect_eq "hpmon $*: exit status" 129 "$HPM_STATUS"
	expect_grep "hpmon $*: the first line names the command" "^hpmon $cmd: [^ ]" \
		<(head -1 "$E2E_TMP/err")
	expect_eq "hpmon $*: the last line" "See 'hpmon $cmd --help'." "$(tail -1 "$E2E_TMP/err")"
	expect_eq "hpmon $*: the closing line once" 1 "$(grep -c "^See 'hpmon" "$E2E_TMP/err")"
	expect_no_grep "hpmon $*: no usage text" '^ *usage:' "$E2E_TMP/err"
	expect_eq "hpmon $*: nothing on stdout" "" "$(cat "$E2E_TMP/out")"
	seen="$seen $cmd "
}

python3 "$SRCDIR/fuzz/gen-profile.py" rows "$E2E_TMP/a.prof" --samples 100 --rows 5 --seed 1 \
	--stored >/dev/null
a=$E2E_TMP/a.prof
seen=

# stat: an unknown option, no value, nothing to count, an event
style stat --no-such-option
style stat -e
style stat
style stat -e no_such_event -- true
# top: the same, an operand (top runs no command), a value out of range
style top --no-such-option
style top -d
style top extra
style top -d x
style top -e no_such_event
# list, diag: options and operands
style list --no-such-option
style list one two
style diag --no-such-option
style diag extra
# record
style record --no-such-option
style record -e
style record
style record -e no_such_event -- true
style record -c x -- true
# report, annotate, diff, script, convert: profiles
style report --no-such-option
style report -i
style report -i "$a" extra
style annotate --no-such-option
style annotate -i "$a"
style diff --no-such-option
style diff "$a"
style diff --percent-limit x "$a" "$a"
style script --no-such-option
style script -i
style script -i "$a" extra
style script -i "$a" -F no_such_field
style convert --no-such-option
style convert -i "$a"
style convert -i "$a" -o "$E2E_TMP/x.prof" extra
# serve: options, an operand (serve runs no command), an event
style serve --no-such-option
style serve -e
style serve extra
style serve -d x
style serve -e no_such_event
# merge
style merge --no-such-option
style merge
style merge -x
# validate: options, an operand, a value out of range
style validate --no-such-option
style validate -r
style validate extra
style validate -r x
style validate -o "$E2E_TMP/costs"

# every command that 'hpmon --help' lists was tried
hpm_ok --help
cmds=$(awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }' \
	"$E2E_TMP/out")
[ -n "$cmds" ] || fail "'hpmon --help' lists no command"
for c in $cmds; do
	case "$seen" in
	*" $c "*) ;;
	*) fail "hpmon $c: no usage error tried: add its rows" ;;
	esac
done
echo "PASS: $E2E_NAME"
