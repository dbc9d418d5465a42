/* SPDX-License-Identifier: MIT */
/*
 * liblzma for libdw's archive, loaded at its first use. libdwfl decodes
 * xz-compressed ELF files (kernel modules *.ko.xz, an object given
 * compressed) with three calls of liblzma, defined here. Linking liblzma's
 * archive instead brought its CRC64 constructor into every hpmon start:
 * it asks the CPU for carry-less multiplication with cpuid, which costs
 * 11-12 us on a virtual machine (an exit to the hypervisor), for a decoder
 * that no command needs to start (bench/startup.sh). The first call loads
 * the shared library of the liblzma hpmon was built with (its soname,
 * HPM_LZMA_SONAME); without it, decoding fails as for a corrupt file, and
 * libdwfl says "LZMA decompression failed". Built only where the tool
 * links the profiling libraries from their archives (tools/hpmon/CMakeLists.txt).
 */
#include <dlfcn.h>
#include <lzma.h>
#include <pthread.h>
#include <stddef.h>

#ifndef HPM_LZMA_SONAME
#error "HPM_LZMA_SONAME must name liblzma's shared object"
#endif

static struct {
	lzma_ret (*auto_decoder)(lzma_stream *strm, uint64_t memlimit, uint32_t flags);
	lzma_ret (*code)(lzma_stream *strm, lzma_action action);
	void (*end)(lzma_stream *strm);
} lz;
static pthread_once_t lz_once = PTHREAD_ONCE_INIT;

/* Once, from whichever thread decodes first: all three, or none. */
static void lz_load(void)
{
	void *h = dlopen(HPM_LZMA_SONAME, RTLD_NOW | RTLD_LOCAL);
	void *f[3];

	if (!h)
		return;
	f[0] = dlsym(h, "lzma_auto_decoder");
	f[1] = dlsym(h, "lzma_code");
	f[2] = dlsym(h, "lzma_end");
	if (!f[0] || !f[1] || !f[2]) {
		dlclose(h);
		return;
	}
	/* object pointers to function pointers, as dlsym(3) shows */
	*(void **)&lz.auto_decoder = f[0];
	*(void **)&lz.code = f[1];
	*(void **)&lz.end = f[2];
}

lzma_ret lzma_auto_decoder(lzma_stream *strm, uint64_t memlimit, uint32_t flags)
{
	pthread_once(&lz_once, lz_load);
	return lz.auto_decoder ? lz.auto_decoder(strm, memlimit, flags) : LZMA_PROG_ERROR;
}

lzma_ret lzma_code(lzma_stream *strm, lzma_action action)
{
	pthread_once(&lz_once, lz_load);
	return lz.code ? lz.code(strm, action) : LZMA_PROG_ERROR;
}

void lzma_end(lzma_stream *strm)
{
	pthread_once(&lz_once, lz_load);
	if (lz.end)
		lz.end(strm);
}
