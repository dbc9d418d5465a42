// SPDX-License-Identifier: MIT
/*
 * Symbol naming (lib/symbols/symtab.c, plt.c, demangle.c): every PLT entry
 * named func@plt at the address objdump names it; C++ and Rust names
 * demangled; of several symbols at one address, perf's choice; on
 * AArch64, every instruction of a cross-built program named as objdump
 * names it, and never by a mapping symbol ($x, $d).
 *
 * objdump (binutils) is the reference; programs are built here with the
 * compilers at hand (gcc, aarch64-linux-gnu-gcc), each check skipping with
 * its reason when its tool is missing.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <hpmon/symbols.h>
#include "symbols/symtab.h"

static char tmpdir[] = "/tmp/hpm-symtab-XXXXXX";

static bool have(const char *tool)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", tool);
	return system(cmd) == 0;
}

static const char plt_prog[] =
	"#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
	"int main(int c, char **v) { char b[64]; snprintf(b, sizeof b, \"%s\", v[0]);\n"
	"  void *p = malloc(strlen(b) + 1); memcpy(p, b, strlen(b) + 1); puts(p);\n"
	"  free(p); return (int)strtol(c > 1 ? v[1] : \"0\", 0, 10); }\n";

/* Build plt_prog with @cc and @flags into @out. */
static bool build(const char *cc, const char *flags, const char *out)
{
	char src[256], cmd[1024];
	snprintf(src, sizeof(src), "%s/prog.c", tmpdir);
	FILE *f = fopen(src, "w");
	assert_non_null(f);
	fputs(plt_prog, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s %s -o %s %s 2>/dev/null", cc, flags, out, src);
	return system(cmd) == 0;
}

/*
 * Compare hpmon's name of every instruction objdump lists in @sections
 * ("" for all) with objdump's: "<name>:" headers, then "  addr:" lines.
 * @plt_only: only names ending in @plt, which hpmon must name (objdump's
 * choice among aliases is not perf's). Elsewhere hpmon may name nothing
 * (objdump counts the padding after a function as the function's), but
 * never another name. Returns how many addresses hpmon named.
 */
static size_t compare(const char *objdump, const char *path, const char *sections,
		      bool plt_only)
{
	char cmd[1024], line[1024], cur[512] = "";
	size_t n = 0;
	struct hpm_dso *d = hpm_dso__open(path, NULL);
	assert_non_null(d);
	snprintf(cmd, sizeof(cmd), "%s -d --no-show-raw-insn %s %s", objdump, sections, path);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		unsigned long long a;
		char name[512];
		if (sscanf(line, "%llx <%511[^>]>:", &a, name) == 2) {
			snprintf(cur, sizeof(cur), "%s", name);
			continue;
		}
		if (!cur[0] || sscanf(line, " %llx:", &a) != 1 || line[0] != ' ')
			continue;
		if (cur[0] == '.' || strpbrk(cur, "+-") || (plt_only && !strstr(cur, "@plt")))
			continue; /* objdump's section-relative labels: nothing to say */
		struct hpm_symbol s;
		int rc = hpm_dso__lookup(d, a, 0, &s);
		if (rc && !plt_only)
			continue;
		if (rc || strcmp(s.name, cur))
			fail_msg("%s at 0x%llx: objdump says %s, hpmon %s", path, a, cur,
				 rc ? "nothing" : s.name);
		n++;
	}
	pclose(p);
	hpm_dso__free(d);
	return n;
}

static void test_plt_x86_64(void **state)
{
	char out[256];
	(void)state;
	if (!have("objdump"))
		skip();
	/* the workload: .plt and .plt.got (__cxa_finalize) */
	size_t n = compare("objdump", HPM_TEST_WORKLOADS "/cxxsyms", "-j .plt -j .plt.got -j .plt.sec",
			   true);
	assert_true(n >= 3 * 2); /* strlen, labs, strtol ...: two instructions each at least */
	if (!have("gcc"))
		skip();
	/* the IBT layout: lazy stubs in .plt, the named ones in .plt.sec */
	snprintf(out, sizeof(out), "%s/ibt", tmpdir);
	if (build("gcc", "-O1 -fcf-protection=full -Wl,-z,ibtplt", out))
		assert_true(compare("objdump", out, "-j .plt.sec", true) >= 5);
	/* bound at load time: no lazy stubs, maybe .plt.got only */
	snprintf(out, sizeof(out), "%s/now", tmpdir);
	assert_true(build("gcc", "-O1 -Wl,-z,now", out));
	compare("objdump", out, "-j .plt -j .plt.got -j .plt.sec", true);
}

