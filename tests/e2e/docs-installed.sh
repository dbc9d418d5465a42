#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The installed documents (cmake --install into a staging root, as
# install-link.sh and man-pages.sh do) hold everything they link to: every
# relative link or picture of an installed docs/*.md, such as
# hpmon-diff.md's diff-html.png, is installed beside it. Before, the
# pictures were not installed and the links led nowhere.
. "$(dirname "$0")/lib.sh"

command -v cmake >/dev/null || skip "no cmake to install with"
build=$(cd "$(dirname "$HPMON")" && pwd)
root=$E2E_TMP/root
DESTDIR=$root cmake --install "$build" --prefix /usr >"$E2E_TMP/install.log" 2>&1 ||
	fail "cmake --install failed: $(tail -5 "$E2E_TMP/install.log")"
docdir=$root/usr/share/doc/hpmon
[ -f "$docdir/hpmon-diff.md" ] || fail "no hpmon-diff.md installed in $docdir: $(ls "$root/usr/share/doc" 2>&1)"

python3 - "$docdir" <<'PY' || fail "installed documents link to files that are not installed (above)"
import os, re, sys
docdir = sys.argv[1]
link = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)")
bad, seen = [], 0
for name in sorted(os.listdir(docdir)):
    if not name.endswith(".md"):
        continue
    for target in link.findall(open(os.path.join(docdir, name), encoding="utf-8").read()):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue  # a URL or an anchor of the page
        seen += 1
        if not os.path.exists(os.path.join(docdir, target.split("#")[0])):
            bad.append("%s -> %s" % (name, target))
for b in bad:
    print("FAIL: docs-installed: %s is not installed" % b, file=sys.stderr)
if not seen:
    print("FAIL: docs-installed: no relative link found: the check reads nothing", file=sys.stderr)
sys.exit(1 if bad or not seen else 0)
PY
echo "PASS: $E2E_NAME"
