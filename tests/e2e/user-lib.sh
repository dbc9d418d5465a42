# SPDX-License-Identifier: MIT
# Helpers of the user-defined event tests (tests/e2e/user-*.sh): source
# lib.sh first, then this.
#
# The workloads that use the markers runtime live in tests/workloads/user/
# and are built here, with gcc and without sanitizers, from the sources of
# the runtime (libhpmon-rt): the counts they produce must be their own.

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	echo "user-lib.sh holds helpers of the user-*.sh tests; source it from one"
	exit 0
fi

: "${SRCDIR:?SRCDIR must name the source tree}"
command -v gcc >/dev/null || fail "gcc is needed to build the workloads of tests/workloads/user"

USER_SRC=$SRCDIR/tests/workloads/user

# The sources of libhpmon-rt: lib/sys and lib/runtime, which need nothing
# but libc. Compiled here rather than linked from the build's
# libhpmon-rt.a, which a sanitizer build compiles with the sanitizers.
RT_SRC=("$SRCDIR"/lib/sys/*.c "$SRCDIR"/lib/runtime/*.c)

# build_user NAME [GCC ARGS...]: tests/workloads/user/NAME.c with the
# markers runtime compiled in, into $E2E_TMP/NAME.
build_user() {
	local name=$1
	shift
	gcc -std=gnu11 -O1 -g -fno-inline -D_GNU_SOURCE -Wall \
		-I"$SRCDIR/include" -I"$SRCDIR/lib" \
		-o "$E2E_TMP/$name" "$USER_SRC/$name.c" "${RT_SRC[@]}" \
		-lpthread "$@" 2>"$E2E_TMP/build-$name.log" ||
		fail "cannot build $name: $(cat "$E2E_TMP/build-$name.log")"
}

# field_of FILE SEP EVENT [N]: field N (default 1) of the CSV line of EVENT.
field_of() {
	csv "$1" "$2" "ev('$3')[0][${4:-0}]"
}

# require_hooks: skip (saying why) when this hpmon's stat has no options
# of user-defined events yet.
require_hooks() {
	"$HPMON" stat --help 2>&1 | grep -q -- '--regions' ||
		skip "hpmon stat lacks --regions/--marked: tools/hpmon/stat/stat-user.c is not hooked into cmd-stat.c"
}

# can_uprobe: this user may define uprobes (root, tracefs mounted).
can_uprobe() {
	[ "$(id -u)" = 0 ] && [ -e /sys/kernel/tracing/uprobe_events ] ||
		[ -e /sys/kernel/debug/tracing/uprobe_events ]
}
