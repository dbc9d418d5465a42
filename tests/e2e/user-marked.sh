#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Marked counting (hpm_mark, hpmon stat --marked): hardware and software
# events and software counters count only while a thread is marked, so a
# known part of the run (its start, its end, a thread that never marks
# itself) is left out, exactly.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/user-lib.sh"
require_hooks
build_user marked
prog=$E2E_TMP/marked

# A pages unmarked, B marked, C unmarked, 7 in an unmarked thread
for abc in "100 300 200" "0 1 0" "500 0 50" "1 2048 3"; do
	set -- $abc
	hpm_ok stat --marked -x, -e page-faults,sw:work -- "$prog" "$1" "$2" "$3"
	expect_eq "marked page faults ($abc)" "$2" "$(field_of "$E2E_TMP/err" , page-faults)"
	expect_eq "marked sw:work ($abc)" "$2" "$(field_of "$E2E_TMP/err" , sw:work)"
done

# per thread: the thread that never marks itself counted nothing
hpm_ok stat --marked --per-thread -x, -e page-faults,sw:work -- "$prog" 10 20 30
expect_eq "per thread, sw:work" "[0, 20]" \
	"$(csv "$E2E_TMP/err" , "sorted(num(r[1]) for r in ev('sw:work'))")"
expect_eq "per thread, page-faults" "[None, 20]" \
	"$(csv "$E2E_TMP/err" , "sorted((num(r[1]) for r in ev('page-faults')), key=lambda v: -1 if v is None else v)")"

# without --marked, everything counts
hpm_ok stat -x, -e page-faults,sw:work -- "$prog" 100 300 200
expect_in "unmarked page faults" 607 100000 "$(field_of "$E2E_TMP/err" , page-faults)"
expect_eq "unmarked sw:work" 2307 "$(field_of "$E2E_TMP/err" , sw:work)"

# the human output says how it counted; exec: events cannot be marked
hpm_ok stat --marked -e page-faults,exec:main -- "$prog" 1 2 3
expect_grep "note" "Counted only while the program's threads were marked" "$E2E_TMP/err"
expect_grep "exec: refused" "exec:main +# exec: events count in hpmon, not in the program" "$E2E_TMP/err"
echo "PASS: $E2E_NAME"
