#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The man pages (docs/CMakeLists.txt, cmake/man-page.cmake): one page per
# docs/hpmon.md and docs/hpmon-*.md; each renders without a warning of
# groff or man, has NAME, SYNOPSIS and DESCRIPTION, and a NAME line that
# man's indexer reads as "page - what"; every hpmon page a page refers to
# exists, and so does every installed document it names; every command of
# `hpmon --help` has a page, and `hpmon help CMD` prints the text man
# shows of it, from the build tree and once installed (through man, and
# without man, and compressed). `make install` puts the pages in
# share/man/man1, where `MANPATH=... man hpmon-stat` finds them.
. "$(dirname "$0")/lib.sh"

BUILD=$(cd "$(dirname "$HPMON")" && pwd)
MANDIR=$BUILD/man
DOCS=$SRCDIR/docs
[ -d "$MANDIR" ] || skip "no man pages in $MANDIR: hpmon was configured with -DHPM_MAN=OFF"
command -v groff >/dev/null || fail "groff is needed (scripts/deps host installs it)"
have_man=0
command -v man >/dev/null && have_man=1

# -- a page for every document (a page left from a document since removed
# is not installed: the install check below counts them)
want=$(cd "$DOCS" && ls hpmon.md hpmon-*.md | sed 's/\.md$//' | sort)
for name in $want; do
	[ -f "$MANDIR/$name.1" ] && [ -f "$MANDIR/$name.txt" ] || fail "docs/$name.md has no page $MANDIR/$name.1"
done
[ "$(echo "$want" | wc -l)" -ge 8 ] || fail "only $(echo $want) documents"
note "$(echo "$want" | wc -l) pages: $(echo $want)"

docdir=$(sed -n 's/^docdir //p' "$MANDIR/settings.txt")
[ -n "$docdir" ] || fail "$MANDIR/settings.txt names no docdir"

for name in $want; do
	page=$MANDIR/$name.1
	# renders without warnings, with tbl as man runs it (-t)
	groff -t -ww -mandoc -Tutf8 -z "$page" 2>"$E2E_TMP/groff" ||
		fail "groff fails on $name.1: $(cat "$E2E_TMP/groff")"
	[ ! -s "$E2E_TMP/groff" ] || fail "groff warns about $name.1: $(cat "$E2E_TMP/groff")"
	if [ $have_man = 1 ]; then
		MANWIDTH=80 man --warnings=w -l "$page" >"$E2E_TMP/man.txt" 2>"$E2E_TMP/manerr" ||
			fail "man -l $name.1 fails: $(cat "$E2E_TMP/manerr")"
		[ ! -s "$E2E_TMP/manerr" ] || fail "man warns about $name.1: $(cat "$E2E_TMP/manerr")"
		# the text built in for hpmon help is what man shows
		cmp -s "$E2E_TMP/man.txt" "$MANDIR/$name.txt" ||
			fail "$name.txt differs from what man shows of $name.1: $(diff "$E2E_TMP/man.txt" "$MANDIR/$name.txt" | head -5)"
	fi
	# the page's name and section, and the sections every page has
	grep -qx "\.TH \"$name\" \"1\" .*" "$page" || fail "$name.1: no .TH \"$name\" \"1\": $(grep '^\.TH' "$page")"
	for sec in NAME SYNOPSIS DESCRIPTION "SEE ALSO"; do
		grep -qx "\.SH $sec" "$page" || fail "$name.1 has no $sec section"
	done
	first=$(grep -n '^\.SH' "$page" | head -1 | cut -d: -f2)
	[ "$first" = ".SH NAME" ] || fail "$name.1 starts with '$first', not NAME"
	# NAME as man's indexer (lexgrog, behind whatis and apropos) reads it
	if command -v lexgrog >/dev/null; then
		lexgrog "$page" >"$E2E_TMP/lex" 2>&1 || fail "lexgrog cannot read the NAME of $name.1: $(cat "$E2E_TMP/lex")"
		grep -q ": \"$name - [a-z]" "$E2E_TMP/lex" ||
			fail "NAME of $name.1 reads as $(cat "$E2E_TMP/lex"), not \"$name - ...\""
	fi
	# every hpmon page named anywhere (SEE ALSO included) exists
	refs=$(grep -o '\\fB[A-Za-z0-9_.\\-]*\\fR([0-9])' "$page" | sed 's/\\fB//; s/\\fR//; s/\\-/-/g' | sort -u)
	seealso=$(sed -n '/^\.SH SEE ALSO/,/^\.SH/p' "$page" | grep -o '\\fB[A-Za-z0-9_.\\-]*\\fR([0-9])' |
		sed 's/\\fB//; s/\\fR//; s/\\-/-/g' | sort -u)
	[ -n "$seealso" ] || fail "the SEE ALSO of $name.1 names no page"
	for ref in $refs; do
		ref_name=${ref%(*}
		ref_sec=${ref#*(}
		ref_sec=${ref_sec%)}
		case $ref_name in
		hpmon | hpmon-*)
			[ "$ref_sec" = 1 ] && [ -f "$MANDIR/$ref_name.1" ] ||
				fail "$name.1 names $ref, which is not a page (no docs/$ref_name.md)"
			;;
		*)
			# another project's page: checked where this machine has it
			if [ $have_man = 1 ] && ! man -w "$ref_sec" "$ref_name" >/dev/null 2>&1; then
				note "$name.1 names $ref, which this machine does not have"
			fi
			;;
		esac
	done
	# the documents it points at are installed where it says
	for doc in $(grep -o "$docdir/[A-Za-z0-9_.-]*\.md" "$MANDIR/$name.txt" | sort -u); do
		[ -f "$DOCS/$(basename "$doc")" ] || fail "$name.1 names $doc, but there is no docs/$(basename "$doc")"
	done
