/* SPDX-License-Identifier: MIT */
/* Small readers of the files facts come from (sysinfo-internal.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/ctx-internal.h"
#include "sysinfo/sysinfo-internal.h"

/* Copy @src into @dst of @len bytes, cut short if need be. */
void hpm__si_copy_str(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Read <root>/<rel> as one integer; UNKNOWN when absent or malformed. */
int hpm__si_read_int(const char *root, const char *rel)
{
	char path[PATH_MAX];
	long v;

	if (hpm__path(path, sizeof(path), root, "%s", rel) ||
	    hpm__read_long(path, &v) || v < INT32_MIN + 1 || v > INT32_MAX)
		return UNKNOWN;
	return (int)v;
}

/* Read <root>/<rel> into @buf; "" when absent. */
void hpm__si_read_str(const char *root, const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX];

	buf[0] = '\0';
	if (hpm__path(path, sizeof(path), root, "%s", rel) ||
	    hpm__read_text(path, buf, len) < 0)
		buf[0] = '\0';
}

/*
 * Find "key<spaces>: value" in @text (procfs cpuinfo/status style) and
 * copy the value, trimmed, into @buf. Only the first match counts, which
 * for cpuinfo is CPU 0.
 */
bool hpm__si_find_key(const char *text, const char *key, char *buf, size_t len)
{
	size_t klen = strlen(key);

	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		const char *end = nl ? nl : line + strlen(line);
		const char *v = line + klen;
		if ((size_t)(end - line) > klen && !strncmp(line, key, klen)) {
			while (v < end && (*v == ' ' || *v == '\t'))
				v++;
			if (v < end && *v == ':') {
				v++;
				while (v < end && isspace((unsigned char)*v))
					v++;
				size_t vl = (size_t)(end - v);
				while (vl && isspace((unsigned char)v[vl - 1]))
					vl--;
				if (vl >= len)
					vl = len - 1;
				memcpy(buf, v, vl);
				buf[vl] = '\0';
				return true;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	return false;
}

/* The first @len - 1 bytes of a file, NUL-terminated: 0 or -errno. */
int hpm__si_read_head(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;

	buf[0] = '\0';
	if (fd < 0)
		return -errno;
	while (got < len - 1) {
		ssize_t n = read(fd, buf + got, len - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	close(fd);
	return 0;
}

/* Parse a CPU list such as "0-3,8,10-11". 0 or -EINVAL. */
int hpm__si_cpulist(const char *s, cpu_set_t *set)
{
	CPU_ZERO(set);
	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b = a;
		if (end == s || a < 0)
			return -EINVAL;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1 || b < a)
				return -EINVAL;
			s = end;
		}
		for (long c = a; c <= b && c < CPU_SETSIZE; c++)
			CPU_SET((int)c, set);
		if (*s == ',')
			s++;
		else if (*s)
			return -EINVAL;
	}
	return 0;
}
