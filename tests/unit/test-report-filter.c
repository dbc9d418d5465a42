// SPDX-License-Identifier: MIT
/*
 * How report, annotate and diff match a function's name against a --sym
 * item or annotate's argument (tools/hpmon/report/filter.c,
 * rep_sym_named): the whole demangled name, the name without its
 * parameters, and a function template's name without its return type
 * too, as perf shows it (perf report: "ns::sum<long>" for the symbol
 * whose demangled name is "long ns::sum<long>(std::vector<long> const&)").
 * Rows carry __LINE__ (libpfm4's habit). The tool is not a library: its
 * file is compiled into this test.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../tools/hpmon/report/filter.c"

struct row {
	int line;
	const char *name;  /* the function as report shows it */
	const char *given; /* what the user wrote */
	bool named;
};

#define L __LINE__
static const struct row rows[] = {
	/* whole names, and names without their parameters (as before) */
	{ L, "main", "main", true },
	{ L, "main", "mai", false },
	{ L, "mainloop", "main", false },
	{ L, "hpm::Spinner<long>::spin(long)", "hpm::Spinner<long>::spin(long)", true },
	{ L, "hpm::Spinner<long>::spin(long)", "hpm::Spinner<long>::spin", true },
	{ L, "hpm::Spinner<long>::spin(long)", "spin", false },
	/* a function template: its return type first */
	{ L, "long ns::sum<long>(std::vector<long, std::allocator<long> > const&)",
	  "ns::sum<long>", true },
	{ L, "long ns::sum<long>(std::vector<long, std::allocator<long> > const&)",
	  "long ns::sum<long>", true },
	{ L, "long ns::sum<long>(std::vector<long, std::allocator<long> > const&)",
	  "ns::sum<long>(std::vector<long, std::allocator<long> > const&)", true },
	{ L, "long ns::sum<long>(std::vector<long, std::allocator<long> > const&)", "sum<long>",
	  false },
	{ L, "unsigned long ns::sz<int>(int)", "ns::sz<int>", true },
	{ L, "unsigned long ns::sz<int>(int)", "long ns::sz<int>", true },
	{ L, "std::pair<int, int> ns::mk<int>(int)", "ns::mk<int>", true },
	/* a space inside template arguments or parameters starts no name */
	{ L, "std::pair<int, int> ns::mk<int>(int)", "int> ns::mk<int>", false },
	{ L, "std::pair<int, int>::swap(std::pair<int, int>&)", "int>::swap", false },
	{ L, "void f(int, g)", "g", false },
	{ L, "void std::__introsort_loop<long*, long, __gnu_cxx::__ops::_Iter_comp_iter<"
	     "main::{lambda(long, long)#1}> >(long*, long*, long)",
	  "std::__introsort_loop<long*, long, __gnu_cxx::__ops::_Iter_comp_iter<"
	  "main::{lambda(long, long)#1}> >", true },
	/* nothing after the parameters: qualifiers, clones */
	{ L, "ns::A::get() const", "const", false },
	{ L, "ns::A::get() const", "ns::A::get", true },
	{ L, "void ns::f<int>(int) [clone .isra.0]", "ns::f<int>", true },
	{ L, "void ns::f<int>(int) [clone .isra.0]", "[clone", false },
	/* operators: their words and characters are part of the name */
	{ L, "operator new(unsigned long)", "new", false },
	{ L, "operator new(unsigned long)", "operator new", true },
	{ L, "operator delete[](void*)", "delete[]", false },
	{ L, "ns::A::operator int() const", "int", false },
	{ L, "ns::A::operator int() const", "ns::A::operator int", true },
	{ L, "std::ostream& std::operator<< <std::char_traits<char> >(std::ostream&, char const*)",
	  "std::operator<< <std::char_traits<char> >", true },
	{ L, "bool ns::operator< <int>(ns::K<int> const&, ns::K<int> const&)",
	  "ns::operator< <int>", true },
	{ L, "std::less<void>::operator()(int, int) const", "std::less<void>::operator()", true },
	/* an anonymous namespace is part of the qualified name */
	{ L, "int (anonymous namespace)::g<int>(int)", "(anonymous namespace)::g<int>", true },
	{ L, "(anonymous namespace)::h(int)", "(anonymous namespace)::h", true },
	{ L, "(anonymous namespace)::h(int)", "namespace)::h", false },
	/* nothing given names nothing */
	{ L, "main", "", false },
};

static void test_names(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		bool got = rep_sym_named(r->name, r->given, strlen(r->given));
		if (got != r->named)
			fail_msg("line %d: '%s' %s '%s'", r->line, r->given,
				 r->named ? "should name" : "should not name", r->name);
	}
}

/* a --sym list of perf's forms keeps exactly the functions it names */
static void test_list(void **state)
{
	struct rep_filter f = { 0 };
	char why[256] = "";
	(void)state;
	assert_int_equal(rep_filter__add(&f, RF_SYM, "ns::sum<long>,main", why, sizeof(why)), 0);
	assert_true(rep_list__names_sym(&f.syms, "long ns::sum<long>(long)"));
	assert_true(rep_list__names_sym(&f.syms, "main"));
	assert_false(rep_list__names_sym(&f.syms, "long ns::sum<int>(int)"));
	assert_false(rep_list__names_sym(&f.syms, "ns::sum"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_list),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
