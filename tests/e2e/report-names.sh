# SPDX-License-Identifier: MIT
# Names in reports (tests/workloads/cxxsyms.cc, ifuncs.c, labels.c): PLT stubs as
# func@plt (an IFUNC's too), C++
# names demangled in every output (--no-demangle keeps them as the symbol
# table has them), and perf's choice among symbols that share an address.
# Breakpoint triggers (exec:..., -c 1) give exact counts: one sample per
# call, at the function's first instruction.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record-lib.sh"

# named PROGRAM NAME CALLS SPIN: PROGRAM N calls NAME N times. A breakpoint
# on NAME (found by that name) fires CALLS times, each sample named NAME;
# sampled by time over SPIN calls, no address of the program goes unnamed.
named() {
	local prog=$1 name=$2 calls=$3 spin=$4
	hpm_ok record -q -e "exec:$name" -c 1 -o "$E2E_TMP/$prog.prof" -- "$WORKLOADS/$prog" "$calls"
	report_json "$E2E_TMP/$prog.prof"
	expect_eq "samples of $name" "$calls" "$(samples "$name")"
	hpm_ok record -q -e cpu-clock -c 100000 -o "$E2E_TMP/$prog-t.prof" -- "$WORKLOADS/$prog" "$spin"
	hpm_ok report -i "$E2E_TMP/$prog-t.prof"
	expect_no_grep "every address of $prog named" "$prog\\+0x" "$E2E_TMP/out"
}

# A PLT stub of the program's own IFUNC (tests/workloads/ifuncs.c): its
# slot's IRELATIVE relocation names no symbol; the stub is named after the
# IFUNC at the resolver's address.
named ifuncs pick@plt 3000 100000000
# Labels of assembly (tests/workloads/labels.c): label_code, a symbol
# without a type, names its code as perf names it; a label inside a
# function with a size does not cut it.
named labels label_code 2000 30000000
expect_no_grep "a label inside a function is not a name" 'label_inside' "$E2E_TMP/out"

w=$WORKLOADS/cxxsyms
[ -x "$w" ] || skip "no C++ compiler: tests/workloads/cxxsyms.cc was not built"
spin=_ZN3hpm7SpinnerIlE4spinEl
dspin='hpm::Spinner<long>::spin(long)'

# PLT: cxxsyms N calls strlen N/4 times, each through strlen@plt
hpm_ok record -q -e 'exec:strlen@plt' -c 1 -o "$E2E_TMP/plt.prof" -- "$w" 4000
report_json "$E2E_TMP/plt.prof"
expect_eq "samples of strlen@plt" 1000 "$(samples strlen@plt)"
expect_eq "samples in all" 1000 "$(json "$E2E_TMP/rep.json" "j['events'][0]['samples']")"
# sampled by time: whatever lands in the program is named, never cxxsyms+0x...
hpm_ok record -q -e cpu-clock -o "$E2E_TMP/t.prof" -- "$w" 100000000
hpm_ok report -i "$E2E_TMP/t.prof"
expect_no_grep "no address without a name in the program" 'cxxsyms\+0x' "$E2E_TMP/out"
expect_grep "the spinner, demangled" " hpm::Spinner<long>::spin\\(long\\) +cxxsyms$" "$E2E_TMP/out"

# demangled in text, JSON, CSV, folded stacks, annotate and diff
hpm_ok record -q -g -e "exec:$spin" -c 1 -o "$E2E_TMP/s.prof" -- "$w" 1000
report_json "$E2E_TMP/s.prof"
expect_eq "JSON: one sample in the demangled name" 1 "$(samples "$dspin")"
report_json "$E2E_TMP/s.prof" --no-demangle
expect_eq "JSON --no-demangle: the symbol table's name" 1 "$(samples "$spin")"
hpm_ok report -i "$E2E_TMP/s.prof" --csv
expect_grep "CSV: the demangled name" '^1,1,100\.0000,hpm::Spinner<long>::spin\(long\),cxxsyms$' \
	"$E2E_TMP/out"
hpm_ok report -i "$E2E_TMP/s.prof" --folded
expect_grep "folded: main, then the spinner" ';main;hpm::Spinner<long>::spin\(long\) 1$' "$E2E_TMP/out"
hpm_ok report -i "$E2E_TMP/s.prof" --folded --no-demangle
expect_grep "folded --no-demangle" ";main;$spin 1\$" "$E2E_TMP/out"
# script, as perf script: demangled, or the symbol table's name
hpm_ok script -i "$E2E_TMP/s.prof" -G -F ip,sym
expect_grep "script: the demangled name" ' hpm::Spinner<long>::spin\(long\)$' "$E2E_TMP/out"
hpm_ok script -i "$E2E_TMP/s.prof" -G -F ip,sym --no-demangle
expect_grep "script --no-demangle: the symbol table's name" " $spin\$" "$E2E_TMP/out"
for name in "$dspin" 'hpm::Spinner<long>::spin'; do
	hpm_ok annotate -i "$E2E_TMP/s.prof" --no-source "$name"
	expect_grep "annotate '$name': its instructions" '^ +1 +100\.00% ' "$E2E_TMP/out"
