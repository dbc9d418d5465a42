/* SPDX-License-Identifier: MIT */
/*
 * A vendor metric as perf 6.1 prints it (util/stat-shadow.c
 * generic_metric, util/stat-display.c): its "metric-unit", the unit, two
 * blanks and the name, or the name alone without a unit, in a 64-byte
 * buffer; in CSV its value printed "%8.1f" with a unit, "%8.2f" without,
 * of which perf keeps the leading digits and '.'. Apart from
 * print-stat.c, which JSON and CSV share it with.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "stat/stat.h"

void stat_perf_metric_unit(const char *name, const char *unit, char *buf, size_t len)
{
	char b[64];
	if (unit && unit[0])
		snprintf(b, sizeof(b), "%s  %s", unit, name);
	else
		snprintf(b, sizeof(b), "%s", name);
	snprintf(buf, len, "%s", b);
}

void stat_perf_csv_value(double v, bool has_unit, char *buf, size_t len)
{
	char b[64];
	const char *p = b;
	size_t n = 0;

	snprintf(b, sizeof(b), has_unit ? "%8.1f" : "%8.2f", v);
	while (*p == ' ')
		p++;
	while (isdigit((unsigned char)p[n]) || p[n] == '.')
		n++;
	snprintf(buf, len, "%.*s", (int)n, p);
}
