/* SPDX-License-Identifier: MIT */
/*
 * DWARF unwinding of copied user stacks (include/hpmon/unwind.h) with
 * libdwfl: the process's files are reported at their load addresses, and
 * the "thread" libdwfl unwinds is the sample: its registers are the
 * sampled ones, and its memory is the copied stack.
 */
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <hpmon/unwind.h>

struct hpm_unwinder {
	Dwfl *dwfl;
	Dwfl_Callbacks cb;
	char *debuginfo_path;
	pid_t pid;
	bool attached;
	const struct hpm_sample *s;  /* the sample being unwound */
	uint64_t sp;
	uint64_t *ips;
	size_t nr, max;
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct hpm_unwinder *u = arg;
	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = u;
	return u->s ? u->s->tid : 0;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = arg;
	return true;
}

/* Stack words come from the copy; anything else is not known. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct hpm_unwinder *u = arg;
	(void)dwfl;
	if (addr < u->sp || addr - u->sp + sizeof(*result) > u->s->stack_len)
		return false;
	memcpy(result, u->s->stack + (addr - u->sp), sizeof(*result));
	return true;
}

/* perf's register order (the bits of sample_regs_user, lowest first) in
 * DWARF numbering. */
static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct hpm_unwinder *u = arg;
	const uint64_t *r = u->s->regs;
#if defined(__x86_64__)
	/* ax bx cx dx si di bp sp ip r8..r15 -> DWARF 0 ax 1 dx 2 cx 3 bx
	 * 4 si 5 di 6 bp 7 sp 8..15 r8..r15 16 ip */
	if (u->s->nr_regs < 17)
		return false;
	Dwarf_Word dw[17] = { r[0], r[3], r[2], r[1], r[4], r[5], r[6], r[7],
			      r[9], r[10], r[11], r[12], r[13], r[14], r[15], r[16], r[8] };
	return dwfl_thread_state_registers(thread, 0, 17, dw);
#elif defined(__aarch64__)
	/* x0..x30 sp pc; DWARF 0..30 x, 31 sp; the pc apart */
	if (u->s->nr_regs < 33)
		return false;
	Dwarf_Word dw[32];
	for (int i = 0; i < 32; i++)
		dw[i] = r[i];
	if (!dwfl_thread_state_registers(thread, 0, 32, dw))
		return false;
	dwfl_thread_state_register_pc(thread, r[32]);
	return true;
#else
	(void)r;
	(void)thread;
	return false;
#endif
}

static const Dwfl_Thread_Callbacks thread_cb = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

struct hpm_unwinder *hpm_unwinder__new(pid_t pid, const struct hpm_unwind_map *maps,
				       size_t nr_maps)
{
#if !defined(__x86_64__) && !defined(__aarch64__)
	errno = ENOTSUP;
	return NULL;
#endif
	struct hpm_unwinder *u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	u->pid = pid;
	u->debuginfo_path = strdup("+:.debug:/usr/lib/debug");
	u->cb.find_elf = dwfl_build_id_find_elf;
	u->cb.find_debuginfo = dwfl_standard_find_debuginfo;
	u->cb.debuginfo_path = &u->debuginfo_path;
	u->dwfl = u->debuginfo_path ? dwfl_begin(&u->cb) : NULL;
	if (!u->dwfl) {
		hpm_unwinder__free(u);
		errno = ENOMEM;
		return NULL;
	}
	dwfl_report_begin(u->dwfl);
	for (size_t i = 0; i < nr_maps; i++) {
		bool seen = false;
		for (size_t k = 0; k < i && !seen; k++)
			seen = !strcmp(maps[k].path, maps[i].path);
		/* the load address: where file offset 0 would be (text
		 * segments have p_vaddr == p_offset modulo the page) */
		if (!seen && maps[i].path[0] == '/')
			dwfl_report_elf(u->dwfl, maps[i].path, maps[i].path, -1,
					maps[i].start - maps[i].pgoff, false);
	}
	dwfl_report_end(u->dwfl, NULL, NULL);
	return u;
}

void hpm_unwinder__free(struct hpm_unwinder *u)
{
	if (!u)
		return;
	if (u->dwfl)
		dwfl_end(u->dwfl);
	free(u->debuginfo_path);
	free(u);
}

static int on_frame(Dwfl_Frame *state, void *arg)
{
	struct hpm_unwinder *u = arg;
	Dwarf_Addr pc;
	bool activation;
	if (!dwfl_frame_pc(state, &pc, &activation) || u->nr >= u->max)
		return DWARF_CB_ABORT;
	if (u->nr && (!pc || pc == u->ips[u->nr - 1]))
		return DWARF_CB_ABORT;
	u->ips[u->nr++] = pc;
	return DWARF_CB_OK;
}

int hpm_unwinder__unwind(struct hpm_unwinder *u, const struct hpm_sample *s,
			 uint64_t *ips, size_t max)
{
	if (!s->nr_regs || !s->regs || !s->stack_len || !max)
		return -EINVAL;
#if defined(__x86_64__)
	if (s->nr_regs < 17)
		return -EINVAL;
	u->sp = s->regs[7];
#elif defined(__aarch64__)
	if (s->nr_regs < 33)
		return -EINVAL;
	u->sp = s->regs[31];
#endif
	u->s = s;
	u->ips = ips;
	u->max = max;
	u->nr = 0;
	if (!u->attached) {
		if (!dwfl_attach_state(u->dwfl, NULL, u->pid, &thread_cb, u))
			return -ENOTSUP;
		u->attached = true;
	}
	dwfl_getthread_frames(u->dwfl, s->tid, on_frame, u);
	if (!u->nr) {
		ips[0] = s->ip;
		u->nr = 1;
	}
	return (int)u->nr;
}
