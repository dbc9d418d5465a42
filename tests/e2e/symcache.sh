# SPDX-License-Identifier: MIT
# The objects' symbol cache ($XDG_CACHE_HOME/hpmon/symbols/BUILD-ID):
# a report shows the same bytes cold, warm, after mixing options (a
# cache filled with lines and inlines must not show them to a report
# that did not ask; one filled without them must not answer one that
# does), demangled and not, after the object is touched, and after a
# debug file appears in the debug directory (which gives names and
# inlines a stripped object lacked) as a --no-cache report of the same
# profile. A warm report opens neither the objects nor their debug
# files; --no-cache reads and writes no cache.
. "$(dirname "$0")/lib.sh"

export XDG_CACHE_HOME=$E2E_TMP/cache
symdir=$XDG_CACHE_HOME/hpmon/symbols
dbg=$E2E_TMP/debug   # --debug-dir of every report: empty until the last part
mkdir -p "$dbg"

# copies of the workloads: this test touches them
cp "$WORKLOADS/inlined" "$E2E_TMP/inl"
progs=(inl)
if [ -x "$WORKLOADS/cxxsyms" ]; then
	cp "$WORKLOADS/cxxsyms" "$E2E_TMP/cxx"
	progs+=(cxx)
else
	note "no C++ compiler: the C++ workload was not built, C only"
fi
# user time only (:u): the kernel's symbols are another cache's
hpm_ok record -q -g -e cpu-clock:u -c 200003 -o "$E2E_TMP/inl.prof" -- "$E2E_TMP/inl" 60000000
[ -x "$E2E_TMP/cxx" ] &&
	hpm_ok record -q -g -e cpu-clock:u -c 200003 -o "$E2E_TMP/cxx.prof" -- "$E2E_TMP/cxx" 40000000

variants=("--inline --lines" "" "--lines" "--inline" "--no-demangle" "--no-demangle --inline --lines"
	  "-g --inline" "--sort sym,dso,line --csv" "--inline --json")

# rep NAME PROG ARGS...: report PROG's profile into $E2E_TMP/NAME
rep() {
	local name=$1 prog=$2
	shift 2
	hpm_ok report -i "$E2E_TMP/$prog.prof" --debug-dir "$dbg" "$@"
	cp "$E2E_TMP/out" "$E2E_TMP/$name"
}
# same_as_ref PROG VARIANT WHEN: the report equals --no-cache's
same_as_ref() {
	local prog=$1 v=$2 when=$3 i=$4
	# shellcheck disable=SC2086 # a variant is several words
	rep got "$prog" $v
	cmp -s "$E2E_TMP/got" "$E2E_TMP/ref.$prog.$i" ||
		fail "$prog, '$v', $when: not as --no-cache:
$(diff "$E2E_TMP/ref.$prog.$i" "$E2E_TMP/got" | head -20)"
}