static void test_aarch64(void **state)
{
	char out[256];
	(void)state;
	if (!have("aarch64-linux-gnu-gcc") || !have("aarch64-linux-gnu-objdump"))
		skip();
	snprintf(out, sizeof(out), "%s/a64", tmpdir);
	assert_true(build("aarch64-linux-gnu-gcc", "-O1", out));
	struct hpm_dso *d = hpm_dso__open(out, NULL);
	assert_non_null(d);
	assert_string_equal(hpm_dso__arch(d), "aarch64");
	hpm_dso__free(d);
	/* every instruction: PLT entries, functions, and never $x or $d */
	size_t n = compare("aarch64-linux-gnu-objdump", out, "", false);
	assert_true(n > 50);
	snprintf(out, sizeof(out), "%s/a64bti", tmpdir);
	if (build("aarch64-linux-gnu-gcc", "-O1 -mbranch-protection=standard -Wl,-z,force-bti", out))
		assert_true(compare("aarch64-linux-gnu-objdump", out, "", false) > 50);
}

/* One function under several symbols: perf's pick, one rule each. */
static void test_aliases(void **state)
{
	static const struct { const char *given, *shown; } t[] = {
		{ "hpm_alias_global_weak", "hpm_alias_global" },  /* global over weak */
		{ "__hpm_alias_under", "hpm_alias_under" },       /* fewer underscores */
		{ "hpm_alias_l", "hpm_alias_longer_name" },       /* the longer name */
		{ "hpm_alias_local_weak", "hpm_alias_local" },    /* local over weak */
	};
	(void)state;
	struct hpm_dso *d = hpm_dso__open(HPM_TEST_WORKLOADS "/cxxsyms", NULL);
	if (!d)
		skip(); /* built only with a C++ compiler */
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint64_t a, sz;
		struct hpm_symbol s;
		/* an alias left out of the table still names the function */
		assert_int_equal(hpm_dso__find_function(d, t[i].given, &a, &sz), 0);
		assert_int_equal(hpm_dso__lookup(d, a, 0, &s), 0);
		assert_string_equal(s.name, t[i].shown);
		assert_int_equal(s.offset, 0);
		assert_true(s.size > 0);
	}
	hpm_dso__free(d);

	/* libc: malloc, not __libc_malloc (more leading underscores) */
	d = hpm_dso__open("/lib/x86_64-linux-gnu/libc.so.6", NULL);
	if (d) {
		uint64_t a, sz;
		struct hpm_symbol s;
		assert_int_equal(hpm_dso__find_function(d, "__libc_malloc", &a, &sz), 0);
		assert_int_equal(hpm_dso__lookup(d, a + 1, 0, &s), 0);
		assert_string_equal(s.name, "malloc");
		assert_int_equal(s.offset, 1);
		hpm_dso__free(d);
	}
}

/* Labels (STT_NOTYPE in text, tests/workloads/labels.c) name code as
 * perf names it, but never cut a function with a size. */
static void test_labels(void **state)
{
	(void)state;
	struct hpm_dso *o = hpm_dso__open(HPM_TEST_WORKLOADS "/labels", NULL);
	assert_non_null(o);
	uint64_t a, sz;
	struct hpm_symbol s;
	assert_int_equal(hpm_dso__find_function(o, "label_code", &a, &sz), 0);
	assert_int_equal(hpm_dso__lookup(o, a, 0, &s), 0);
	assert_string_equal(s.name, "label_code");
	/* every address of marked is marked's, label_inside's too */
	assert_int_equal(hpm_dso__find_function(o, "marked", &a, &sz), 0);
	assert_true(sz > 0);
	for (uint64_t x = a; x < a + sz; x++) {
		assert_int_equal(hpm_dso__lookup(o, x, 0, &s), 0);
		assert_string_equal(s.name, "marked");
	}
	assert_int_equal(hpm_dso__find_function(o, "label_inside", &a, &sz), -ENOENT);
	hpm_dso__free(o);
}

/* A stub whose slot an IRELATIVE relocation fills (the program's own
 * IFUNC, tests/workloads/ifuncs.c) is named after the IFUNC. */
static void test_plt_irelative(void **state)
{
	(void)state;
	struct hpm_dso *o = hpm_dso__open(HPM_TEST_WORKLOADS "/ifuncs", NULL);
	assert_non_null(o);
	uint64_t a, sz;
	struct hpm_symbol s;
	assert_int_equal(hpm_dso__find_function(o, "pick@plt", &a, &sz), 0);
	assert_true(sz >= 6);
	assert_int_equal(hpm_dso__lookup(o, a + sz - 1, 0, &s), 0);
	assert_string_equal(s.name, "pick@plt");
	hpm_dso__free(o);
}

