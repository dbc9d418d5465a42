# SPDX-License-Identifier: MIT
# hpmon help CMD in the guest: a static hpmon, no man and no pages
# installed, prints the man page's text that it carries built in, for
# every command that hpmon --help lists.
. ./lib/check.sh

run usage hpmon --help
expect_ok usage-runs usage
cmds=$(sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p' "$SCRATCH/usage.out")
expect "usage-lists-commands" "$(shown usage)" test "$(echo $cmds | wc -w)" -ge 7
for cmd in $cmds; do
	run "help-$cmd" hpmon help "$cmd"
	expect_ok "help-$cmd-runs" "help-$cmd"
	expect "help-$cmd-is-the-page" "$(shown "help-$cmd")" \
		grep -q "^       hpmon-$cmd - " "$SCRATCH/help-$cmd.out"
	expect "help-$cmd-has-see-also" "$(shown "help-$cmd")" \
		grep -q '^SEE ALSO' "$SCRATCH/help-$cmd.out"
done
run nosuch hpmon help no-such-command
expect_eq help-unknown-command-129 129 "$(cat "$SCRATCH/nosuch.rc")" "$(shown nosuch)"
finish