done
hpm_ok annotate -i "$E2E_TMP/s.prof" --no-source --no-demangle "$spin"
expect_grep "annotate --no-demangle by the mangled name" '^ +1 +100\.00% ' "$E2E_TMP/out"
hpm annotate -i "$E2E_TMP/s.prof" --no-source "$spin"
expect_eq "annotate by the mangled name: demangled names only" 1 "$HPM_STATUS"
hpm_ok diff --json "$E2E_TMP/s.prof" "$E2E_TMP/s.prof"
expect_eq "diff: the demangled name" True \
	"$(json "$E2E_TMP/out" "any(r['sym'] == '$dspin' for r in j['rows'])")"
hpm_ok diff --json --no-demangle "$E2E_TMP/s.prof" "$E2E_TMP/s.prof"
expect_eq "diff --no-demangle" True \
	"$(json "$E2E_TMP/out" "any(r['sym'] == '$spin' for r in j['rows'])")"

# several symbols at one address: perf's pick (docs/hpmon-report.md)
while read -r given shown; do
	hpm_ok record -q -e "exec:$given" -c 1 -o "$E2E_TMP/a.prof" -- "$w" 1000
	report_json "$E2E_TMP/a.prof"
	expect_eq "exec:$given is shown as $shown" 1 "$(samples "$shown")"
done <<'LIST'
hpm_alias_global_weak hpm_alias_global
__hpm_alias_under hpm_alias_under
hpm_alias_l hpm_alias_longer_name
hpm_alias_local_weak hpm_alias_local
LIST
# libc: malloc, not __libc_malloc (ls allocates)
hpm_ok record -q -e 'exec:libc.so.6:__libc_malloc' -c 1 -o "$E2E_TMP/m.prof" -- ls /
report_json "$E2E_TMP/m.prof"
expect_eq "libc's allocator is malloc" True \
	"$(json "$E2E_TMP/rep.json" "[r['sym'] for r in j['rows']] == ['malloc']")"

# inlined C++: the inline chain's names demangled too (from the DWARF
# linkage name); a breakpoint on the inlined line gives one sample per call
command -v g++ >/dev/null || skip "g++ is needed for the inlined C++ check"
cat >"$E2E_TMP/inl.cc" <<'CC'
#include <cstdlib>
namespace ns {
template <typename T> struct Acc {
	T v;
	void add(T x)
	{
		v = v * 3 + x;
	}
};
}
__attribute__((noinline)) long outer(long n)
{
	ns::Acc<long> a{ 1 };
	for (long i = 0; i < n; i++)
		a.add(i);
	return a.v;
}
volatile long sink;
int main(int c, char **v) { sink = outer(c > 1 ? atol(v[1]) : 2000000); }
CC
g++ -O2 -g -o "$E2E_TMP/inl" "$E2E_TMP/inl.cc" || fail "g++ could not build the inlined workload"
hpm_ok record -q -e "exec:$E2E_TMP/inl:inl.cc:7" -c 1 -o "$E2E_TMP/i.prof" -- "$E2E_TMP/inl" 1234
report_json "$E2E_TMP/i.prof" --inline
expect_eq "inlined, demangled" 1234 "$(samples 'ns::Acc<long>::add(long) (inlined in outer(long))')"
report_json "$E2E_TMP/i.prof" --inline --no-demangle
expect_eq "inlined, --no-demangle" 1234 "$(samples 'add (inlined in _Z5outerl)')"

# a function template: its demangled name starts with its return type,
# which perf's reports leave out (perf report shows ns::twice<long>);
# --sym and annotate take that form too, not only the whole name
cat >"$E2E_TMP/tpl.cc" <<'CC'
namespace ns {
template <typename T> __attribute__((noinline)) T twice(T x) { return x * 2 + 1; }
}
volatile long sink;
int main(int c, char **)
{
	long s = 0;
	for (long i = 0; i < 700; i++)
		s += ns::twice<long>(i + c);
	sink = s;
}
CC
g++ -O1 -g -o "$E2E_TMP/tpl" "$E2E_TMP/tpl.cc" || fail "g++ could not build the template workload"
hpm_ok record -q -e "exec:_ZN2ns5twiceIlEET_S1_" -c 1 -o "$E2E_TMP/tpl.prof" -- "$E2E_TMP/tpl"
report_json "$E2E_TMP/tpl.prof"
expect_eq "the template, demangled with its return type" 700 "$(samples 'long ns::twice<long>(long)')"
for given in 'ns::twice<long>' 'long ns::twice<long>' 'ns::twice<long>,main'; do
	report_json "$E2E_TMP/tpl.prof" --sym "$given"
	expect_eq "--sym '$given' keeps the template's samples" 700 \
		"$(json "$E2E_TMP/rep.json" "sum(r['events'][0]['samples'] for r in j['rows'])")"
done
report_json "$E2E_TMP/tpl.prof" --sym 'twice<long>'
expect_eq "--sym 'twice<long>' (a part of the name) keeps nothing" 0 \
	"$(json "$E2E_TMP/rep.json" "sum(r['events'][0]['samples'] for r in j['rows'])")"
hpm_ok annotate -i "$E2E_TMP/tpl.prof" --no-source 'ns::twice<long>'
expect_grep "annotate 'ns::twice<long>': its instructions" '^ +700 +100\.00% ' "$E2E_TMP/out"