for p in "${progs[@]}"; do
	rm -rf "$XDG_CACHE_HOME"
	for i in "${!variants[@]}"; do
		# shellcheck disable=SC2086
		rep "ref.$p.$i" "$p" ${variants[$i]} --no-cache
	done
	[ ! -e "$symdir" ] || [ -z "$(ls -A "$symdir")" ] || fail "--no-cache wrote $(ls "$symdir")"
	grep -q "outer_work\|Spinner" "$E2E_TMP/ref.$p.0" || fail "$p: the workload's function is not named"
	# cold, then each variant after those before it filled the cache
	for i in "${!variants[@]}"; do
		same_as_ref "$p" "${variants[$i]}" "after the variants before it" "$i"
	done
	# warm: every variant again, in the other order
	for ((i = ${#variants[@]} - 1; i >= 0; i--)); do
		same_as_ref "$p" "${variants[$i]}" "warm" "$i"
	done
	# one cache per object, private
	n=$(find "$symdir" -type f | wc -l)
	[ "$n" -ge 2 ] || fail "$p: $n cache files (the program and libc at least)"
	expect_eq "$p: cache files are the user's only" 600 \
		"$(find "$symdir" -type f -printf '%m\n' | sort -u)"
	# a warm report opens neither the program nor libc, nor a debug file
	if command -v strace >/dev/null; then
		# (LeakSanitizer cannot run under ptrace: off for this run)
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
			strace -f -qq -e trace=open,openat -o "$E2E_TMP/trace" "$HPMON" report \
			-i "$E2E_TMP/$p.prof" --debug-dir "$dbg" --inline --lines >/dev/null 2>&1 ||
			fail "$p: the report under strace failed"
		# what it opens once the profile is open (not hpmon's own libc)
		awk -v prof="\"$E2E_TMP/$p.prof\"" 'index($0, prof) { on = 1; next } on' \
			"$E2E_TMP/trace" | grep -v ENOENT >"$E2E_TMP/opened" || true
		if grep -E "\"($E2E_TMP/$p|[^\"]*libc\.so\.6|[^\"]*\.debug)\"" "$E2E_TMP/opened"; then
			fail "$p: a warm report opened an object (above)"
		fi
		grep -q "symbols/" "$E2E_TMP/opened" || fail "$p: the report under strace read no cache"
		# --no-cache reads none
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
			strace -f -qq -e trace=open,openat -o "$E2E_TMP/trace" "$HPMON" report \
			-i "$E2E_TMP/$p.prof" --debug-dir "$dbg" --inline --lines --no-cache \
			>/dev/null 2>&1 || fail "$p: the --no-cache report under strace failed"
		if grep "hpmon/symbols" "$E2E_TMP/trace"; then
			fail "$p: --no-cache looked at the symbol caches (above)"
		fi
	fi
done

# the program's cache: its build-id
bid=$(readelf -n "$E2E_TMP/inl" | awk '/Build ID/ { print $3 }')
[ -n "$bid" ] || skip "the workload has no build-id"
cache=$symdir/$bid
rep got inl --inline --lines
[ -f "$cache" ] || fail "no cache at $cache"
ino=$(stat -c %i "$cache")
rep got inl --inline --lines
expect_eq "a warm report with nothing new writes nothing" "$ino" "$(stat -c %i "$cache")"

# touched: the cache no longer holds (read again, and replaced)
touch -d '2021-02-03 04:05:06' "$E2E_TMP/inl"
for i in "${!variants[@]}"; do
	same_as_ref inl "${variants[$i]}" "after touching the object" "$i"
	# the first report replaces it (written aside while the old one is
	# there, so under another inode; later saves may reuse the old number)
	[ "$i" -ne 0 ] || [ "$ino" != "$(stat -c %i "$cache")" ] ||
		fail "the cache of the touched object was not replaced"
done

# a stripped program, and then its debug file in the debug directory:
# the names and inlines appear, as --no-cache shows them
mkdir -p "$E2E_TMP/keep"
objcopy --only-keep-debug "$E2E_TMP/inl" "$E2E_TMP/keep/inl.dbg"
strip --strip-all "$E2E_TMP/inl"
rm -rf "$XDG_CACHE_HOME"
rep bare inl --inline --lines --no-cache
expect_no_grep "stripped: no name" "outer_work" "$E2E_TMP/bare"
rep got inl --inline --lines
cmp -s "$E2E_TMP/got" "$E2E_TMP/bare" || fail "stripped, cold: not as --no-cache"
rep got inl --inline --lines
cmp -s "$E2E_TMP/got" "$E2E_TMP/bare" || fail "stripped, warm: not as --no-cache"
mkdir -p "$dbg/.build-id/${bid:0:2}"
cp "$E2E_TMP/keep/inl.dbg" "$dbg/.build-id/${bid:0:2}/${bid:2}.debug"
rep ref inl --inline --lines --no-cache
expect_grep "with the debug file: the inlined function" \
	"inner_loop \\(inlined in outer_work\\)" "$E2E_TMP/ref"
rep got inl --inline --lines
cmp -s "$E2E_TMP/got" "$E2E_TMP/ref" || fail "a debug file added: not as --no-cache:
$(diff "$E2E_TMP/ref" "$E2E_TMP/got" | head)"
rep got inl --inline --lines
cmp -s "$E2E_TMP/got" "$E2E_TMP/ref" || fail "a debug file added, warm: not as --no-cache"
# and removed again
rm "$dbg/.build-id/${bid:0:2}/${bid:2}.debug"
rep got inl --inline --lines
cmp -s "$E2E_TMP/got" "$E2E_TMP/bare" || fail "the debug file removed: not as --no-cache"
# another debug directory is another context
rep got inl --inline --lines --debug-dir "$E2E_TMP"
cmp -s "$E2E_TMP/got" "$E2E_TMP/bare" || fail "another debug directory: not as --no-cache"
exit 0
