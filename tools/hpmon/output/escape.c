/* SPDX-License-Identifier: MIT */
/* Escaping of names for text and CSV output (escape.h). */
#include "output/escape.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Not valid: a stray continuation byte, an overlong form, a surrogate,
 * beyond U+10FFFF or cut short (the string's NUL is not a continuation
 * byte, so no read goes past it). */
size_t esc_utf8(const char *s, uint32_t *cp)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned char c = p[0];
	uint32_t v, min;
	size_t n;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2, v = c & 0x1f, min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3, v = c & 0x0f, min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4, v = c & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (p[i] & 0x3fu);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return n;
}

bool esc_format_char(uint32_t cp)
{
	return cp == 0x061c || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

#define UNIT_MAX 16 /* the longest escape: "\xc2\x9b" (8) and its NUL */

/* The character at @p: *@n gets its length in bytes; returns the length
 * of its escape, written to @out, or 0 when it is printed as it is. */
static size_t esc_unit(const unsigned char *p, char out[UNIT_MAX], size_t *n)
{
	uint32_t cp;
	size_t len = esc_utf8((const char *)p, &cp);

	if (!len) {
		*n = 1;
		return (size_t)snprintf(out, UNIT_MAX, "\\x%02x", p[0]);
	}
	*n = len;
	if (len == 1) {
		const char *e = cp == '\\' ? "\\\\" : cp == '\n' ? "\\n" : cp == '\t' ? "\\t"
							  : cp == '\r' ? "\\r" : NULL;
		if (e)
			return (size_t)snprintf(out, UNIT_MAX, "%s", e);
		if (cp < 0x20 || cp == 0x7f)
			return (size_t)snprintf(out, UNIT_MAX, "\\x%02x", (unsigned)cp);
		return 0;
	}
	if (cp <= 0x9f) /* a C1 control: two bytes, c2 80 to c2 9f */
		return (size_t)snprintf(out, UNIT_MAX, "\\x%02x\\x%02x", p[0], p[1]);
	if (esc_format_char(cp))
		return (size_t)snprintf(out, UNIT_MAX, "\\u%04x", (unsigned)cp);
	return 0;
}

/* Printable ASCII other than the backslash: the common case, kept. */
static bool plain(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '\\';
}

bool esc_needed(const char *s)
{
	char out[UNIT_MAX];
	size_t n;

	if (!s)
		return false;
	for (const unsigned char *p = (const unsigned char *)s; *p; p += n) {
		n = 1;
		if (!plain(*p) && esc_unit(p, out, &n))
			return true;
	}
	return false;
}

size_t esc_copy(char *buf, size_t len, const char *s)
{
	char out[UNIT_MAX];
	size_t pos = 0, fit = 0, n;

	if (!len)
		return 0;
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p += n) {
		size_t k = plain(*p) ? (n = 1, 0) : esc_unit(p, out, &n);
		const char *piece = k ? out : (const char *)p;
		size_t m = k ? k : n;
		if (pos + m + 1 > len) {
			/* cut after the last whole piece that leaves room for "..." */
			pos = fit;
			pos += (size_t)snprintf(buf + pos, len - pos, "%s", len > 3 ? "..." : "");
			return pos < len ? pos : len - 1;
		}
		memcpy(buf + pos, piece, m);
		pos += m;
		if (pos + 4 <= len)
			fit = pos;
	}
	buf[pos] = '\0';
	return pos;
}

/*
 * The next buffer of this thread's ring, or NULL without memory. The ring
 * is allocated at a thread's first escaped name, and freed when the thread
 * ends: as thread-local arrays its 32 KiB were zeroed by the dynamic
 * loader at every start of hpmon (8 page faults, bench/startup.sh) and at
 * every thread's, whether the thread escaped anything or not.
 */
struct esc_ring {
	unsigned next;
	char buf[ESC_RING][ESC_MAX];
};

static pthread_key_t ring_key;
static bool ring_key_ok;
static pthread_once_t ring_once = PTHREAD_ONCE_INIT;

static void ring_key_make(void)
{
	ring_key_ok = pthread_key_create(&ring_key, free) == 0;
}

static char *ring_next(void)
{
	static _Thread_local struct esc_ring *ring;

	if (!ring) {
		pthread_once(&ring_once, ring_key_make);
		if (!ring_key_ok || !(ring = malloc(sizeof(*ring))))
			return NULL;
		ring->next = 0;
		if (pthread_setspecific(ring_key, ring)) {
			free(ring);
			ring = NULL;
			return NULL;
		}
	}
	return ring->buf[ring->next++ % ESC_RING];
}

/* What stands for a name that needed escaping when there was no buffer
 * for its escaped copy: never the name itself. */
static const char no_memory[] = "(name not shown: out of memory)";

const char *esc_text(const char *s)
{
	if (!s)
		return "";
	if (!esc_needed(s))
		return s;
	char *b = ring_next();
	if (!b)
		return no_memory;
	esc_copy(b, ESC_MAX, s);
	return b;
}

const char *esc_csv(const char *s, const char *sep)
{
	const char *t = esc_text(s);

	if (!strchr(t, '"') && !(sep && sep[0] && strstr(t, sep)))
		return t;
	char *b = ring_next();
	size_t pos = 0;
	if (!b)
		return no_memory;
	b[pos++] = '"';
	for (const char *p = t; *p; p++) {
		/* room for this character doubled, "..." and the closing quote */
		if (pos + 2 + 3 + 2 > ESC_MAX) {
			memcpy(b + pos, "...", 3);
			pos += 3;
			break;
		}
		if (*p == '"')
			b[pos++] = '"';
		b[pos++] = *p;
	}
	b[pos++] = '"';
	b[pos] = '\0';
	return b;
}

int esc_fputs(const char *s, FILE *f)
{
	char out[UNIT_MAX];
	size_t n;

	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p += n) {
		size_t k = plain(*p) ? (n = 1, 0) : esc_unit(p, out, &n);
		if (k ? fputs(out, f) == EOF : fwrite(p, 1, n, f) != n)
			return EOF;
	}
	return 0;
}
