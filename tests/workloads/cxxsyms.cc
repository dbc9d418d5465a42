// SPDX-License-Identifier: MIT
/*
 * cxxsyms N: C++ names, PLT stubs and aliased symbols for the report's
 * naming (tests/e2e/report-names.sh, tests/unit/test-symtab.c).
 *
 * - hpm::Spinner<long>::spin(long) spins N times: a mangled name that
 *   reports show demangled (_ZN3hpm7SpinnerIlE4spinEl);
 * - plt_calls() calls strlen N/4 times through the PLT, on an empty
 *   string, so that the stub (strlen@plt) itself gets samples;
 * - hpm_alias_* are one function under several symbols, each set built
 *   so that one of perf's rules decides the name shown.
 */
#include <cstdlib>
#include <cstring>

namespace hpm {
template <typename T> struct Spinner {
	T acc;
	__attribute__((noinline)) T spin(long n)
	{
		for (long i = 0; i < n; i++)
			acc = acc * 3 + (T)i;
		return acc;
	}
};
} // namespace hpm

/* volatile: the compiler may not see the string is empty and drop the call */
static const char *volatile empty = "";

__attribute__((noinline)) static size_t plt_calls(long n)
{
	size_t k = 0;
	for (long i = 0; i < n; i++)
		k += (size_t)labs((long)strlen(empty) - i);
	return k;
}

extern "C" {
/* global over weak: hpm_alias_global */
__attribute__((noinline, used)) long hpm_alias_global(long x) { return x * 7 + 1; }
long hpm_alias_global_weak(long) __attribute__((weak, alias("hpm_alias_global")));
/* fewer leading underscores: hpm_alias_under */
__attribute__((noinline, used)) long hpm_alias_under(long x) { return x * 5 + 2; }
long __hpm_alias_under(long) __attribute__((alias("hpm_alias_under")));
/* the longer name, other things equal: hpm_alias_longer_name */
__attribute__((noinline, used)) long hpm_alias_l(long x) { return x * 3 + 3; }
long hpm_alias_longer_name(long) __attribute__((alias("hpm_alias_l")));
/* local over weak: hpm_alias_local */
__attribute__((noinline, used)) static long hpm_alias_local(long x) { return x * 9 + 4; }
long hpm_alias_local_weak(long) __attribute__((weak, alias("hpm_alias_local")));
}

/* what the work computes goes somewhere the compiler must keep */
volatile long hpm_sink;

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], nullptr, 10) : 100000000;
	hpm::Spinner<long> s{ 1 };
	long r = s.spin(n);
	r += (long)plt_calls(n / 4);
	r += hpm_alias_global(r) + hpm_alias_under(r) + hpm_alias_l(r) + hpm_alias_local(r);
	hpm_sink = r;
	return 0;
}
