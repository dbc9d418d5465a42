/* SPDX-License-Identifier: MIT */
/*
 * The microbenchmarks of hpmon validate. Where a count must be exact, the
 * loop is inline assembly, so that the compiler can neither add nor drop
 * an instruction: the answer per iteration is then read off the source.
 * Where it is statistical (cache and TLB misses, mispredictions), the
 * benchmark is built so that the answer is known to a stated tolerance:
 * a pointer chase in random order over a buffer several times the cache,
 * a branch on random bits.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <limits.h>
#include <stdio.h>

#include <hpmon/hpmon.h>

#include "validate/validate.h"

#define LINE 64
#define PAGE 4096
#define TLB_PAGES 16384   /* 64 MiB: beyond the second-level TLB's reach of
			     every core we know (2048 entries: 8 MiB) */

/* ---- the exact loops ---- */

#if defined(__x86_64__)
/* 8 instructions, 1 conditional branch (taken but on the last), a chain
 * of 6 dependent adds (6 cycles of latency). */
static void k_loop(uint64_t n)
{
	__asm__ volatile("1:\n\t"
			 "add $1, %%rax\n\tadd $1, %%rax\n\tadd $1, %%rax\n\t"
			 "add $1, %%rax\n\tadd $1, %%rax\n\tadd $1, %%rax\n\t"
			 "dec %0\n\t"
			 "jnz 1b\n\t"
			 : "+r"(n)
			 :
			 : "rax", "cc");
}

/* 5 instructions: 2 loads, 1 store, 1 branch. */
static void k_mem(uint64_t n, void *p)
{
	__asm__ volatile("1:\n\t"
			 "mov (%1), %%rax\n\t"
			 "mov 8(%1), %%rdx\n\t"
			 "mov %%rax, 16(%1)\n\t"
			 "dec %0\n\t"
			 "jnz 1b\n\t"
			 : "+r"(n)
			 : "r"(p)
			 : "rax", "rdx", "cc", "memory");
}

/* 4 scalar double-precision additions. */
static void k_fp(uint64_t n)
{
	__asm__ volatile("xorpd %%xmm0, %%xmm0\n\t"
			 "xorpd %%xmm1, %%xmm1\n\t"
			 "1:\n\t"
			 "addsd %%xmm1, %%xmm0\n\taddsd %%xmm1, %%xmm0\n\t"
			 "addsd %%xmm1, %%xmm0\n\taddsd %%xmm1, %%xmm0\n\t"
			 "dec %0\n\t"
			 "jnz 1b\n\t"
			 : "+r"(n)
			 :
			 : "xmm0", "xmm1", "cc");
}

/* Per byte: a conditional branch on its low bit, and the loop's own. */
static void k_branch(uint64_t n, const uint8_t *p)
{
	__asm__ volatile("1:\n\t"
			 "movzbl (%1), %%eax\n\t"
			 "test $1, %%al\n\t"
			 "jz 2f\n\t"
			 "nop\n\t"
			 "2:\n\t"
			 "inc %1\n\t"
			 "dec %0\n\t"
			 "jnz 1b\n\t"
			 : "+r"(n), "+r"(p)
			 :
			 : "rax", "cc", "memory");
}
#define HAVE_KERNELS 1
#elif defined(__aarch64__)
static void k_loop(uint64_t n)
{
	__asm__ volatile("1:\n\t"
			 "add x9, x9, #1\n\tadd x9, x9, #1\n\tadd x9, x9, #1\n\t"
			 "add x9, x9, #1\n\tadd x9, x9, #1\n\tadd x9, x9, #1\n\t"
			 "subs %0, %0, #1\n\t"
			 "b.ne 1b\n\t"
			 : "+r"(n)
			 :
			 : "x9", "cc");
}

static void k_mem(uint64_t n, void *p)
{
	__asm__ volatile("1:\n\t"
			 "ldr x9, [%1]\n\t"
			 "ldr x10, [%1, #8]\n\t"
			 "str x9, [%1, #16]\n\t"
			 "subs %0, %0, #1\n\t"
			 "b.ne 1b\n\t"
			 : "+r"(n)
			 : "r"(p)
			 : "x9", "x10", "cc", "memory");
}

static void k_fp(uint64_t n)
{
	__asm__ volatile("movi d0, #0\n\t"
			 "movi d1, #0\n\t"
			 "1:\n\t"
			 "fadd d0, d0, d1\n\tfadd d0, d0, d1\n\t"
			 "fadd d0, d0, d1\n\tfadd d0, d0, d1\n\t"
			 "subs %0, %0, #1\n\t"
			 "b.ne 1b\n\t"
			 : "+r"(n)
			 :
			 : "v0", "v1", "cc");
}

