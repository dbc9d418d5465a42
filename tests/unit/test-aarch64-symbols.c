// SPDX-License-Identifier: MIT
/*
 * AArch64 symbol names, on programs cross-built here with
 * aarch64-linux-gnu-gcc (lib/symbols/plt.c, symtab.c, kallsyms.c):
 *
 * - PLT stubs: AArch64's .plt has no symbols; every stub is named
 *   func@plt, as perf and objdump name it, over all its instructions, in
 *   every layout the toolchain makes (lazy and bound at load, PIE and not,
 *   BTI stubs, a shared library), one stub per JUMP_SLOT relocation; the
 *   PLT's header (PLT0) stays unnamed.
 * - Mapping symbols ($x, $d and their "$x.N" forms), which mark code and
 *   data inside sections, never name code: not those the assembler
 *   writes (NOTYPE), not even ones typed as functions, and not the
 *   module symbols arm64 kernels list in /proc/kallsyms; a real function
 *   whose name merely starts with '$' keeps its name.
 *
 * objdump (binutils) is the reference for the stubs: it names them from
 * the relocations by its own rules, independently of hpmon's decoding of
 * each stub's jump.
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

static char tmpdir[] = "/tmp/hpm-a64sym-XXXXXX";

static bool have(const char *tool)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", tool);
	return system(cmd) == 0;
}

static void need_cross(void)
{
	if (!have("aarch64-linux-gnu-gcc") || !have("aarch64-linux-gnu-objdump") ||
	    !have("aarch64-linux-gnu-readelf")) {
		print_message("aarch64-linux-gnu-gcc and its binutils are missing "
			      "(scripts/deps guest installs them)\n");
		skip();
	}
}

/* Calls of libc functions, each through the PLT. */
static const char prog_c[] =
	"#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
	"int entry(int c, char **v);\n"
	"int entry(int c, char **v) { char b[64]; snprintf(b, sizeof b, \"%s\", v[0]);\n"
	"  void *p = malloc(strlen(b) + 1); memcpy(p, b, strlen(b) + 1); puts(p);\n"
	"  free(p); return (int)strtol(c > 1 ? v[1] : \"0\", 0, 10); }\n"
	"#ifndef LIB\nint main(int c, char **v) { return entry(c, v); }\n#endif\n";

/*
 * Functions around mapping symbols: "$x.7" and "$d" typed as functions
 * (as no assembler writes them, but a symbol table may hold them), and
 * "$xyz", a real function whose name only starts like one. real_func
 * shares its address with the assembler's own "$x".
 */
static const char maps_s[] =
	"\t.text\n"
	"\t.globl real_func\n\t.type real_func, %function\n"
	"real_func:\n\tnop\n\tret\n\t.size real_func, .-real_func\n"
	"\t.type \"$x.7\", %function\n"
	"\"$x.7\":\n\tnop\n\tret\n\t.size \"$x.7\", .-\"$x.7\"\n"
	"\t.globl \"$xyz\"\n\t.type \"$xyz\", %function\n"
	"\"$xyz\":\n\tret\n\t.size \"$xyz\", .-\"$xyz\"\n"
	"\t.type \"$d\", %function\n"
	"\"$d\":\n\t.word 0\n\t.size \"$d\", .-\"$d\"\n";

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* Cross-build @srcs (file names in tmpdir) with @flags into tmpdir/@out. */
static void build(const char *flags, const char *srcs, const char *out, char *path, size_t len)
{
	char cmd[2048], log[256];
	snprintf(path, len, "%s/%s", tmpdir, out);
	snprintf(log, sizeof(log), "%s/%s.log", tmpdir, out);
	snprintf(cmd, sizeof(cmd), "cd %s && aarch64-linux-gnu-gcc %s -o %s %s >%s 2>&1", tmpdir,
		 flags, path, srcs, log);
	if (system(cmd) != 0) {
		snprintf(cmd, sizeof(cmd), "cat %s >&2", log);
		(void)system(cmd);
		fail_msg("aarch64-linux-gnu-gcc %s %s failed", flags, srcs);
	}
}

/* The JUMP_SLOT relocations of @path: how many. */
static size_t jump_slots(const char *path)
{
	char cmd[1024], line[1024];
	size_t n = 0;
	snprintf(cmd, sizeof(cmd), "aarch64-linux-gnu-readelf -rW %s", path);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p))
		n += strstr(line, "R_AARCH64_JUMP_SLOT") != NULL;
	pclose(p);
	return n;
}