done

# -- every command has a page, and hpmon help shows it
hpm --help
[ "$HPM_STATUS" = 0 ] || fail "hpmon --help exited $HPM_STATUS"
cmds=$(sed -n '/^Commands:/,/^$/{/^  [a-z]/s/^  \([a-z]*\).*/\1/p}' "$E2E_TMP/out")
[ "$(echo "$cmds" | wc -w)" -ge 7 ] || fail "hpmon --help lists only: $cmds"
for cmd in $cmds; do
	[ -f "$MANDIR/hpmon-$cmd.1" ] || fail "command $cmd has no man page (add docs/hpmon-$cmd.md)"
	hpm help "$cmd"
	[ "$HPM_STATUS" = 0 ] || fail "hpmon help $cmd exited $HPM_STATUS: $(cat "$E2E_TMP/err")"
	cmp -s "$E2E_TMP/out" "$MANDIR/hpmon-$cmd.txt" ||
		fail "hpmon help $cmd is not the page's text: $(diff "$E2E_TMP/out" "$MANDIR/hpmon-$cmd.txt" | head -5)"
	# --help stays the short usage, as perf's
	hpm "$cmd" --help
	head -1 "$E2E_TMP/out" | grep -q "^usage: hpmon $cmd" ||
		fail "hpmon $cmd --help starts with '$(head -1 "$E2E_TMP/out")'"
done
hpm help stat
grep -q '^       hpmon-stat - count performance events' "$E2E_TMP/out" ||
	fail "hpmon help stat has no NAME line: $(head -5 "$E2E_TMP/out")"
grep -q '^SEE ALSO' "$E2E_TMP/out" || fail "hpmon help stat has no SEE ALSO"
hpm help no-such-command
[ "$HPM_STATUS" = 129 ] || fail "hpmon help no-such-command exited $HPM_STATUS, not 129"
grep -q "'no-such-command' is not an hpmon command" "$E2E_TMP/err" ||
	fail "hpmon help no-such-command says: $(cat "$E2E_TMP/err")"

