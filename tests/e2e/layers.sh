# SPDX-License-Identifier: MIT
# scripts/layers: the tree's dependencies run one way (lib/README.md), and
# the check itself finds a circle of files, a folder used against the
# table, and the tool including lib/ internals, in small trees made here.
. "$(dirname "$0")/lib.sh"

LAYERS="$SRCDIR/scripts/layers"
BUILD=$(dirname "$HPMON")

# The tree as built: includes and the objects' symbols.
out=$(python3 "$LAYERS" --src "$SRCDIR" --build "$BUILD" 2>&1) ||
	fail "the tree's dependencies are not one way:
$out"
note "$out"
grep -Eq '^layers: [0-9]+ files, [1-9][0-9]* objects' <<<"$out" ||
	fail "no objects read from $BUILD: $out"

# A small tree: core <- events, with README allowing events -> core.
t=$E2E_TMP/tree
mkdir -p "$t/lib/core" "$t/lib/events" "$t/tools/x" "$t/build/lib/CMakeFiles/l.dir"
cat >"$t/lib/README.md" <<'MD'
| folder | stage | may use |
| --- | --- | --- |
| `events/` | parsing | core |
| `core/` | basics | (libc) |
MD
printf '/* Ownership: none. Room: lib/events/ owns parsing; may use core. */\n#include "core/ctx-internal.h"\nint ev(void);\n' >"$t/lib/events/parse-internal.h"
printf '#include "events/parse-internal.h"\nint ev(void) { return ctx(); }\n' >"$t/lib/events/parse.c"
printf '/* Ownership: none. Room: lib/core/ owns basics; may use libc only. */\nint ctx(void);\n' >"$t/lib/core/ctx-internal.h"
printf '#include "core/ctx-internal.h"\nint ctx(void) { return 1; }\n' >"$t/lib/core/ctx.c"
printf 'int main(void) { return 0; }\n' >"$t/tools/x/main.c"
python3 "$LAYERS" --src "$t" >/dev/null || fail "a one-way tree was refused"

# core calling events (an object's symbol, no include) is against the table
# and a circle of files and of folders.
mkdir -p "$t/build/lib/CMakeFiles/l.dir/core" "$t/build/lib/CMakeFiles/l.dir/events"
printf 'int ev(void);\nint ctx(void) { return ev(); }\n' >"$t/lib/core/ctx.c"
gcc -c -o "$t/build/lib/CMakeFiles/l.dir/core/ctx.c.o" "$t/lib/core/ctx.c"
gcc -c -I"$t/lib" -o "$t/build/lib/CMakeFiles/l.dir/events/parse.c.o" "$t/lib/events/parse.c"
out=$(python3 "$LAYERS" --src "$t" --build "$t/build" 2>&1) && fail "a circle passed: $out"
grep -q 'files in a circle: lib/core/ctx.c, lib/events/parse.c' <<<"$out" ||
	fail "the circle of files is not named: $out"
grep -q 'lib/core/ uses lib/events/, which lib/README.md does not allow' <<<"$out" ||
	fail "the folder rule is not named: $out"
grep -q 'folders in a circle: core, events' <<<"$out" || fail "the circle of folders is not named: $out"

# The tool including a library header.
printf 'int ctx(void) { return 1; }\n' >"$t/lib/core/ctx.c"
rm -rf "$t/build"
printf '#include "core/ctx-internal.h"\nint main(void) { return 0; }\n' >"$t/tools/x/main.c"
out=$(python3 "$LAYERS" --src "$t" 2>&1) && fail "the tool's include of lib/ passed: $out"
grep -q 'tools/x/main.c includes lib/core/ctx-internal.h' <<<"$out" || fail "not named: $out"

# A header without its ownership rule, a long file without a reason.
printf 'int main(void) { return 0; }\n' >"$t/tools/x/main.c"
printf 'int other(void);\n' >"$t/lib/core/other.h"
for i in $(seq 801); do echo "int v$i;"; done >"$t/lib/core/long.c"
out=$(python3 "$LAYERS" --src "$t" 2>&1) && fail "the shape rules passed: $out"
grep -q 'lib/core/other.h does not state its ownership rule' <<<"$out" || fail "not named: $out"
grep -q 'lib/core/long.c has 801 lines' <<<"$out" || fail "not named: $out"
{ echo "/* This table reads better whole. */"; head -n 800 "$t/lib/core/long.c"; } >"$t/lib/core/l2.c"
mv "$t/lib/core/l2.c" "$t/lib/core/long.c"
printf '/* Ownership: none. Room: lib/core/ owns basics; may use libc only. */\nint other(void);\n' >"$t/lib/core/other.h"
python3 "$LAYERS" --src "$t" >/dev/null || fail "a stated reason and ownership were refused"
note "a circle, a folder against the table, the tool's include of lib/, a header without ownership and a long file without a reason are each refused"
