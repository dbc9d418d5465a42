#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# data/vendor/ is what scripts/vendor-tables makes of Linux 6.1 perf's
# tables, byte for byte, and the same on every run
# (docs/vendor-tables.md).
source "$(dirname "$0")/lib.sh"

# an unpacked tree, or Debian's tarball itself (scripts/deps installs
# linux-source-6.1: the converter reads the tables out of it)
src=
for d in "${LINUX_SOURCE_61:-}" /usr/src/linux-source-6.1 /usr/src/linux-source-6.1.tar.xz; do
	if [ -n "$d" ] && { [ -f "$d/tools/perf/pmu-events/arch/x86/mapfile.csv" ] ||
		{ [ -f "$d" ] && [[ $d == *.tar.xz ]]; }; }; then
		src=$d
		break
	fi
done
[ -n "$src" ] || skip "no Linux 6.1 source: apt-get install linux-source-6.1 (scripts/deps host does), or set LINUX_SOURCE_61 to an unpacked tree"
command -v python3 >/dev/null || skip "python3 is not installed"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for run in 1 2; do
	python3 "$SRCDIR/scripts/vendor-tables" --out "$tmp/$run" "$src" >/dev/null ||
		fail "scripts/vendor-tables failed on $src"
done
diff -r "$tmp/1" "$tmp/2" >/dev/null || fail "two runs of scripts/vendor-tables differ"
# the committed tables, except README.md, which is written by hand
out=$(diff -r -x README.md "$SRCDIR/data/vendor" "$tmp/1" | head -20)
[ -z "$out" ] || fail "data/vendor differs from what scripts/vendor-tables makes of $src:
$out"
for f in models.txt x86/skylakex/events.txt x86/skylakex/metrics.txt arm64/neoverse-n2/events.txt; do
	[ -s "$tmp/1/$f" ] || fail "no $f"
done
echo "ok: data/vendor is scripts/vendor-tables' output for $src"
