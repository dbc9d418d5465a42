/* SPDX-License-Identifier: MIT */
/*
 * One function of a loaded report (report/report.h) per instruction: its
 * disassembly, the source line of each instruction and the samples at
 * it. What `hpmon annotate` prints and what report --html shows when a
 * function of its table is clicked (picture-html.c), computed once here.
 *
 * Room: tools/hpmon/report/ owns the report layer (a profile read into tables, its listings, per-row metrics, a function per instruction); may use counting, cache, output.
 * Ownership: anno_load fills a struct anno the caller owns (zeroed or
 * not) and anno_free frees what it holds; the file names it hands out are
 * the symbol library's and live as long as the rep's objects (until
 * rep_free); instruction texts live in the anno. A struct anno_src keeps
 * the last source file read, as lines, until anno_src_free; the line it
 * returns is valid until the next call.
 */
#ifndef HPMON_TOOL_ANNOTATE_H
#define HPMON_TOOL_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rep;
struct rep_list;

struct anno_insn {
	uint64_t addr;          /* link-time, in the object */
	uint64_t samples;       /* of the event asked for */
	size_t text;            /* offset of its disassembly in anno.text */
	const char *file;       /* its source line (NULL: none known) */
	unsigned line;
};

struct anno {
	uint32_t sym;
	uint64_t samples;       /* in the function, of the event */
	struct anno_insn *v;
	size_t nr;
	char *text;             /* the instructions' texts, NUL-separated */
	size_t len, cap;
};

/* The symbol named @symbol (rep_sym_named) in one of @dsos (or any
 * object when it is empty) with the most samples of event @ev: its
 * index, or -1 when none has samples. */
long anno_find(const struct rep *r, const char *symbol, const struct rep_list *dsos, uint32_t ev);

/* Disassemble symbol @sym (at most its first MiB) with the samples of
 * event @ev at each instruction, and with @lines each instruction's
 * source line. 0; -ENOEXEC when it cannot be disassembled (its object
 * cannot be read, or its size is unknown), -ENOTSUP when hpmon does not
 * disassemble its architecture, -EIO when its code cannot be read,
 * -ENOMEM. */
int anno_load(struct anno *a, struct rep *r, uint32_t sym, uint32_t ev, bool lines);
void anno_free(struct anno *a);

static inline const char *anno_text(const struct anno *a, const struct anno_insn *i)
{
	return a->text + i->text;
}

/*
 * Line @n of source file @path, as read from it (no newline), or NULL
 * when the file or the line cannot be read. The file is named by the
 * object's DWARF, which whoever built the object wrote: only a regular
 * file is read (a FIFO, a device, /dev/zero behind a symlink are not, and
 * none is waited on), and only its first ANNO_SRC_MAX bytes and
 * ANNO_SRC_LINES lines (the lines past them are NULL).
 */
#define ANNO_SRC_MAX (16u << 20)
#define ANNO_SRC_LINES (1u << 20)
struct anno_src {
	char path[4096];
	char *text;           /* the file's bytes read, each line NUL-ended */
	size_t len;
	size_t *lines;        /* [nr]: where each line starts in text */
	size_t nr;
};
const char *anno_src_line(struct anno_src *s, const char *path, unsigned n);
void anno_src_free(struct anno_src *s);

#endif
