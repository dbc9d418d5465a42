/* SPDX-License-Identifier: MIT */
/*
 * Location events: "exec:" specifications and their resolution against a
 * program's ELF symbols and DWARF lines, its libraries and its mappings.
 * Choosing the mechanism and attaching them is lib/attach/attach.c; the
 * sessions open them (lib/count/session.c, lib/sample/record-open.c).
 *
 *   exec:FUNC             entry of FUNC (the program, else its libraries)
 *   exec:FUNC%return      FUNC's returns (a uretprobe)
 *   exec:FILE:LINE        the first instruction of LINE's code
 *   exec:0xADDR           a link-time address of the program
 *   exec:OBJECT:FUNC ...  the same in a shared library (name or path)
 *   ...:bp | ...:uprobe   the mechanism, else chosen (lib/attach/attach.c, plan())
 *
 * Mechanisms. A hardware breakpoint (PERF_TYPE_BREAKPOINT, execute) counts
 * exactly, needs no privilege for one's own processes, but each thread has
 * only a few (x86: 4 debug registers; arm64: 2-16, 6 on most cores) and
 * it needs the runtime address. A uprobe (the "uprobe" PMU: file and
 * offset) has no limit and needs no address, but needs CAP_PERFMON or
 * root. Both are opened inherited, so threads and children count too.
 *
 * Runtime addresses. Position-independent code is loaded at a base the
 * kernel picks at exec. For a launched command the session therefore
 * stops it at its exec (ptrace, PTRACE_O_TRACEEXEC), reads its mappings,
 * opens the breakpoints on the stopped process and lets it go: not one
 * instruction of the program runs uncounted. Breakpoints in shared
 * libraries need the libraries mapped: the command is run on to its entry
 * point (a temporary trap there), which misses what library constructors
 * and the dynamic loader execute before it. Uprobes are opened at the exec
 * stop too and see everything.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <fcntl.h>
#include <gelf.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <elf.h>

#include <hpmon/hpmon.h>
#include <hpmon/symbols.h>

#include "core/file-internal.h"
#include "location/location-internal.h"
#include "core/error-internal.h"

/* ---- parsing ---- */


