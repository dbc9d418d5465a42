/* SPDX-License-Identifier: MIT */
/*
 * The names of metric expressions as perf writes them (docs/vendor-tables.md):
 * its literals (#SMT_on ...), and its PMU events written with '@' for '/'
 * and '\' escapes, turned into the event specs hpmon resolves.
 */
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "metrics/expr-names-internal.h"

static const char *const literals[] = {
	"#SMT_on", "#core_wide", "#num_cpus", "#num_cpus_online", "#num_cores",
	"#num_dies", "#num_packages", "#slots", "#system_tsc_freq",
};

const char *hpm_expr__literal(const char *name)
{
	for (size_t i = 0; i < sizeof(literals) / sizeof(literals[0]); i++)
		if (!strcasecmp(name, literals[i]))
			return literals[i];
	return NULL;
}

/* The name of [pos, pos + len) as an event spec: perf's escapes '\x'
 * undone, its '@' written '/' (cpu@EVENT\,cmask\=1@: cpu/EVENT,cmask=1/);
 * a literal in its canonical spelling. Into @buf (HPM_EXPR_MAX_NAME + 1). */
void hpm_expr__ref_name(const char *s, size_t len, bool quoted, char *buf)
{
	size_t o = 0;
	if (!quoted && s[0] == '#') {
		memcpy(buf, s, len);
		buf[len] = '\0';
		const char *lit = hpm_expr__literal(buf);
		if (lit)
			memcpy(buf, lit, strlen(lit) + 1);
		return;
	}
	for (size_t i = 0; i < len; i++) {
		if (!quoted && s[i] == '\\' && i + 1 < len)
			buf[o++] = s[++i];
		else if (!quoted && s[i] == '@')
			buf[o++] = '/';
		else
			buf[o++] = s[i];
	}
	buf[o] = '\0';
}
