# SPDX-License-Identifier: MIT
# scripts/layers refuses what breaks the tree's one-way rules, shown on a
# copy of the real tree (lib/, tools/, include/, scripts/ and their
# READMEs) with one thing added at a time: a circle of two headers of one
# folder, two files of one folder where each includes the other's header,
# two objects of one folder that call each other, a folder including a
# higher folder's header, folders in a circle, a header included from
# outside its folder that is not the folder's interface, a header without
# its folder's room, and a tool's folder using one its README does not
# allow (only while the tool has that README). The unmodified copy passes,
# includes and the build's objects alike. tests/e2e/layers.sh runs the
# check on the tree itself.
. "$(dirname "$0")/lib.sh"

BUILD=$(dirname "$HPMON")
t=$E2E_TMP/tree
mkdir -p "$t"
cp -r "$SRCDIR/lib" "$SRCDIR/tools" "$SRCDIR/include" "$SRCDIR/scripts" "$t/"
LAYERS="$t/scripts/layers"
CC=${CC:-cc}

# layers ARGS...: run the check on the copy; its output in $out, its exit
# status in $rc.
layers() {
	rc=0
	out=$(python3 "$LAYERS" --src "$t" "$@" 2>&1) || rc=$?
}

# refused WHAT PATTERN...: the last run failed (exit 1) and said each
# PATTERN (a fixed string).
refused() {
	local what=$1 p
	shift
	[ "$rc" = 1 ] || fail "$what passed (exit $rc):
$out"
	for p in "$@"; do
		grep -qF -- "$p" <<<"$out" || fail "$what: the check does not say '$p':
$out"
	done
	note "$what: refused"
}

# header PATH ROOM [LINE...]: a header of the copy with its ownership and
# its folder's Room line (ROOM), then LINEs.
header() {
	local path=$t/$1 room=$2
	shift 2
	{
		echo "/* SPDX-License-Identifier: MIT */"
		echo "/*"
		echo " * $room"
		echo " *"
		echo " * Ownership: none; made by $E2E_NAME."
		echo " */"
		printf '%s\n' "$@"
	} >"$path"
}

count_room="Room: lib/count/ owns counting; may use attach, metrics, events, location, core, runtime, sys."
profile_room="Room: lib/profile/ owns the profile file, written and read; may use core, sys."
core_room="Room: lib/core/ owns the context, errors, data and CPU lists; may use sys."

# The copy as it is: includes, then the build's objects too.
layers
[ "$rc" = 0 ] || fail "the unmodified tree was refused:
$out"
layers --build "$BUILD"
[ "$rc" = 0 ] || fail "the unmodified tree and its objects were refused:
$out"
grep -Eq '^layers: [0-9]+ files, [1-9][0-9]* objects' <<<"$out" ||
	fail "no objects read from $BUILD: $out"
note "the unmodified copy passes: $out"

# Two headers of one folder that include each other.
header lib/count/circle-a-internal.h "$count_room" '#include "count/circle-b-internal.h"'
header lib/count/circle-b-internal.h "$count_room" '#include "count/circle-a-internal.h"'
layers
refused "two headers of count/ including each other" \
	"files in a circle: lib/count/circle-a-internal.h, lib/count/circle-b-internal.h"
rm "$t"/lib/count/circle-[ab]-internal.h

# Two files of one folder, each including the header of the other: the
# two halves of one object reaching into each other (a header is the file
# it is named for).
header lib/profile/half-a-internal.h "$profile_room" 'int half_a(void);'
header lib/profile/half-b-internal.h "$profile_room" 'int half_b(void);'
printf '#include "profile/half-a-internal.h"\n#include "profile/half-b-internal.h"\nint half_a(void) { return half_b(); }\n' \
	>"$t/lib/profile/half-a.c"
printf '#include "profile/half-b-internal.h"\n#include "profile/half-a-internal.h"\nint half_b(void) { return 1; }\n' \
	>"$t/lib/profile/half-b.c"
layers
refused "two files of profile/ each including the other's header" \
	"files in a circle: lib/profile/half-a.c, lib/profile/half-b.c" \
	"lib/profile/half-b.c -> lib/profile/half-a-internal.h (lib/profile/half-a.c's header)"
# the folder's own header is no one file's: both may include it
header lib/profile/profile-internal.h "$profile_room" 'int half_a(void);' 'int half_b(void);'
printf '#include "profile/profile-internal.h"\nint half_a(void) { return half_b(); }\n' \
	>"$t/lib/profile/half-a.c"
printf '#include "profile/profile-internal.h"\nint half_b(void) { return 1; }\n' \
	>"$t/lib/profile/half-b.c"
rm "$t"/lib/profile/half-[ab]-internal.h
layers
[ "$rc" = 0 ] || fail "two files sharing their folder's own header were refused:
$out"
rm "$t"/lib/profile/half-[ab].c
cp "$SRCDIR/lib/profile/profile-internal.h" "$t/lib/profile/"

# Two objects of one folder that call each other (no include says so).
mkdir -p "$t/build/lib/CMakeFiles/fake.dir/sample"
printf 'int call_b(void);\nint call_a(void) { return call_b(); }\n' >"$t/lib/sample/call-a.c"
printf 'int call_a(void);\nint call_b(void) { return call_a(); }\n' >"$t/lib/sample/call-b.c"
for f in call-a call-b; do
	"$CC" -c -o "$t/build/lib/CMakeFiles/fake.dir/sample/$f.c.o" "$t/lib/sample/$f.c" ||
		fail "cannot compile $f.c with $CC"