static bool all_digits(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

static bool parse_hex(const char *s, size_t n, uint64_t *v)
{
	if (n < 3 || n > 18 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return false;
	*v = 0;
	for (size_t i = 2; i < n; i++) {
		int c = tolower((unsigned char)s[i]);
		if (!isxdigit(c))
			return false;
		*v = *v << 4 | (uint64_t)(isdigit(c) ? c - '0' : c - 'a' + 10);
	}
	return true;
}

static const char loc_forms[] =
	"write exec:FUNC, exec:FUNC%return, exec:FILE:LINE, exec:0xADDR or "
	"exec:OBJECT:FUNC, optionally ending in :bp or :uprobe";

/* FUNC[%return] or 0xADDR[%return] at @p (@n bytes, offset @pos). */
static int parse_target(const char *p, size_t n, size_t pos, struct hpm_location *loc,
			size_t *errpos, char *msg, size_t msglen)
{
	static const char ret[] = "%return";
	size_t rl = sizeof(ret) - 1;

	if (n >= rl && !memcmp(p + n - rl, ret, rl)) {
		loc->ret = true;
		n -= rl;
	}
	if (memchr(p, '%', n))
		return hpm__parse_fail(errpos, pos, msg, msglen, -HPM_ERR_BAD_MODIFIER,
			    "'%.*s': the only suffix after %% is %%return", (int)n, p);
	if (n >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		if (!parse_hex(p, n, &loc->addr))
			return hpm__parse_fail(errpos, pos, msg, msglen, -HPM_ERR_BAD_VALUE,
				    "'%.*s' is not an address (write exec:0x401136)", (int)n, p);
		loc->kind = HPM_LOC_ADDR;
		return 0;
	}
	if (!n || n >= sizeof(loc->func))
		return hpm__parse_fail(errpos, pos, msg, msglen, -HPM_ERR_SYNTAX,
			    "missing or overlong function name: %s", loc_forms);
	for (size_t i = 0; i < n; i++)
		if (isspace((unsigned char)p[i]) || p[i] == '/')
			return hpm__parse_fail(errpos, pos + i, msg, msglen, -HPM_ERR_SYNTAX,
				    "'%.*s' is not a function name: %s", (int)n, p, loc_forms);
	memcpy(loc->func, p, n);
	loc->func[n] = '\0';
	loc->kind = HPM_LOC_FUNC;
	return 0;
}

static int copy_part(char *dst, size_t cap, const char *p, size_t n)
{
	if (!n || n >= cap)
		return -1;
	memcpy(dst, p, n);
	dst[n] = '\0';
	return 0;
}

int hpm__loc_parse(const char *s, size_t len, struct hpm_location *loc, size_t *errpos,
		   char *msg, size_t msglen)
{
	const char *part[4];
	size_t plen[4], ppos[4], np = 0, i = 5;

	memset(loc, 0, sizeof(*loc));
	if (len < 5 || memcmp(s, "exec:", 5))
		return hpm__parse_fail(errpos, 0, msg, msglen, -HPM_ERR_SYNTAX, "not a location: %s",
			    loc_forms);
	/* split the rest on ':' */
	while (i <= len) {
		size_t j = i;
		while (j < len && s[j] != ':')
			j++;
		if (np == 4)
			return hpm__parse_fail(errpos, i, msg, msglen, -HPM_ERR_SYNTAX,
				    "too many ':' in '%.*s': %s", (int)len, s, loc_forms);
		part[np] = s + i;
		plen[np] = j - i;
		ppos[np] = i;
		if (!plen[np])
			return hpm__parse_fail(errpos, i, msg, msglen, -HPM_ERR_SYNTAX,
				    "empty part in '%.*s': %s", (int)len, s, loc_forms);
		np++;
		i = j + 1;
	}
	/* the mechanism */
	if (np > 1 && plen[np - 1] == 2 && !memcmp(part[np - 1], "bp", 2)) {
		loc->mech = HPM_LOC_BP;
		np--;
	} else if (np > 1 && plen[np - 1] == 6 && !memcmp(part[np - 1], "uprobe", 6)) {
		loc->mech = HPM_LOC_UPROBE;
		np--;
	}
	switch (np) {
	case 1:
		return parse_target(part[0], plen[0], ppos[0], loc, errpos, msg, msglen);
	case 2:
		if (all_digits(part[1], plen[1]))
			goto line;
		if (copy_part(loc->object, sizeof(loc->object), part[0], plen[0]))
			return hpm__parse_fail(errpos, ppos[0], msg, msglen, -HPM_ERR_SYNTAX,
				    "object name too long");
		return parse_target(part[1], plen[1], ppos[1], loc, errpos, msg, msglen);
	case 3:
		if (!all_digits(part[2], plen[2]))
			return hpm__parse_fail(errpos, ppos[2], msg, msglen, -HPM_ERR_SYNTAX,
				    "'%.*s' is not a line number: %s", (int)plen[2], part[2],
				    loc_forms);
		if (copy_part(loc->object, sizeof(loc->object), part[0], plen[0]))
			return hpm__parse_fail(errpos, ppos[0], msg, msglen, -HPM_ERR_SYNTAX,
				    "object name too long");
		part[0] = part[1];
		plen[0] = plen[1];
		ppos[0] = ppos[1];
		part[1] = part[2];
		plen[1] = plen[2];
		ppos[1] = ppos[2];
		goto line;
	default:
		return hpm__parse_fail(errpos, ppos[np - 1], msg, msglen, -HPM_ERR_SYNTAX,
			    "cannot read '%.*s': %s", (int)len, s, loc_forms);
	}
line:
	if (copy_part(loc->file, sizeof(loc->file), part[0], plen[0]))
		return hpm__parse_fail(errpos, ppos[0], msg, msglen, -HPM_ERR_SYNTAX, "file name too long");
	if (plen[1] > 7 || (loc->line = (unsigned)strtoul(part[1], NULL, 10)) == 0)
		return hpm__parse_fail(errpos, ppos[1], msg, msglen, -HPM_ERR_BAD_VALUE,
			    "line '%.*s' out of range (1 to 9999999)", (int)plen[1], part[1]);
	loc->kind = HPM_LOC_LINE;
	return 0;
}

/* ---- ELF facts (libelf) ---- */

struct elf_facts {
	int type;                 /* ET_EXEC, ET_DYN */
	int machine;
	char needed[32][128];     /* DT_NEEDED */
	unsigned nr_needed;
	char runpath[1024];       /* DT_RUNPATH, else DT_RPATH */
	struct { uint64_t lo, hi; } text[8]; /* executable PT_LOAD segments */
	unsigned nr_text;
};

static int elf_facts(const char *path, struct elf_facts *f)
{
	int fd = hpm__open_input(path, 0, NULL); /* a FIFO would block libelf */
	Elf *e;
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;
	int rc = 0;

	memset(f, 0, sizeof(*f));
	if (fd < 0)
		return fd;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh)) {
		rc = -ENOEXEC;
		goto out;
	}
	f->type = eh.e_type;
	f->machine = eh.e_machine;
	size_t nph = 0;
	if (elf_getphdrnum(e, &nph) == 0)
		for (size_t i = 0; i < nph && f->nr_text < 8; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
				f->text[f->nr_text].lo = ph.p_vaddr;
				f->text[f->nr_text++].hi = ph.p_vaddr + ph.p_memsz;
			}
		}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;
			if (!gelf_getdyn(d, (int)i, &dyn))
				break;
			const char *str = NULL;
			if (dyn.d_tag == DT_NEEDED || dyn.d_tag == DT_RUNPATH || dyn.d_tag == DT_RPATH)
				str = elf_strptr(e, sh.sh_link, dyn.d_un.d_val);
			if (!str)
				continue;
			if (dyn.d_tag == DT_NEEDED && f->nr_needed < 32)
				snprintf(f->needed[f->nr_needed++], sizeof(f->needed[0]), "%s", str);
			else if (dyn.d_tag == DT_RUNPATH || (dyn.d_tag == DT_RPATH && !f->runpath[0]))
				snprintf(f->runpath, sizeof(f->runpath), "%s", str);
		}
	}