static void test_demangle(void **state)
{
	static const struct { const char *in, *out; } t[] = {
		{ "_ZN3hpm7SpinnerIlE4spinEl", "hpm::Spinner<long>::spin(long)" },
		{ "_ZNSt6vectorIiSaIiEE9push_backERKi",
		  "std::vector<int, std::allocator<int> >::push_back(int const&)" },
		{ "_Z3fooPKc", "foo(char const*)" },
		/* Rust, legacy (the hash dropped) and v0 */
		{ "_ZN7mycrate4main17h0123456789abcdefE", "mycrate::main" },
		{ "_RNvCs1234_7mycrate3foo", "mycrate::foo" },
		/* a PLT stub of a C++ function: the function's name, then @plt */
		{ "_ZSt29_Rb_tree_insert_and_rebalancebPSt18_Rb_tree_node_baseS0_RS_@plt",
		  "std::_Rb_tree_insert_and_rebalance(bool, std::_Rb_tree_node_base*, "
		  "std::_Rb_tree_node_base*, std::_Rb_tree_node_base&)@plt" },
		{ "_ZdlPvm@plt", "operator delete(void*, unsigned long)@plt" },
		{ "strlen@plt", NULL },
		{ "_Znotmangled@plt", NULL },
		/* not mangled: left alone */
		{ "main", NULL },
		{ "_start", NULL },
		{ "_Rfoo_is_c", NULL },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *d = hpm__demangle(t[i].in);
		if (!t[i].out)
			assert_null(d);
		else if (!d || strcmp(d, t[i].out))
			fail_msg("%s: want %s, got %s", t[i].in, t[i].out, d ? d : "NULL");
		free(d);
	}

	/* through the object: demangled on request, found by either name */
	struct hpm_dso *o = hpm_dso__open(HPM_TEST_WORKLOADS "/cxxsyms", NULL);
	if (!o)
		skip();
	uint64_t a, a2, sz;
	struct hpm_symbol s;
	assert_int_equal(hpm_dso__find_function(o, "_ZN3hpm7SpinnerIlE4spinEl", &a, &sz), 0);
	assert_int_equal(hpm_dso__find_function(o, "hpm::Spinner<long>::spin(long)", &a2, &sz), 0);
	assert_int_equal(a, a2);
	assert_int_equal(hpm_dso__find_function(o, "hpm::Spinner<long>::spin", &a2, &sz), 0);
	assert_int_equal(a, a2);
	assert_int_equal(hpm_dso__lookup(o, a, 0, &s), 0);
	assert_string_equal(s.name, "_ZN3hpm7SpinnerIlE4spinEl");
	assert_int_equal(hpm_dso__lookup(o, a, HPM_SYM_DEMANGLE, &s), 0);
	assert_string_equal(s.name, "hpm::Spinner<long>::spin(long)");
	assert_int_equal(hpm_dso__lookup(o, a + 2, HPM_SYM_DEMANGLE, &s), 0);
	assert_string_equal(s.name, "hpm::Spinner<long>::spin(long)");
	assert_int_equal(s.offset, 2);
	/* C names pass unchanged */
	assert_int_equal(hpm_dso__find_function(o, "main", &a, &sz), 0);
	assert_int_equal(hpm_dso__lookup(o, a, HPM_SYM_DEMANGLE, &s), 0);
	assert_string_equal(s.name, "main");
	hpm_dso__free(o);
}

/* The table against libdwfl's own search, address by address, over
 * every function start and end of a large object. */
static void test_lookup_edges(void **state)
{
	(void)state;
	struct hpm_dso *d = hpm_dso__open(HPM_TEST_WORKLOADS "/calls", NULL);
	assert_non_null(d);
	uint64_t a, sz;
	struct hpm_symbol s;
	assert_int_equal(hpm_dso__find_function(d, "hpm_work", &a, &sz), 0);
	assert_true(sz > 0);
	assert_int_equal(hpm_dso__lookup(d, a, 0, &s), 0);
	assert_string_equal(s.name, "hpm_work");
	assert_int_equal(hpm_dso__lookup(d, a + sz - 1, 0, &s), 0);
	assert_string_equal(s.name, "hpm_work");
	assert_int_equal(s.offset, sz - 1);
	/* below every function: nothing */
	assert_int_equal(hpm_dso__lookup(d, 0, 0, &s), -ENOENT);
	assert_null(s.name);
	hpm_dso__free(d);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[256];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_demangle),
		cmocka_unit_test(test_plt_irelative),
		cmocka_unit_test(test_labels),
		cmocka_unit_test(test_aliases),
		cmocka_unit_test(test_lookup_edges),
		cmocka_unit_test(test_plt_x86_64),
		cmocka_unit_test(test_aarch64),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
