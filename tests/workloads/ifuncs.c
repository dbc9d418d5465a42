// SPDX-License-Identifier: MIT
/*
 * ifuncs N: call pick() N times. pick is an IFUNC of this program: the
 * dynamic loader runs its resolver once and writes what it returns into
 * a GOT slot through an IRELATIVE relocation, which names no symbol; the
 * calls go through a PLT stub that jumps through that slot. perf shows
 * such a stub as "*ABS*+0x...@plt"; hpmon names it after the IFUNC
 * (pick@plt), whose symbol's value is the resolver's address, the
 * relocation's addend.
 */
#include <stdio.h>
#include <stdlib.h>

volatile unsigned long sink;

static void pick_impl(unsigned long i)
{
	sink += i;
}

static void (*resolve_pick(void))(unsigned long)
{
	return pick_impl;
}

void pick(unsigned long i) __attribute__((ifunc("resolve_pick")));

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
	for (long i = 0; i < n; i++)
		pick((unsigned long)i);
	printf("%lu\n", sink);
	return 0;
}