out:
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}

/* ---- finding a library ---- */

static const char *triplet(int machine)
{
	switch (machine) {
	case EM_X86_64: return "x86_64-linux-gnu";
	case EM_AARCH64: return "aarch64-linux-gnu";
	case EM_386: return "i386-linux-gnu";
	case EM_ARM: return "arm-linux-gnueabihf";
	case EM_RISCV: return "riscv64-linux-gnu";
	default: return "";
	}
}

/* @dir/@name if it is an ELF object for @machine: its real path. */
static bool try_dir(const char *dir, size_t dlen, const char *name, int machine, char *out)
{
	char p[PATH_MAX];
	struct elf_facts f;

	if (!dlen || dlen + strlen(name) + 2 > sizeof(p))
		return false;
	snprintf(p, sizeof(p), "%.*s/%s", (int)dlen, dir, name);
	if (access(p, R_OK) || elf_facts(p, &f) || f.machine != machine)
		return false;
	return realpath(p, out) != NULL;
}

/* Every directory of a ':'-separated list, $ORIGIN expanded. */
static bool try_list(const char *list, const char *origin, const char *name, int machine,
		     char *out)
{
	while (list && *list) {
		const char *end = strchr(list, ':');
		size_t n = end ? (size_t)(end - list) : strlen(list);
		char dir[PATH_MAX];
		if (n >= 7 && !strncmp(list, "$ORIGIN", 7) && origin) {
			snprintf(dir, sizeof(dir), "%s%.*s", origin, (int)(n - 7), list + 7);
		} else if (n >= 9 && !strncmp(list, "${ORIGIN}", 9) && origin) {
			snprintf(dir, sizeof(dir), "%s%.*s", origin, (int)(n - 9), list + 9);
		} else {
			snprintf(dir, sizeof(dir), "%.*s", (int)n, list);
		}
		if (try_dir(dir, strlen(dir), name, machine, out))
			return true;
		list = end ? end + 1 : NULL;
	}
	return false;
}

