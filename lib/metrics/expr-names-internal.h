/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/metrics/ owns metric expressions, sets and selections; may use events, core, sys.
 *
 * perf's names in metric formulas (metrics/expr-names.c): its literals
 * and its PMU events written pmu@terms@, as hpmon names them.
 *
 * Ownership: nothing is kept; the strings returned are constants.
 */
#ifndef HPM_EXPR_NAMES_INTERNAL_H
#define HPM_EXPR_NAMES_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

/* The canonical spelling of literal @name (#SMT_on, #num_packages ...;
 * case-insensitive), or NULL when it is none. */
const char *hpm_expr__literal(const char *name);
/* The name written [@s, @s + @len) as an event spec, into @buf (room for
 * HPM_EXPR_MAX_NAME + 1; @len at most HPM_EXPR_MAX_NAME): perf's escapes
 * '\x' undone and its '@' written '/' (cpu@EVENT\,cmask\=1@ is
 * cpu/EVENT,cmask=1/), a literal in its canonical spelling; @quoted: as
 * written. */
void hpm_expr__ref_name(const char *s, size_t len, bool quoted, char *buf);

#endif
