// SPDX-License-Identifier: MIT
/*
 * calltree N: a known call tree, with frame pointers kept so that the
 * kernel can walk the stack (the workloads build at -O1, which drops them
 * on x86_64 otherwise):
 *
 *   main -> tree_a -> tree_b   (2 units)
 *                  -> tree_c   (1 unit)
 *           tree_a itself      (1 unit)
 *   main -> tree_d             (2 units)
 *
 * Of 6 units: inclusive tree_a 4/6, tree_b 2/6, tree_c 1/6, tree_d 2/6;
 * self tree_a 1/6. A unit is N iterations of the same loop.
 */
#pragma GCC optimize("no-omit-frame-pointer")
#include <stdlib.h>

#include "spin.h"

volatile unsigned long sink;

/* Leaf functions get no frame of their own even with frame pointers on,
 * so a walk from a sample in one would skip its caller: each worker calls
 * this empty function after its loop, which makes it no leaf. */
__attribute__((noinline, used)) void tree_end(void) { __asm__ volatile("" ::: "memory"); }

__attribute__((noinline, used)) void tree_b(unsigned long n) { SPIN(2 * n); tree_end(); }
__attribute__((noinline, used)) void tree_c(unsigned long n) { SPIN(n); tree_end(); }
__attribute__((noinline, used)) void tree_d(unsigned long n) { SPIN(2 * n); tree_end(); }

__attribute__((noinline, used)) void tree_a(unsigned long n)
{
	tree_b(n);
	SPIN(n);
	tree_c(n);
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 5000000;
	for (int r = 0; r < 10; r++) {
		tree_a(n / 10);
		tree_d(n / 10);
	}
	return 0;
}
