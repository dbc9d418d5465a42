// SPDX-License-Identifier: MIT
/*
 * A host whose hardware breakpoints never fire, for the tests: preloaded
 * (LD_PRELOAD) into hpmon, or into perf, it moves every breakpoint that
 * perf_event_open is asked for to an address no program executes or
 * touches. The breakpoint still opens, and counts 0, as on the
 * paravirtualised guests where breakpoints open but never fire. Everything
 * else goes to the kernel unchanged.
 *
 * Both tools make the system call through libc's syscall(), which this
 * replaces.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <string.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

/* Below every mapping of a normal process (mmap_min_addr is 64 KiB), and
 * aligned for any breakpoint length. */
#define NOWHERE 0x10000ull

long syscall(long nr, ...);

long syscall(long nr, ...)
{
	static long (*real)(long, ...);
	va_list ap;
	long a[6];

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	if (nr == SYS_perf_event_open && a[0]) {
		struct perf_event_attr attr;
		const struct perf_event_attr *in = (const void *)a[0];
		size_t sz = in->size && in->size < sizeof(attr) ? in->size : sizeof(attr);
		memset(&attr, 0, sizeof(attr));
		memcpy(&attr, in, sz);
		if (attr.type == PERF_TYPE_BREAKPOINT) {
			attr.bp_addr = NOWHERE;
			return real(nr, &attr, a[1], a[2], a[3], a[4]);
		}
	}
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
