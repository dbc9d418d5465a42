# SPDX-License-Identifier: MIT
# The filters of report, annotate and diff take lists, as perf's do
# (--comm a,b, --pid, --tid, --dso, --sym; perf's spellings --comms,
# --dsos, --symbols, -c, -d, -S too): a list keeps exactly the samples
# its names keep one by one, so the counts of two single filters add up
# to the count of the list. Names may be demangled C++ names, whole or
# without their parameters; lists are split at commas, as perf splits
# them, and a name a comma cut is refused with the way to give it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record-lib.sh"

prof=$E2E_TMP/t.prof
hpm_ok record -q -e cpu-clock -c 100003 -o "$prof" -- "$WORKLOADS/spinners" 30000000
cp "$E2E_TMP/out" "$E2E_TMP/ids"
child=$(awk '$1 == "child" { print $2 }' "$E2E_TMP/ids")
read -r _ parent tid1 < <(grep '^t1 ' "$E2E_TMP/ids")
read -r _ _ tid2 < <(grep '^t2 ' "$E2E_TMP/ids")

# n ARGS...: the samples report keeps with ARGS
n() {
	report_json "$prof" "$@"
	json "$E2E_TMP/rep.json" "j['events'][0]['samples']"
}
# sum2 WHAT A B LIST: n(A) + n(B) == n(LIST), and n(LIST) > 0
sum2() {
	local a b l
	a=$(n $2) b=$(n $3) l=$(n $4)
	expect_eq "$1: $2 plus $3 is $4" "$((a + b))" "$l"
	expect_in "$1: samples kept" 1 1000000 "$l"
}

total=$(n)
sum2 "comm" "--comm spin-t1" "--comm spin-t2" "--comm spin-t1,spin-t2"
sum2 "pid" "--pid $child" "--pid $parent" "--pid $child,$parent"
# every sample is of the parent or of the child
expect_eq "the two processes hold every sample" "$total" "$(n --pid "$child,$parent")"
sum2 "tid" "--tid $tid1" "--tid $tid2" "--tid $tid1,$tid2"
sum2 "sym" "--sym spin_t1" "--sym spin_child" "--sym spin_t1,spin_child"
# the two objects with the most samples (the program, the kernel ...)
report_json "$prof" --sort dso
read -r d1 d2 < <(json "$E2E_TMP/rep.json" "' '.join(r['dso'] for r in j['rows'][:2])")
[ -n "$d2" ] || d2=libc.so.6 # a single object: the other keeps none
sum2 "dso" "--dso $d1" "--dso $d2" "--dso $d1,$d2"

# a list keeps what its rows hold in the unfiltered report
report_json "$prof"
s_t1=$(samples spin_t1) s_t2=$(samples spin_t2) s_child=$(samples spin_child)
want=$((s_t1 + s_child))
# rows by name and function: which name a sample carries is the host's
# (after a rename, a sample on another CPU whose clock is behind keeps the
# old name, in perf as in hpmon: record-tasks compares the two), so the
# counts a filter by name must keep come from these rows, not from the
# names the workload gave
report_json "$prof" --sort comm,sym
cs() { json "$E2E_TMP/rep.json" "sum(r['events'][0]['samples'] for r in j['rows'] if r['comm'] in '$1'.split(',') and r['sym'] in '$2'.split(','))"; }
t1_named=$(cs spin-t1,spin-t2 spin_t1,spin_child)
t1_named_child=$(cs spin-t1,spin-child spin_t1)
expect_eq "--sym list: the rows' samples" "$want" "$(n --sym spin_t1,spin_child)"
# perf's spellings, and an option given twice, are the same list
for args in "--symbols spin_t1,spin_child" "-S spin_t1,spin_child" \
	"--symbol spin_t1,spin_child" "--sym spin_t1 --sym spin_child"; do
	expect_eq "$args" "$want" "$(n $args)"
done
both=$(n --comm spin-t1,spin-t2)
for args in "--comms spin-t1,spin-t2" "-c spin-t1,spin-t2" "--comm spin-t1 --comm spin-t2"; do
	expect_eq "$args" "$both" "$(n $args)"
done
expect_eq "-d is --dso" "$(n --dso "$d1,$d2")" "$(n -d "$d1,$d2" --sort dso)"
# filters combine: every one must pass
expect_eq "--comm list and --sym" "$t1_named" "$(n --comm spin-t1,spin-t2 --sym spin_t1,spin_child)"
expect_eq "a name no sample has" 0 "$(n --comm nosuch,other)"
# the samples left out are said
hpm_ok report -i "$prof" --comm spin-t1,spin-t2
expect_grep "left out, said" "^# $((total - both)) samples left out by the filters$" "$E2E_TMP/out"