/* Directories of /etc/ld.so.conf (one level of "include GLOB"). */
static bool try_ldconf(const char *conf, const char *name, int machine, char *out, int depth)
{
	FILE *f = fopen(conf, "re");
	char line[PATH_MAX];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *p = line;
		line[strcspn(line, "#\n")] = '\0';
		while (isspace((unsigned char)*p))
			p++;
		size_t n = strlen(p);
		while (n && isspace((unsigned char)p[n - 1]))
			p[--n] = '\0';
		if (!n)
			continue;
		if (!strncmp(p, "include", 7) && isspace((unsigned char)p[7]) && depth < 2) {
			glob_t g;
			p += 8;
			while (isspace((unsigned char)*p))
				p++;
			if (glob(p, 0, NULL, &g) == 0) {
				for (size_t i = 0; !found && i < g.gl_pathc; i++)
					found = try_ldconf(g.gl_pathv[i], name, machine, out, depth + 1);
				globfree(&g);
			}
			continue;
		}
		if (*p == '/')
			found = try_dir(p, n, name, machine, out);
	}
	fclose(f);
	return found;
}

/* The file of library @name as the program @prog would load it. */
static bool find_library(const char *name, const char *prog, const struct elf_facts *pf,
			 const char *lib_path, char *out)
{
	char origin[PATH_MAX];
	const char *slash = strrchr(prog, '/');
	char dirs[6][64];
	const char *t = triplet(pf->machine);

	snprintf(origin, sizeof(origin), "%.*s", slash ? (int)(slash - prog) : 1,
		 slash ? prog : ".");
	/* the loader's order: RUNPATH (after LD_LIBRARY_PATH), the cache
	 * (ld.so.conf), the default directories */
	if (lib_path && try_list(lib_path, origin, name, pf->machine, out))
		return true;
	if (pf->runpath[0] && try_list(pf->runpath, origin, name, pf->machine, out))
		return true;
	if (try_ldconf("/etc/ld.so.conf", name, pf->machine, out, 0))
		return true;
	snprintf(dirs[0], sizeof(dirs[0]), "/lib/%s", t);
	snprintf(dirs[1], sizeof(dirs[1]), "/usr/lib/%s", t);
	snprintf(dirs[2], sizeof(dirs[2]), "/lib64");
	snprintf(dirs[3], sizeof(dirs[3]), "/usr/lib64");
	snprintf(dirs[4], sizeof(dirs[4]), "/lib");
	snprintf(dirs[5], sizeof(dirs[5]), "/usr/lib");
	for (int i = 0; i < 6; i++)
		if (try_dir(dirs[i], strlen(dirs[i]), name, pf->machine, out))
			return true;
	return false;
}

/* Does the needed name @n stand for what the user wrote, @want? "libm",
 * "m" and "libm.so" all mean libm.so.6. */
static bool needed_matches(const char *n, const char *want)
{
	size_t wl = strlen(want);
	char lib[HPM_LOC_NAME_MAX + 8];

	if (!strcmp(n, want))
		return true;
	if (!strncmp(n, want, wl) && n[wl] == '.' && !strncmp(n + wl, ".so", 3))
		return true;
	if (!strncmp(n, want, wl) && (n[wl] == '.' || n[wl] == '-') && strstr(want, ".so"))
		return true;
	snprintf(lib, sizeof(lib), "lib%s.so", want);
	return !strncmp(n, lib, strlen(lib));
}

/* The object @want (a path, or a library name) of program @prog. */
static int find_object(const char *want, const char *prog, const char *lib_path, char *out,
		       char *msg, size_t msglen)
{
	struct elf_facts pf;
	int rc;

	if (strchr(want, '/')) {
		if (!realpath(want, out))
			return snprintf(msg, msglen, "object '%s': %s", want, strerror(errno)), -ENOENT;
		return 0;
	}
	rc = elf_facts(prog, &pf);
	if (rc) {
		snprintf(msg, msglen, "cannot read the program %s: %s", prog, hpm_strerror(rc));
		return rc;
	}
	for (unsigned i = 0; i < pf.nr_needed; i++)
		if (needed_matches(pf.needed[i], want) &&
		    find_library(pf.needed[i], prog, &pf, lib_path, out))
			return 0;
	/* not a direct dependency: one loaded later, by its file name */
	if (strstr(want, ".so") && find_library(want, prog, &pf, lib_path, out))
		return 0;
	char list[256] = "";
	size_t off = 0;
	for (unsigned i = 0; i < pf.nr_needed && off < sizeof(list) - 40; i++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s", i ? ", " : "",
					pf.needed[i]);
	snprintf(msg, msglen,
		 "no library '%s' for %s: not among its libraries (%s) nor found by its file "
		 "name on the library path; give the library's path",
		 want, prog, off ? list : "none");
	return -ENOENT;
}