# -- installed: share/man/man1 under the prefix, found by man; hpmon help
# shows the installed page through man, and its own text without man
command -v cmake >/dev/null || skip "no cmake to install with"
root=$E2E_TMP/root
DESTDIR=$root cmake --install "$BUILD" --prefix /usr >"$E2E_TMP/install" 2>&1 ||
	fail "cmake --install failed: $(tail -5 "$E2E_TMP/install")"
for name in $want; do
	[ -f "$root/usr/share/man/man1/$name.1" ] || fail "$name.1 not installed in share/man/man1: $(ls -R "$root/usr/share" | head)"
	cmp -s "$root/usr/share/man/man1/$name.1" "$MANDIR/$name.1" || fail "installed $name.1 differs from the built one"
done
[ "$(ls "$root/usr/share/man/man1" | wc -l)" = "$(echo "$want" | wc -l)" ] ||
	fail "share/man/man1 holds $(ls "$root/usr/share/man/man1"), not the $(echo $want) pages"
inst=$root/usr/bin/hpmon
[ -x "$inst" ] || fail "hpmon not installed in bin"
if [ $have_man = 1 ]; then
	found=$(MANPATH=$root/usr/share/man man -w hpmon-stat) || fail "MANPATH=$root/usr/share/man man -w hpmon-stat finds nothing"
	[ "$found" = "$root/usr/share/man/man1/hpmon-stat.1" ] || fail "man -w hpmon-stat finds $found"
	MANPATH=$root/usr/share/man MANWIDTH=80 man hpmon-stat >"$E2E_TMP/man-stat" 2>"$E2E_TMP/manerr" ||
		fail "MANPATH=... man hpmon-stat fails: $(cat "$E2E_TMP/manerr")"
	cmp -s "$E2E_TMP/man-stat" "$MANDIR/hpmon-stat.txt" || fail "man hpmon-stat is not the page"
	# installed hpmon help: man runs on the page beside it
	MANWIDTH=80 timeout 30 "$inst" help record >"$E2E_TMP/out" 2>"$E2E_TMP/err" ||
		fail "installed hpmon help record failed: $(cat "$E2E_TMP/err")"
	cmp -s "$E2E_TMP/out" "$MANDIR/hpmon-record.txt" ||
		fail "installed hpmon help record is not the page: $(diff "$E2E_TMP/out" "$MANDIR/hpmon-record.txt" | head -5)"
	# proof that it was man: a width only man applies
	MANWIDTH=100 timeout 30 "$inst" help record >"$E2E_TMP/out" 2>"$E2E_TMP/err" ||
		fail "installed hpmon help record (MANWIDTH=100) failed: $(cat "$E2E_TMP/err")"
	head -1 "$E2E_TMP/out" | awk '{ exit !(length($0) > 80) }' ||
		fail "installed hpmon help did not run man (MANWIDTH=100 ignored): $(head -1 "$E2E_TMP/out")"
	# compressed, as distributions install pages: man shows it all the same
	gzip -n "$root/usr/share/man/man1/hpmon-annotate.1"
	MANWIDTH=100 timeout 30 "$inst" help annotate >"$E2E_TMP/out" 2>"$E2E_TMP/err" ||
		fail "installed hpmon help annotate (.1.gz) failed: $(cat "$E2E_TMP/err")"
	head -1 "$E2E_TMP/out" | awk '{ exit !(length($0) > 80) }' ||
		fail "installed hpmon help did not run man on hpmon-annotate.1.gz: $(head -1 "$E2E_TMP/out")"
	grep -q '^       hpmon-annotate - ' "$E2E_TMP/out" || fail "man on hpmon-annotate.1.gz shows: $(head -5 "$E2E_TMP/out")"
fi
# no man on the PATH: the text built in
timeout 30 env PATH=/nonexistent "$inst" help diff >"$E2E_TMP/out" 2>"$E2E_TMP/err" ||
	fail "installed hpmon help diff without man failed: $(cat "$E2E_TMP/err")"
cmp -s "$E2E_TMP/out" "$MANDIR/hpmon-diff.txt" || fail "hpmon help diff without man is not the page's text"
note "every page renders cleanly, and help shows it, built and installed"
