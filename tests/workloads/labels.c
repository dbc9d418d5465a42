// SPDX-License-Identifier: MIT
/*
 * labels N: call label_code and marked N times each.
 *
 * label_code is a label of assembly: no .type and no .size, so its
 * symbol is STT_NOTYPE, as in much hand-written code (ld.so's _start and
 * _dl_start_user). perf names code after such labels in text sections,
 * and so does hpmon.
 *
 * marked is a C function with a global label in its body (label_inside):
 * a label inside a function with a size does not cut it, and every
 * address of marked is named marked.
 */
#include <stdio.h>
#include <stdlib.h>

#if defined(__clang__)
#define HPM_NOIPA __attribute__((noinline, used))
#else
#define HPM_NOIPA __attribute__((noipa, used))
#endif

/* "ret" on x86-64 and AArch64 alike */
__asm__(".text\n"
	".globl label_code\n"
	"label_code:\n"
	"\tret\n");
void label_code(void);

volatile unsigned long sink;

HPM_NOIPA void marked(unsigned long i)
{
	sink += i;
	__asm__ volatile(".globl label_inside\nlabel_inside:");
	sink ^= i;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
	for (long i = 0; i < n; i++) {
		label_code();
		marked((unsigned long)i);
	}
	printf("%lu\n", sink);
	return 0;
}
