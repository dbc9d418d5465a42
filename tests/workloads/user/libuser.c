// SPDX-License-Identifier: MIT
/* A shared library for location events in libraries (README.md). */
#if defined(__clang__)
#define HPM_NOIPA __attribute__((noinline, used))
#else
#define HPM_NOIPA __attribute__((noipa, used))
#endif

void lib_work(unsigned long i);
volatile unsigned long lib_sink;

HPM_NOIPA void lib_work(unsigned long i)
{
	lib_sink += i;
}