/* ---- resolution ---- */

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* FILE:LINE in @d: the lowest address of the line's code, which must lie
 * in one function. */
static int resolve_line(struct hpm_dso *d, const struct hpm_location *loc, const char *path,
			uint64_t *addr, char *msg, size_t msglen)
{
	uint64_t a[64], best[8];
	const char *fn[8];
	size_t n = 0, nf = 0;

	if (!hpm_dso__has_lines(d)) {
		snprintf(msg, msglen, "%s has no line information (build it with -g, or install "
			 "its debug file)", path);
		return -ENOENT;
	}
	if (hpm_dso__find_line(d, loc->file, loc->line, a, 64, &n) || !n) {
		snprintf(msg, msglen, "%s has no source file '%s' with code at line %u", path,
			 loc->file, loc->line);
		return -ENOENT;
	}
	if (n > 64)
		n = 64;
	unsigned next = 0;
	for (size_t i = 0; i < n; i++) {
		struct hpm_symbol sym;
		hpm_dso__lookup(d, a[i], HPM_SYM_LINES, &sym);
		if (sym.line != loc->line) {
			/* the nearest line after it that has code */
			if (sym.line > loc->line && (!next || sym.line < next))
				next = sym.line;
			continue;
		}
		size_t k = 0;
		while (k < nf && !(fn[k] && sym.name && !strcmp(fn[k], sym.name)))
			k++;
		if (k == nf) {
			if (nf == 8)
				continue;
			fn[nf] = sym.name;
			best[nf++] = a[i];
		} else if (a[i] < best[k]) {
			best[k] = a[i];
		}
	}
	if (!nf) {
		if (next)
			snprintf(msg, msglen, "line %u of %s has no code (the next line with code "
				 "is %u)", loc->line, loc->file, next);
		else
			snprintf(msg, msglen, "line %u of %s has no code", loc->line, loc->file);
		return -ENOENT;
	}
	if (nf > 1) {
		int off = snprintf(msg, msglen, "line %u of %s has code in %zu functions (",
				   loc->line, loc->file, nf);
		for (size_t k = 0; k < nf && off > 0 && (size_t)off < msglen; k++)
			off += snprintf(msg + off, msglen - (size_t)off, "%s%s at 0x%llx",
					k ? ", " : "", fn[k] ? fn[k] : "?",
					(unsigned long long)best[k]);
		if (off > 0 && (size_t)off < msglen)
			snprintf(msg + off, msglen - (size_t)off, "): name one with exec:0xADDR");
		return -EINVAL;
	}
	*addr = best[0];
	return 0;
}

static bool in_text(const char *path, uint64_t addr)
{
	struct elf_facts f;
	if (elf_facts(path, &f))
		return false;
	for (unsigned i = 0; i < f.nr_text; i++)
		if (addr >= f.text[i].lo && addr < f.text[i].hi)
			return true;
	return false;
}

/* @loc in the object @path. -ENOENT (with @msg) when it is not there. */
static int resolve_in(const struct hpm_location *loc, const char *path, const char *debug_dir,
		      struct hpm_loc_result *out, char *msg, size_t msglen)
{
	struct hpm_dso_opts o = { .sz = sizeof(o), .debug_dir = debug_dir };
	struct hpm_dso *d = hpm_dso__open(path, &o);
	uint64_t addr = 0, size = 0;
	int rc = 0;

