#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# hpmon installed (cmake --install into a staging root) and used as
# docs/api.md says: a program links with what pkg-config gives, shared
# and -static, for libhpmon and for libhpmon-rt alone; the rt-alone
# program reads an event set and scales its counts (hpm_count__scaled is
# the runtime's). Before: --static lacked -liberty (undefined
# cplus_demangle), and hpm_count__scaled was libhpmon's only.
. "$(dirname "$0")/lib.sh"

build=$(cd "$(dirname "$HPMON")" && pwd)
command -v pkg-config >/dev/null || skip "pkg-config is needed (apt-get install pkg-config)"
if nm "$build/lib/libhpmon-rt.a" 2>/dev/null | grep -e '__asan_' -e '__ubsan_' >/dev/null; then
	skip "this build's archives are compiled with sanitizers: a program would need their runtimes; the plain build checks the links"
fi
[ -e "$build/lib/libhpmon.so" ] || skip "a static-only build: nothing shared to install"
root=$E2E_TMP/root
DESTDIR=$root cmake --install "$build" >"$E2E_TMP/install.log" 2>&1 ||
	fail "cmake --install failed: $(tail -5 "$E2E_TMP/install.log")"
pc=$(find "$root" -name libhpmon.pc -print -quit)
[ -n "$pc" ] || fail "no libhpmon.pc installed under $root"
export PKG_CONFIG_PATH=$(dirname "$pc")
pkgc() { pkg-config --define-prefix "$@"; }
libdir=$(pkgc --variable=libdir libhpmon)

cat >"$E2E_TMP/full.c" <<'C'
#include <stdint.h>
#include <stdio.h>
#include <hpmon/hpmon.h>
#include <hpmon/symbols.h>
/* its own main, looked up with the demangler asked for (libiberty's) */
int main(void)
{
	struct hpm_dso *d = hpm_dso__open("/proc/self/exe", NULL);
	struct hpm_symbol s;
	uint64_t addr, size;
	if (!d || hpm_dso__find_function(d, "main", &addr, &size) ||
	    hpm_dso__lookup(d, addr, HPM_SYM_DEMANGLE, &s))
		return 1;
	printf("%s\n", s.name);
	hpm_dso__free(d);
	return 0;
}
C
cat >"$E2E_TMP/rt.c" <<'C'
#include <stdio.h>
#include <hpmon/counters.h>
#include <hpmon/session.h>
int main(void)
{
	struct hpm_count c = { .value = 100, .enabled = 4, .running = 2 };
	printf("%.0f\n", hpm_count__scaled(&c));
	return 0;
}
C
cc_ok() { # OUT SRC ARGS...
	local out=$1 src=$2
	shift 2
	gcc -std=gnu11 -o "$E2E_TMP/$out" "$E2E_TMP/$src" "$@" 2>"$E2E_TMP/$out.log" ||
		fail "cannot link $out: gcc $src $*: $(grep -v 'warning:' "$E2E_TMP/$out.log" | head -5)"
}
# shared, as docs/api.md: the rpath to the staged libdir
cc_ok full-shared full.c $(pkgc --cflags --libs libhpmon) -Wl,-rpath,"$libdir"
expect_eq "libhpmon, shared: it runs" main "$("$E2E_TMP/full-shared")"
cc_ok rt-shared rt.c $(pkgc --cflags --libs libhpmon-rt) -Wl,-rpath,"$libdir"
expect_eq "libhpmon-rt alone, shared: scaled" 200 "$("$E2E_TMP/rt-shared")"
# static: everything the archives need comes from --static
[ -e "$(gcc -print-file-name=libc.a)" ] || skip "no static C library (libc6-dev) for the -static links"
cc_ok full-static full.c -static $(pkgc --cflags --libs --static libhpmon)
expect_eq "libhpmon, -static: it runs" main "$("$E2E_TMP/full-static")"
cc_ok rt-static rt.c -static $(pkgc --cflags --libs --static libhpmon-rt)
expect_eq "libhpmon-rt alone, -static: scaled" 200 "$("$E2E_TMP/rt-static")"
echo "PASS: $E2E_NAME"