/*
 * Every instruction objdump lists in .plt: under "<func@plt>" hpmon must
 * name it func@plt, starting where objdump's label does, with the stub's
 * size; under the header ("<.plt>", PLT0) hpmon names nothing. Returns
 * the number of stubs.
 */
static size_t check_plt(const char *path)
{
	char cmd[1024], line[1024], cur[512] = "";
	unsigned long long cur_start = 0, a;
	size_t stubs = 0, insns = 0;
	struct hpm_dso *d = hpm_dso__open(path, NULL);
	assert_non_null(d);
	assert_string_equal(hpm_dso__arch(d), "aarch64");
	snprintf(cmd, sizeof(cmd), "aarch64-linux-gnu-objdump -d --no-show-raw-insn -j .plt %s", path);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		char name[512];
		if (sscanf(line, "%llx <%511[^>]>:", &a, name) == 2) {
			snprintf(cur, sizeof(cur), "%s", name);
			cur_start = a;
			stubs += strstr(cur, "@plt") != NULL;
			continue;
		}
		if (!cur[0] || line[0] != ' ' || sscanf(line, " %llx:", &a) != 1)
			continue;
		struct hpm_symbol s;
		int rc = hpm_dso__lookup(d, a, 0, &s);
		if (!strstr(cur, "@plt")) {
			if (rc != -ENOENT)
				fail_msg("%s: 0x%llx in the PLT header (%s) is named %s", path, a, cur,
					 s.name);
			continue;
		}
		if (rc || strcmp(s.name, cur))
			fail_msg("%s: 0x%llx: objdump says %s, hpmon %s", path, a, cur,
				 rc ? "nothing" : s.name);
		if (s.start != cur_start || s.offset != a - cur_start)
			fail_msg("%s: 0x%llx: %s starts at 0x%llx, hpmon says 0x%llx", path, a, cur,
				 cur_start, (unsigned long long)s.start);
		if (s.size != 16 && s.size != 24)
			fail_msg("%s: %s is %llu bytes long, not a stub's 16 (24 with BTI)", path, cur,
				 (unsigned long long)s.size);
		insns++;
	}
	pclose(p);
	hpm_dso__free(d);
	assert_true(insns >= 4 * stubs);
	return stubs;
}

static void test_plt(void **state)
{
	static const struct {
		const char *name, *flags;
	} builds[] = {
		{ "lazy", "-O1" },
		{ "now", "-O1 -Wl,-z,now" },
		{ "nopie", "-O1 -no-pie" },
		{ "bti", "-O1 -mbranch-protection=standard -Wl,-z,force-bti" },
		{ "lib.so", "-O1 -DLIB -fPIC -shared" },
	};
	char path[512], src[512];
	(void)state;
	need_cross();
	snprintf(src, sizeof(src), "%s/prog.c", tmpdir);
	write_file(src, prog_c);
	for (size_t i = 0; i < sizeof(builds) / sizeof(builds[0]); i++) {
		build(builds[i].flags, "prog.c", builds[i].name, path, sizeof(path));
		size_t slots = jump_slots(path);
		size_t stubs = check_plt(path);
		/* snprintf, malloc, strlen, memcpy, puts, free, strtol at least */
		if (slots < 7 || stubs != slots)
			fail_msg("%s: %zu stubs named for %zu JUMP_SLOT relocations", builds[i].name,
				 stubs, slots);
	}
}

static bool mapping_name(const char *n)
{
	return n[0] == '$' && n[1] && strchr("adtx", n[1]) && (!n[2] || n[2] == '.');
}

