#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A setuid or setgid copy of hpmon refuses to run before it reads anything
# (here: --metrics-file /etc/shadow, which only root and group shadow may
# read); a copy with file capabilities runs, but ignores the environment's
# sysfs/procfs/tracefs roots, which its caller could have planted.
. "$(dirname "$0")/lib.sh"

: "${TESTDATA:?TESTDATA must name tests/data}"
[ "$(id -u)" -eq 0 ] || skip "needs root to make set-id copies and become nobody"
command -v setpriv >/dev/null || fail "setpriv (util-linux) is needed"

dir=$E2E_TMP/bin
mkdir -m 755 "$dir"
chmod 755 "$E2E_TMP"
case ",$(findmnt -n -o OPTIONS -T "$dir")," in
*,nosuid,*) skip "$dir is on a nosuid mount: set-id bits would have no effect" ;;
esac
[ -r /etc/shadow ] && [ "$(stat -c %U /etc/shadow)" = root ] ||
	skip "/etc/shadow is missing or not root's"

as_nobody() {
	HPM_STATUS=0
	(cd "$dir" && timeout -k 5 "$E2E_TIMEOUT" setpriv --reuid=nobody --regid=nogroup \
		--clear-groups -- "$@") >"$E2E_TMP/out" 2>"$E2E_TMP/err" </dev/null || HPM_STATUS=$?
}
# never_shows WHAT: neither output holds a line of /etc/shadow.
never_shows() {
	if grep -q -e '^root:' -e ':\$[0-9a-z]*\$' "$E2E_TMP/out" "$E2E_TMP/err"; then
		fail "$1: /etc/shadow's contents were printed"
	fi
}

# Control: nobody cannot read /etc/shadow through a plain copy.
cp "$HPMON" "$dir/plain"
chmod 755 "$dir/plain"
as_nobody "$dir/plain" stat --metrics-file /etc/shadow -e task-clock -- true
[ "$HPM_STATUS" -ne 0 ] || fail "plain copy as nobody read /etc/shadow"
never_shows "plain copy"

# Advice that offers CAP_PERFMON says what it gives away.
as_nobody "$dir/plain" stat -e task-clock -p 1 -- true
[ "$HPM_STATUS" -ne 0 ] || fail "nobody counted pid 1"
expect_grep "CAP_PERFMON advice warns" \
	"CAP_PERFMON \\(it lets all who run hpmon read other users' memory: give it to one group" "$E2E_TMP/err"

# setuid root: refused, whatever the arguments, before reading any file.
cp "$HPMON" "$dir/suid"
chown root:root "$dir/suid"
chmod 4755 "$dir/suid"
as_nobody "$dir/suid" stat --metrics-file /etc/shadow -e task-clock -- cat /etc/shadow
expect_eq "exit status of a setuid hpmon" 1 "$HPM_STATUS"
expect_grep "setuid refusal names the cause" \
	"^hpmon: refusing to run setuid: real uid $(id -u nobody), effective uid 0" "$E2E_TMP/err"
expect_grep "setuid refusal names the fix" 'chmod u-s,g-s' "$E2E_TMP/err"
never_shows "setuid copy"
[ ! -s "$E2E_TMP/out" ] || fail "setuid copy printed on stdout: $(head -c 300 "$E2E_TMP/out")"
as_nobody "$dir/suid" --version
expect_eq "exit status of a setuid hpmon --version" 1 "$HPM_STATUS"
[ ! -s "$E2E_TMP/out" ] || fail "setuid copy ran --version"
# Root running the same file has equal ids: it runs.
hpm_ok_bin() { "$@" >"$E2E_TMP/out" 2>"$E2E_TMP/err" </dev/null || fail "$* failed: $(cat "$E2E_TMP/err")"; }
hpm_ok_bin "$dir/suid" --version
expect_grep "root runs its own setuid-root file" '^hpmon ' "$E2E_TMP/out"

# setgid shadow (the group that may read /etc/shadow): refused too.
if getent group shadow >/dev/null; then
	cp "$HPMON" "$dir/sgid"
	chown root:shadow "$dir/sgid"
	chmod 2755 "$dir/sgid"
	as_nobody "$dir/sgid" stat --metrics-file /etc/shadow -e task-clock -- true
	expect_eq "exit status of a setgid hpmon" 1 "$HPM_STATUS"
	expect_grep "setgid refusal names the cause" \
		"^hpmon: refusing to run setgid: real gid $(id -g nobody), effective gid $(getent group shadow | cut -d: -f3)" \
		"$E2E_TMP/err"
	never_shows "setgid copy"
else
	note "no group shadow: setgid case skipped"
fi

# File capabilities: the supported way to let users measure. The copy
# runs, and a planted procfs tree is ignored (and said to be).
command -v setcap >/dev/null || skip "setcap (libcap) is needed for the file-capability case"
planted=$E2E_TMP/planted
cp -r "$TESTDATA/procfs-x86-vm" "$planted"
echo "planted-0.0" >"$planted/sys/kernel/osrelease"
chmod -R a+rX "$planted"
# Control: without privileges the tree is used.
as_nobody env HPMON_PROCFS_ROOT="$planted" "$dir/plain" diag --json --no-probe
expect_eq "plain copy: status" 0 "$HPM_STATUS"
expect_eq "plain copy reads the planted tree" planted-0.0 \
	"$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["kernel"]["release"])' "$E2E_TMP/out")"
cp "$HPMON" "$dir/caps"
chmod 755 "$dir/caps"
setcap cap_perfmon+ep "$dir/caps" 2>/dev/null || skip "setcap failed (filesystem without security xattrs?)"
as_nobody env HPMON_PROCFS_ROOT="$planted" HPMON_SYSFS_ROOT="$TESTDATA/sysfs-intel-skl" \
	"$dir/caps" diag --json --no-probe
expect_eq "file-capability copy: status" 0 "$HPM_STATUS"
got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["kernel"]["release"], d["caller"]["cap_perfmon"])' "$E2E_TMP/out")
expect_eq "file-capability copy ignores the planted tree (release, CAP_PERFMON)" "$(uname -r) True" "$got"
expect_grep "says HPMON_PROCFS_ROOT is ignored" '^hpmon: HPMON_PROCFS_ROOT is ignored: ' "$E2E_TMP/err"
expect_grep "says HPMON_SYSFS_ROOT is ignored" '^hpmon: HPMON_SYSFS_ROOT is ignored: ' "$E2E_TMP/err"
echo "PASS: $E2E_NAME"