static void k_branch(uint64_t n, const uint8_t *p)
{
	__asm__ volatile("1:\n\t"
			 "ldrb w9, [%1], #1\n\t"
			 "tbz w9, #0, 2f\n\t"
			 "nop\n\t"
			 "2:\n\t"
			 "subs %0, %0, #1\n\t"
			 "b.ne 1b\n\t"
			 : "+r"(n), "+r"(p)
			 :
			 : "x9", "cc", "memory");
}
#define HAVE_KERNELS 1
#else
#define HAVE_KERNELS 0
#endif

const char *vbench__arch_missing(void)
{
	return HAVE_KERNELS ? NULL
			    : "the exact loops are written for x86-64 and AArch64 only";
}

#if HAVE_KERNELS
static void run_loop(struct vstate *st, uint64_t n)
{
	(void)st;
	k_loop(n);
}

static void run_fp(struct vstate *st, uint64_t n)
{
	(void)st;
	k_fp(n);
}

static void run_mem(struct vstate *st, uint64_t n)
{
	k_mem(n, st->buf);
}

static void run_branch(struct vstate *st, uint64_t n)
{
	k_branch(n, st->buf);
}
#endif

/* ---- memory ---- */

static int map(struct vstate *st, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	/* 4 KiB pages: a transparent huge page would change both the TLB
	 * answer and the page-fault one */
	(void)madvise(p, len, MADV_NOHUGEPAGE);
	st->buf = p;
	st->len = len;
	return 0;
}

static void unmap(struct vstate *st)
{
	if (st->buf)
		munmap(st->buf, st->len);
	st->buf = NULL;
	st->len = 0;
}

static int setup_small(struct vstate *st, uint64_t units, size_t cache)
{
	(void)units;
	(void)cache;
	return map(st, PAGE);
}

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static int setup_random_bits(struct vstate *st, uint64_t units, size_t cache)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	(void)cache;
	int rc = map(st, (size_t)units + 1);
	if (rc)
		return rc;
	uint8_t *b = st->buf;
	for (uint64_t i = 0; i < units; i++)
		b[i] = (uint8_t)(xorshift(&seed) >> 32);
	return 0;
}

static int setup_fixed_bits(struct vstate *st, uint64_t units, size_t cache)
{
	(void)cache;
	return map(st, (size_t)units + 1); /* zeros: the branch is always taken */
}

/* A single random cycle (Sattolo's shuffle) through @n slots of @stride
 * bytes, each holding the address of the next: a chase whose next address
 * no prefetcher can guess. Slot i sits at i * stride + off(i). */
static int chain(struct vstate *st, size_t n, size_t stride, bool vary_line)
{
	uint64_t seed = 0x2545f4914f6cdd1dull;
	size_t *order = malloc(n * sizeof(*order));
	if (!order)
		return -ENOMEM;
	int rc = map(st, n * stride);
	if (rc) {
		free(order);
		return rc;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)(xorshift(&seed) % i);
		size_t t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	char *base = st->buf;
#define SLOT(i) (base + (i) * stride + (vary_line ? ((i) * LINE) % PAGE : 0))
	for (size_t i = 0; i < n; i++)
		*(void **)SLOT(order[i]) = SLOT(order[(i + 1) % n]);
	st->start = SLOT(order[0]);
#undef SLOT
	free(order);
	return 0;
}

/* A buffer of 8 times the cache level's size (4 times the last level's,
 * at most 512 MiB), so that nearly every hop misses it. */
static int setup_chase(struct vstate *st, uint64_t units, size_t cache)
{
	(void)units;
	size_t len = cache * 8;
	if (cache >= 4u << 20)
		len = cache * 4;
	if (len > 512u << 20)
		len = 512u << 20;
	return chain(st, len / LINE, LINE, false);
}

static int setup_tlb(struct vstate *st, uint64_t units, size_t cache)
{
	(void)units;
	(void)cache;
	return chain(st, TLB_PAGES, PAGE, true);
}

static void *volatile chase_sink;

int vchase__setup(struct vstate *st, size_t slots, size_t stride, bool vary_line)
{
	return chain(st, slots, stride, vary_line);
}

void vchase__free(struct vstate *st)
{
	unmap(st);
}

static void run_chase(struct vstate *st, uint64_t n)
{
	void *p = st->start;
	for (uint64_t i = 0; i < n; i++)
		p = *(void *volatile *)p;
	chase_sink = p;
}

void vchase__run(struct vstate *st, uint64_t n)
{
	run_chase(st, n);
}

/* ---- the software side ---- */

/* Fresh anonymous pages, each touched once: one page fault each. Not
 * instrumented by AddressSanitizer, whose shadow pages would fault too. */
__attribute__((no_sanitize("address"))) static void run_faults(struct vstate *st, uint64_t n)
{
	(void)st;
	size_t len = (size_t)n * PAGE;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return;
	(void)madvise(p, len, MADV_NOHUGEPAGE);
	for (uint64_t i = 0; i < n; i++)
		((volatile char *)p)[i * PAGE] = 1;
	munmap(p, len);
}