done
layers --build "$t/build"
refused "two objects of sample/ calling each other" \
	"files in a circle: lib/sample/call-a.c, lib/sample/call-b.c" \
	"lib/sample/call-a.c -> lib/sample/call-b.c" "lib/sample/call-b.c -> lib/sample/call-a.c"
rm -r "$t/build" "$t"/lib/sample/call-[ab].c

# A lower folder including a higher one's header: against the table, a
# circle of folders, and no interface of sample/.
printf '#include "sample/sample-internal.h"\nint up(void) { return 0; }\n' >"$t/lib/core/up.c"
layers
refused "core/ including sample/'s header" \
	"lib/core/ uses lib/sample/, which lib/README.md does not allow" \
	"lib/sample/sample-internal.h is included from outside lib/sample/"
# sample/ reaches core/ through the folders it uses: they are all in it
grep -Eq '^layers: folders in a circle: (.*, )?core, (.*, )?sample(,|$)' <<<"$out" ||
	fail "the circle of folders through core/ and sample/ is not named: $out"
rm "$t/lib/core/up.c"

# Folders in a circle, each use allowed by the table: location may use
# symbols (location.c calls it: the build's objects say so), and here
# symbols may use location too.
cp "$t/lib/README.md" "$E2E_TMP/README.lib"
sed -i 's/^\(| `symbols\/` |.*| \)core, sys |$/\1location, core, sys |/' "$t/lib/README.md"
grep -q '^| `symbols/` |.*| location, core, sys |$' "$t/lib/README.md" ||
	fail "could not let symbols/ use location/ in the copy's lib/README.md"
for h in "$t"/lib/symbols/*.h; do
	sed -i 's|^\( \* Room: lib/symbols/.*may use \)core, sys\.|\1location, core, sys.|' "$h"
done
printf '#include "location/location-internal.h"\nint loop(void) { return 0; }\n' \
	>"$t/lib/symbols/loop.c"
layers --build "$BUILD"
refused "symbols/ and location/ using each other" "folders in a circle: location, symbols"
grep -q "does not allow" <<<"$out" && fail "an allowed use was refused: $out"
rm "$t/lib/symbols/loop.c"
cp "$E2E_TMP/README.lib" "$t/lib/README.md"
cp "$SRCDIR"/lib/symbols/*.h "$t/lib/symbols/"

# A header that is no interface of its folder, included from a folder
# that may use that folder.
printf '#include "events/spec-tokens-internal.h"\nint tok(void) { return 0; }\n' \
	>"$t/lib/count/tok.c"
layers
refused "count/ including events/'s spec-tokens-internal.h" \
	"lib/events/spec-tokens-internal.h is included from outside lib/events/ (lib/count/tok.c), and lib/README.md does not list it as lib/events/'s interface"
rm "$t/lib/count/tok.c"

# A header without its folder's room, and one whose room says otherwise.
printf '/* SPDX-License-Identifier: MIT */\n/* Ownership: none. */\nint roomless(void);\n' \
	>"$t/lib/core/roomless.h"
header lib/core/wrong-room.h "Room: lib/core/ owns nothing; may use events, sys." 'int wrong(void);'
layers
refused "core/ headers without their room" \
	"lib/core/roomless.h does not say near its top what its folder owns and may use" \
	"lib/core/wrong-room.h: its Room line says lib/core/ may use events, sys; lib/README.md says sys"
rm "$t/lib/core/roomless.h" "$t/lib/core/wrong-room.h"
header lib/core/right-room.h "$core_room" 'int right(void);'
layers
[ "$rc" = 0 ] || fail "a header with its room was refused: $out"
rm "$t/lib/core/right-room.h"

# The tool's folders, while tools/hpmon/README.md has its table: a lower
# folder including a higher one's header. Without the README, the same is
# not checked.
readme=$t/tools/hpmon/README.md
if [ -f "$readme" ] && grep -q '^| `[a-z-]*/` |.*|.*|$' "$readme"; then
	printf '| `zhigh/` | made by %s | zlow |\n| `zlow/` | made by %s | (libc) |\n' \
		"$E2E_NAME" "$E2E_NAME" >>"$readme"
	printf '| `zhigh/` | `zhigh.h` |\n| `zlow/` | `zlow.h` |\n' >>"$readme"
	mkdir -p "$t/tools/hpmon/zhigh" "$t/tools/hpmon/zlow"
	header tools/hpmon/zhigh/zhigh.h \
		"Room: tools/hpmon/zhigh/ owns a test; may use zlow." 'int zhigh(void);'
	header tools/hpmon/zlow/zlow.h \
		"Room: tools/hpmon/zlow/ owns a test; may use libc only." 'int zlow(void);'
	printf '#include "zlow/zlow.h"\nint zhigh(void) { return zlow(); }\n' \
		>"$t/tools/hpmon/zhigh/zhigh.c"
	printf '#include "zlow/zlow.h"\nint zlow(void) { return 0; }\n' >"$t/tools/hpmon/zlow/zlow.c"
	layers
	[ "$rc" = 0 ] || fail "the tool's folders used one way were refused: $out"
	printf '#include "zhigh/zhigh.h"\nint zup(void) { return zhigh(); }\n' \
		>"$t/tools/hpmon/zlow/zup.c"
	layers
	refused "the tool's zlow/ including zhigh/'s header" \
		"tools/hpmon/zlow/ uses tools/hpmon/zhigh/, which tools/hpmon/README.md does not allow" \
		"folders of tools/hpmon/ in a circle: zhigh, zlow"
	rm "$readme"
	layers
	[ "$rc" = 0 ] || fail "without tools/hpmon/README.md the tool's folders were checked: $out"
	note "without tools/hpmon/README.md the tool's folders are not checked"
else
	note "tools/hpmon/README.md has no table of folders yet: the tool's folders are not checked"
fi