	if (!d) {
		rc = -errno;
		snprintf(msg, msglen, "cannot read %s: %s", path,
			 rc == -EBADMSG ? "not an ELF object" : hpm_strerror(rc));
		return rc;
	}
	switch (loc->kind) {
	case HPM_LOC_FUNC:
		rc = hpm_dso__find_function(d, loc->func, &addr, &size);
		if (rc)
			snprintf(msg, msglen, "no function '%s' in %s%s", loc->func, path,
				 hpm_dso__has_symbols(d) ? "" : " (it has no symbol table)");
		break;
	case HPM_LOC_LINE:
		rc = resolve_line(d, loc, path, &addr, msg, msglen);
		break;
	case HPM_LOC_ADDR:
		addr = loc->addr;
		break;
	}
	if (!rc && (hpm_dso__addr_to_offset(d, addr, &out->offset) || !in_text(path, addr))) {
		snprintf(msg, msglen, "address 0x%llx is not in the code of %s",
			 (unsigned long long)addr, path);
		rc = -ENOENT;
	}
	if (!rc) {
		struct hpm_symbol sym;
		out->addr = addr;
		snprintf(out->path, sizeof(out->path), "%s", path);
		out->entry = false;
		if (hpm_dso__lookup(d, addr, 0, &sym) == 0 && sym.name) {
			out->entry = sym.offset == 0;
			snprintf(out->where, sizeof(out->where), "%s%s+0x%llx in %s",
				 sym.name, loc->ret ? "%return" : "",
				 (unsigned long long)sym.offset, base_name(path));
		} else {
			snprintf(out->where, sizeof(out->where), "0x%llx in %s",
				 (unsigned long long)addr, base_name(path));
		}
	}
	hpm_dso__free(d);
	return rc;
}

int hpm__loc_resolve(const struct hpm_location *loc, const struct hpm_loc_env *env,
		     struct hpm_loc_result *out, char *msg, size_t msglen)
{
	char path[PATH_MAX];
	struct elf_facts f;
	int rc;

	memset(out, 0, sizeof(*out));
	msg[0] = '\0';
	if (!env->program || !realpath(env->program, path)) {
		snprintf(msg, msglen, "cannot find the program%s%s", env->program ? " " : "",
			 env->program ? env->program : "");
		return -ENOENT;
	}
	if (loc->object[0]) {
		char obj[PATH_MAX];
		rc = find_object(loc->object, path, env->lib_path, obj, msg, msglen);
		if (rc)
			return rc;
		rc = resolve_in(loc, obj, env->debug_dir, out, msg, msglen);
		out->in_program = !strcmp(obj, path);
	} else {
		rc = resolve_in(loc, path, env->debug_dir, out, msg, msglen);
		out->in_program = true;
		if (rc == -ENOENT && loc->kind == HPM_LOC_FUNC) {
			/* not in the program: its libraries, in load order */
			struct elf_facts pf;
			char lib[PATH_MAX], m2[256];
			if (elf_facts(path, &pf) == 0)
				for (unsigned i = 0; i < pf.nr_needed && rc; i++)
					if (find_library(pf.needed[i], path, &pf, env->lib_path, lib) &&
					    resolve_in(loc, lib, env->debug_dir, out, m2, sizeof(m2)) == 0)
						rc = 0, out->in_program = false;
			if (rc && pf.nr_needed)
				snprintf(msg, msglen, "no function '%s' in %s or its libraries",
					 loc->func, path);
		}
	}
	if (rc)
		return rc;
	if (elf_facts(out->path, &f) == 0)
		out->dyn = f.type == ET_DYN;
	return 0;
}

/* ---- runtime addresses ---- */

int hpm__loc_runtime_addr(const struct hpm_loc_result *r, const char *procfs, pid_t pid,
			  uint64_t *addr)
{
	char path[PATH_MAX], line[PATH_MAX + 128];
	struct stat st;
	FILE *f;
	int rc = -ENOENT;

	if (!r->dyn) {
		*addr = r->addr; /* linked at its runtime address */
		return 0;
	}
	if (stat(r->path, &st))
		return -errno;
	snprintf(path, sizeof(path), "%s/%d/maps", procfs, (int)pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff, ino;
		unsigned maj, min;
		if (sscanf(line, "%llx-%llx %*s %llx %x:%x %llu", &start, &end, &pgoff, &maj, &min,
			   &ino) != 6)
			continue;
		if (ino != st.st_ino || maj != major(st.st_dev) || min != minor(st.st_dev))
			continue;
		if (r->offset >= pgoff && r->offset < pgoff + (end - start)) {
			*addr = start + (r->offset - pgoff);
			rc = 0;
			break;
		}
	}
	fclose(f);
	return rc;
}