/* The thread's switches as the kernel counts them in rusage: voluntary
 * and involuntary. */
static long switches(void)
{
	struct rusage ru;
	return getrusage(RUSAGE_THREAD, &ru) ? 0 : ru.ru_nvcsw + ru.ru_nivcsw;
}

/* Sleeps of 1 us: each blocks (the timer slack alone is 50 us) and so
 * switches once; a busy machine also preempts the thread, and a sleep
 * may block more than once. The answer is the kernel's own count of the
 * thread's switches (rusage), which the perf event must equal. */
static void run_sleeps(struct vstate *st, uint64_t n)
{
	const struct timespec ts = { 0, 1000 };
	long before = switches();
	for (uint64_t i = 0; i < n; i++)
		nanosleep(&ts, NULL);
	long d = switches() - before;
	st->extra = d > 0 ? (uint64_t)d : 0;
}

/* The function whose calls a breakpoint counts. */
__attribute__((noinline, used)) void hpm_validate_target(void)
{
	__asm__ volatile("" ::: "memory");
}

static void (*volatile target_fn)(void) = hpm_validate_target;

static void run_calls(struct vstate *st, uint64_t n)
{
	(void)st;
	for (uint64_t i = 0; i < n; i++)
		target_fn();
}

static const struct vbench benches[] = {
#if HAVE_KERNELS
	{ "loop", "iteration", 4000000, 1000000, 0, NULL, run_loop, NULL },
	{ "mem", "iteration", 2000000, 500000, 0, setup_small, run_mem, unmap },
	{ "fp", "iteration", 2000000, 500000, 0, NULL, run_fp, NULL },
	{ "branch-random", "iteration", 2000000, 500000, 0, setup_random_bits, run_branch, unmap },
	{ "branch-fixed", "iteration", 2000000, 500000, 0, setup_fixed_bits, run_branch, unmap },
#endif
	{ "chase-l1", "hop", 1000000, 200000, 1, setup_chase, run_chase, unmap },
	{ "chase-l2", "hop", 1000000, 200000, 2, setup_chase, run_chase, unmap },
	{ "chase-llc", "hop", 400000, 100000, 3, setup_chase, run_chase, unmap },
	{ "tlb", "hop", 1000000, 200000, 0, setup_tlb, run_chase, unmap },
	{ "faults", "page", 4000, 1000, 0, NULL, run_faults, NULL },
	{ "sleeps", "sleep", 400, 100, 0, NULL, run_sleeps, NULL },
	{ "calls", "call", 20000, 5000, 0, NULL, run_calls, NULL },
};

const struct vbench *vbench__find(const char *name)
{
	for (size_t i = 0; i < sizeof(benches) / sizeof(benches[0]); i++)
		if (!strcmp(benches[i].name, name))
			return &benches[i];
	return NULL;
}

/* ---- cache sizes ---- */

static size_t read_size(const char *path)
{
	char buf[32], *end;
	FILE *f = fopen(path, "re");
	size_t v = 0;
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f)) {
		unsigned long long n = strtoull(buf, &end, 10);
		if (end != buf) {
			v = (size_t)n;
			if (*end == 'K')
				v <<= 10;
			else if (*end == 'M')
				v <<= 20;
		}
	}
	fclose(f);
	return v;
}

static int read_level(const char *dir, char *type, size_t tlen)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/type", dir);
	FILE *f = fopen(path, "re");
	type[0] = '\0';
	if (f) {
		if (!fgets(type, (int)tlen, f))
			type[0] = '\0';
		fclose(f);
	}
	snprintf(path, sizeof(path), "%s/level", dir);
	return (int)read_size(path);
}

void vcache__sizes(struct hpm_ctx *ctx, size_t size[4])
{
	const char *root = hpm_ctx__sysfs_root(ctx);
	int last = 0;

	memset(size, 0, 4 * sizeof(size[0]));
	for (int i = 0; i < 8; i++) {
		char dir[PATH_MAX], path[PATH_MAX], type[32];
		snprintf(dir, sizeof(dir), "%s/devices/system/cpu/cpu0/cache/index%d",
			 root ? root : "/sys", i);
		int level = read_level(dir, type, sizeof(type));
		if (level < 1 || level > 3 || !strncmp(type, "Instruction", 11))
			continue;
		snprintf(path, sizeof(path), "%s/size", dir);
		size[level] = read_size(path);
		if (size[level] && level > last)
			last = level;
	}
	if (!size[1])
		size[1] = 32u << 10;
	if (!size[2])
		size[2] = 1u << 20;
	if (last < 3)
		size[3] = last == 2 ? size[2] : (size_t)32 << 20;
}
