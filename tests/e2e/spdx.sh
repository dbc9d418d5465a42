# SPDX-License-Identifier: MIT
# hpmon is MIT (LICENSE): every source, script and build file says so in
# its first 5 lines, "SPDX-License-Identifier: MIT" in its own comment
# syntax (after a shebang or <!DOCTYPE html>). The files are those git
# tracks, or, in a source tree without .git, those found in it (the
# build directories and what .gitignore leaves out excepted).
#
# Exempt, each for a reason:
#   LICENSE         the licence text itself
#   *.md            Markdown documents: prose, not code (docs/hpmon*.md
#                   are also the sources of the man pages)
#   *.json          JSON has no comments (examples/grafana-hpmon.json)
#   *.png           pictures (docs/*.png), not text
#   tests/data/*    recorded sysfs, procfs and tracefs trees, whose files
#                   hold one value the code reads whole, and golden
#                   outputs the tests compare byte for byte
#   tests/parity/machines/*  the parity harness's sysfs and procfs trees,
#                   bound over the real files: one value a file, as above
#   fuzz/corpus/*   the fuzzers' seed inputs (many binary): a line there
#                   would be part of every input
# A file under another licence is not exempted by category: it needs
# its own case here, with the reason:
#   data/vendor/*.txt  the vendors' tables (data/vendor/README.md): Intel's
#                   BSD-3-Clause, AMD's, Arm's and the mapfiles GPL-2.0-only
#                   as the kernel ships them; each says which in its first
#                   line, and that is checked instead
. "$(dirname "$0")/lib.sh"

: "${SRCDIR:?SRCDIR must name the source tree}"
cd "$SRCDIR"

exempt() {
	case $1 in
	LICENSE | *.md | *.json | *.png) return 0 ;;
	tests/data/* | tests/parity/machines/* | fuzz/corpus/*) return 0 ;;
	esac
	return 1
}

list="$E2E_TMP/files"
if [ -e .git ] && command -v git >/dev/null &&
	git ls-files -z >"$list" 2>"$E2E_TMP/git.err"; then
	how="tracked by git"
else
	find . \( -name .git -o -path ./build -o -path './build-*' -o -path ./Testing \) -prune -o \
		-type f ! -name '*.o' ! -name '*.deb' -printf '%P\0' >"$list"
	how="found (no git)"
fi

checked=0 missing=() vendor=0
while IFS= read -r -d '' f; do
	exempt "$f" && continue
	case $f in
	data/vendor/*.txt)
		vendor=$((vendor + 1))
		head -n 1 -- "$f" | grep -Eqx '# SPDX-License-Identifier: (BSD-3-Clause|GPL-2.0-only)' ||
			missing+=("$f (a vendor's table: its own licence's SPDX line first)")
		continue
		;;
	esac
	[ -f "$f" ] && [ ! -L "$f" ] || continue # deleted in the work tree, or a link
	checked=$((checked + 1))
	head -n 5 -- "$f" | grep -q 'SPDX-License-Identifier: MIT' || missing+=("$f")
done <"$list"

[ "$checked" -gt 100 ] || fail "only $checked files $how in $SRCDIR: not the source tree?"
[ ${#missing[@]} -eq 0 ] || fail "${#missing[@]} files without 'SPDX-License-Identifier: MIT' in their first 5 lines (add it in the file's comment syntax, or exempt its category in tests/e2e/spdx.sh with the reason):
$(printf '  %s\n' "${missing[@]}")"

[ -f LICENSE ] || fail "no LICENSE at the root of $SRCDIR"
expect_eq "LICENSE's first line" "MIT License" "$(head -n 1 LICENSE)"
expect_grep "LICENSE's copyright line" '^Copyright \(c\) [0-9]{4} the hpmon authors$' LICENSE
note "$checked files $how carry the SPDX line; LICENSE is MIT; $vendor vendor tables their own"