static void test_mapping_symbols(void **state)
{
	char path[512], src[512], cmd[1024], line[1024];
	size_t seen = 0;
	(void)state;
	need_cross();
	snprintf(src, sizeof(src), "%s/prog.c", tmpdir);
	write_file(src, prog_c);
	snprintf(src, sizeof(src), "%s/maps.S", tmpdir);
	write_file(src, maps_s);
	build("-O1 -mbranch-protection=standard -Wl,-z,force-bti", "prog.c maps.S", "maps", path,
	      sizeof(path));
	struct hpm_dso *d = hpm_dso__open(path, NULL);
	assert_non_null(d);

	/* at, and just after, every mapping symbol of the symbol table */
	snprintf(cmd, sizeof(cmd), "aarch64-linux-gnu-readelf -sW %s", path);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		unsigned long long a;
		char type[32], name[256];
		if (sscanf(line, " %*u: %llx %*u %31s %*s %*s %*s %255s", &a, type, name) != 3 ||
		    !mapping_name(name))
			continue;
		for (unsigned off = 0; off < 8; off += 4) {
			struct hpm_symbol s;
			if (hpm_dso__lookup(d, a + off, 0, &s) == 0 && s.name[0] == '$' &&
			    strcmp(s.name, "$xyz"))
				fail_msg("0x%llx (%s %s + %u) is named %s", a + off, type, name, off,
					 s.name);
		}
		seen++;
	}
	pclose(p);
	assert_true(seen >= 10); /* $x and $d of crt files, .plt, .init ... and maps.S */

	/* the functions of maps.S, by their addresses */
	uint64_t real, xyz, sz;
	struct hpm_symbol s;
	assert_int_equal(hpm_dso__find_function(d, "real_func", &real, &sz), 0);
	assert_int_equal(sz, 8);
	assert_int_equal(hpm_dso__lookup(d, real, 0, &s), 0); /* with "$x" here */
	assert_string_equal(s.name, "real_func");
	/* "$x.7" typed as a function: nothing (real_func ends before it) */
	assert_int_equal(hpm_dso__lookup(d, real + 8, 0, &s), -ENOENT);
	assert_int_equal(hpm_dso__lookup(d, real + 12, 0, &s), -ENOENT);
	/* "$xyz" is a function's name */
	assert_int_equal(hpm_dso__find_function(d, "$xyz", &xyz, &sz), 0);
	assert_int_equal(xyz, real + 16);
	assert_int_equal(hpm_dso__lookup(d, xyz, 0, &s), 0);
	assert_string_equal(s.name, "$xyz");
	/* "$d" typed as a function, after "$xyz": nothing */
	assert_int_equal(hpm_dso__lookup(d, xyz + 4, 0, &s), -ENOENT);
	hpm_dso__free(d);
}

/*
 * /proc/kallsyms of an arm64 kernel lists its modules' mapping symbols as
 * text ("t $x  [mod]"), at the address of a function or inside one; they
 * must neither name an address nor cut the function they sit in.
 */
static void test_kallsyms(void **state)
{
	static const char text[] =
		"ffff800008000000 T _text\n"
		"ffff800008010000 T core_fn\n"
		"ffff800008010080 t $d\n"
		"ffff800008010100 T core_fn2\n"
		"ffff80007bfb0000 t $x\t[openvswitch]\n"
		"ffff80007bfb0000 t ovs_fn\t[openvswitch]\n"
		"ffff80007bfb0040 t $x.3\t[openvswitch]\n"
		"ffff80007bfb0080 t $d.12\t[openvswitch]\n"
		"ffff80007bfb0100 t $xyz\t[openvswitch]\n"
		"ffff80007bfb0200 t ovs_fn2\t[openvswitch]\n"
		"ffff80007bfb6d60 d $d\t[openvswitch]\n";
	static const struct {
		uint64_t addr;
		const char *name;
		uint64_t start;
	} t[] = {
		{ 0xffff800008010000, "core_fn", 0xffff800008010000 },
		{ 0xffff800008010084, "core_fn", 0xffff800008010000 },
		{ 0xffff800008010100, "core_fn2", 0xffff800008010100 },
		{ 0xffff80007bfb0000, "ovs_fn", 0xffff80007bfb0000 },
		{ 0xffff80007bfb0044, "ovs_fn", 0xffff80007bfb0000 },
		{ 0xffff80007bfb0084, "ovs_fn", 0xffff80007bfb0000 },
		{ 0xffff80007bfb0104, "$xyz", 0xffff80007bfb0100 },
		{ 0xffff80007bfb0200, "ovs_fn2", 0xffff80007bfb0200 },
	};
	char path[512];
	(void)state;
	snprintf(path, sizeof(path), "%s/kallsyms", tmpdir);
	write_file(path, text);
	struct hpm_kallsyms *k = hpm_kallsyms__load(path);
	assert_non_null(k);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint64_t start = 0;
		const char *name = hpm_kallsyms__lookup(k, t[i].addr, &start);
		if (!name || strcmp(name, t[i].name) || start != t[i].start)
			fail_msg("0x%llx: want %s at 0x%llx, got %s at 0x%llx",
				 (unsigned long long)t[i].addr, t[i].name,
				 (unsigned long long)t[i].start, name ? name : "nothing",
				 (unsigned long long)start);
	}
	hpm_kallsyms__free(k);
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
		cmocka_unit_test(test_plt),
		cmocka_unit_test(test_mapping_symbols),
		cmocka_unit_test(test_kallsyms),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
