/* SPDX-License-Identifier: MIT */
/*
 * What samples carry on this host, and what its vdso names
 * (sysinfo-internal.h), for the running process only: measured, because kernels differ. A guest's entry
 * path may leave no kernel frame a call chain can show, a kernel may be
 * built without user-stack copies, and a vdso may be stripped of its
 * symbol table (perf then names none of its functions either).
 */
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "sys/perf.h"
#include "sys/ring.h"
#include "sysinfo/sysinfo-internal.h"

#define PROBE_STACK 512          /* bytes of user stack asked for */
#define PROBE_CPU_NS 30000000ll  /* of the thread's CPU time, at most */

#if defined(__x86_64__)
#define PROBE_REGS ((1ull << 6) | (1ull << 7) | (1ull << 8)) /* bp, sp, ip */
#elif defined(__aarch64__)
#define PROBE_REGS ((1ull << 29) | (1ull << 31) | (1ull << 32)) /* fp, sp, pc */
#else
#define PROBE_REGS 0ull
#endif

static long long thread_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (long long)t.tv_sec * 1000000000ll + t.tv_nsec;
}

/* One sample's call chain and user stack: what they hold. The record is
 * the kernel's and is checked against its own size. */
static void look(const struct perf_event_header *h, bool *kernel, bool *stack)
{
	const uint64_t *p = (const uint64_t *)(h + 1);
	const uint64_t *end = (const uint64_t *)((const char *)h + h->size);

	if (h->type != PERF_RECORD_SAMPLE || p + 2 > end)
		return;
	p++; /* ip */
	uint64_t nr = *p++;
	if (nr > (uint64_t)(end - p))
		return;
	for (uint64_t i = 0; i + 1 < nr; i++)
		if (p[i] == (uint64_t)PERF_CONTEXT_KERNEL && p[i + 1] < (uint64_t)PERF_CONTEXT_MAX)
			*kernel = true;
	p += nr;
	if (p >= end)
		return;
	uint64_t abi = *p++;
	if (abi != PERF_SAMPLE_REGS_ABI_NONE)
		p += __builtin_popcountll(PROBE_REGS);
	if (p >= end)
		return;
	uint64_t size = *p++;
	if (size > (uint64_t)((const char *)end - (const char *)p) - sizeof(uint64_t))
		return;
	p += size / sizeof(uint64_t);
	if (size && p < end && *p > 0) /* dyn_size: the bytes really copied */
		*stack = true;
}

void hpm__si_probe_samples(struct hpm_sysinfo *si)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK,
		.sample_period = 1000000, .disabled = 1, .exclude_hv = 1,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
			       PERF_SAMPLE_STACK_USER,
		.sample_regs_user = PROBE_REGS, .sample_stack_user = PROBE_STACK,
		.exclude_kernel = !si->allow_kernel, .exclude_callchain_kernel = !si->allow_kernel,
	};
	struct hpm_ring ring = { 0 };
	long page = sysconf(_SC_PAGESIZE);
	bool kernel = false, stack = false;
	unsigned char *scratch = malloc(HPM_RING_RECORD_MAX);

	si->stack_user = si->kernel_chains = HPM_UNKNOWN;
	int fd = scratch ? hpm__sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC)
			 : -ENOMEM;
	if (fd < 0) {
		si->samples_err = fd;
		free(scratch);
		return;
	}
	int rc = hpm_ring__map(&ring, fd, (size_t)page, 8 * (size_t)page);
	if (rc) {
		si->samples_err = rc;
		close(fd);
		free(scratch);
		return;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	/* in the kernel and out of it, for the samples to find both */
	for (long long t0 = thread_ns(); thread_ns() - t0 < PROBE_CPU_NS;)
		for (int i = 0; i < 200; i++)
			(void)getppid();
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	hpm_ring__read_init(&ring);
	const struct perf_event_header *h;
	unsigned n = 0;
	while (hpm_ring__next(&ring, scratch, HPM_RING_RECORD_MAX, &h) == 0) {
		n += h->type == PERF_RECORD_SAMPLE;
		look(h, &kernel, &stack);
		hpm_ring__consume(&ring);
	}
	hpm_ring__read_done(&ring);
	hpm_ring__unmap(&ring);
	close(fd);
	free(scratch);
	if (!n) {
		si->samples_err = -ENODATA;
		return;
	}
	si->stack_user = stack ? HPM_YES : HPM_NO;
	/* not asked for where the caller may not see the kernel */
	si->kernel_chains = !si->allow_kernel ? HPM_UNKNOWN : kernel ? HPM_YES : HPM_NO;
}

/* The size of this process's [vdso] mapping, or 0. */
static uint64_t vdso_size(uintptr_t base)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	uint64_t size = 0;

	while (f && !size && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2 &&
		    lo == base && hi > lo)
			size = hi - lo;
	}
	if (f)
		fclose(f);
	return size;
}

/* The vdso is mapped whole, section headers included, in every process:
 * count its function symbols, each table checked against the mapping's
 * size. */
void hpm__si_read_vdso(struct hpm_sysinfo *si)
{
	const unsigned char *base = (const void *)getauxval(AT_SYSINFO_EHDR);
	si->vdso_functions = UNKNOWN;
	uint64_t size = base ? vdso_size((uintptr_t)base) : 0;
	if (size < sizeof(Elf64_Ehdr) || memcmp(base, ELFMAG, SELFMAG) ||
	    base[EI_CLASS] != ELFCLASS64)
		return;
	const Elf64_Ehdr *eh = (const void *)base;
	if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shnum > 256 ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > size)
		return;
	const Elf64_Shdr *sh = (const void *)(base + eh->e_shoff);
	int n = 0;
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		if ((sh[i].sh_type != SHT_DYNSYM && sh[i].sh_type != SHT_SYMTAB) ||
		    sh[i].sh_entsize != sizeof(Elf64_Sym) || sh[i].sh_offset + sh[i].sh_size > size)
			continue;
		const Elf64_Sym *sym = (const void *)(base + sh[i].sh_offset);
		for (uint64_t k = 0; k < sh[i].sh_size / sizeof(Elf64_Sym); k++)
			n += ELF64_ST_TYPE(sym[k].st_info) == STT_FUNC && sym[k].st_shndx != SHN_UNDEF;
	}
	si->vdso_functions = n;
}
