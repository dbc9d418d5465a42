#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every command tells an option it does not know from one it knows that
# lacks its value, naming the option as written, and exits 129 (a usage
# error, as perf): a perf option such as `report -n` or `report --stdio`
# is unknown, not "needs a value", and `script -F` alone needs a value,
# not "bad option".
. "$(dirname "$0")/lib.sh"

# unknown CMD OPT ARGS...: `hpmon CMD OPT ARGS` fails with 129 and "hpmon
# CMD: unknown option 'OPT'"; missing CMD OPT: `hpmon CMD OPT` fails with
# 129 and "hpmon CMD: option 'OPT' needs a value".
check() {
	local cmd=$1 msg=$2
	shift 2
	hpm "$cmd" "$@"
	expect_eq "$cmd $*: exit status" 129 "$HPM_STATUS"
	expect_grep "$cmd $*: the message" "^hpmon $cmd: $msg\$" "$E2E_TMP/err"
}
unknown() { check "$1" "unknown option '$2'" "${@:2}"; }
missing() { check "$1" "option '$2' needs a value" "$2"; }

for cmd in report annotate script diff convert merge; do
	unknown "$cmd" -z
	unknown "$cmd" --no-such-option
done
# perf report's options hpmon does not take
unknown report -n
unknown report --stdio
unknown report -F
unknown report --no-children
unknown script -D

missing report -i
missing report --sort
missing report -s
missing annotate -i
missing annotate --debug-dir
missing script -F
missing script --fields
missing diff -o
missing convert -i
missing convert -o
missing merge -o
exit 0
