/* SPDX-License-Identifier: MIT */
/*
 * Escaping of strings that come from profiles and from the system (comm,
 * file and object paths, symbol names, event and metric names, the command
 * line) for hpmon's text output, so that none can move the cursor, change
 * the terminal's state or add a row of its own (docs/hpmon-report.md,
 * "Names in the output"):
 *
 *   backslash            \\
 *   newline, tab, CR     \n  \t  \r
 *   other C0, DEL        \xNN  (ESC is \x1b)
 *   a byte that is not part of valid UTF-8 (C1 bytes 0x80-0x9f among them),
 *   a C1 control written as UTF-8 (U+0080-U+009F)
 *                        \xNN  for each byte
 *   bidirectional and line-separator formatting characters
 *   (U+061C, U+200E, U+200F, U+2028-U+202E, U+2066-U+2069)
 *                        \uXXXX
 *
 * Every other valid UTF-8 character is kept as it is. JSON keeps its own
 * rules (json.c: \uXXXX for the same characters, so that a parser gets
 * the exact name back); CSV fields are text-escaped and then quoted
 * (esc_csv).
 *
 * Room: tools/hpmon/output/ owns what the tool says and writes (advice, escaping, JSON, output files and names, exit codes); may use libc only.
 * Ownership: esc_text and esc_csv return either their argument (nothing to
 * escape: no copy, any length) or a buffer of this thread's that stays
 * valid until ESC_RING further calls of either in the same thread; so one
 * printf may use up to ESC_RING of them. An escaped copy is cut at
 * ESC_MAX bytes (ending in "...") so that a hostile name cannot make it
 * grow without bound. A thread's buffers are allocated at its first copy
 * and freed when it ends; without memory for them, a fixed text stands
 * for the name (never the name unescaped).
 */
#ifndef HPMON_TOOL_ESCAPE_H
#define HPMON_TOOL_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ESC_RING 8
#define ESC_MAX 4096

/* true when @s holds anything esc_text changes. NULL is clean. */
bool esc_needed(const char *s);

/* @s escaped for text output (see above); "" for NULL. */
const char *esc_text(const char *s);

/* @s as one field of a CSV line separated by @sep: text-escaped (so a
 * field never spans lines nor holds control bytes), then in double quotes
 * with inner quotes doubled when it holds @sep or '"' (RFC 4180). */
const char *esc_csv(const char *s, const char *sep);

/* Escape @s into @buf of @len bytes (always terminated; cut on a whole
 * escape, with "..." when it does not fit). Returns the length written. */
size_t esc_copy(char *buf, size_t len, const char *s);

/* The valid UTF-8 character that @s starts: its length in bytes (1 to 4),
 * its code point in *@cp; 0 when @s starts no valid character. */
size_t esc_utf8(const char *s, uint32_t *cp);

/* Characters that print nothing but reorder the text around them (bidi
 * controls, "Trojan Source") or end a line for some terminals: the
 * \uXXXX of the table above. */
bool esc_format_char(uint32_t cp);

/* Write @s escaped to @f, whatever its length. Returns fputs's result. */
int esc_fputs(const char *s, FILE *f);

#endif