# exact counts: a sample per call (1 call of the spinner, 1000 of
# strlen@plt; a breakpoint, or a uprobe where breakpoints do not fire),
# demangled names whole or without their parameters
w=$WORKLOADS/cxxsyms
spin=_ZN3hpm7SpinnerIlE4spinEl
cprof=$E2E_TMP/c.prof
if [ -x "$w" ] && ! host_bp_fires && ! host_can_uprobe; then
	# code locations cannot be counted here: refused, saying why (exit 1)
	hpm record -q -e "exec:$spin,exec:strlen@plt" -c 1 -o "$cprof" -- "$w" 4000
	expect_eq "exec: events where neither breakpoints nor uprobes work" 1 "$HPM_STATUS"
	expect_grep "exec: events refused: why" "do not fire on this host" "$E2E_TMP/err"
	note "breakpoints do not fire and uprobes cannot be defined here: the demangled names are not checked"
elif [ -x "$w" ]; then
	hpm_ok record -q -e "exec:$spin,exec:strlen@plt" -c 1 -o "$cprof" -- "$w" 4000
	# nc ARGS: samples of both events kept
	nc() {
		report_json "$cprof" "$@"
		json "$E2E_TMP/rep.json" "sum(e['samples'] for e in j['events'])"
	}
	expect_eq "both functions" 1001 "$(nc --sym 'hpm::Spinner<long>::spin,strlen@plt')"
	expect_eq "the whole demangled name" 1 "$(nc --sym 'hpm::Spinner<long>::spin(long)')"
	expect_eq "--no-demangle, the mangled name" 1001 \
		"$(nc --no-demangle --sym "$spin,strlen@plt")"
	expect_eq "strlen@plt" 1000 "$(nc --sym strlen@plt,nosuch)"
	# the samples left out are counted as exactly (a run of 1000 at one
	# address is left out at once)
	hpm_ok report -i "$cprof" --sym 'hpm::Spinner<long>::spin'
	expect_grep "--sym: left out" "^# 1000 samples left out by the filters$" "$E2E_TMP/out"
	hpm_ok report -i "$cprof" --comm nosuch,other
	expect_grep "--comm: left out" "^# 1001 samples left out by the filters$" "$E2E_TMP/out"
	# a comma inside a name: refused, saying how to give it
	hpm report -i "$cprof" --sym 'f(int, int)'
	expect_eq "a cut name: usage error" 129 "$HPM_STATUS"
	expect_grep "a cut name: why" "'f\\(int' is part of a name: lists are split at commas" "$E2E_TMP/err"
	expect_grep "a cut name: the fix" "without its parameters" "$E2E_TMP/err"
	hpm report -i "$cprof" --sym 'std::pair<int, int>::swap'
	expect_eq "a cut template name" 129 "$HPM_STATUS"
else
	note "no C++ compiler: the demangled names are not checked"
fi

# bad lists: the cause, and a usage error
for bad in "--pid 12,,13" "--tid x" "--pid -3" "--comm a," "--dso ,b"; do
	hpm report -i "$prof" $bad
	expect_eq "$bad: usage error" 129 "$HPM_STATUS"
	expect_grep "$bad: named" "^hpmon report: --(pid|tid|comm|dso): " "$E2E_TMP/err"
done

# annotate: --comm, --pid, --tid choose the samples counted, --dso a list
# of objects that may hold the function
kept=$(n --comm spin-t1,spin-child) kept_t1=$(n --tid "$tid1")
hpm_ok annotate -i "$prof" --no-source --comm spin-t1,spin-child spin_t1
expect_grep "annotate --comm list" "^# spin_t1 .* $t1_named_child samples of $kept " "$E2E_TMP/out"
hpm_ok annotate -i "$prof" --no-source --tid "$tid1" --dso nosuch,spinners spin_t1
expect_grep "annotate --tid, --dso list" "^# spin_t1 .* $s_t1 samples of $kept_t1 " "$E2E_TMP/out"
hpm annotate -i "$prof" --no-source --comm spin-t2 spin_t1
expect_eq "annotate: the function has no sample of that task" 1 "$HPM_STATUS"
hpm annotate -i "$prof" --no-source --dso nosuch,other spin_t1
expect_grep "annotate: not in those objects" "no samples in a function named 'spin_t1' in those objects" "$E2E_TMP/err"

# diff: the filters apply to both profiles
hpm_ok diff --json --sym spin_t1,spin_t2 "$prof" "$prof"
expect_eq "diff --sym list: its rows" "['spin_t1', 'spin_t2']" \
	"$(json "$E2E_TMP/out" "sorted(r['sym'] for r in j['rows'])")"
expect_eq "diff --sym list: samples" "$((s_t1 + s_t2))" \
	"$(json "$E2E_TMP/out" "sum(r['samples_a'] for r in j['rows'])")"
hpm_ok diff --json -C spin-child --pid "$child" -S spin_child,spin_t1 "$prof" "$prof"
expect_eq "diff -C, --pid, -S" "['spin_child']" "$(json "$E2E_TMP/out" "[r['sym'] for r in j['rows']]")"
hpm diff --tid 1,x "$prof" "$prof"
expect_eq "diff: a bad list" 129 "$HPM_STATUS"
expect_grep "diff: a bad list, named" "^hpmon diff: --tid: 'x' is not a thread id" "$E2E_TMP/err"
